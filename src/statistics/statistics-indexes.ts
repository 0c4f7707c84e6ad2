import type { IndexSpec } from '../store/indexes';

/**
 * The search filter's fields (`listed` first: every query names its values, see
 * candidate-repository's searchQuery), then every single-valued dimension.
 */
const FILTER_AND_SCALARS = {
  listed: 1,
  status: 1,
  countryIsoCode: 1,
  nationalityIsoCode: 1,
  gender: 1,
  maxEducationLevel: 1,
  yearOfArrival: 1,
  yearOfBirth: 1,
  createdDate: 1,
} as const;

/**
 * The index of the stored statistics lists that tells their backfill has run (main.ts creates
 * the indexes after it: CandidateRepository.backfillStatisticsLists).
 */
export const STATISTICS_LISTS_INDEX = 'candidates_statistics_languages';

/**
 * Indexes of the candidates collection (named by the caller, src/app/indexes.ts) that hold every
 * field a statistics query reads, so that the embedded store counts from index entries without
 * decoding a candidate (its covered-group.ts; at 100,000 candidates decoding them is seconds per
 * query). One without arrays (one entry per candidate), and one per multi-valued dimension, since
 * an index may hold only one array field: the stored statistics lists of OCCUPATION and LANGUAGE
 * (candidate-documents) each end one. A filter on occupations is matched through a search
 * index (candidate-indexes.ts) first. On MongoDB they serve the `$match` (covering is not
 * possible there for array fields).
 */
export function statisticsIndexes(candidates: string): readonly IndexSpec[] {
  return [
    // Without an array: one entry per candidate, for queries by single-valued dimensions only.
    { collection: candidates, key: FILTER_AND_SCALARS, options: { name: 'candidates_statistics_listed' } },
    {
      collection: candidates,
      key: { ...FILTER_AND_SCALARS, 'statisticsOccupations.isco08Code': 1 },
      options: { name: 'candidates_statistics_occupations' },
    },
    {
      collection: candidates,
      key: { ...FILTER_AND_SCALARS, 'statisticsLanguages.languageIsoCode': 1 },
      options: { name: STATISTICS_LISTS_INDEX },
    },
  ];
}

/**
 * The statistics indexes of earlier releases (src/app/indexes.ts gathers them, dropped at start):
 * led by status, then those ending in a candidate's whole list of occupations or languages.
 */
export function supersededStatisticsIndexes(candidates: string): readonly { collection: string; name: string }[] {
  return [
    'candidates_statistics',
    'candidates_statistics_occupation',
    'candidates_statistics_language',
    'candidates_statistics_listed_occupation',
    'candidates_statistics_listed_language',
  ].map((name) => ({ collection: candidates, name }));
}
