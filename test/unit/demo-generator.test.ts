import { createHash } from 'node:crypto';
import { serialize } from 'bson';
import { CANDIDATE_STATUSES, type CandidateDoc } from 'candidate-documents';
import { isPublicId } from 'candidate-documents';
import { DemoGenerator, generateDemoData } from 'demo-data';
import {
  CANDIDATE_MESSAGES,
  CERTIFICATIONS,
  COMMON_OCCUPATIONS,
  HOST_CHALLENGES,
  JOB_DESCRIPTIONS,
  PROFESSIONS,
  SKILLS,
} from 'demo-data';
import { loadConfig } from '../../src/config';
import { parseSeedArgs, runSeedCli, UsageError } from '../../src/cli/seed';
import {
  countries,
  educationLevels,
  educationMajors,
  languageLevels,
  languages,
  occupations,
} from '../../src/reference/reference-data';
import { findIdentityData } from '../support/builders';
import { shippedDemoReference } from '../../src/app/demo-reference';

/** The codes the generator draws from: the reference data the service serves. */
const reference = shippedDemoReference();

/** Every field of CandidateDoc: the compiler fails here when the document type gains or loses one. */
const ALL_FIELDS: Record<keyof CandidateDoc, true> = {
  publicId: true,
  createdDate: true,
  status: true,
  registrarId: true,
  gender: true,
  yearOfBirth: true,
  city: true,
  countryIsoCode: true,
  birthCountryIsoCode: true,
  nationalityIsoCode: true,
  maritalStatus: true,
  candidateMessage: true,
  yearOfArrival: true,
  homeLocation: true,
  hostChallenges: true,
  hostEntryLegally: true,
  hostEntryYear: true,
  residenceStatus: true,
  mediaWillingness: true,
  howHeardAboutUs: true,
  contactConsentPlatformPartners: true,
  contactConsentRegistration: true,
  refugeeAgencyConsent: true,
  monitoringEvaluationConsent: true,
  availDate: true,
  availImmediate: true,
  availImmediateJobOps: true,
  availImmediateReason: true,
  arrestImprison: true,
  asylumYear: true,
  canDrive: true,
  conflict: true,
  crimeConvict: true,
  destLimit: true,
  drivingLicense: true,
  drivingLicenseCountryIsoCode: true,
  drivingLicenseExp: true,
  familyMove: true,
  healthIssues: true,
  covidVaccinated: true,
  covidVaccinatedDate: true,
  covidVaccineName: true,
  covidVaccinatedStatus: true,
  militaryService: true,
  militaryWanted: true,
  militaryStart: true,
  militaryEnd: true,
  intRecruitReasons: true,
  intRecruitRural: true,
  leftHomeReasons: true,
  returnedHome: true,
  returnHomeSafe: true,
  returnHomeFuture: true,
  resettleThird: true,
  visaIssues: true,
  visaReject: true,
  workAbroad: true,
  workPermit: true,
  workPermitDesired: true,
  fullIntakeCompletedDate: true,
  miniIntakeCompletedDate: true,
  englishAssessmentScoreIelts: true,
  ieltsScore: true,
  frenchAssessmentScoreNclc: true,
  refugeeAgencyRegistered: true,
  refugeeAgencyStatus: true,
  refugeeAgencyNotRegStatus: true,
  reliefAgencyRegistered: true,
  reliefAgencyNotRegStatus: true,
  numberDependants: true,
  partnerRegistered: true,
  partnerPublicId: true,
  partnerCitizenship: true,
  partnerEduLevel: true,
  partnerEnglish: true,
  partnerEnglishLevel: true,
  partnerIelts: true,
  partnerIeltsScore: true,
  partnerIeltsYr: true,
  partnerOccupationIsco08Code: true,
  maxEducationLevel: true,
  candidateCertifications: true,
  candidateCitizenships: true,
  candidateDestinations: true,
  candidateEducations: true,
  candidateExams: true,
  candidateLanguages: true,
  candidateOccupations: true,
  candidateSkills: true,
  candidateDependants: true,
  candidateVisaChecks: true,
};

/**
 * Fields that only apply to some candidates (a partner, a licence, military service, an exam…);
 * every other field must be set on most candidates.
 */
