import fc from 'fast-check';
import type { CandidateDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { occupationNameOf } from '../../src/candidates/stored-candidate';
import { checkProperty, FUZZ_SEED, fuzzParameters, propertyCases } from '../support/arbitraries';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, at } from '../support/builders';
import { rest, type RestResult } from '../support/rest-client';

/**
 * Random keyword searches (200 with PROPERTY_RUNS=full, 40 in the suite: words, an optional
 * "phrase", an optional -excluded word) over candidates whose professional text is drawn from a
 * small vocabulary, on GraphQL (every other
 * one also on REST, which must answer the same), each answer checked against the text of every
 * candidate: every candidate whose searched text holds
 * a query word is found (when no phrase makes the search narrower), none holding an excluded
 * word is, every result holds each phrase; and no candidate is found by words of its
 * candidateMessage alone. Words are compared as whole words, case-insensitively: the text
 * search also finds other forms of a word (stemming), which these checks allow.
 */

const QUERIES = propertyCases(40, 200);
/** The test's time: well above what the full count takes on a busy machine. */
const TEST_TIMEOUT_MS = QUERIES > 100 ? 300_000 : 60_000;
const PER_RUN = 10;
const CANDIDATES = 120;

/** Words that no two stem alike and that are no stop words (English). */
const WORDS = [
  'welder',
  'plumbing',
  'surgery',
  'pharmacy',
  'carpentry',
  'masonry',
  'tailor',
  'bakery',
  'accounting',
  'midwife',
  'forklift',
  'irrigation',
  'textile',
  'dentistry',
  'logistics',
];
/** Occupations whose names share no word with WORDS. */
const OCCUPATIONS = ['5120', '2221', '8322'];

/** The words of a text, lower case. */
const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z]+/g) ?? [];

/** The text the keyword search reads of a candidate (schema/search.graphql `keyword`). */
function searchedText(candidate: CandidateDoc): string[] {
  return [
    ...(candidate.candidateOccupations ?? []).flatMap((o) => [
      occupationNameOf(o.occupation?.isco08Code ?? '') ?? '',
      ...(o.candidateJobExperiences ?? []).flatMap((j) => [j.role ?? '', j.description ?? '']),
    ]),
    ...(candidate.candidateSkills ?? []).map((s) => s.skill ?? ''),
    ...(candidate.candidateCertifications ?? []).map((c) => c.name),
    ...(candidate.candidateEducations ?? []).map((e) => e.courseName ?? ''),
  ];
}

function candidates(): CandidateDoc[] {
  const phrase = fc.array(fc.constantFrom(...WORDS, 'and', 'the', 'senior', 'work'), { minLength: 1, maxLength: 4 });
  const text = phrase.map((words) => words.join(' '));
  const candidate = fc.record({
    occupation: fc.constantFrom(...OCCUPATIONS),
    role: text,
    description: text,
    skill: text,
    course: text,
    certification: text,
    message: text,
    // Which of its texts the candidate has (the message always).
    has: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
  });
  return fc.sample(candidate, { seed: FUZZ_SEED, numRuns: CANDIDATES }).map((c, i) =>
    aCandidate({
      createdDate: at(i),
      status: i % 11 === 0 ? 'EMPLOYED' : 'ACTIVE',
      candidateMessage: c.message,
      candidateOccupations: [
        {
          occupation: { isco08Code: c.occupation },
          yearsExperience: 3,
          candidateJobExperiences: c.has[0] || c.has[1] ? [{ role: c.role, description: c.description }] : [],
        },
      ],
      candidateSkills: c.has[2] ? [{ skill: c.skill }] : [],
      candidateEducations: c.has[3] ? [{ courseName: c.course }] : [],
      candidateCertifications: c.has[4]
        ? [{ name: c.certification, institution: 'Institute', dateCompleted: '2021-05-01' }]
        : [],
    }),
  );
}

