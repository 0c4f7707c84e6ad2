import type { IndexSpec, SupersededIndex } from '../store/indexes';

/**
 * Names of the collections of candidates and of what partners record about them. They are part
 * of the operator contract (backups, a real MongoDB prepared by hand, monitoring), so they never
 * change silently.
 */
export const CANDIDATE_COLLECTIONS = {
  candidates: 'candidates',
  candidateIdentities: 'candidateIdentities',
  candidateIdentityKeys: 'candidateIdentityKeys',
  jobOpportunities: 'jobOpportunities',
  savedLists: 'savedLists',
  offers: 'offers',
} as const;

const OCCUPATION_PATH = 'candidateOccupations.occupation.isco08Code';

/**
 * The index of searches filtered on `fields`: those, then `listed`, then the search order. A
 * search names exact values for all of them (candidate-repository's searchQuery), so it reads
 * one sorted stretch per combination of values, merged in search order.
 */
function searchIndex(fields: readonly string[]): IndexSpec {
  const key: Record<string, 1> = {};
  for (const field of [...fields, 'listed', 'createdDate', 'publicId']) key[field] = 1;
  const name = [
    'candidates_search',
    ...fields.map((field) => (field === OCCUPATION_PATH ? 'occupation' : field.replace(/IsoCode$/, ''))),
    'listed',
  ].join('_');
  return { collection: CANDIDATE_COLLECTIONS.candidates, key, options: { name } };
}

/** Every index the repositories of this area rely on (the statistics indexes of `candidates` are statistics-indexes.ts). */
export const candidateIndexes: readonly IndexSpec[] = [
  // candidates
  {
    collection: CANDIDATE_COLLECTIONS.candidates,
    key: { publicId: 1 },
    options: { name: 'candidates_publicId_unique', unique: true },
  },
  // Every search filter combination, with or without includeEmployed: a page is one ordered
  // walk of one index (merged over the filter's values), skipped on index keys, and its count
  // comes from index keys alone, however many candidates match.
  searchIndex([]),
  searchIndex(['countryIsoCode']),
  searchIndex(['nationalityIsoCode']),
  searchIndex([OCCUPATION_PATH]),
  searchIndex(['countryIsoCode', 'nationalityIsoCode']),
  searchIndex(['countryIsoCode', OCCUPATION_PATH]),
  searchIndex(['nationalityIsoCode', OCCUPATION_PATH]),
  searchIndex(['countryIsoCode', 'nationalityIsoCode', OCCUPATION_PATH]),

  // candidateIdentityKeys: the unique e-mail key is what detects a duplicate registration. Partial:
  // a record of an earlier release whose address folds to an older record's key keeps no key.
  {
    collection: CANDIDATE_COLLECTIONS.candidateIdentityKeys,
    key: { emailKey: 1 },
    options: {
      name: 'candidateIdentityKeys_emailKey_unique',
      unique: true,
      partialFilterExpression: { emailKey: { $type: 'string' } },
    },
  },
  {
    collection: CANDIDATE_COLLECTIONS.candidateIdentities,
    key: { candidatePublicId: 1 },
    options: { name: 'candidateIdentities_candidatePublicId_unique', unique: true },
  },

  {
    collection: CANDIDATE_COLLECTIONS.jobOpportunities,
    key: { publicId: 1 },
    options: { name: 'jobOpportunities_publicId_unique', unique: true },
  },
  {
    collection: CANDIDATE_COLLECTIONS.savedLists,
    key: { publicId: 1 },
    options: { name: 'savedLists_publicId_unique', unique: true },
  },
  {
    collection: CANDIDATE_COLLECTIONS.offers,
    key: { publicId: 1 },
    options: { name: 'offers_publicId_unique', unique: true },
  },
  { collection: CANDIDATE_COLLECTIONS.offers, key: { apiKeyId: 1 }, options: { name: 'offers_apiKeyId' } },
];

/**
 * Search indexes earlier releases created: bounded by status (now by `listed`), and the search
 * order alone (every search now names `listed`).
 */
export const supersededCandidateIndexes: readonly SupersededIndex[] = [
  'candidates_search_status',
  'candidates_search_country_status',
  'candidates_search_nationality_status',
  'candidates_search_occupation_status',
  'candidates_search_country_nationality_status',
  'candidates_search_country_occupation_status',
  'candidates_search_nationality_occupation_status',
  'candidates_search_country_nationality_occupation_status',
  'candidates_createdDate_publicId',
].map((name) => ({ collection: CANDIDATE_COLLECTIONS.candidates, name }));

/**
 * The unique indexes on the lower-cased e-mail and on the folded one, on the identities
 * themselves: duplicates are now detected on the keys (`candidateIdentityKeys`).
 */
export const supersededIdentityIndexes: readonly SupersededIndex[] = [
  { collection: CANDIDATE_COLLECTIONS.candidateIdentities, name: 'candidateIdentities_emailNormalised_unique' },
  { collection: CANDIDATE_COLLECTIONS.candidateIdentities, name: 'candidateIdentities_emailKey_unique' },
];

/**
 * Collections whose deleted documents must leave no bytes on the disk: the identities' keys (an
 * erasure deletes the key, which is what makes the sealed identity unreadable). The embedded
 * store keeps them where its commits remove deleted bytes (docs/operators.md).
 */
export const candidateSecureDeleteCollections: readonly string[] = [CANDIDATE_COLLECTIONS.candidateIdentityKeys];
