import { storedCandidateWith } from 'candidate-documents';
import { occupations } from '../reference/reference-data';

/**
 * The English names of the ISCO-08 occupations the service ships (the reference data every start
 * loads into the store, and nothing else writes): what the keyword search finds a candidate's
 * occupations by. Built once, on first use; it holds no caller's data.
 */
let names: ReadonlyMap<string, string> | undefined;

export function occupationNameOf(isco08Code: string): string | undefined {
  names ??= new Map(occupations().map((occupation) => [occupation.isco08Code, occupation.name]));
  return names.get(isco08Code);
}

/**
 * The document stored for a candidate (toStoredCandidate of candidate-documents, with the names
 * of its occupations): what every write of a candidate stores (registration, import, the demo
 * data through CandidateRepository).
 */
export const storedCandidate = storedCandidateWith(occupationNameOf);
