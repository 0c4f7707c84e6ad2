import http from 'node:http';
import fc from 'fast-check';
import { validateResponse } from './openapi-validator';

/**
 * Hostile input for the property tests of test/property/: fast-check arbitraries of what an
 * attacker or a broken client sends (MongoDB operators, prototype keys, numbers JSON.parse
 * turns into Infinity, -0 or a rounded integer, unicode edge cases, invalid UTF-8, huge and
 * deeply nested values), the raw HTTP exchange that sends them byte for byte, and the checks
 * every answer must pass whatever was sent.
 */

// ---------------------------------------------------------------------------------------------
// Runs

/** One seed for every property: a failure replays exactly; fast-check prints seed and path. */
export const FUZZ_SEED = 0x5eed_2024;

/** express.json's limit of 100kb, in bytes: a longer body is a 413 whatever it holds. */
export const BODY_LIMIT_BYTES = 100 * 1024;

/**
 * Parameters of one property: a fixed seed, `numRuns` runs, a run over `runTimeoutMs` (a hang)
 * counted as a failure, and a time budget after which no new run starts, so that a slow
 * machine (or a long shrink) cannot stall the suite; `checkProperty` says when it was hit.
 */
export function fuzzParameters<T>(numRuns: number, budgetMs: number, runTimeoutMs = 10_000): fc.Parameters<T> {
  return {
    seed: FUZZ_SEED,
    numRuns,
    plugins: [fc.timeout(runTimeoutMs), fc.interruptAfterTimeLimit(budgetMs)] as fc.Plugin<T>[],
  };
}

/**
 * How many cases a property that sends every case through the service runs: `bounded` in the
 * suite (its time budget), `full` with PROPERTY_RUNS=full, for a run by hand of the count a goal
 * names (`PROPERTY_RUNS=full npx jest test/property/search-filters.test.ts`).
 */
export function propertyCases(bounded: number, full: number): number {
  const wanted = process.env.PROPERTY_RUNS;
  if (wanted !== undefined && wanted !== 'full') throw new Error(`PROPERTY_RUNS is "full" or unset, not "${wanted}"`);
  return wanted === 'full' ? full : bounded;
}

/**
 * Runs a property like `fc.assert` (a failure throws with the seed, the path and the shrunk
 * counterexample), and warns when the time budget stopped it before `numRuns`.
 */