const CONDITIONAL_FIELDS = new Set<keyof CandidateDoc>([
  'registrarId',
  'availImmediateReason',
  'drivingLicenseCountryIsoCode',
  'drivingLicenseExp',
  'covidVaccinatedDate',
  'covidVaccineName',
  'militaryStart',
  'militaryEnd',
  'fullIntakeCompletedDate',
  'ieltsScore',
  'frenchAssessmentScoreNclc',
  'englishAssessmentScoreIelts',
  'partnerRegistered',
  'partnerPublicId',
  'partnerCitizenship',
  'partnerEduLevel',
  'partnerEnglish',
  'partnerEnglishLevel',
  'partnerIelts',
  'partnerIeltsScore',
  'partnerIeltsYr',
  'partnerOccupationIsco08Code',
]);

const bson = (doc: object): string => Buffer.from(serialize(doc)).toString('hex');

/** The professional text of a candidate, as the keyword search reads it: roles, descriptions, skills, certifications, courses. */
function professionalTexts(c: CandidateDoc): string[] {
  return [
    ...(c.candidateOccupations ?? []).flatMap((o) =>
      (o.candidateJobExperiences ?? []).flatMap((j) => [j.role ?? '', j.description ?? '']),
    ),
    ...(c.candidateSkills ?? []).map((s) => s.skill ?? ''),
    ...(c.candidateCertifications ?? []).map((x) => x.name),
    ...(c.candidateEducations ?? []).map((e) => e.courseName ?? ''),
  ];
}

/** Whether `text` holds `phrase` as whole words, case aside ("welding" in "MIG welding", not in "weldings"). */
function holdsWords(text: string, phrase: string): boolean {
  return new RegExp(`\\b${phrase}\\b`, 'i').test(text);
}

const CEFR = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'];
const cefrOf = (level: number | undefined): string | undefined =>
  languageLevels().find((l) => l.level === level)?.cefrLevel ?? undefined;
const numberOf = (score: string | undefined): number | undefined =>
  score !== undefined && /^\d+(\.\d+)?$/.test(score) ? Number(score) : undefined;

