import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Db } from 'mongodb';
import type { CandidateDoc, JobOpportunityDoc, SavedListDoc } from 'candidate-documents';
import { CandidateRepository } from '../candidates/candidate-repository';
import { JobOpportunityRepository } from '../candidates/job-opportunity-repository';
import { SavedListRepository } from '../candidates/saved-list-repository';
import { loadReferenceData } from '../reference/load-reference-data';
import { DemoGenerator } from 'demo-data';
import { shippedDemoReference } from './demo-reference';

/** `indexes`: the seed CLI building the indexes left out while the documents went in. */
export type SeedPhase = 'reference' | 'jobOpportunities' | 'candidates' | 'savedLists' | 'indexes';

export interface SeedProgress {
  phase: SeedPhase;
  /** documents of this phase written so far */
  done: number;
  /** documents of this phase in all */
  total: number;
}

export interface SeedOptions {
  candidates: number;
  seed: number;
  /** candidates per insertMany; 1000 by default */
  batchSize?: number;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedCounts {
  referenceDocuments: number;
  jobOpportunities: number;
  candidates: number;
  savedLists: number;
}

/**
 * Writes the demo data of `seed`: reference data (upserted), job opportunities, candidates
 * and saved lists. Expects the indexes to exist (ensureIndexes), so that seeding the same
 * seed twice fails with a ConflictError instead of duplicating candidates.
 *
 * Candidates are generated and written in batches (insertMany, unordered), the next batch
 * being generated while the previous one is written, so memory stays flat at any size.
 */
export async function seedDemoData(db: Db, options: SeedOptions): Promise<SeedCounts> {
  const generator = new DemoGenerator({
    candidates: options.candidates,
    seed: options.seed,
    reference: shippedDemoReference(),
  });
  return writeDemoDocuments(
    db,
    {
      jobOpportunities: () => generator.jobOpportunities(),
      candidates: () => generator.candidates(),
      candidateCount: generator.size,
      savedLists: () => generator.savedLists(),
    },
    options,
  );
}

/** Demo documents to write: generated (seedDemoData), or a data set kept as it was once generated. */
export interface DemoDocuments {
  jobOpportunities(): JobOpportunityDoc[];
  candidates(): Iterable<CandidateDoc>;
  candidateCount: number;
  savedLists(): SavedListDoc[];
}

/**
 * Writes reference data and the given documents through the repositories (the same writes as
 * seedDemoData). Tests that pin answers byte for byte seed a data set kept as a fixture this
 * way, so that a later change of the generator cannot change their data.
 */
export async function writeDemoDocuments(
  db: Db,
  documents: DemoDocuments,
  options: Pick<SeedOptions, 'batchSize' | 'onProgress'> = {},
): Promise<SeedCounts> {
  const batchSize = options.batchSize ?? 1000;
  const report = options.onProgress ?? (() => undefined);

  report({ phase: 'reference', done: 0, total: 1 });
  const referenceCounts = await loadReferenceData(db);
  const referenceDocuments = Object.values(referenceCounts).reduce((sum, n) => sum + n, 0);
  report({ phase: 'reference', done: 1, total: 1 });

  const jobOpportunities = documents.jobOpportunities();
  report({ phase: 'jobOpportunities', done: 0, total: jobOpportunities.length });
  await new JobOpportunityRepository(db).insertMany(jobOpportunities);
  report({ phase: 'jobOpportunities', done: jobOpportunities.length, total: jobOpportunities.length });

  const candidates = new CandidateRepository(db);
  const total = documents.candidateCount;
  let written = 0;
  let inFlight: Promise<void> | null = null;
  const write = (batch: CandidateDoc[]): Promise<void> => {
    const promise = candidates.insertMany(batch).then(() => {
      written += batch.length;
      report({ phase: 'candidates', done: written, total });
    });
    // Awaited below; this only keeps a failure from counting as unhandled meanwhile.
    promise.catch(() => undefined);
    return promise;
  };
  report({ phase: 'candidates', done: 0, total });
  let batch: CandidateDoc[] = [];
  for (const candidate of documents.candidates()) {
    batch.push(candidate);
    if (batch.length < batchSize) continue;
    if (inFlight) await inFlight;
    inFlight = write(batch);
    batch = [];
    // Lets the driver send the batch before the next one is generated.
    await yieldToEventLoop();
  }
  if (inFlight) await inFlight;
  if (batch.length > 0) await write(batch);

  const savedLists = documents.savedLists();
  const lists = new SavedListRepository(db);
  report({ phase: 'savedLists', done: 0, total: savedLists.length });
  for (const list of savedLists) await lists.insert(list);
  report({ phase: 'savedLists', done: savedLists.length, total: savedLists.length });

  return {
    referenceDocuments,
    jobOpportunities: jobOpportunities.length,
    candidates: written,
    savedLists: savedLists.length,
  };
}