export async function checkProperty<Ts>(property: fc.IAsyncProperty<Ts>, parameters: fc.Parameters<Ts>): Promise<void> {
  const details = await fc.check(property, parameters);
  if (details.failed) {
    const cause: unknown = 'errorInstance' in details ? details.errorInstance : undefined;
    throw new Error(
      `${fc.defaultReportMessage(details)}\n\nCause:\n${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  if (details.interrupted) {
    console.warn(
      `fast-check: the time budget stopped the property after ${details.numRuns} of ${parameters.numRuns ?? 100} runs (a slow or busy machine).`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// JSON as sent: values JSON.stringify cannot write

/** JSON text inserted as is: numbers like `1e309` or `-0`, or nesting too deep to stringify. */
export class RawJson {
  constructor(
    readonly text: string,
    /** how a counterexample prints it */
    readonly label: string,
  ) {}

  [fc.toStringMethod](): string {
    return `raw(${this.label})`;
  }
}

/** A JSON string literal whose content is these bytes, which need not be valid UTF-8. */
export class InvalidUtf8 {
  constructor(readonly bytes: readonly number[]) {}

  [fc.toStringMethod](): string {
    return `bytes(${this.bytes.map((b) => b.toString(16).padStart(2, '0')).join(' ')})`;
  }
}

export type HostileJson =
  null | boolean | number | string | RawJson | InvalidUtf8 | HostileJson[] | { [key: string]: HostileJson };

/** The bytes of `value` as a JSON text; objects keep own `__proto__` keys (build them with Object.fromEntries). */
export function jsonBytes(value: HostileJson): Buffer {
  const parts: Buffer[] = [];
  const write = (v: HostileJson): void => {
    if (v instanceof RawJson) parts.push(Buffer.from(v.text, 'utf8'));
    else if (v instanceof InvalidUtf8) parts.push(Buffer.from('"'), Buffer.from(v.bytes), Buffer.from('"'));
    else if (Array.isArray(v)) {
      parts.push(Buffer.from('['));
      v.forEach((item, i) => {
        if (i > 0) parts.push(Buffer.from(','));
        write(item);
      });
      parts.push(Buffer.from(']'));
    } else if (v !== null && typeof v === 'object') {
      parts.push(Buffer.from('{'));
      Object.keys(v).forEach((key, i) => {
        if (i > 0) parts.push(Buffer.from(','));
        parts.push(Buffer.from(`${JSON.stringify(key)}:`, 'utf8'));
        write(v[key]);
      });
      parts.push(Buffer.from('}'));
    } else {
      // Lone surrogates are written as \u escapes by JSON.stringify, so they reach the parser.
      parts.push(Buffer.from(JSON.stringify(v) ?? 'null', 'utf8'));
    }
  };
  write(value);
  return Buffer.concat(parts);
}

/** `{ [key]: value }` with `key` an own property even when it is `__proto__`. */
export function objectOf(entries: readonly (readonly [string, HostileJson])[]): { [key: string]: HostileJson } {
  return Object.fromEntries<HostileJson>(entries);
}

// ---------------------------------------------------------------------------------------------
// Hostile values

export const MONGO_OPERATORS = [
  '$gt',
  '$gte',
  '$lt',
  '$ne',
  '$eq',
  '$in',
  '$nin',
  '$exists',
  '$regex',
  '$where',
  '$expr',
  '$or',
  '$and',
  '$not',
  '$elemMatch',
  '$function',
  '$lookup',
  '$set',
] as const;

/** Keys that pollute a prototype when a parser or a merge copies them naively. */
export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
] as const;

/** `{ "$ne": null }` and its kin, as a client that hopes the value reaches a query unchanged sends them. */
export function operatorObject(realIds: readonly string[] = []): fc.Arbitrary<HostileJson> {
  const operand: fc.Arbitrary<HostileJson> = fc.constantFrom<HostileJson>(
    '',
    null,
    0,
    true,
    '.*',
    '^',
    'sleep(5000) || true',
    'function () { return true; }',
    'this.status != "EMPLOYED"',
    [],
    {},
    { $gt: '' },
    ...(realIds.length > 0 ? [[...realIds.slice(0, 3)]] : []),
  );
  return fc.oneof(
    fc.tuple(fc.constantFrom(...MONGO_OPERATORS), operand).map(([op, value]) => objectOf([[op, value]])),
    fc.constant(
      objectOf([
        ['$regex', '.*'],
        ['$options', 'si'],
      ]),
    ),
    fc.constant(objectOf([['$function', { body: 'function () { return true; }', args: [], lang: 'js' }]])),
    fc.constant(objectOf([['$expr', { $eq: [1, 1] }]])),
  );
}

/** Objects carrying prototype-pollution keys, e.g. `{"__proto__": {"isAdmin": true}}`. */
export const prototypePollution: fc.Arbitrary<HostileJson> = fc
  .tuple(
    fc.constantFrom(...PROTOTYPE_KEYS),
    fc.constantFrom<HostileJson>(
      { isAdmin: true },
      { permissions: ['ADMIN'] },
      { prototype: { polluted: 1 } },
      'x',
      1,
      null,
    ),
  )
  .map(([key, value]) => objectOf([[key, value]]));

/** Numbers at the edges of JSON and of JavaScript, as JSON text. */
export const NUMBER_LITERALS = [
  '1e309',
  '-1e309',
  '-0',
  '0.0',
  '1.0',
  '1E2',
  '1e-400',
  '5e-324',
  '2147483647',
  '2147483648',
  '-2147483649',
  '9007199254740991',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890',
  '1.5',
  '0.1',
] as const;

export const numberLiteral: fc.Arbitrary<HostileJson> = fc
  .constantFrom(...NUMBER_LITERALS)
  .map((text) => new RawJson(text, text));

/** Texts that parse (or fail to parse) as numbers in surprising ways. */
export const NUMERIC_TEXTS = [
  '1e309',
  '-0',
  '+0',
  '-1',
  '0',
  '00',
  '007',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '0o7',
  '1_000',
  '1,000',
  '1.',
  '.5',
  '1.0',
  '1e2',
  ' 1',
  '1 ',
  '\t1',
  '2147483647',
  '2147483648',
  '-2147483648',
  '9007199254740993',
  '99999999999999999999999999999',
  '١٢',
  '１',
  '²',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
] as const;

/** Strings whose code points are what breaks naive handling: case mapping, width, direction, surrogates, controls. */
export const UNICODE_EDGES = [
  '',
  ' ',
  '\u0000',
  '\u0001\u001f',
  '\u007f',
  '\u00a0JO\u00a0',
  '\u200bJO',
  'J\u200dO',
  '\ufeffJO',
  '\u202eOJ',
  'ＪＯ',
  'ıt',
  'ß',
  'İ',
  'ǅ',
  'ﬀ',
  'e\u0301',
  '\ud800',
  '\udfff',
  '\ud83d\ude00',
  '👨‍👩‍👧',
  '\uffff',
  '\ufffd',
  '\u2028',
  '\u2029',
  'Ⅻ',
  'ك',
  'ليبيا',
  '中国',
  'jo',
  ' JO ',
] as const;

/** Strings an attacker tries where a code or an id is expected. */
export const INJECTION_TEXTS = [
  '$ne',
  '$gt',
  '{"$ne":null}',
  '{"$gt":""}',
  '[$ne]',
  '.*',
  '^.*$',
  '(',
  '[',
  '\\',
  '*',
  '?',
  '%',
  '%00',
  '%ZZ',
  "' OR '1'='1",
  '"; sleep(5000); "',
  'this.a == this.a',
  'function(){return true}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  '[object Object]',
  'undefined',
  'null',
] as const;

/** Any of the hand-picked texts above. */
export const edgeText: fc.Arbitrary<string> = fc.constantFrom<string>(
  ...UNICODE_EDGES,
  ...INJECTION_TEXTS,
  ...NUMERIC_TEXTS,
);

/** Strings of any UTF-16 code units, lone surrogates included, short. */
export const anyUnits: fc.Arbitrary<string> = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  maxLength: 12,
});

/** Long strings, of one repeated character (ASCII or multi-byte) so that their size is predictable (a hostile value holds them as RawJson, which prints short). */
export function longText(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: minLength, max: maxLength }), fc.constantFrom('a', 'é', '€', '😀', '\u0000', ' '))
    .map(([n, c]) => c.repeat(n));
}

/** Bytes that are not valid UTF-8 (overlong forms, lone continuation bytes, encoded surrogates, truncations), with ASCII around them. */
export const invalidUtf8Bytes: fc.Arbitrary<number[]> = fc
  .tuple(
    fc.constantFrom(
      [0xff],
      [0xfe, 0xff],
      [0xc3, 0x28],
      [0x80],
      [0xbf],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
    ),
    fc.array(fc.integer({ min: 0x61, max: 0x7a }), { maxLength: 4 }),
  )
  .map(([bad, ascii]) => [...ascii, ...bad, ...ascii]);

/** Nesting of `depth` arrays or objects around a leaf, as JSON text (JSON.stringify overflows its stack on it). */
export function deeplyNested(minDepth: number, maxDepth: number): fc.Arbitrary<HostileJson> {
  return fc
    .tuple(fc.integer({ min: minDepth, max: maxDepth }), fc.constantFrom('array', 'object', 'operator'))
    .map(([depth, kind]) => {
      const [open, close] = kind === 'array' ? ['[', ']'] : kind === 'object' ? ['{"a":', '}'] : ['{"$ne":', '}'];
      return new RawJson(`${open.repeat(depth)}"x"${close.repeat(depth)}`, `${depth} nested ${kind}s`);
    });
}

/** Any hostile value: the thing sent where a well-typed value belongs. */
export function hostileValue(
  options: { realIds?: readonly string[]; canaries?: fc.Arbitrary<string> } = {},
): fc.Arbitrary<HostileJson> {
  const leaves: fc.Arbitrary<HostileJson>[] = [
    operatorObject(options.realIds),
    prototypePollution,
    numberLiteral,
    edgeText,
    anyUnits,
    invalidUtf8Bytes.map((bytes) => new InvalidUtf8(bytes)),
    fc.constantFrom<HostileJson>(null, true, false, 0, -1, [], {}, [null], ['JO'], [{}]),
    longText(1_000, 5_000).map(
      (text) => new RawJson(JSON.stringify(text), `${text.length} × ${JSON.stringify(text[0])}`),
    ),
    deeplyNested(10, 12_000),
  ];
  if (options.canaries) leaves.push(options.canaries);
  return fc.oneof(...leaves);
}

// ---------------------------------------------------------------------------------------------
// Bodies: a well-formed skeleton with hostile values put in at chosen places

/** One change to a body: replace the value at a place, add a key to an object, or wrap a value in an array. */
export interface Mutation {
  kind: 'replace' | 'add-key' | 'wrap';
  /** picks the place: an index, modulo the number of places */
  at: number;
  key: string;
  value: HostileJson;
}

export function mutation(value: fc.Arbitrary<HostileJson>): fc.Arbitrary<Mutation> {
  return fc.record({
    kind: fc.constantFrom<Mutation['kind']>('replace', 'replace', 'add-key', 'wrap'),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, ...MONGO_OPERATORS), fc.string({ maxLength: 8 })),
    value,
  });
}

/** `body` with `mutations` applied in order (the body is copied, never changed). */
export function mutate(body: HostileJson, mutations: readonly Mutation[]): HostileJson {
  let result = structuredCopy(body);
  for (const m of mutations) {
    const places = placesOf(result);
    const place = places[m.at % places.length];
    const apply = (current: HostileJson): HostileJson => {
      if (m.kind === 'replace') return m.value;
      if (m.kind === 'wrap') return [current];
      if (isPlainObject(current)) return objectOf([...Object.entries(current), [m.key, m.value]]);
      return m.value;
    };
    result = replaceAt(result, place, apply);
  }
  return result;
}

function isPlainObject(v: HostileJson): v is { [key: string]: HostileJson } {
  return (
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawJson) && !(v instanceof InvalidUtf8)
  );
}

function structuredCopy(v: HostileJson): HostileJson {
  if (Array.isArray(v)) return v.map(structuredCopy);
  if (isPlainObject(v)) return objectOf(Object.entries(v).map(([k, item]) => [k, structuredCopy(item)]));
  return v;
}

type Path = (string | number)[];

function placesOf(v: HostileJson, path: Path = []): Path[] {
  const here = [path];
  if (Array.isArray(v)) return [...here, ...v.flatMap((item, i) => placesOf(item, [...path, i]))];
  if (isPlainObject(v)) return [...here, ...Object.entries(v).flatMap(([k, item]) => placesOf(item, [...path, k]))];
  return here;
}

function replaceAt(v: HostileJson, path: Path, apply: (current: HostileJson) => HostileJson): HostileJson {
  if (path.length === 0) return apply(v);
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((item, i) => (i === head ? replaceAt(item, rest, apply) : item));
  if (isPlainObject(v))
    return objectOf(Object.entries(v).map(([k, item]) => [k, k === head ? replaceAt(item, rest, apply) : item]));
  return v;
}

/** The value at `path` of a body as the JSON parser sees it (undefined when absent or not plain JSON). */
export function valueAt(body: HostileJson, ...path: (string | number)[]): HostileJson | undefined {
  let current: HostileJson | undefined = body;
  for (const part of path) {
    if (Array.isArray(current) && typeof part === 'number') current = current[part];
    else if (
      current !== undefined &&
      isPlainObject(current) &&
      typeof part === 'string' &&
      Object.hasOwn(current, part)
    )
      current = current[part];
    else return undefined;
  }
  return current;
}

/** `body` with the value at `path` set (the objects and arrays on the way are copied). */
export function setAt(body: HostileJson, path: readonly (string | number)[], value: HostileJson): HostileJson {
  return replaceAt(body, [...path], () => value);
}

// ---------------------------------------------------------------------------------------------
// Well-formed inputs of the three writes (REST bodies and GraphQL `input`s), to mutate

/** Ids that exist (mostly) or have the right form but name nothing. */
export function someId(existingIds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...existingIds) },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{22}$/) },
  );
}

/** `{ candidates: [{ publicId }…], additionalNotes? }` */
export function jobMatchInput(existingIds: readonly string[], notes: fc.Arbitrary<string>): fc.Arbitrary<HostileJson> {
  return fc
    .tuple(fc.array(someId(existingIds), { minLength: 1, maxLength: 4 }), fc.option(notes, { nil: undefined }))
    .map(([ids, note]) =>
      objectOf([
        ['candidates', ids.map((publicId) => ({ publicId }))],
        ...(note === undefined ? [] : [['additionalNotes', note] as const]),
      ]),
    );
}

export const OFFER_REASONS = [
  'JOB_OPPORTUNITY',
  'EDUCATION_SERVICE',
  'MIGRATION_SERVICE',
  'FINANCIAL_SUPPORT_SERVICE',
  'SETTLEMENT_SERVICE',
  'OTHER',
] as const;

/** `{ candidates: [{ publicId, couponCode? }…], reason, additionalNotes? }` */
export function offerToAssistInput(
  existingIds: readonly string[],
  notes: fc.Arbitrary<string>,
): fc.Arbitrary<HostileJson> {
  return fc
    .tuple(
      fc.array(
        fc.tuple(
          someId(existingIds),
          fc.option(fc.oneof(fc.stringMatching(/^[A-Z0-9-]{1,12}$/), edgeText), { nil: undefined }),
        ),
        { minLength: 1, maxLength: 4 },
      ),
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...OFFER_REASONS) },
        { weight: 1, arbitrary: fc.constantFrom('other', '', 'JOB_OPPORTUNITY ') },
      ),
      fc.option(notes, { nil: undefined }),
    )
    .map(([items, reason, note]) =>
      objectOf([
        [
          'candidates',
          items.map(([publicId, couponCode]): HostileJson =>
            couponCode === undefined ? { publicId } : { publicId, couponCode },
          ),
        ],
        ['reason', reason],
        ...(note === undefined ? [] : [['additionalNotes', note] as const]),
      ]),
    );
}

/** A registration with fresh identity canaries (`identityCanary`), and those values to look for. */
export function registrationInput(): fc.Arbitrary<{ body: HostileJson; values: string[] }> {
  return fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9]{7}$/), fc.constantFrom('JO', 'jo', ' LB ', 'XX', 'SY'))
    .map(([tag, country]) => {
      const canary = identityCanary(`f${tag}`, { country: { isoCode: country } });
      return { body: canary.body as unknown as HostileJson, values: canary.values };
    });
}

// ---------------------------------------------------------------------------------------------
// The search rules, as a model to compare answers with

/** The fields of a candidate a search looks at. */
export interface SearchableCandidate {
  publicId: string;
  createdDate: Date;
  status?: string;
  countryIsoCode?: string;
  nationalityIsoCode?: string;
  candidateOccupations?: { occupation?: { isco08Code?: string } }[];
}

const CODE_PATTERNS: Record<string, RegExp> = {
  location: /^[A-Z]{2}$/,
  nationality: /^[A-Z]{2}$/,
  occupation: /^\d{4}$/,
};

/**
 * What a search must answer, by the rules of docs/partners-rest.md: codes trimmed, upper-cased, blank ones
 * dropped, duplicates removed, at most 50 per field and of the field's form; page >= 0, limit 1
 * to 100; candidates in (createdDate, publicId) order, EMPLOYED ones only when asked for.
 * `candidates` must be in that order already. `invalid` names the broken rule.
 */
export function expectedSearch(
  candidates: readonly SearchableCandidate[],
  args: {
    filter: Partial<Record<'location' | 'nationality' | 'occupation', readonly string[]>>;
    includeEmployed: boolean;
    page: number;
    limit: number;
  },
): { invalid: string } | { invalid?: undefined; totalElements: number; totalPages: number; ids: string[] } {
  if (!Number.isSafeInteger(args.page) || args.page < 0) return { invalid: 'page' };
  if (!Number.isSafeInteger(args.limit) || args.limit < 1 || args.limit > 100) return { invalid: 'limit' };
  const filter: Record<string, string[] | undefined> = {};
  for (const [name, raw] of Object.entries(args.filter)) {
    if (raw === undefined) continue;
    const codes = [...new Set(raw.map((code) => code.trim().toUpperCase()).filter((code) => code !== ''))];
    if (codes.length > 50 || codes.some((code) => !CODE_PATTERNS[name].test(code))) return { invalid: name };
    filter[name] = codes.length > 0 ? codes : undefined;
  }
  const found = candidates.filter(
    (c) =>
      (args.includeEmployed || c.status !== 'EMPLOYED') &&
      (!filter.location || filter.location.includes(c.countryIsoCode ?? '')) &&
      (!filter.nationality || filter.nationality.includes(c.nationalityIsoCode ?? '')) &&
      (!filter.occupation ||
        (c.candidateOccupations ?? []).some((o) => filter.occupation!.includes(o.occupation?.isco08Code ?? ''))),
  );
  const start = args.page * args.limit;
  return {
    totalElements: found.length,
    totalPages: Math.ceil(found.length / args.limit),
    ids: found.slice(start, start + args.limit).map((c) => c.publicId),
  };
}

/** Candidates in search order: createdDate, then publicId. */
export function inSearchOrder<T extends SearchableCandidate>(candidates: readonly T[]): T[] {
  return [...candidates].sort(
    (a, b) =>
      a.createdDate.getTime() - b.createdDate.getTime() ||
      (a.publicId < b.publicId ? -1 : a.publicId > b.publicId ? 1 : 0),
  );
}

// ---------------------------------------------------------------------------------------------
// Query strings and path segments, encoded as a client might (or should not)

/**
 * How a decoded name or value goes on the wire: `utf8` percent-encodes every byte that is not
 * unreserved; `minimal` only what would break the request line or the query syntax (so
 * `location[$ne]` stays as typed); `broken` adds percent signs that begin no escape.
 */
export type QueryEncoding = 'utf8' | 'minimal' | 'broken';

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const MINIMAL_KEPT = /[A-Za-z0-9\-._~!$'()*,;:@[\]/?]/;

export function encodeQueryPart(text: string, encoding: QueryEncoding): string {
  const keep = encoding === 'utf8' ? UNRESERVED : MINIMAL_KEPT;
  let out = '';
  for (const char of text) {
    if (keep.test(char)) out += char;
    else out += [...Buffer.from(char, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return encoding === 'broken' ? `${out}%` : out;
}

/** Percent-escapes of arbitrary bytes: invalid UTF-8 once decoded (%FF, %C0%AF, %ED%A0%80, …). */
export const percentEncodedBytes: fc.Arbitrary<string> = invalidUtf8Bytes.map((bytes) =>
  bytes.map((b) => (b >= 0x61 && b <= 0x7a ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase()}`)).join(''),
);