describe('property: keyword search against the candidates’ text, on GraphQL and REST', () => {
  let service: AppUnderTest;
  let reader: string;
  let all: CandidateDoc[];

  beforeAll(async () => {
    service = await startAppUnderTest({
      config: { rateLimitReads: 1_000_000, graphqlMaxAliases: PER_RUN, graphqlMaxCost: 1_000_000 },
    });
    reader = await service.key('READ_CANDIDATE_DATA');
    await new CandidateRepository(service.db).insertMany(candidates());
    all = await service.db
      .collection<CandidateDoc>(COLLECTIONS.candidates)
      .find({}, { projection: { _id: 0 } })
      .toArray();
  });

  afterAll(async () => {
    await service?.stop();
  });

  const query = fc.record({
    words: fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
    phrase: fc.option(
      fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS)).map((pair) => pair.join(' ')),
      { nil: undefined, freq: 3 },
    ),
    excluded: fc.option(fc.constantFrom(...WORDS), { nil: undefined, freq: 2 }),
    // In any case: the search is case-insensitive.
    upper: fc.boolean(),
  });
  type Query = { words: string[]; phrase?: string; excluded?: string; upper: boolean };
  const keywordOf = ({ words, phrase, excluded, upper }: Query): string => {
    const text = [...words, ...(phrase ? [`"${phrase}"`] : []), ...(excluded ? [`-${excluded}`] : [])].join(' ');
    return upper ? text.toUpperCase() : text;
  };

  /** What a result breaks of the rules, and which holders of a word are missing. */
  function violations(q: Query, found: readonly string[]): string[] {
    const problems: string[] = [];
    const byId = new Map(all.map((c) => [c.publicId, c]));
    for (const id of found) {
      const candidate = byId.get(id)!;
      const texts = searchedText(candidate);
      const words = new Set(texts.flatMap(wordsOf));
      if (q.excluded && words.has(q.excluded)) problems.push(`${id} holds the excluded ${q.excluded}`);
      if (q.phrase && !texts.some((text) => ` ${wordsOf(text).join(' ')} `.includes(` ${q.phrase} `)))
        problems.push(`${id} does not hold the phrase "${q.phrase}"`);
      if (!texts.flatMap(wordsOf).some((word) => q.words.includes(word) || (q.phrase ?? '').split(' ').includes(word)))
        problems.push(`${id} holds no query word outside its candidateMessage`);
    }
    if (q.phrase === undefined) {
      for (const candidate of all) {
        if (candidate.status === 'EMPLOYED') continue;
        const words = new Set(searchedText(candidate).flatMap(wordsOf));
        const holds = q.words.some((word) => words.has(word));
        const excluded = q.excluded !== undefined && words.has(q.excluded);
        if (holds && !excluded && !found.includes(candidate.publicId))
          problems.push(`${candidate.publicId} holds a query word and was not found`);
      }
    }
    return problems;
  }

  test(
    `when ${QUERIES} random keyword searches are made (on GraphQL, every other one also on REST), then every answer finds every holder of a word, no holder of an excluded word, and only holders of the phrase`,
    async () => {
      const document = `query Keywords(${Array.from({ length: PER_RUN }, (_, i) => `$k${i}: String`).join(', ')}) {
      ${Array.from(
        { length: PER_RUN },
        (_, i) => `k${i}: candidates(filter: { keyword: $k${i} }, limit: 100) { totalElements content { publicId } }`,
      ).join('\n')}
    }`;
      let checked = 0;
      let found = 0;
      await checkProperty(
        fc.asyncProperty(fc.array(query, { minLength: PER_RUN, maxLength: PER_RUN }), async (queries) => {
          const variables = Object.fromEntries(queries.map((q, i) => [`k${i}`, keywordOf(q)]));
          const viaGraphql = await graphql<Record<string, { totalElements: number; content: { publicId: string }[] }>>(
            service.url,
            document,
            variables,
            reader,
          );
          // Every other query also on REST, one request after the other as one client sends them.
          const viaRest = new Map<number, RestResult<{ totalElements: number; content: { publicId: string }[] }>>();
          for (const [i, q] of queries.entries())
            if (i % 2 === 0)
              viaRest.set(
                i,
                await rest(service.url, 'GET', `/v1/candidates?limit=100&keyword=${encodeURIComponent(keywordOf(q))}`, {
                  key: reader,
                }),
              );
          expect(viaGraphql.body.errors).toBeUndefined();
          queries.forEach((q, i) => {
            const graphqlIds = viaGraphql.body.data![`k${i}`].content.map((c) => c.publicId);
            expect({ keyword: keywordOf(q), violations: violations(q, graphqlIds) }).toEqual({
              keyword: keywordOf(q),
              violations: [],
            });
            const viaRestPage = viaRest.get(i);
            if (viaRestPage !== undefined)
              expect({
                keyword: keywordOf(q),
                status: viaRestPage.status,
                ids: viaRestPage.body.content?.map((c) => c.publicId),
              }).toEqual({
                keyword: keywordOf(q),
                status: 200,
                ids: graphqlIds,
              });
            checked++;
            found += graphqlIds.length;
          });
        }),
        fuzzParameters(QUERIES / PER_RUN, TEST_TIMEOUT_MS - 20_000, 30_000),
      );

      expect(checked).toBe(QUERIES);
      // The searches found candidates (the checks above are not all about empty answers).
      expect(found).toBeGreaterThan(QUERIES * 5);
    },
    TEST_TIMEOUT_MS,
  );
});
