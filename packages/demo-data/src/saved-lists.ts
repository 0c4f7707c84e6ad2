import type { SavedListDoc } from 'candidate-documents';
import type { DemoRandom } from './random';
import { DAY_MS } from './values';
import { SAVED_LIST_NAMES, SAVED_LIST_SIZES } from './vocabulary';

const LISTS_FROM = Date.UTC(2025, 6, 1);

/** Saved lists of varied sizes (one above the page limit of 100), in their saved order. */
export function makeSavedLists(rng: DemoRandom, candidateIds: readonly string[]): SavedListDoc[] {
  const sizes = SAVED_LIST_SIZES.filter((size) => size <= candidateIds.length);
  if (sizes.length === 0 && candidateIds.length > 0) sizes.push(candidateIds.length);
  return sizes.map((size, i) => ({
    publicId: rng.publicId(),
    name: SAVED_LIST_NAMES[i % SAVED_LIST_NAMES.length],
    candidatePublicIds: rng.sample(candidateIds, size),
    createdDate: new Date(LISTS_FROM + rng.int(0, 90) * DAY_MS + rng.int(0, 86_399) * 1000),
  }));
}