describe('demo data generator', () => {
  const data = generateDemoData({ candidates: 500, seed: 7, reference });

  it('when the same seed is generated twice, then the documents are byte-identical', () => {
    const first = generateDemoData({ candidates: 300, seed: 42, reference });

    const second = generateDemoData({ candidates: 300, seed: 42, reference });

    expect(second.candidates.map(bson)).toEqual(first.candidates.map(bson));
    expect(second.jobOpportunities.map(bson)).toEqual(first.jobOpportunities.map(bson));
    expect(second.savedLists.map(bson)).toEqual(first.savedLists.map(bson));
  });

  // The data of a seed is part of the product: the benchmark (seed 1 at 100k and 1M), the quick
  // start (seed 1 at 2,000) and every demo store depend on it (the REST golden test keeps its own
  // copy, test/fixtures/rest-golden-data.json). A deliberate change of the demo data updates these
  // hashes, and its commit says so.
  it.each([
    [0, 0, '902febadcd00e0da9759b42a96a1af5ff7931846d4a82a062a5fc38d4b760383'],
    [42, 1, '578cf381fed1975d97a7be5f04e29a9e24f874ae46fa9ca52de9732fcbfd0cfb'],
    [5, 2, 'f5de48c9dd81e27dbb3590ecebc3ef98f4ba5764bddb19c68d496ff75e8407ef'],
    [13, 160, '9898cf6d87ac121da3333888a00e25951466c8dc213d5f69ca4bd564bee6c22d'],
    [7, 500, '65ffbebca4ccc5eb5527a1ccdbde08b4c25fb87e00fe2c13d148217370a79110'],
    [4294967295, 333, '678a4f2b783be7e5a0977b8156dcd9c72735e0d9da3420db4047ba268d1e2868'],
  ])(
    'when seed %i is generated with %i candidates, then its ids and documents are byte for byte those it always gave',
    (seed, size, sha256) => {
      const generator = new DemoGenerator({ candidates: size, seed, reference });

      const hash = createHash('sha256');
      for (const id of generator.candidatePublicIds()) hash.update(id);
      for (const doc of generator.jobOpportunities()) hash.update(serialize(doc));
      for (const doc of generator.candidates()) hash.update(serialize(doc));
      for (const doc of generator.savedLists()) hash.update(serialize(doc));

      expect(hash.digest('hex')).toBe(sha256);
    },
  );

  it('when another seed is generated, then ids and contents differ', () => {
    const first = generateDemoData({ candidates: 100, seed: 1, reference });

    const second = generateDemoData({ candidates: 100, seed: 2, reference });

    const firstIds = new Set(first.candidates.map((c) => c.publicId));
    expect(second.candidates.some((c) => firstIds.has(c.publicId))).toBe(false);
    const strip = ({ publicId: _p, partnerPublicId: _q, ...rest }: CandidateDoc) => bson(rest);
    expect(second.candidates.map(strip)).not.toEqual(first.candidates.map(strip));
  });

  it('when a larger set is generated from the same seed, then it starts with the same candidates', () => {
    const small = generateDemoData({ candidates: 50, seed: 9, reference });

    const large = new DemoGenerator({ candidates: 400, seed: 9, reference });

    expect(large.candidatePublicIds().slice(0, 50)).toEqual(small.candidates.map((c) => c.publicId));
  });

  it('when candidates are generated, then their public ids are well-formed and unique', () => {
    const ids = data.candidates.map((c) => c.publicId);

    expect(ids.every(isPublicId)).toBe(true);
    expect(new Set(ids).size).toBe(500);
  });

  it('when 500 candidates are generated, then every status of the enum occurs, most ACTIVE or PENDING', () => {
    const statuses = data.candidates.map((c) => c.status);

    expect(new Set(statuses)).toEqual(new Set(CANDIDATE_STATUSES));
    const activeOrPending = statuses.filter((s) => s === 'ACTIVE' || s === 'PENDING').length;
    expect(activeOrPending).toBeGreaterThan(250);
  });

  it('when candidates are generated, then no field holds identity data', () => {
    const found = data.candidates.flatMap((candidate) => findIdentityData(candidate));

    expect(found).toEqual([]);
  });

  it('when the identity check meets identity data, then it reports it (the check can fail)', () => {
    const leaked = {
      ...data.candidates[0],
      candidateMessage: 'write to someone@example.org',
      phone: '+961 70 123 456',
    };

    expect(findIdentityData(leaked)).toHaveLength(3);
  });

  it('when candidates are generated, then their free texts are made only of the fixed phrases', () => {
    const sentences = (text: string | undefined) => (text ?? '').split(/(?<=\.)\s+/).filter(Boolean);
    const professions = Object.values(PROFESSIONS);
    const roles = new Set([
      ...professions.flatMap((p) => p.jobs.map((j) => j.role)),
      ...occupations().map((o) => o.name),
    ]);
    const lines = new Set([
      ...professions.flatMap((p) => [...p.jobs.flatMap((j) => j.lines), ...p.extras]),
      ...Object.values(JOB_DESCRIPTIONS).flat(),
    ]);
    const skills = new Set([...professions.flatMap((p) => p.skills), ...Object.values(SKILLS).flat()]);
    const certifications = new Set(
      [...professions.flatMap((p) => p.certifications), ...Object.values(CERTIFICATIONS).flat()].map(
        (c) => `${c.name} / ${c.institution}`,
      ),
    );
    const majors = new Set(educationMajors().map((m) => m.name));
    const course =
      /^((Vocational Diploma|Technical Certificate|Associate Diploma|Higher National Diploma|Bachelor of [A-Za-z ]+|Master of [A-Za-z ]+|PhD) in [A-Z][A-Za-z ()]+|(Bachelor|Doctor|Master) of [A-Za-z ,()]+)$/;

    for (const candidate of data.candidates) {
      expect(CANDIDATE_MESSAGES).toEqual(expect.arrayContaining(sentences(candidate.candidateMessage)));
      expect(HOST_CHALLENGES).toEqual(expect.arrayContaining(sentences(candidate.hostChallenges)));
      for (const job of (candidate.candidateOccupations ?? []).flatMap((o) => o.candidateJobExperiences ?? [])) {
        expect(roles).toContain(job.role);
        for (const sentence of sentences(job.description)) expect(lines).toContain(sentence);
      }
      for (const skill of candidate.candidateSkills ?? []) expect(skills).toContain(skill.skill);
      for (const c of candidate.candidateCertifications ?? [])
        expect(certifications).toContain(`${c.name} / ${c.institution}`);
      for (const education of candidate.candidateEducations ?? []) {
        if (!majors.has(education.courseName ?? '')) expect(education.courseName).toMatch(course);
      }
    }
  });

  it('when candidates of two occupations are generated, then each describes its own work in several ways', () => {
    const descriptionsOf = (code: string) =>
      new Set(
        data.candidates.flatMap((c) =>
          (c.candidateOccupations ?? [])
            .filter((o) => o.occupation?.isco08Code === code)
            .flatMap((o) => (o.candidateJobExperiences ?? []).map((j) => j.description ?? '')),
        ),
      );

    const nurses = descriptionsOf('2221');
    const welders = descriptionsOf('7212');

    expect(nurses.size).toBeGreaterThanOrEqual(5);
    expect(welders.size).toBeGreaterThanOrEqual(5);
    expect([...nurses].filter((d) => welders.has(d))).toEqual([]);
    expect([...nurses].some((d) => holdsWords(d, 'nurses?|patients?'))).toBe(true);
    expect([...welders].some((d) => holdsWords(d, 'welding|welded|welds'))).toBe(true);
  });

  it.each(['nurse', 'intensive care', 'welding', 'accounting', 'teacher', 'software', 'electrician', 'cook'])(
    'when candidates are generated, then the keyword "%s" is in the professional text of some of them',
    (keyword) => {
      const holders = data.candidates.filter((c) => professionalTexts(c).some((text) => holdsWords(text, keyword)));

      expect(holders.length).toBeGreaterThanOrEqual(3);
    },
  );

  it('when candidates are generated, then spoken and written levels span A1 to C2 and often differ, both ways', () => {
    const entries = data.candidates.flatMap((c) => c.candidateLanguages ?? []);
    const english = entries.filter((l) => l.languageIsoCode === 'en');

    expect(new Set(english.map((l) => cefrOf(l.spokenLevel)))).toEqual(new Set(CEFR));
    expect(new Set(english.map((l) => cefrOf(l.writtenLevel)))).toEqual(new Set(CEFR));
    const writtenBetter = entries.filter((l) => (l.writtenLevel ?? 0) > (l.spokenLevel ?? 0)).length;
    const spokenBetter = entries.filter((l) => (l.spokenLevel ?? 0) > (l.writtenLevel ?? 0)).length;
    expect(writtenBetter / entries.length).toBeGreaterThan(0.05);
    expect(spokenBetter / entries.length).toBeGreaterThan(0.05);
  });

  it('when candidates are generated, then exams have realistic scores: IELTS half bands, points, grades, some not numbers', () => {
    const exams = data.candidates.flatMap((c) => c.candidateExams ?? []);
    const scoresOf = (exam: string) => exams.filter((e) => e.exam === exam).map((e) => e.score);
    const ielts = [...scoresOf('IELTS_GEN'), ...scoresOf('IELTS_ACA')].map(numberOf).filter((n) => n !== undefined);

    for (const exam of ['IELTS_GEN', 'IELTS_ACA', 'TOEFL', 'OET', 'DET_OFFICIAL', 'OTHER']) {
      expect(scoresOf(exam).length).toBeGreaterThan(0);
    }
    expect(ielts.every((band) => band >= 3 && band <= 9 && Number.isInteger(band * 2))).toBe(true);
    expect(ielts).toContain(6.5);
    expect(
      scoresOf('TOEFL').every((score) => numberOf(score) !== undefined && (numberOf(score) as number) <= 120),
    ).toBe(true);
    expect(scoresOf('OET')).toEqual(expect.arrayContaining(['B']));
    const unreadable = exams.filter((e) => e.score !== undefined && numberOf(e.score) === undefined);
    expect(unreadable.length).toBeGreaterThan(0);
    expect(exams.filter((e) => e.exam === 'OTHER').every((e) => (e.otherExam ?? '') !== '')).toBe(true);
  });

  it('when candidates are generated, then education levels and years of experience spread from low to high, so that every range has people on both sides', () => {
    const levels = new Set(data.candidates.map((c) => c.maxEducationLevel).filter((l) => l !== undefined));
    const years = data.candidates.flatMap((c) => (c.candidateOccupations ?? []).map((o) => o.yearsExperience ?? 0));
    const known = educationLevels().map((l) => l.level);

    expect(levels.size).toBeGreaterThanOrEqual(5);
    expect(levels).toContain(Math.max(...known));
    expect(Math.min(...years)).toBeLessThanOrEqual(1);
    expect(Math.max(...years)).toBeGreaterThanOrEqual(20);
    expect(years.filter((y) => y >= 3).length / years.length).toBeGreaterThan(0.3);
    expect(years.filter((y) => y < 3).length / years.length).toBeGreaterThan(0.1);
  });

  it('when candidates are generated, then every age at registration is within working life', () => {
    const ages = data.candidates.map((c) => c.createdDate.getUTCFullYear() - (c.yearOfBirth as number));

    expect(Math.min(...ages)).toBeGreaterThanOrEqual(18);
    expect(Math.max(...ages)).toBeLessThanOrEqual(65);
    expect(ages.filter((age) => age >= 45).length).toBeGreaterThan(0);
  });

  it('when candidates are generated, then every code is a real reference code', () => {
    const countryCodes = new Set(countries().map((c) => c.isoCode));
    const languageCodes = new Set(languages().map((l) => l.isoCode));
    const levels = new Set(languageLevels().map((l) => l.level));
    const isco = new Set(occupations().map((o) => o.isco08Code));
    const educationLevelIds = new Set(educationLevels().map((l) => l.level));
    const majors = new Set(educationMajors().map((m) => m.id));

    for (const c of data.candidates) {
      for (const code of [
        c.countryIsoCode,
        c.nationalityIsoCode,
        c.birthCountryIsoCode,
        c.drivingLicenseCountryIsoCode,
      ]) {
        if (code !== undefined) expect(countryCodes).toContain(code);
      }
      for (const code of [
        ...(c.candidateCitizenships ?? []).map((x) => x.nationalityIsoCode),
        ...(c.candidateDestinations ?? []).map((x) => x.countryIsoCode),
        ...(c.candidateEducations ?? []).map((x) => x.countryIsoCode),
        ...(c.candidateVisaChecks ?? []).map((x) => x.countryIsoCode),
        ...(c.candidateOccupations ?? []).flatMap((o) =>
          (o.candidateJobExperiences ?? []).map((j) => j.countryIsoCode),
        ),
      ]) {
        expect(countryCodes).toContain(code);
      }
      for (const language of c.candidateLanguages ?? []) {
        expect(languageCodes).toContain(language.languageIsoCode);
        expect(levels).toContain(language.writtenLevel);
        expect(levels).toContain(language.spokenLevel);
      }
      for (const code of [
        ...(c.candidateOccupations ?? []).map((o) => o.occupation?.isco08Code),
        ...(c.partnerOccupationIsco08Code ? [c.partnerOccupationIsco08Code] : []),
      ]) {
        expect(isco).toContain(code);
      }
      expect(educationLevelIds).toContain(c.maxEducationLevel);
      if (c.partnerEduLevel !== undefined) expect(educationLevelIds).toContain(c.partnerEduLevel);
      for (const education of c.candidateEducations ?? []) expect(majors).toContain(education.educationMajorId);
    }
  });

  it('when candidates are generated, then each has 1 to 3 occupations, mostly common ones', () => {
    const common = new Set(COMMON_OCCUPATIONS.map((o) => o.code));

    const counts = data.candidates.map((c) => c.candidateOccupations?.length ?? 0);
    const primaries = data.candidates.map((c) => c.candidateOccupations?.[0]?.occupation?.isco08Code ?? '');

    expect(Math.min(...counts)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    expect(primaries.filter((code) => common.has(code)).length).toBeGreaterThan(300);
  });

  it('when candidates are generated, then every visa job check points at a generated job opportunity', () => {
    const jobIds = new Set(data.jobOpportunities.map((j) => j.publicId));

    const pointers = data.candidates.flatMap((c) =>
      (c.candidateVisaChecks ?? []).flatMap((v) => (v.candidateVisaJobChecks ?? []).map((j) => j.jobOppPublicId)),
    );

    expect(pointers.length).toBeGreaterThan(50);
    for (const id of pointers) expect(jobIds).toContain(id);
  });

  it('when candidates are generated, then partners are candidates and some pairs point at each other', () => {
    const byId = new Map(data.candidates.map((c) => [c.publicId, c]));

    const withPartner = data.candidates.filter((c) => c.partnerPublicId !== undefined);
    const mutual = withPartner.filter((c) => byId.get(c.partnerPublicId as string)?.partnerPublicId === c.publicId);

    for (const c of withPartner) expect(byId.has(c.partnerPublicId as string)).toBe(true);
    expect(mutual.length).toBeGreaterThanOrEqual(10);
    expect(withPartner.every((c) => c.partnerPublicId !== c.publicId)).toBe(true);
  });

  it('when saved lists are generated, then sizes vary, one exceeds 100, and members are distinct candidates', () => {
    const ids = new Set(data.candidates.map((c) => c.publicId));

    const sizes = data.savedLists.map((l) => l.candidatePublicIds.length);

    expect(sizes).toEqual(expect.arrayContaining([5, 20, 50, 150]));
    expect(Math.max(...sizes)).toBeGreaterThan(100);
    for (const list of data.savedLists) {
      expect(isPublicId(list.publicId)).toBe(true);
      expect(new Set(list.candidatePublicIds).size).toBe(list.candidatePublicIds.length);
      for (const id of list.candidatePublicIds) expect(ids).toContain(id);
    }
  });

  it('when candidates are generated, then every field is used and the unconditional ones on most candidates', () => {
    const share = (field: string) => data.candidates.filter((c) => field in c).length / data.candidates.length;

    const unused = Object.keys(ALL_FIELDS).filter((field) => share(field) === 0);
    const rare = Object.keys(ALL_FIELDS)
      .filter((field) => !CONDITIONAL_FIELDS.has(field as keyof CandidateDoc))
      .filter((field) => share(field) < 0.6);

    expect(unused).toEqual([]);
    expect(rare).toEqual([]);
  });

  it('when candidates are generated, then no value is undefined or null (absent fields are left out)', () => {
    const holes: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (value === undefined || value === null) holes.push(path);
      else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
      else if (typeof value === 'object' && !(value instanceof Date)) {
        for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
      }
    };

    data.candidates.forEach((c, i) => walk(c, `[${i}]`));

    expect(holes).toEqual([]);
  });

  it('when candidates are generated, then their dates come from the seed, in a fixed window, not the clock', () => {
    const created = data.candidates.map((c) => c.createdDate.getTime());

    expect(Math.min(...created)).toBeGreaterThanOrEqual(Date.UTC(2019, 0, 1));
    expect(Math.max(...created)).toBeLessThan(Date.UTC(2025, 5, 30));
  });
});

