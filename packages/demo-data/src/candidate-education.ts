import type { CandidateCertificationDoc, CandidateEducationDoc, EducationType } from 'candidate-documents';
import type { PlannedOccupation } from './candidate-occupations';
import type { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { DAY_MS, isoDate } from './values';
import { courseName } from './courses';
import { GROUP_MAJORS, INSTITUTION_PATTERNS, type OccupationGroup } from './vocabulary';

/** The highest education level, by how skilled the main occupation's group is. */
export function pickEducationLevel(
  rng: DemoRandom,
  reference: DemoReference,
  group: OccupationGroup,
): { level: number; educationType: EducationType | null } {
  const levels = reference.educationLevels;
  const professional = group === 'health' || group === 'it' || group === 'engineering' || group === 'education';
  const wanted: readonly (EducationType | null)[] = professional
    ? rng.weighted<readonly EducationType[]>([
        { value: ['BACHELOR'], weight: 65 },
        { value: ['MASTERS'], weight: 25 },
        { value: ['DOCTORAL'], weight: 5 },
        { value: ['ASSOCIATE'], weight: 5 },
      ])
    : rng.weighted<readonly (EducationType | null)[]>([
        { value: [null], weight: 40 },
        { value: ['VOCATIONAL'], weight: 35 },
        { value: ['ASSOCIATE'], weight: 10 },
        { value: ['BACHELOR'], weight: 15 },
      ]);
  let candidates = levels.filter((l) => wanted.includes(l.educationType));
  // Below tertiary: mostly upper or lower secondary, never "less than primary" for skilled workers.
  if (wanted.includes(null)) candidates = candidates.filter((l) => l.level >= 2);
  return candidates.length > 0 ? rng.pick(candidates) : rng.pick(levels);
}

/** The degrees that lead up to the highest level, in the major of the main occupation. */
export function makeEducations(
  rng: DemoRandom,
  reference: DemoReference,
  max: { level: number; educationType: EducationType | null },
  primary: PlannedOccupation,
  nationality: string,
  host: string,
  homeCity: string,
  hostCity: string | undefined,
  yearOfBirth: number,
  createdYear: number,
): CandidateEducationDoc[] {
  if (max.educationType === null) return [];
  const majors = reference.educationMajors;
  const groupMajors = GROUP_MAJORS[primary.group].filter((id) => majors.has(id));
  const majorId =
    primary.major !== undefined && majors.has(primary.major) && rng.chance(0.8)
      ? primary.major
      : groupMajors.length > 0
        ? rng.pick(groupMajors)
        : undefined;
  const entries: CandidateEducationDoc[] = [];
  const add = (educationType: EducationType, length: number, finishedAt: number): void => {
    const abroad = rng.chance(0.15) && hostCity !== undefined;
    const entry: CandidateEducationDoc = { educationType, countryIsoCode: abroad ? host : nationality };
    if (majorId !== undefined) entry.educationMajorId = majorId;
    entry.lengthOfCourseYears = length;
    const kind = educationType === 'VOCATIONAL' || educationType === 'ASSOCIATE' ? 'vocational' : 'tertiary';
    entry.institution = rng.pick(INSTITUTION_PATTERNS[kind]).replace('{city}', abroad ? hostCity : homeCity);
    if (majorId !== undefined) {
      // The occupation's own trade names vocational courses of its usual major ("Welding and Fabrication").
      const trade = majorId === primary.major ? primary.profession.vocationalCourse : undefined;
      entry.courseName = courseName(rng, educationType, majorId, trade) ?? majors.get(majorId);
    }
    const incomplete = rng.chance(0.08);
    if (!incomplete) entry.yearCompleted = Math.min(createdYear, finishedAt);
    entry.incomplete = incomplete;
    entries.push(entry);
  };
  const bachelorLength =
    primary.group === 'health' && (primary.major === 912 || primary.major === 911) ? 6 : rng.int(4, 5);
  const bachelorEnd = yearOfBirth + 18 + bachelorLength + rng.int(0, 3);
  switch (max.educationType) {
    case 'VOCATIONAL':
      add('VOCATIONAL', rng.int(1, 2), yearOfBirth + 19 + rng.int(0, 4));
      break;
    case 'ASSOCIATE':
      add('ASSOCIATE', 2, yearOfBirth + 20 + rng.int(0, 3));
      break;
    case 'BACHELOR':
      add('BACHELOR', bachelorLength, bachelorEnd);
      break;
    case 'MASTERS':
      add('BACHELOR', bachelorLength, bachelorEnd);
      add('MASTERS', 2, bachelorEnd + 2 + rng.int(0, 3));
      break;
    case 'DOCTORAL':
      add('BACHELOR', bachelorLength, bachelorEnd);
      add('MASTERS', 2, bachelorEnd + 2);
      add('DOCTORAL', rng.int(3, 5), bachelorEnd + 6 + rng.int(0, 3));
      break;
  }
  return entries;
}

/** None to three certifications of the main occupation. */
export function makeCertifications(
  rng: DemoRandom,
  primary: PlannedOccupation,
  created: number,
): CandidateCertificationDoc[] {
  const count = rng.weighted([
    { value: 0, weight: 45 },
    { value: 1, weight: 40 },
    { value: 2, weight: 12 },
    { value: 3, weight: 3 },
  ]);
  return rng.sample(primary.profession.certifications, count).map((c) => ({
    name: c.name,
    institution: c.institution,
    dateCompleted: isoDate(created - rng.int(30, 3650) * DAY_MS),
  }));
}
