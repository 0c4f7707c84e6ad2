import type { CandidateDoc, DependantDoc, Gender } from 'candidate-documents';
import type { DemoRandom } from './random';
import { yesNo } from './values';
import { OTHER_RELATIONS } from './vocabulary';

/** Marital statuses with a partner (who may be a registered candidate too). */
export const PARTNERED = new Set(['MARRIED', 'ENGAGED', 'DEFACTO']);

/** Context a partner candidate takes over from the first of a pair. */
export interface PairContext {
  partner: CandidateDoc;
  partnerOccupation: string;
}

/** The partner, children, parents and others who would move with the candidate. */
export function makeDependants(
  rng: DemoRandom,
  maritalStatus: string,
  yearOfBirth: number,
  createdYear: number,
  gender: Gender,
  pair: PairContext | null,
): DependantDoc[] {
  if (pair) {
    // A partner who also registered shares the children; the partner is the one registered.
    return (pair.partner.candidateDependants ?? []).map((d) =>
      d.relation === 'PARTNER'
        ? { ...d, yearOfBirth: pair.partner.yearOfBirth, gender: pair.partner.gender }
        : { ...d },
    );
  }
  const result: DependantDoc[] = [];
  const registered = (): NonNullable<DependantDoc['registered']> =>
    rng.weighted([
      { value: 'REFUGEE_AGENCY', weight: 55 },
      { value: 'NEITHER', weight: 20 },
      { value: 'RELIEF_AGENCY', weight: 5 },
      { value: 'NA', weight: 10 },
      { value: 'NO_RESPONSE', weight: 10 },
    ] as const);
  if (PARTNERED.has(maritalStatus)) {
    result.push({
      relation: 'PARTNER',
      yearOfBirth: Math.min(createdYear - 19, yearOfBirth + rng.int(-6, 6)),
      gender: gender === 'MALE' ? 'FEMALE' : 'MALE',
      registered: registered(),
      healthConcern: yesNo(rng, 0.08),
    });
  }
  const hasChildren = maritalStatus !== 'SINGLE' && maritalStatus !== 'ENGAGED';
  const children = hasChildren ? rng.int(0, Math.min(5, Math.max(0, createdYear - yearOfBirth - 20))) : 0;
  for (let i = 0; i < children; i++) {
    result.push({
      relation: 'CHILD',
      yearOfBirth: rng.int(Math.min(createdYear, yearOfBirth + 20), createdYear),
      gender: rng.chance(0.5) ? 'MALE' : 'FEMALE',
      registered: registered(),
      healthConcern: yesNo(rng, 0.06),
    });
  }
  if (rng.chance(0.12)) {
    result.push({
      relation: 'PARENT',
      yearOfBirth: yearOfBirth - rng.int(20, 35),
      gender: rng.chance(0.5) ? 'MALE' : 'FEMALE',
      registered: registered(),
      healthConcern: yesNo(rng, 0.35),
    });
  }
  if (rng.chance(0.03)) {
    result.push({
      relation: 'OTHER',
      relationOther: rng.pick(OTHER_RELATIONS),
      yearOfBirth: rng.int(Math.max(yearOfBirth, createdYear - 17), createdYear),
      gender: rng.chance(0.5) ? 'MALE' : 'FEMALE',
      registered: registered(),
      healthConcern: yesNo(rng, 0.06),
    });
  }
  return result;
}
