/**
 * The REST answers, byte for byte, for a fixed data set: status, content type and the exact
 * body of every request below are pinned in test/fixtures/rest-golden.json, recorded before the
 * read path was rewritten (how documents are read, projected and serialised); git log of the
 * fixture says when.
 * Any change in the stored documents, the projection, the execution or the serialisation that
 * alters one byte of an answer fails here.
 *
 * The data set: the demo data of seed GOLDEN_SEED (deterministic: seeded PRNG streams, no clock,
 * no crypto) plus hand-made candidates with fixed ids for what the generator never writes
 * (nulls stored in fields, empty arrays, unicode and characters JSON escapes, zero and false).
 *
 * Regenerating the fixture is a change of the contract's answers and must be deliberate:
 *   UPDATE_GOLDEN=1 npx jest test/integration/rest-golden.test.ts
 * writes the fixture from the code as it is, and the test then passes trivially; review the diff.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { toStoredCandidate, type CandidateDoc, type StoredCandidateDoc } from 'candidate-documents';
import { generateDemoData } from 'demo-data';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aCandidate, aSavedList } from '../support/builders';
import { rest } from '../support/rest-client';
import { shippedDemoReference } from '../../src/app/demo-reference';

const GOLDEN_SEED = 13;
const DEMO_CANDIDATES = 160;
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'rest-golden.json');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/** Bodies up to this size are kept whole in the fixture (a failure then shows the difference); larger ones by hash. */
const MAX_KEPT_BODY = 24_000;
/**
 * The fixture's 61 requests answered with 3.4 MB of JSON, each through the whole read path (no
 * answer cache): 28 s under a load of 14 on 2 cores; the two starts of the service with its data
 * set took most of the file's other 37 s. The limits are more than twice that.
 */
const SETUP_TIMEOUT_MS = 120_000;
const ANSWERS_TIMEOUT_MS = 120_000;

interface GoldenAnswer {
  request: string;
  status: number;
  contentType: string | null;
  bytes: number;
  sha256: string;
  body?: string;
}

interface GoldenFixture {
  dataSet: { seed: number; demoCandidates: number; handMade: string[] };
  answers: GoldenAnswer[];
}

const id = (n: number) => `golden${String(n).padStart(2, '0')}${'A'.repeat(14)}`;

/** Candidates the demo generator does not make: what the REST shape must omit, escape or keep. */
function handMadeCandidates(): CandidateDoc[] {
  const date = (day: number) => new Date(Date.UTC(2019, 0, day, 12, 30, 15, 123));
  return [
    aCandidate({
      publicId: id(1),
      createdDate: date(1),
      city: 'Zürich – 東京 «Ünïcödé» 😀 "quoted" back\\slash\ttab\nnewline \u2028 \u0001',
      candidateMessage: '</script><b>&amp;</b> \u00e9\u0301 \ud83c\udff3\ufe0f\u200d\ud83c\udf08',
      yearOfBirth: 0,
      candidateLanguages: [],
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 0, candidateJobExperiences: [] }],
    }),
    aCandidate({
      publicId: id(2),
      createdDate: date(1),
      status: 'EMPLOYED',
      city: null as unknown as string,
      gender: null as unknown as CandidateDoc['gender'],
      maritalStatus: undefined,
      candidateOccupations: [],
      candidateLanguages: [{ languageIsoCode: 'zz', writtenLevel: 99, spokenLevel: 6 }],
    }),
    aCandidate({
      publicId: id(3),
      createdDate: date(2),
      status: 'PENDING',
      countryIsoCode: 'XX',
      nationalityIsoCode: 'sy',
      candidateOccupations: [
        { occupation: { isco08Code: '9999' }, yearsExperience: 2, candidateJobExperiences: [] },
        { occupation: { isco08Code: '7126' }, yearsExperience: 11, candidateJobExperiences: [] },
      ],
    }),
    aCandidate({ publicId: id(4), createdDate: date(2), status: 'DELETED', city: '' }),
  ];
}