/** A query string (without `?`) of these already-encoded pairs; a pair without `=` when the value is undefined. */
export function queryString(pairs: readonly (readonly [string, string | undefined])[]): string {
  return pairs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join('&');
}

// ---------------------------------------------------------------------------------------------
// Identity canaries: distinctive identity values registered first, looked for in every answer

export interface IdentityCanary {
  /** the body of POST /v1/candidates/register */
  body: { registrarId: string; registrationData: Record<string, unknown> };
  /** the e-mail address of the identity */
  email: string;
  /** every identity value of the body (and telling parts of them), none of which may ever be answered */
  values: string[];
}

/**
 * A registration whose identity values are unmistakable: `tag` (six or more letters and
 * digits) makes them unique, and no demo value or generated id contains it by chance.
 */
export function identityCanary(tag: string, profile: Record<string, unknown> = {}): IdentityCanary {
  const digits = [...tag]
    .map((c) => c.charCodeAt(0) % 10)
    .join('')
    .padEnd(7, '7')
    .slice(0, 7);
  // 1931 to 1959: no date of the demo data is that old, so the full date cannot be met by chance.
  const dob = `${1931 + (Number(digits.slice(0, 2)) % 29)}-0${1 + (Number(digits[2]) % 9)}-1${digits[3]}`;
  const identity = {
    firstName: `Zuleikha ${tag}`,
    // A `;` inside: an error message cut at the first `;` would still quote the rest.
    lastName: `Oyelaran;Vasquez ${tag}`,
    email: `canary.${tag}@example.org`,
  };
  const private_ = {
    dob,
    phone: `+962 79 ${digits.slice(0, 3)} ${digits.slice(3)}`,
    professionalNetworkLink: `https://profiles.example.net/in/canary-${tag}`,
    refugeeAgencyNumber: `UNHCR-${tag}-0417`,
    reliefAgencyNumber: `UNRWA-${tag}-2291`,
    messagingAppNumber: `+963 93 ${digits.slice(0, 4)} ${digits.slice(4)}`,
  };
  return {
    body: {
      registrarId: `registrar-${tag}`,
      registrationData: {
        identity,
        ...private_,
        country: { isoCode: 'JO' },
        nationality: { isoCode: 'SY' },
        candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 4 }],
        city: 'Amman',
        ...profile,
      },
    },
    email: identity.email,
    values: [
      ...Object.values(identity),
      ...Object.values(private_),
      `canary.${tag}`,
      `${digits.slice(0, 3)} ${digits.slice(3)}`,
      // Any part of a value that is echoed shows the tag.
      tag,
    ],
  };
}

