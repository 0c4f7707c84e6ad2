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
  savedSearches: 'savedSearches',
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

/**
 * The index of the search fields that tells their backfill has run (main.ts creates the indexes
 * after it: CandidateRepository.backfillSearchFields).
 */
export const SEARCH_FIELDS_INDEX = 'candidates_search_languages_listed';

/** searchIndex of other fields, named `candidates_search_<name>_listed`. */
function namedSearchIndex(name: string, fields: readonly string[]): IndexSpec {
  return { ...searchIndex(fields), options: { name: `candidates_search_${name}_listed` } };
}

/**
 * The text index of the keyword search (MongoDB allows one per collection): the candidate's
 * professional text, never identity data or `candidateMessage`. Occupation names weigh most,
 * then roles and skills, then certifications and courses, then job descriptions; English
 * stemming and stop words for every candidate. After the text, what every keyword search also
 * reads (`listed`) and is ordered by: the embedded store answers a keyword search from the
 * entries of its words alone, reading only the candidates of the page (a MongoDB reads each
 * match, as it does without them).
 */
export const CANDIDATE_TEXT_INDEX: IndexSpec = {
  collection: CANDIDATE_COLLECTIONS.candidates,
  key: {
    searchOccupationNames: 'text',
    'candidateOccupations.candidateJobExperiences.role': 'text',
    'candidateSkills.skill': 'text',
    'candidateCertifications.name': 'text',
    'candidateEducations.courseName': 'text',
    'candidateOccupations.candidateJobExperiences.description': 'text',
    listed: 1,
    createdDate: 1,
    publicId: 1,
  },
  options: {
    name: 'candidates_text_listed',
    weights: {
      searchOccupationNames: 10,
      'candidateOccupations.candidateJobExperiences.role': 5,
      'candidateSkills.skill': 5,
      'candidateCertifications.name': 3,
      'candidateEducations.courseName': 3,
      'candidateOccupations.candidateJobExperiences.description': 1,
    },
    default_language: 'english',
    // A field no candidate has: every candidate is indexed in English, whatever its documents hold
    // (the default, `language`, would read a field of that name in any of them).
    language_override: 'searchTextLanguage',
  },
};

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
  // The filters on one entry of a list, each the keys of one stored search field (search-fields.ts
  // of candidate-documents), and the scalar ones, each alone: exact values before `listed`, so a
  // page is again a merged walk and its count a count of keys.
  { ...searchIndex(['searchLanguages']), options: { name: SEARCH_FIELDS_INDEX } },
  namedSearchIndex('experience', ['searchExperience']),
  namedSearchIndex('education', ['maxEducationLevel']),
  namedSearchIndex('birthYear', ['yearOfBirth']),
  namedSearchIndex('exams', ['searchExams.exam']),
  // The employer's question (location, occupation, a language at a level, years): one index.
  namedSearchIndex('country_employer', ['countryIsoCode', 'searchEmployerKeys']),
  // Ranges that are not named year by year (an age without an upper or lower bound), and exam
  // scores: bounded after `listed` or after the exam, the rest checked by the store.
  {
    collection: CANDIDATE_COLLECTIONS.candidates,
    key: { listed: 1, yearOfBirth: 1, createdDate: 1, publicId: 1 },
    options: { name: 'candidates_search_listed_birthYear' },
  },
  {
    collection: CANDIDATE_COLLECTIONS.candidates,
    key: { 'searchExams.exam': 1, 'searchExams.score': 1, listed: 1, createdDate: 1, publicId: 1 },
    options: { name: 'candidates_search_examScores_listed' },
  },
  // Saved lists: their members by id, with what a page is sorted by.
  {
    collection: CANDIDATE_COLLECTIONS.candidates,
    key: { publicId: 1, listed: 1, createdDate: 1 },
    options: { name: 'candidates_search_publicId_listed' },
  },
  CANDIDATE_TEXT_INDEX,

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
  // A key's lists and searches are listed by owner, oldest first, and counted against its limit.
  {
    collection: CANDIDATE_COLLECTIONS.savedLists,
    key: { ownerKeyId: 1, createdDate: 1 },
    options: { name: 'savedLists_ownerKeyId_createdDate' },
  },
  {
    collection: CANDIDATE_COLLECTIONS.savedSearches,
    key: { id: 1 },
    options: { name: 'savedSearches_id_unique', unique: true },
  },
  {
    collection: CANDIDATE_COLLECTIONS.savedSearches,
    key: { ownerKeyId: 1, createdDate: 1 },
    options: { name: 'savedSearches_ownerKeyId_createdDate' },
  },
  {
    collection: CANDIDATE_COLLECTIONS.offers,
    key: { publicId: 1 },
    options: { name: 'offers_publicId_unique', unique: true },
  },
  { collection: CANDIDATE_COLLECTIONS.offers, key: { apiKeyId: 1 }, options: { name: 'offers_apiKeyId' } },
];

/**
 * Search indexes earlier releases created: bounded by status (now by `listed`), the search
 * order alone (every search now names `listed`), and the text index without `listed` and the
 * search order.
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
  // The text index without the fields of the search after its text (a collection has one text index).
  'candidates_text',
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