/** Every request of the fixture, in order: what a partner sends, over the fixed data set. */
function goldenRequests(): string[] {
  const demo = generateDemoData({ candidates: DEMO_CANDIDATES, seed: GOLDEN_SEED, reference: shippedDemoReference() });
  const ids = demo.candidates.map((c) => c.publicId);
  const lists = demo.savedLists.map((l) => l.publicId);
  const occupations = [
    ...new Set(
      demo.candidates.flatMap((c) =>
        (c.candidateOccupations ?? []).flatMap((o) => (o.occupation ? [o.occupation.isco08Code] : [])),
      ),
    ),
  ].sort();
  const countries = [
    ...new Set(demo.candidates.map((c) => c.countryIsoCode).filter((c): c is string => typeof c === 'string')),
  ].sort();
  const nationalities = [
    ...new Set(demo.candidates.map((c) => c.nationalityIsoCode).filter((c): c is string => typeof c === 'string')),
  ].sort();
  const search = (query: string) => `/v1/candidates${query}`;
  return [
    // search without filter: pages, sizes, past the end, deep pages
    search(''),
    search('?page=0&limit=10'),
    search('?page=1'),
    search('?limit=1'),
    search('?limit=1&page=7'),
    search('?limit=1&page=150'),
    search('?limit=100'),
    search('?limit=100&page=1'),
    search('?limit=100&page=2'),
    search('?limit=7&page=21'),
    search('?limit=20&page=99'),
    search('?includeEmployed=true&limit=100&page=1'),
    search('?includeEmployed=true&limit=3&page=40'),
    search('?includeEmployed=false&limit=5'),
    // each filter, several codes, case and spaces, combinations
    search(`?location=${countries[0]}`),
    search(`?location=${countries[1]},${countries[2]},${countries[3]}&limit=50`),
    search(`?location=${countries[0].toLowerCase()}%20,%20${countries[4]}&limit=100`),
    search(`?nationality=${nationalities[0]}&limit=100`),
    search(`?nationality=${nationalities[1]},${nationalities[2]},sy&includeEmployed=true&limit=100`),
    search(`?occupation=${occupations[0]}`),
    search(`?occupation=${occupations[1]},${occupations[2]},${occupations[3]}&limit=100`),
    search('?occupation=2221&includeEmployed=true&limit=100'),
    search(`?location=${countries[0]},${countries[1]}&nationality=${nationalities.slice(0, 4).join(',')}&limit=100`),
    search(
      `?location=${countries.slice(0, 5).join(',')}&occupation=${occupations.slice(0, 20).join(',')}&limit=10&page=1`,
    ),
    search(
      `?location=${countries.slice(0, 50).join(',')}&nationality=${nationalities.slice(0, 50).join(',')}&occupation=${occupations.slice(0, 50).join(',')}&includeEmployed=true&limit=25&page=1`,
    ),
    search(`?occupation=${occupations.join(',')}`),
    search('?location=JO&nationality=SY&occupation=2221&includeEmployed=true'),
    search('?location=XX'),
    search('?occupation=0000&limit=100&page=3'),
    // by id: demo, hand-made, unknown
    `/v1/candidates/${ids[0]}`,
    `/v1/candidates/${ids[1]}`,
    `/v1/candidates/${ids[57]}`,
    `/v1/candidates/${ids[ids.length - 1]}`,
    ...handMadeCandidates().map((c) => `/v1/candidates/${c.publicId}`),
    `/v1/candidates/${'Z'.repeat(22)}`,
    // by saved list: pages, sizes, past the end, the hand-made list, unknown
    ...lists.map((list) => `/v1/candidates/by-list/${list}`),
    `/v1/candidates/by-list/${lists[lists.length - 1]}?limit=100`,
    `/v1/candidates/by-list/${lists[lists.length - 1]}?limit=3&page=2`,
    `/v1/candidates/by-list/${lists[0]}?limit=1&page=1`,
    `/v1/candidates/by-list/${lists[0]}?page=50`,
    `/v1/candidates/by-list/${id(50)}?limit=100`,
    `/v1/candidates/by-list/${'Y'.repeat(22)}`,
    // problems
    search('?limit=0'),
    search('?limit=101'),
    search('?page=-1'),
    search('?page=abc'),
    search('?includeEmployed=yes'),
    search('?colour=blue'),
    search('?location='),
    '/v1/candidates/not-a-public-id',
    `/v1/candidates/${ids[0]}?page=1`,
    `/v1/candidates/by-list/${'Y'.repeat(22)}?limit=0`,
    '/v1/candidates/by-list/short',
    '/v1/no-such-path',
  ];
}

