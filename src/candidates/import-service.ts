import { systemClock, type Clock } from '../common/clock';
import { JobOpportunityIndex, readImportLine, type ImportedCandidate } from './import-line';
import type { ImportLine } from './import-lines';
import type { ImportOutcome, ImportRepository } from './import-repository';
import type { ReferenceLookup } from './registration-service';

/** Lines per transaction: large enough to amortise a commit, small enough to keep memory flat. */
export const IMPORT_BATCH_SIZE = 200;

export interface ImportSummary {
  inserted: number;
  updated: number;
  unchanged: number;
  refused: number;
  /** blank lines, skipped (neither a candidate nor refused) */
  blank: number;
}

export interface ImportListener {
  /** A line refused whole: its number (from 1) and why (names fields and rules, never values). */
  refused?(lineNumber: number, reason: string): void;
  /** After each batch: the lines read so far. */
  progress?(linesRead: number): void;
}

interface PendingLine {
  lineNumber: number;
  candidate: ImportedCandidate;
}

/**
 * Import of candidates from the system of record: one candidate per line, in the contract's
 * Candidate JSON, upserted by publicId. Lines are read as they come and written in batches, so
 * memory does not grow with the file; a line that fails is refused whole, and the others go on.
 */
export class ImportService {
  constructor(
    private readonly imports: ImportRepository,
    private readonly reference: ReferenceLookup,
    private readonly clock: Clock = systemClock,
    private readonly batchSize = IMPORT_BATCH_SIZE,
  ) {}

  /** `lines`: the file's lines as readImportLines reads them (numbered, some refused already). */
  async importLines(lines: AsyncIterable<ImportLine>, listener: ImportListener = {}): Promise<ImportSummary> {
    const summary: ImportSummary = { inserted: 0, updated: 0, unchanged: 0, refused: 0, blank: 0 };
    const jobs = new JobOpportunityIndex(await this.imports.jobOpportunities());
    const refuse = (lineNumber: number, reason: string) => {
      summary.refused += 1;
      listener.refused?.(lineNumber, reason);
    };
    let batch: PendingLine[] = [];
    const inBatch = new Set<string>();
    let linesRead = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const outcomes = await this.imports.upsert(
        batch.map((pending) => pending.candidate),
        this.clock.now(),
      );
      outcomes.forEach((outcome, i) => this.count(summary, outcome, batch[i].lineNumber, refuse));
      batch = [];
      inBatch.clear();
      listener.progress?.(linesRead);
    };
    for await (const read of lines) {
      const { lineNumber } = read;
      linesRead = lineNumber;
      if ('refused' in read) {
        refuse(lineNumber, read.refused);
        continue;
      }
      const { text } = read;
      if (text.trim() === '') {
        summary.blank += 1;
        continue;
      }
      const reading = readImportLine(text, this.reference, jobs);
      if (!reading.ok) {
        refuse(lineNumber, reading.reason);
        continue;
      }
      // A candidate named twice: its second line is compared with what its first one wrote.
      if (inBatch.has(reading.candidate.publicId)) await flush();
      batch.push({ lineNumber, candidate: reading.candidate });
      inBatch.add(reading.candidate.publicId);
      if (batch.length >= this.batchSize) await flush();
    }
    await flush();
    listener.progress?.(linesRead);
    return summary;
  }

  private count(
    summary: ImportSummary,
    outcome: ImportOutcome,
    lineNumber: number,
    refuse: (lineNumber: number, reason: string) => void,
  ): void {
    if (outcome === 'erased') {
      refuse(
        lineNumber,
        'this candidate was erased from the directory: erase it in the system of record too (it is not imported again)',
      );
    } else summary[outcome] += 1;
  }
}
