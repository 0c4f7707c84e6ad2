import { createHash } from 'node:crypto';
import { MongoClient, type Db, type Document } from 'mongodb';
import type { CandidateDoc, CandidateStatus, SavedListDoc, StoredCandidateDoc } from 'candidate-documents';
import {
  CANDIDATE_ORDER,
  CandidateRepository,
  searchQuery,
  type CandidateSearchFilter,
} from '../../src/candidates/candidate-repository';
import { COLLECTIONS, ensureIndexes, INDEXES } from '../../src/app/indexes';
import { aCandidate, aSavedList, at } from '../support/builders';
import { modelSearch, type ModelFilter } from '../support/search-model';
import { withSavedListMembers } from '../../src/candidates/saved-list-members';
import { SavedListRepository } from '../../src/candidates/saved-list-repository';
import { toSearchFilter, type SearchVocabulary } from '../../src/candidates/search-input';
import { RELEVANCE_ORDER } from '../../src/candidates/search-query';
import { CANDIDATE_TEXT_INDEX } from '../../src/candidates/candidate-indexes';
import { educationLevels, languageLevels } from '../../src/reference/reference-data';
import { startStoreUnderTest, type StoreUnderTest } from 'embedded-mongodb/test-support';

/**
 * The search plan of every filter combination of location, nationality and occupation, and of
 * every other filter alone, read from explain on the embedded store: one ordered walk of one
 * index, the skip done on index keys, only the page's documents fetched, and the count taken
 * from index keys alone (where the index holds the filter exactly; else no collection scan).
 */

const CANDIDATES = 6000;
const COUNTRIES = ['JO', 'LB', 'TR'];
const NATIONALITIES = ['SY', 'AF', 'SD'];
const OCCUPATIONS = ['2221', '7126', '2512', '5120'];
const LANGUAGES = ['en', 'ar', 'fr'];
const LIMIT = 5;
/** Every this many candidates has a skill the keyword search finds. */
const KEYWORD_EVERY = 50;

/** A small deterministic PRNG, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/**
 * Candidates spread over the codes: one or two occupations each, one in five EMPLOYED; and over
 * what the other filters read: languages at every level, years, education levels, birth years,
 * exams (a score or none).
 */