describe('demo data of the quick start (2,000 candidates, seed 1)', () => {
  const quickStart = generateDemoData({ candidates: 2000, seed: 1, reference });

  it("when the employer's question of the docs is asked of it, then some candidates answer it", () => {
    // Nurses in Jordan or Lebanon, English spoken at B2 or better, at least 3 years as a nurse,
    // under 45 in 2026, IELTS General Training 6.5 or more; not EMPLOYED (hidden by default).
    const b2 = languageLevels().find((l) => l.cefrLevel === 'B2')?.level as number;

    const answers = quickStart.candidates.filter(
      (c) =>
        c.status !== 'EMPLOYED' &&
        ['JO', 'LB'].includes(c.countryIsoCode ?? '') &&
        (c.candidateOccupations ?? []).some(
          (o) => o.occupation?.isco08Code === '2221' && (o.yearsExperience ?? 0) >= 3,
        ) &&
        (c.candidateLanguages ?? []).some((l) => l.languageIsoCode === 'en' && (l.spokenLevel ?? 0) >= b2) &&
        2026 - (c.yearOfBirth as number) <= 44 &&
        (c.candidateExams ?? []).some((e) => e.exam === 'IELTS_GEN' && (numberOf(e.score) ?? 0) >= 6.5),
    );

    expect(answers.length).toBeGreaterThan(0);
  });
});

