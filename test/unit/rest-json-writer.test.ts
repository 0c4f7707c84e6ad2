import fs from 'node:fs';
import path from 'node:path';
import { createSchema } from '../../src/graphql/schema';
import { loadPersistedOperations } from '../../src/rest/persisted-operations';
import { withoutNulls } from '../../src/rest/shape';

/**
 * The JSON writers of the REST bodies (compiled from the persisted operations' selections) must
 * write exactly what `JSON.stringify(withoutNulls(data))` wrote, whatever the values hold.
 * The order of the fields as GraphQL executors put them is held by the golden test
 * (test/integration/rest-golden.test.ts, with compiled and interpreted execution).
 */
const operations = loadPersistedOperations(createSchema());
const candidateJson = operations.jsonWriter('GetCandidate', ['candidate']);
const pageJson = operations.jsonWriter('FindCandidates', ['candidates']);
const listPageJson = operations.jsonWriter('GetCandidatesByList', ['savedList', 'candidates']);

interface RecordedAnswer {
  request: string;
  status: number;
  body?: string;
}

const recorded = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'rest-golden.json'), 'utf8')) as {
    answers: RecordedAnswer[];
  }
).answers;

/** Small recorded 200 bodies of requests matching `pattern`: values in the order GraphQL answers them (nulls left out). */
function recordedBodies(pattern: RegExp): Record<string, unknown>[] {
  return recorded
    .filter((a) => a.status === 200 && a.body !== undefined && pattern.test(a.request))
    .map((a) => JSON.parse(a.body!) as Record<string, unknown>);
}

const recordedCandidates = () => recordedBodies(/^\/v1\/candidates\/[A-Za-z0-9_-]{22}$/);

/** The value with every n-th field (at every depth) set to null, as GraphQL answers absent fields. */
function withNullsEvery(value: unknown, n: number, counter = { i: 0 }): unknown {
  if (Array.isArray(value)) return value.map((item) => withNullsEvery(item, n, counter));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        ++counter.i % n === 0 ? null : withNullsEvery(item, n, counter),
      ]),
    );
  }
  return value;
}

const STRINGS = [
  'plain',
  '',
  'quote " and backslash \\',
  'controls \u0000\u0001\b\f\n\r\t\u001f',
  'line separators \u2028\u2029',
  'Zürich 東京',
  'pair 😀 🏳️‍🌈',
  'lone \ud800 high',
  'lone \udfff low',
  '\udc00\ud800 reversed',
  '</script>',
];

describe('the one-pass JSON writer of the REST bodies', () => {
  test('when the recorded candidates are written, then each is its recorded body', () => {
    const candidates = recordedCandidates();
    expect(candidates.length).toBeGreaterThan(4);

    for (const candidate of candidates) expect(candidateJson(candidate)).toBe(JSON.stringify(candidate));
  });

  test.each([2, 3, 5, 7])(
    'when every %i-th field at any depth is null, then the writer leaves out what withoutNulls left out',
    (n) => {
      for (const candidate of recordedCandidates()) {
        const result = withNullsEvery(candidate, n);

        expect(candidateJson(result)).toBe(JSON.stringify(withoutNulls(result)));
      }
    },
  );

  test('when recorded pages are written again, with nulls among the fields and the list items, then they are written as before', () => {
    const pages = recordedBodies(/^\/v1\/candidates\?/);
    const listPages = recordedBodies(/^\/v1\/candidates\/by-list\//);
    expect(pages.length).toBeGreaterThan(5);
    expect(listPages.length).toBeGreaterThan(2);

    for (const page of pages) {
      expect(pageJson(page)).toBe(JSON.stringify(page));
      const withNulls = withNullsEvery({ ...page, content: [null, ...(page.content as unknown[]), null] }, 4);
      expect(pageJson(withNulls)).toBe(JSON.stringify(withoutNulls(withNulls)));
    }
    for (const page of listPages) expect(listPageJson(page)).toBe(JSON.stringify(page));
  });

  test.each(STRINGS)('when a string value is %j, then it is escaped as JSON.stringify escapes it', (text) => {
    const candidate = {
      publicId: text,
      city: text,
      country: { isoCode: text, name: text },
      candidateOccupations: [{ occupation: { name: text } }],
    };

    expect(candidateJson(candidate)).toBe(JSON.stringify(candidate));
  });

  // Values in the order of the selection, as GraphQL answers them.
  test.each([
    [
      'numbers of every kind',
      {
        publicId: 'x',
        yearOfBirth: 0,
        yearOfArrival: NaN,
        hostEntryYear: Number.MAX_SAFE_INTEGER,
        asylumYear: 1e21,
        numberDependants: -1.5,
      },
    ],
    ['booleans', { publicId: 'x', contactConsentPlatformPartners: false, contactConsentRegistration: true }],
    ['an object where a scalar is selected', { publicId: { a: null, b: [1, null, undefined] }, city: [] }],
    [
      'a scalar where an object or a list is selected',
      { publicId: 'x', country: 'JO', candidateLanguages: [1, 'two', null], candidateOccupations: 'none' },
    ],
    [
      'undefined and functions',
      { publicId: 'x', gender: () => 1, city: undefined, candidateLanguages: [undefined, () => 1] },
    ],
  ])(
    'when a value holds %s, then it is written as JSON.stringify(withoutNulls(value)) wrote it',
    (_kind, candidate) => {
      expect(candidateJson(candidate)).toBe(JSON.stringify(withoutNulls(candidate)));
    },
  );

  test('when a writer is asked for a field the operation does not select, then it fails at start', () => {
    expect(() => operations.jsonWriter('GetCandidate', ['candidates'])).toThrow(/selects no field candidates/);
  });
});
