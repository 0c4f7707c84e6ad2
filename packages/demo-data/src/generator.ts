import type { CandidateDoc, JobOpportunityDoc, SavedListDoc } from 'candidate-documents';
import { demoOccupationsOf } from './candidate-occupations';
import { generateCandidates, type CandidateSources } from './candidates';
import { makeJobOpportunities } from './job-opportunities';
import { DemoRandom } from './random';
import type { DemoReference } from './reference';
import { makeSavedLists } from './saved-lists';

/**
 * Deterministic demo data: the same seed and size always give the same documents, down to
 * publicIds and dates. Every random choice comes from seeded PRNG streams (one per kind of
 * document, so that e.g. the job opportunities do not change with the number of candidates
 * drawn after them); no clock and no crypto is read. All dates fall in a fixed window
 * (candidates created 2019-01-01 to 2025-06-30), so the data does not age with the calendar.
 *
 * Nothing identifying is produced: no names, e-mail addresses, phone numbers or dates of
 * birth; free texts come from fixed phrases (vocabulary.ts, professions.ts, courses.ts).
 *
 * Each kind of document has its own file: job-opportunities.ts, candidates.ts (with
 * the parts of a candidate in candidate-*.ts) and saved-lists.ts.
 */

/** PRNG streams of one seed. Never renumber: that would change every seeded data set. */
const STREAM = { candidateIds: 1, jobs: 2, candidates: 3, savedLists: 4 } as const;

/** Seeds are 32-bit: the PRNG reduces larger numbers modulo 2^32, so two seeds would give one data set. */
export const MAX_DEMO_SEED = 0xffff_ffff;

export function isDemoSeed(seed: number): boolean {
  return Number.isInteger(seed) && seed >= 0 && seed <= MAX_DEMO_SEED;
}

export interface DemoDataOptions {
  /** number of candidates */
  candidates: number;
  seed: number;
  /** the codes to draw from: the service passes the reference data it serves */
  reference: DemoReference;
}

export interface DemoData {
  jobOpportunities: JobOpportunityDoc[];
  candidates: CandidateDoc[];
  savedLists: SavedListDoc[];
}

/** The whole demo data set in memory (for tests and small sets; seeding streams instead). */
export function generateDemoData(options: DemoDataOptions): DemoData {
  const generator = new DemoGenerator(options);
  return {
    jobOpportunities: generator.jobOpportunities(),
    candidates: [...generator.candidates()],
    savedLists: generator.savedLists(),
  };
}

/**
 * Generates one demo data set. Candidates are produced lazily and in a fixed order, so a
 * million of them can be written in batches without holding them all in memory.
 */
export class DemoGenerator {
  readonly size: number;
  readonly seed: number;
  private readonly sources: CandidateSources;

  constructor(options: DemoDataOptions) {
    if (!Number.isSafeInteger(options.candidates) || options.candidates < 0) {
      throw new RangeError('candidates must be a non-negative integer');
    }
    if (!isDemoSeed(options.seed)) throw new RangeError(`seed must be an integer from 0 to ${MAX_DEMO_SEED}`);
    this.size = options.candidates;
    this.seed = options.seed;
    const reference = options.reference;
    const occupations = demoOccupationsOf(reference);

    const ids = new DemoRandom(this.seed, STREAM.candidateIds);
    const candidateIds: string[] = new Array<string>(this.size);
    for (let i = 0; i < this.size; i++) candidateIds[i] = ids.publicId();

    const jobs = makeJobOpportunities(new DemoRandom(this.seed, STREAM.jobs), this.size, occupations.common);
    this.sources = { reference, candidateIds, occupations, jobs };
  }

  /**
   * The publicIds of the candidates in generation order. A prefix does not depend on the
   * size: the first ids of a seed are the same in a set of 10 and of a million.
   */
  candidatePublicIds(): readonly string[] {
    return this.sources.candidateIds;
  }

  /** The job opportunities the candidates' visa job checks point at. */
  jobOpportunities(): JobOpportunityDoc[] {
    return this.sources.jobs.docs.map((job) => structuredClone(job));
  }

  /** Every candidate, in generation order; each call starts the same sequence again. */
  *candidates(): Generator<CandidateDoc> {
    yield* generateCandidates(this.sources, new DemoRandom(this.seed, STREAM.candidates));
  }

  /** Saved lists of varied sizes (one above the page limit of 100), in their saved order. */
  savedLists(): SavedListDoc[] {
    return makeSavedLists(new DemoRandom(this.seed, STREAM.savedLists), this.sources.candidateIds);
  }
}