describe('seed CLI arguments', () => {
  const config = { demoCandidates: 2000 };

  it('when no argument is given, then the configured number of candidates and seed 1 are used', () => {
    expect(parseSeedArgs([], config)).toEqual({ candidates: 2000, seed: 1, mode: 'refuse' });
  });

  it('when every option is given, then each is taken', () => {
    expect(parseSeedArgs(['--candidates', '500', '--seed', '9', '--drop'], config)).toEqual({
      candidates: 500,
      seed: 9,
      mode: 'drop',
    });
    expect(parseSeedArgs(['--candidates=10', '--append'], config)).toEqual({ candidates: 10, seed: 1, mode: 'append' });
  });

  it.each([
    ['a non-numeric count', ['--candidates', 'many']],
    ['a negative count', ['--candidates', '-5']],
    ['a count above a million', ['--candidates', '1000001']],
    ['a fractional seed', ['--seed', '1.5']],
    ['a negative seed', ['--seed', '-1']],
    ['a seed beyond 32 bits', ['--seed', '4294967296']],
    ['an unknown option', ['--force']],
    ['a positional argument', ['100']],
    ['both --append and --drop', ['--append', '--drop']],
  ])('when given %s, then the arguments are rejected', (_label, argv) => {
    expect(() => parseSeedArgs(argv, config)).toThrow(UsageError);
  });

  it('when the CLI gets bad arguments, then it prints the usage on stderr and exits with 2', async () => {
    const out: string[] = [];
    const err: string[] = [];

    const code = await runSeedCli(
      ['--candidates', 'lots'],
      { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } },
      loadConfig({}),
    );

    expect(code).toBe(2);
    expect(err.join('')).toContain('Usage: npm run seed');
    expect(out).toEqual([]);
  });
});