function candidates(): CandidateDoc[] {
  const next = random(13);
  // Ids derived from the position: candidates of one creation date are ordered by publicId, so
  // random ids would make the plans' work differ from run to run.
  const publicId = (i: number): string => {
    const bytes = createHash('sha256').update(`search-plans ${i}`).digest().subarray(0, 16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    return bytes.toString('base64url');
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  // What only the other filters read, from a PRNG of its own: the codes, statuses and dates the
  // combinations above read stay as they were.
  const other = random(31);
  const otherPick = <T>(values: readonly T[]): T => values[Math.floor(other() * values.length)];
  const upTo = (n: number): number => Math.floor(other() * (n + 1));
  return Array.from({ length: CANDIDATES }, (_, i) => {
    const codes = [...new Set([pick(OCCUPATIONS), ...(next() < 0.5 ? [pick(OCCUPATIONS)] : [])])];
    const status: CandidateStatus = next() < 0.2 ? 'EMPLOYED' : pick(['ACTIVE', 'PENDING', 'INCOMPLETE'] as const);
    const languages = [...new Set([otherPick(LANGUAGES), otherPick(LANGUAGES)])];
    return aCandidate({
      publicId: publicId(i),
      // Several candidates share a creation date: publicId decides their order.
      createdDate: at(Math.floor(i / 3)),
      status,
      countryIsoCode: pick(COUNTRIES),
      nationalityIsoCode: pick(NATIONALITIES),
      candidateOccupations: codes.map((isco08Code) => ({
        occupation: { isco08Code },
        yearsExperience: 1 + upTo(15),
        candidateJobExperiences: [],
      })),
      candidateLanguages: languages.map((languageIsoCode) => ({
        languageIsoCode,
        spokenLevel: upTo(6),
        writtenLevel: upTo(6),
      })),
      maxEducationLevel: upTo(8),
      yearOfBirth: 1960 + upTo(45),
      candidateExams:
        other() < 0.3 ? [{ exam: otherPick(['IELTS_GEN', 'TOEFL'] as const), score: String(upTo(9)) }] : [],
      // Text of the keyword search for a few.
      candidateSkills: i % KEYWORD_EVERY === 0 ? [{ skill: 'Arc welding of pipelines' }] : [],
    });
  });
}

type Codes = readonly string[] | undefined;

/** Every parameter absent, with one code, or with two; includeEmployed false and true. */
function combinations(): CandidateSearchFilter[] {
  const choices = (codes: readonly string[]): Codes[] => [undefined, [codes[0]], [codes[1], codes[2]]];
  const filters: CandidateSearchFilter[] = [];
  for (const locations of choices(COUNTRIES)) {
    for (const nationalities of choices(NATIONALITIES)) {
      for (const occupations of choices(OCCUPATIONS)) {
        for (const includeEmployed of [false, true])
          filters.push({ locations, nationalities, occupations, includeEmployed });
      }
    }
  }
  return filters;
}

function describeFilter(filter: CandidateSearchFilter): string {
  const part = (name: string, codes: Codes): string => (codes ? `${name}=${codes.join(',')}` : '');
  const parts = [
    part('location', filter.locations),
    part('nationality', filter.nationalities),
    part('occupation', filter.occupations),
  ].filter(Boolean);
  return `${parts.join('&') || 'no filter'}${filter.includeEmployed ? ' +employed' : ''}`;
}

/** Brute force: the candidates a filter selects, in search order. */
function expectedMatches(all: readonly CandidateDoc[], filter: CandidateSearchFilter): CandidateDoc[] {
  const within = (codes: Codes, value: string | undefined): boolean =>
    !codes || (value !== undefined && codes.includes(value));
  return all
    .filter(
      (c) =>
        (filter.includeEmployed || c.status !== 'EMPLOYED') &&
        within(filter.locations, c.countryIsoCode) &&
        within(filter.nationalities, c.nationalityIsoCode) &&
        (!filter.occupations ||
          (c.candidateOccupations ?? []).some((o) => filter.occupations!.includes(o.occupation!.isco08Code))),
    )
    .sort(
      (a, b) =>
        a.createdDate.getTime() - b.createdDate.getTime() ||
        (a.publicId < b.publicId ? -1 : a.publicId > b.publicId ? 1 : 0),
    );
}

/** Every stage of an explained plan, depth first. */
function stagesOf(plan: Document): Document[] {
  const inner = [
    ...(plan.inputStage ? [plan.inputStage as Document] : []),
    ...((plan.inputStages as Document[] | undefined) ?? []),
  ];
  return [plan, ...inner.flatMap(stagesOf)];
}

function indexNamesOf(plan: Document): Set<string> {
  return new Set(stagesOf(plan).flatMap((stage) => (typeof stage.indexName === 'string' ? [stage.indexName] : [])));
}

describe('search plans on the embedded store', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let db: Db;
  const all = candidates();

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
    db = client.db(`search_plans_${process.pid}`);
    await ensureIndexes(
      db,
      INDEXES.filter((index) => index.collection === COLLECTIONS.candidates),
    );
    await new CandidateRepository(db).insertMany(all);
  }, 120_000);

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
    await store?.stop();
  });

  it.each([
    ['no filter +employed', { includeEmployed: true }],
    ['location=LB,TR', { locations: ['LB', 'TR'], includeEmployed: false }],
    [
      'location=LB,TR&occupation=7126,2512 +employed',
      { locations: ['LB', 'TR'], occupations: ['7126', '2512'], includeEmployed: true },
    ],
  ] as const)(
    'when the page after a cursor position is read with %s, then the merged index walk starts at the position and reads about one page',
    async (_name, filter: CandidateSearchFilter) => {
      // Arrange: a position in the middle of the matches (as a cursor of candidatesConnection holds it)
      const expected = expectedMatches(all, filter);
      const after = expected[Math.floor(expected.length / 2)];
      const repo = new CandidateRepository(db);

      // Act
      const page = await repo.searchAfter(filter, { createdDate: after.createdDate, publicId: after.publicId }, LIMIT);
      const keyset = {
        $or: [
          { createdDate: { $gt: after.createdDate } },
          { createdDate: after.createdDate, publicId: { $gt: after.publicId } },
        ],
      };
      const explained = await db
        .collection<StoredCandidateDoc>(COLLECTIONS.candidates)
        .find({ $and: [searchQuery(filter), keyset] })
        .sort(CANDIDATE_ORDER)
        .limit(LIMIT)
        .explain('executionStats');

      // Assert
      const index = expected.indexOf(after);
      expect(page.map((c) => c.publicId)).toEqual(expected.slice(index + 1, index + 1 + LIMIT).map((c) => c.publicId));
      const plan = explained.queryPlanner.winningPlan as Document;
      expect(indexNamesOf(plan).size).toBe(1);
      expect(stagesOf(plan).map((stage) => stage.stage)).not.toContain('SORT');
      const stats = explained.executionStats as Document;
      // The keyset's own ties (candidates of the same createdDate before the position) and, for
      // several occupations, repeated entries, are read too: a few pages at most, never the rest.
      expect(stats.totalDocsExamined).toBeLessThanOrEqual(4 * LIMIT);
    },
  );

  it.each(combinations().map((filter) => [describeFilter(filter), filter] as const))(
    'when a deep page is searched with %s, then one index is walked in order, skipped on keys, only the page is fetched, and the count reads no document',
    async (_name, filter) => {
      // Arrange: a page deep into the matches (the last full page before 80 % of them).
      const expected = expectedMatches(all, filter);
      const skip = Math.max(0, Math.floor(expected.length * 0.8) - LIMIT);
      const query = searchQuery(filter);
      const candidatesCollection = db.collection<StoredCandidateDoc>(COLLECTIONS.candidates);
      // Of the candidates the walk passes, the entries beyond their first: a candidate with two
      // of the requested occupations has an entry in each code's range (a multikey index).
      const walked = expected.slice(0, skip + LIMIT);
      const repeatedEntries = filter.occupations
        ? walked.reduce(
            (sum, c) =>
              sum +
              (c.candidateOccupations ?? []).filter((o) => filter.occupations!.includes(o.occupation!.isco08Code))
                .length -
              1,
            0,
          )
        : 0;

      // Act
      const page = await new CandidateRepository(db).search(filter, { skip, limit: LIMIT });
      const found = await candidatesCollection
        .find(query)
        .sort(CANDIDATE_ORDER)
        .skip(skip)
        .limit(LIMIT)
        .explain('executionStats');
      const counted = await db.command({
        explain: { count: COLLECTIONS.candidates, query },
        verbosity: 'executionStats',
      });
      const countedAsDriver = await candidatesCollection
        .aggregate([{ $match: query }, { $group: { _id: 1, n: { $sum: 1 } } }])
        .explain('executionStats');

      // Assert: the answer itself
      expect(expected.length).toBeGreaterThan(2 * LIMIT);
      expect(page.total).toBe(expected.length);
      expect(page.items.map((c) => c.publicId)).toEqual(expected.slice(skip, skip + LIMIT).map((c) => c.publicId));
      expect(page.items.every((c) => !('listed' in c))).toBe(true);

      // Assert: the page's plan
      const plan = found.queryPlanner.winningPlan as Document;
      const stages = stagesOf(plan).map((stage) => stage.stage as string);
      expect(indexNamesOf(plan).size).toBe(1);
      expect([...indexNamesOf(plan)][0]).toMatch(/^candidates_search_/);
      expect(stages).not.toContain('COLLSCAN');
      expect(stages).not.toContain('SORT');
      // SKIP under FETCH: the skipped candidates are index keys, never fetched.
      expect(stages.indexOf('SKIP')).toBeGreaterThan(stages.indexOf('FETCH'));
      const stats = found.executionStats as Document;
      expect(stats.nReturned).toBe(LIMIT);
      expect(stats.totalDocsExamined).toBeLessThanOrEqual(LIMIT);
      // Keys examined: every skipped and returned candidate's entry, and the slack stated here,
      // the repeated entries of candidates in several of the merged ranges; no per-range
      // lookahead (each range's cursor is placed by binary search, its head read when taken).
      expect(stats.totalKeysExamined).toBeGreaterThanOrEqual(skip + LIMIT);
      expect(stats.totalKeysExamined).toBeLessThanOrEqual(skip + LIMIT + repeatedEntries);

      // Assert: both counts (the count command, and the aggregation countDocuments sends)
      for (const explained of [counted, countedAsDriver]) {
        const countStats = explained.executionStats as Document;
        expect(countStats.totalDocsExamined).toBe(0);
        expect(indexNamesOf(explained.queryPlanner.winningPlan as Document).size).toBe(1);
      }
    },
  );

  describe('each filter alone', () => {
    /** Where the planner may choose among indexes by cost (a walk in order, filtered, or the filter's index, sorted). */
    const ANY_INDEX = 'the index the planner finds cheapest';
    const vocabulary: SearchVocabulary = {
      languageLevels: languageLevels(),
      educationLevels: educationLevels().map((level) => level.level),
      currentYear: 2026,
    };
    const list = aSavedList({ candidatePublicIds: all.filter((_, i) => i % 40 === 0).map((c) => c.publicId) });

    beforeAll(async () => {
      await db.collection<SavedListDoc>(COLLECTIONS.savedLists).insertOne({ ...list });
    });

    it.each<[string, ModelFilter, string, 'exact' | 'exact count' | 'filtered']>([
      [
        'languages=en:B2',
        { languages: [{ language: 'en', minSpokenLevel: 'B2' }] },
        'candidates_search_languages_listed',
        'exact',
      ],
      [
        'languages=fr::B1',
        { languages: [{ language: 'fr', minWrittenLevel: 'B1' }] },
        'candidates_search_languages_listed',
        'exact',
      ],
      [
        'languages=ar:B1:C1',
        { languages: [{ language: 'ar', minSpokenLevel: 'B1', minWrittenLevel: 'C1' }] },
        'candidates_search_languages_listed',
        'exact',
      ],
      ['languages=en', { languages: [{ language: 'en' }] }, 'candidates_search_languages_listed', 'exact'],
      ['minYearsExperience=5', { minYearsExperience: 5 }, 'candidates_search_experience_listed', 'exact'],
      [
        'occupation=2221&minYearsExperience=3',
        { occupation: ['2221'], minYearsExperience: 3 },
        'candidates_search_experience_listed',
        'exact',
      ],
      [
        'minYearsExperience=2&maxYearsExperience=6',
        { minYearsExperience: 2, maxYearsExperience: 6 },
        'candidates_search_experience_listed',
        'exact',
      ],
      ['minEducationLevel=6', { minEducationLevel: 6 }, 'candidates_search_education_listed', 'exact'],
      ['minAge=25&maxAge=45', { minAge: 25, maxAge: 45 }, 'candidates_search_birthYear_listed', 'exact'],
      // Without a lower bound of birth years: counted from keys, the page found either way.
      ['maxAge=40', { maxAge: 40 }, ANY_INDEX, 'exact count'],
      ['exams=IELTS_GEN', { exams: [{ exam: 'IELTS_GEN' }] }, 'candidates_search_exams_listed', 'exact'],
      ['exams=TOEFL:6', { exams: [{ exam: 'TOEFL', minScore: 6 }] }, ANY_INDEX, 'filtered'],
      ['inSavedLists', { inSavedLists: [list.publicId] }, ANY_INDEX, 'exact count'],
      ['notInSavedLists', { notInSavedLists: [list.publicId] }, ANY_INDEX, 'filtered'],
      [
        'the employer: location=JO,LB&occupation=2221&languages=en:B2&minYearsExperience=3',
        {
          location: ['JO', 'LB'],
          occupation: ['2221'],
          languages: [{ language: 'en', minSpokenLevel: 'B2' }],
          minYearsExperience: 3,
        },
        'candidates_search_country_employer_listed',
        'exact',
      ],
    ])(
      'when %s is searched, then no plan scans the collection, the page walks one index (the one named, if any), and an exact one reads only the page and counts from keys',
      async (_name, input, indexName, kind) => {
        // Arrange
        const filter = await withSavedListMembers(
          toSearchFilter(input, false, vocabulary),
          new SavedListRepository(db),
        );
        const query = searchQuery(filter);
        const expected = modelSearch(all, input, false, { currentYear: vocabulary.currentYear, lists: [list] });
        const skip = Math.min(LIMIT, Math.max(0, expected.length - LIMIT));
        const candidatesCollection = db.collection<StoredCandidateDoc>(COLLECTIONS.candidates);

        // Act
        const page = await new CandidateRepository(db).search(filter, { skip, limit: LIMIT });
        const found = await candidatesCollection
          .find(query)
          .sort(CANDIDATE_ORDER)
          .skip(skip)
          .limit(LIMIT)
          .explain('executionStats');
        const counted = await db.command({
          explain: { count: COLLECTIONS.candidates, query },
          verbosity: 'executionStats',
        });

        // Assert: the answer
        expect(expected.length).toBeGreaterThan(LIMIT);
        expect(page.total).toBe(expected.length);
        expect(page.items.map((c) => c.publicId)).toEqual(expected.slice(skip, skip + LIMIT).map((c) => c.publicId));
        // Assert: the plans
        const plan = found.queryPlanner.winningPlan as Document;
        const countPlan = counted.queryPlanner.winningPlan as Document;
        for (const stages of [stagesOf(plan), stagesOf(countPlan)])
          expect(stages.map((stage) => stage.stage)).not.toContain('COLLSCAN');
        expect(indexNamesOf(plan).size).toBe(1);
        if (indexName !== ANY_INDEX) expect([...indexNamesOf(plan)]).toEqual([indexName]);
        if (kind === 'exact') expect((found.executionStats as Document).totalDocsExamined).toBeLessThanOrEqual(LIMIT);
        if (kind !== 'filtered') expect((counted.executionStats as Document).totalDocsExamined).toBe(0);
      },
    );

    it('when a keyword is searched, then the page and the count walk the text index (TEXT_MATCH over its scans), no collection scan, ranked or not', async () => {
      // Arrange
      const filter = toSearchFilter({ keyword: 'welders pipeline' }, false, vocabulary);
      const query = searchQuery(filter);
      const expected = all.filter((c, i) => i % KEYWORD_EVERY === 0 && c.status !== 'EMPLOYED');
      const candidatesCollection = db.collection<StoredCandidateDoc>(COLLECTIONS.candidates);

      // Act
      const page = await new CandidateRepository(db).search(filter, { skip: 0, limit: LIMIT });
      const ranked = await candidatesCollection
        .find(query)
        .sort(RELEVANCE_ORDER)
        .limit(LIMIT)
        .explain('executionStats');
      const found = await candidatesCollection.find(query).sort(CANDIDATE_ORDER).limit(LIMIT).explain('executionStats');
      const counted = await db.command({
        explain: { count: COLLECTIONS.candidates, query },
        verbosity: 'executionStats',
      });

      // Assert
      expect(expected.length).toBeGreaterThan(LIMIT);
      expect(page.total).toBe(expected.length);
      for (const explained of [ranked, found, counted]) {
        const stages = stagesOf(explained.queryPlanner.winningPlan as Document).map((stage) => stage.stage);
        expect(stages).not.toContain('COLLSCAN');
        expect(stages).toContain('TEXT_MATCH');
        expect([...indexNamesOf(explained.queryPlanner.winningPlan as Document)]).toEqual([
          CANDIDATE_TEXT_INDEX.options.name,
        ]);
        // The text index yields the matching candidates only: no other document is read.
        expect((explained.executionStats as Document).totalDocsExamined).toBeLessThanOrEqual(
          all.filter((_, i) => i % KEYWORD_EVERY === 0).length,
        );
      }
    });
  });
});