/** Identity values found in `text` (case-insensitively). */
export function canariesIn(text: string, canaries: readonly string[]): string[] {
  const lower = text.toLowerCase();
  return canaries.filter((canary) => lower.includes(canary.toLowerCase()));
}

// ---------------------------------------------------------------------------------------------
// Raw exchanges

export interface RawRequest {
  method: string;
  /**
   * The request target as sent: one byte per character (characters U+0080 to U+00FF are sent
   * as those single bytes, which lets a test send invalid UTF-8 unescaped).
   */
  target: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface Exchange {
  request: RawRequest;
  status: number;
  headers: http.IncomingHttpHeaders;
  /** the body as received, decoded as UTF-8 */
  text: string;
  /** the parsed body when it is JSON, else undefined */
  json: unknown;
}

/** Sends one request exactly as given; rejects when no answer comes within `timeoutMs` (a hang). */
export function exchange(baseUrl: string, request: RawRequest, timeoutMs = 8_000): Promise<Exchange> {
  const { hostname, port } = new URL(baseUrl);
  const headers = { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: request.method, path: request.target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        if (/json/.test(res.headers['content-type'] ?? '') && text !== '') {
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
        }
        resolve({ request, status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`no answer within ${timeoutMs} ms (a hang): ${describeRequest(request)}`)),
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** The request for a failure message: method, target and the start of the body. */
export function describeRequest(request: RawRequest): string {
  const target =
    request.target.length > 300 ? `${request.target.slice(0, 300)}… (${request.target.length} bytes)` : request.target;
  const body =
    request.body === undefined
      ? ''
      : ` body(${request.body.length} bytes): ${request.body.subarray(0, 300).toString('latin1')}`;
  return `${request.method} ${JSON.stringify(target)}${body}`;
}

function describeExchange(ex: Exchange): string {
  return `${describeRequest(ex.request)}\n  → ${ex.status} ${ex.headers['content-type'] ?? '(no content type)'} ${ex.text.slice(0, 500)}`;
}

// ---------------------------------------------------------------------------------------------
// What every answer must be, whatever was asked

const PROBLEM_MEMBERS = ['detail', 'instance', 'status', 'title', 'type'];

/**
 * What is wrong with a REST answer: a 5xx, a status not in `expected`, a 429 (the test's keys
 * must not be rate limited: that is a failure of the setup), a 4xx that is not a problem+json
 * body of exactly the five members, or anything the OpenAPI document does not allow.
 */
export function restFailures(ex: Exchange, expected: readonly number[]): string[] {
  const failures: string[] = [];
  if (ex.status === 429) failures.push('429: the test key is rate limited (test setup: use a key without limits)');
  else if (ex.status >= 500) failures.push(`a ${ex.status}`);
  else if (!expected.includes(ex.status)) failures.push(`status ${ex.status}, expected one of ${expected.join(', ')}`);
  if (ex.status >= 400) failures.push(...problemFailures(ex));
  const pathOnly = ex.request.target.split('?')[0];
  const problems = validateResponse({
    method: ex.request.method,
    path: pathOnly,
    status: ex.status,
    contentType: ex.headers['content-type'] ?? null,
    body: ex.json ?? ex.text,
  });
  failures.push(...problems.map((p) => `OpenAPI: ${p}`));
  return failures.map((f) => `${f}\n  ${describeExchange(ex)}`);
}

function problemFailures(ex: Exchange): string[] {
  const failures: string[] = [];
  if (!/^application\/problem\+json(;|$)/.test(ex.headers['content-type'] ?? '')) {
    failures.push(
      `a ${ex.status} whose content type is ${ex.headers['content-type'] ?? '(none)'}, not application/problem+json`,
    );
    return failures;
  }
  const body = ex.json as Record<string, unknown> | undefined;
  if (body === undefined || body === null || typeof body !== 'object')
    return [...failures, 'a problem whose body is not a JSON object'];
  const members = Object.keys(body).sort();
  if (members.join() !== PROBLEM_MEMBERS.join())
    failures.push(`a problem with members ${members.join(', ')}, expected ${PROBLEM_MEMBERS.join(', ')}`);
  for (const name of ['type', 'title', 'detail', 'instance']) {
    if (typeof body[name] !== 'string' || body[name] === '')
      failures.push(`a problem whose ${name} is not a non-empty string`);
  }
  if (body.status !== ex.status)
    failures.push(`a problem whose status member is ${String(body.status)}, the response ${ex.status}`);
  return failures;
}

/**
 * Identity values in an answer. A problem's `instance` echoes the request target by contract,
 * so a value the caller put in the target may come back there, and only there.
 */
export function identityLeaks(ex: Exchange, canaries: readonly string[]): string[] {
  const body = ex.json as Record<string, unknown> | undefined;
  const echoedTarget = body !== null && typeof body === 'object' && typeof body.instance === 'string';
  const checked = echoedTarget ? JSON.stringify({ ...body, instance: undefined }) : ex.text;
  const found = canariesIn(checked, canaries);
  if (echoedTarget) {
    const target = safeDecode(ex.request.target).toLowerCase();
    found.push(
      ...canariesIn(safeDecode(String(body.instance)), canaries).filter((c) => !target.includes(c.toLowerCase())),
    );
  }
  return found.map((value) => `identity value ${JSON.stringify(value)} in the answer\n  ${describeExchange(ex)}`);
}

/** Percent-decoding that keeps what does not decode (a stray `%`, invalid UTF-8) as it is. */
function safeDecode(text: string): string {
  return text.replace(/\+/g, ' ').replace(/(%[0-9A-Fa-f]{2})+/g, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      return escapes;
    }
  });
}

/**
 * What is wrong with a GraphQL answer: a 5xx or a 429, an HTTP error that is neither a GraphQL
 * response nor a problem+json one, an error without one of `codes`, or a stack trace.
 */
export function graphqlFailures(ex: Exchange, codes: readonly string[]): string[] {
  const failures: string[] = [];
  if (ex.status === 429) failures.push('429: the test key is rate limited (test setup: use a key without limits)');
  else if (ex.status >= 500) failures.push(`a ${ex.status}`);
  else if (![200, 400, 413].includes(ex.status)) failures.push(`status ${ex.status}, expected 200, 400 or 413`);
  if (/^application\/problem\+json/.test(ex.headers['content-type'] ?? '')) {
    failures.push(...problemFailures(ex));
  } else {
    const body = ex.json as
      { data?: unknown; errors?: { message?: unknown; extensions?: Record<string, unknown> }[] } | undefined;
    if (body === undefined || typeof body !== 'object' || body === null)
      failures.push('a GraphQL answer that is not a JSON object');
    else {
      if (ex.status !== 200 && !(Array.isArray(body.errors) && body.errors.length > 0))
        failures.push(`a ${ex.status} without errors`);
      for (const error of body.errors ?? []) {
        const code = error.extensions?.code;
        if (typeof code !== 'string' || !codes.includes(code))
          failures.push(`an error with code ${String(code)}: ${String(error.message)}`);
        if (error.extensions?.stacktrace !== undefined || error.extensions?.exception !== undefined)
          failures.push('an error with a stack trace');
      }
    }
  }
  return failures.map((f) => `${f}\n  ${describeExchange(ex)}`);
}

const OBJECT_PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join();
const POLLUTION_PROBES = ['isAdmin', 'permissions', 'polluted', 'prototype', 'a', 'x'];

/**
 * Whether a request polluted `Object.prototype` of this process (the app under test runs in
 * the test's process, so a naive merge of a `__proto__` key in the service shows here).
 */
export function prototypeIntact(): string[] {
  const probe: Record<string, unknown> = {};
  const failures: string[] = [];
  if (Object.getOwnPropertyNames(Object.prototype).sort().join() !== OBJECT_PROTOTYPE_NAMES)
    failures.push('Object.prototype has new properties (prototype pollution)');
  for (const name of POLLUTION_PROBES)
    if (probe[name] !== undefined)
      failures.push(`({}).${name} is ${JSON.stringify(probe[name])} (prototype pollution)`);
  return failures;
}

/** Fails the run with every message, or passes. */
export function expectNone(failures: readonly string[]): void {
  if (failures.length > 0) throw new Error(failures.join('\n'));
}