function answerOf(request: string, status: number, contentType: string | null, text: string): GoldenAnswer {
  const bytes = Buffer.from(text, 'utf8');
  return {
    request,
    status,
    contentType,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    ...(bytes.length <= MAX_KEPT_BODY ? { body: text } : {}),
  };
}

// Both executors of the persisted operations (GRAPHQL_JIT): the answers may not depend on it.
describe.each([
  ['compiled (GRAPHQL_JIT=true)', true],
  ['interpreted (GRAPHQL_JIT=false)', false],
])('REST answers byte for byte (golden fixture), execution %s', (_executor, graphqlJit) => {
  let service: AppUnderTest;
  let reader: string;

  beforeAll(async () => {
    // Without the answer cache every request runs the whole read path; without a rate limit in the way.
    service = await startAppUnderTest({
      candidates: DEMO_CANDIDATES,
      seed: GOLDEN_SEED,
      config: { readCacheMb: 0, rateLimitReads: 1_000_000, graphqlJit },
      clock: { now: () => new Date(Date.UTC(2025, 8, 1)) },
    });
    // As the repositories store them (with the derived `listed` field searches select on).
    const handMade = handMadeCandidates().map(toStoredCandidate);
    await service.db.collection<StoredCandidateDoc>(COLLECTIONS.candidates).insertMany(handMade);
    await service.db.collection(COLLECTIONS.savedLists).insertOne(
      aSavedList({
        publicId: id(50),
        name: 'Golden ✓',
        candidatePublicIds: [id(2), 'unknownCandidateIdAAAAA', id(1), id(3), id(4)],
        createdDate: new Date(Date.UTC(2025, 0, 1)),
      }),
    );
    reader = await service.key('READ_CANDIDATE_DATA');
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await service?.stop();
  });

  test(
    'when the requests of the fixture are sent over the fixed data set, then every answer is the recorded one, byte for byte',
    async () => {
      const answers: GoldenAnswer[] = [];
      for (const request of goldenRequests()) {
        const { status, headers, text } = await rest(service.url, 'GET', request, {
          key: reader,
          headers: { 'accept-encoding': 'identity' },
        });
        answers.push(answerOf(request, status, headers.get('content-type'), text));
      }

      if (UPDATE && graphqlJit) {
        const fixture: GoldenFixture = {
          dataSet: {
            seed: GOLDEN_SEED,
            demoCandidates: DEMO_CANDIDATES,
            handMade: handMadeCandidates().map((c) => c.publicId),
          },
          answers,
        };
        fs.mkdirSync(path.dirname(FIXTURE), { recursive: true });
        fs.writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
        console.log(`UPDATE_GOLDEN=1: ${answers.length} answers written to ${path.relative(process.cwd(), FIXTURE)}`);
        return;
      }
      if (UPDATE) return;
      const recorded = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as GoldenFixture;
      expect(recorded.dataSet).toEqual({
        seed: GOLDEN_SEED,
        demoCandidates: DEMO_CANDIDATES,
        handMade: handMadeCandidates().map((c) => c.publicId),
      });
      expect(answers.map((a) => a.request)).toEqual(recorded.answers.map((a) => a.request));
      answers.forEach((answer, i) => {
        const expected = recorded.answers[i];
        // The body first when both have it: a failure then shows where the bytes differ.
        if (expected.body !== undefined)
          expect({ request: answer.request, body: answer.body }).toEqual({
            request: expected.request,
            body: expected.body,
          });
        expect(answer).toEqual(expected);
      });
    },
    ANSWERS_TIMEOUT_MS,
  );
});
