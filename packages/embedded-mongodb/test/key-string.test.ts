import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
} from 'bson';
import fc from 'fast-check';
import { compareBytes, decodeKey, encodedLength, encodeKey, keyRangeBounds, successor } from '../src/engine/key-string';
import { compareValues, TypeEdge, typeBracketOf } from '../src/engine/value-order';

/** Fixed, so a failing case reproduces. */
const SEED = 42;
const NUMBER_RANK = 2;
const OBJECT_RANK = 4;

interface KeyRange {
  readonly start: readonly unknown[];
  readonly startInclusive: boolean;
  readonly end: readonly unknown[];
  readonly endInclusive: boolean;
}

/**
 * SortedIndex's compareKeys and range predicates, restated from compareValues: the index itself
 * now runs on these encodings, so it cannot be the reference they are checked against.
 */
function compareKeys(a: readonly unknown[], b: readonly unknown[], directions: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c * directions[i];
  }
  return 0;
}

function rangeHolds(range: KeyRange, key: readonly unknown[], directions: readonly number[]): boolean {
  const { start, startInclusive, end, endInclusive } = range;
  const fromStart = compareKeys(key, start, directions);
  const toEnd = compareKeys(key, end, directions);
  return (
    (fromStart > 0 || (fromStart === 0 && (startInclusive || start.length === 0))) &&
    (toEnd < 0 || (toEnd === 0 && (endInclusive || end.length === 0)))
  );
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

function inBounds(bytes: Uint8Array, bounds: { gte?: Uint8Array; lt?: Uint8Array }): boolean {
  return (
    (bounds.gte === undefined || compareBytes(bytes, bounds.gte) >= 0) &&
    (bounds.lt === undefined || compareBytes(bytes, bounds.lt) < 0)
  );
}

// Values of every type bracket, drawn from small pools so that equal and nearly equal values meet.

/** Code units at the edges of UTF-8's byte lengths, surrogates (lone and paired) and U+0000. */
const codeUnit = fc.constantFrom(
  'a',
  'b',
  '\u0000',
  '\u0001',
  '\u007f',
  '\u0080',
  'é',
  '\u07ff',
  '\u0800',
  '€',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ue000',
  '\uffff',
  '😀',
);
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const text = fc.oneof(
  fc.string({ unit: codeUnit, maxLength: 4 }),
  fc.string({ unit: anyCodeUnit, maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

const double = fc.oneof(
  fc.double(),
  fc.integer({ min: -3, max: 3 }),
  fc.integer(),
  fc.constantFrom(
    0,
    -0,
    Number.NaN,
    Infinity,
    -Infinity,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    5,
    5.5,
  ),
);
const bigInteger = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(2n ** 53n, 2n ** 53n + 1n, 2n ** 53n + 2n, -(2n ** 53n) - 1n, 5n, 0n),
);
const number = fc.oneof(
  double,
  double.map((n) => new Double(n)),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((n) => new Int32(n)),
  fc.integer({ min: -3, max: 3 }).map((n) => new Int32(n)),
  bigInteger.map((n) => Long.fromBigInt(n)),
  bigInteger,
  double.map((n) => Decimal128.fromString(String(n))),
  fc
    .constantFrom('5', '5.00', '-0', '0.1', '1E+400', '-1E+400', 'NaN', 'Infinity', '-Infinity', '9007199254740993')
    .map((s) => Decimal128.fromString(s)),
);

const scalar = fc.oneof(
  { arbitrary: number, weight: 4 },
  { arbitrary: text, weight: 4 },
  text.map((s) => new BSONSymbol(s)),
  fc
    .tuple(fc.uint8Array({ max: 2, maxLength: 3 }), fc.constantFrom(0, 4, 128))
    .map(([bytes, subtype]) => new Binary(bytes, subtype)),
  fc.uint8Array({ max: 2, maxLength: 3 }),
  fc
    .oneof(fc.uint8Array({ max: 1, minLength: 12, maxLength: 12 }), fc.uint8Array({ minLength: 12, maxLength: 12 }))
    .map((bytes) => new ObjectId(bytes)),
  fc.boolean(),
  fc.oneof(fc.integer({ min: -1e13, max: 1e13 }), fc.constantFrom(0, -1, Number.NaN)).map((time) => new Date(time)),
  fc
    .tuple(fc.constantFrom(0, 1, 2 ** 31, 2 ** 32 - 1), fc.integer({ min: 0, max: 2 ** 32 - 1 }))
    .map(([t, i]) => new Timestamp({ t, i })),
  fc.tuple(fc.constantFrom('a', 'ab', 'a.b', ''), fc.constantFrom('', 'i', 'gi')).map(([p, f]) => new RegExp(p, f)),
  fc.tuple(fc.constantFrom('a', 'ab', '(?:)'), fc.constantFrom('', 'i', 'im')).map(([p, o]) => new BSONRegExp(p, o)),
  fc.constantFrom(new MinKey(), new MaxKey(), null, undefined, new Code('x')),
);

const fieldName = fc.constantFrom('a', 'b', 'ab', '1', '', '\u0000');
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('object'), tie('array')),
  object: fc
    .array(fc.tuple(fieldName, tie('value')), { maxLength: 3 })
    .map((fields) => Object.fromEntries(fields) as unknown),
  array: fc.array(tie('value'), { maxLength: 3 }),
}));

/** Another representation of a value that the comparator holds equal, when the type has one. */
function twin(original: unknown): unknown {
  if (typeof original === 'number') {
    if (Object.is(original, -0)) return 0;
    if (Number.isSafeInteger(original)) return Long.fromNumber(original);
    return Decimal128.fromString(String(original));
  }
  if (typeof original === 'string') return new BSONSymbol(original);
  if (original === null) return undefined;
  if (original === undefined) return null;
  if (Array.isArray(original)) return original.map(twin);
  if (typeBracketOf(original) === OBJECT_RANK) {
    return Object.fromEntries(Object.entries(original).map(([name, field]) => [name, twin(field)]));
  }
  return original;
}

const directionsOf = (length: number): fc.Arbitrary<number[]> =>
  fc.array(fc.constantFrom(1, -1), { minLength: length, maxLength: length });

/** A value beside another of its type (one unit, element or field more or less), to meet shared starts. */
function near(original: unknown, extra: string, shorter: boolean): unknown {
  if (typeof original === 'string') return (shorter ? original.slice(0, -1) : original) + extra;
  if (typeof original === 'number') return original + (shorter ? -1 : 1) * 2 ** -20 * extra.length;
  if (original instanceof BSONSymbol) return new BSONSymbol(near(String(original), extra, shorter) as string);
  if (Array.isArray(original)) return shorter ? original.slice(0, -1) : [...original, extra];
  if (typeBracketOf(original) === OBJECT_RANK) {
    const fields = Object.entries(original as object);
    return Object.fromEntries(shorter ? fields.slice(0, -1) : [...fields, [extra, extra]]);
  }
  return original;
}

/** Two keys of one index; each field of the second is new, the first's, its twin or beside it. */
const keyPair = fc
  .integer({ min: 1, max: 3 })
  .chain((length) =>
    fc.tuple(
      directionsOf(length),
      fc.array(value, { minLength: length, maxLength: length }),
      fc.array(
        fc.tuple(
          value,
          fc.constantFrom('new', 'same', 'twin', 'near'),
          fc.string({ unit: codeUnit, maxLength: 2 }),
          fc.boolean(),
        ),
        { minLength: length, maxLength: length },
      ),
    ),
  )
  .map(([directions, a, fields]) => {
    const b = fields.map(([fresh, how, extra, shorter], i) =>
      how === 'new' ? fresh : how === 'same' ? a[i] : how === 'twin' ? twin(a[i]) : near(a[i], extra, shorter),
    );
    return { directions, a, b };
  });

/** In a generated range prefix: the same field of one of the generated keys, so ranges meet keys. */
class FieldOfKey {
  constructor(
    readonly key: number,
    /** When set, that field with one value inside it replaced by an edge of that value's type. */
    readonly edge?: -1 | 1,
    readonly pick = 0,
  ) {}

  resolve(field: unknown): unknown {
    return this.edge === undefined ? field : withEdgeInside(field, this.edge, this.pick);
  }
}

/** `original` with one value inside it (picked by `pick`) replaced by the edge of its type. */
function withEdgeInside(original: unknown, edge: -1 | 1, pick: number): unknown {
  if (Array.isArray(original) && original.length > 0) {
    const copy = [...(original as unknown[])];
    const at = pick % copy.length;
    copy[at] = withEdgeInside(copy[at], edge, Math.floor(pick / 2));
    return copy;
  }
  if (typeBracketOf(original) === OBJECT_RANK) {
    const fields = Object.entries(original as object);
    if (fields.length > 0) {
      const at = pick % fields.length;
      fields[at] = [fields[at][0], withEdgeInside(fields[at][1], edge, Math.floor(pick / 2))];
      return Object.fromEntries(fields);
    }
  }
  return new TypeEdge(typeBracketOf(original), edge);
}

const typeEdge = fc
  .tuple(fc.integer({ min: 0, max: 13 }), fc.constantFrom<-1 | 1>(-1, 1))
  .map(([rank, edge]) => new TypeEdge(rank, edge));

/** Strings past the short ones of `text`: ASCII read in bulk, and others (U+0000, non-ASCII) unit by unit. */
const longText = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'z', '0', '~', ' '), minLength: 10, maxLength: 40 }),
  fc.string({ unit: codeUnit, minLength: 10, maxLength: 40 }),
);

/** A key of 1 to 3 fields of every type, with its directions. */
const decodableKey = fc
  .integer({ min: 1, max: 3 })
  .chain((length) =>
    fc.tuple(
      directionsOf(length),
      fc.array(fc.oneof(value, value.map(twin), longText), { minLength: length, maxLength: length }),
    ),
  );

/** `encoded` between `before` and `after`, as the store holds a key: prefix, key, record number. */
function embed(before: Uint8Array, encoded: Uint8Array, after: Uint8Array): Uint8Array {
  return concat(concat(before, encoded), after);
}

describe('key-string (order-preserving bytes of index keys)', () => {
  describe('examples', () => {
    it('when a number is written as int, double, Long, Int32, Double, Decimal128 or bigint, then the bytes are equal', () => {
      const forms = [5, 5.0, Long.fromNumber(5), new Int32(5), new Double(5), Decimal128.fromString('5.00'), 5n];

      const encoded = forms.map((form) => encodeKey([form], [1]));

      for (const bytes of encoded) expect(bytes).toEqual(encoded[0]);
    });

    it('when values differ only as the comparator ignores, then the bytes are equal', () => {
      expect(encodeKey([-0], [1])).toEqual(encodeKey([0], [1]));
      expect(encodeKey([null], [-1])).toEqual(encodeKey([undefined], [-1]));
      expect(encodeKey(['ab'], [1])).toEqual(encodeKey([new BSONSymbol('ab')], [1]));
      expect(encodeKey([{ a: null }], [1])).toEqual(encodeKey([{ a: undefined }], [1]));
    });

    it('when two Longs convert to the same double (2^53 and 2^53+1), then they encode alike, and 2^53+2 above', () => {
      const low = Long.fromBigInt(2n ** 53n);
      const same = Long.fromBigInt(2n ** 53n + 1n);
      const above = Long.fromBigInt(2n ** 53n + 2n);

      expect(compareValues(low, same)).toBe(0);
      expect(encodeKey([low], [1])).toEqual(encodeKey([same], [1]));
      expect(compareBytes(encodeKey([same], [1]), encodeKey([above], [1]))).toBe(-1);
    });

    it('when strings share a start, then "ab" < "ab\\u0000" < "abc" ascending and the reverse descending, whatever follows', () => {
      const strings = ['ab', 'ab\u0000', 'abc'];
      const tail = new Uint8Array([0xff, 0xff, 0x00]);

      const ascending = strings.map((s) => concat(encodeKey([s], [1]), tail));
      const descending = strings.map((s) => concat(encodeKey([s], [-1]), tail));

      expect(compareBytes(ascending[0], ascending[1])).toBe(-1);
      expect(compareBytes(ascending[1], ascending[2])).toBe(-1);
      expect(compareBytes(descending[0], descending[1])).toBe(1);
      expect(compareBytes(descending[1], descending[2])).toBe(1);
    });

    it('when strings hold surrogates, then the order is JavaScript code unit order, not code point order', () => {
      // U+FFFF is above the surrogate pair of U+1F600 in UTF-16 code units.
      expect('\uffff' > '😀').toBe(true);

      expect(compareBytes(encodeKey(['\uffff'], [1]), encodeKey(['😀'], [1]))).toBe(1);
      expect(compareBytes(encodeKey(['\ud800'], [1]), encodeKey(['\ud800\udc00'], [1]))).toBe(-1);
    });

    it('when one value of each type bracket is encoded, then the bytes follow MongoDB type order, NaN lowest of numbers', () => {
      const ordered = [
        new MinKey(),
        null,
        Number.NaN,
        -Infinity,
        -1,
        0,
        Infinity,
        '',
        'a',
        {},
        { a: 1 },
        [],
        [1],
        new Binary(new Uint8Array([9]), 0),
        new ObjectId('000000000000000000000000'),
        false,
        true,
        new Date(0),
        new Timestamp({ t: 1, i: 0 }),
        /a/,
        new Code('x'),
        new MaxKey(),
      ];

      const encoded = ordered.map((v) => encodeKey([v], [1]));

      for (let i = 1; i < encoded.length; i++) expect(compareBytes(encoded[i - 1], encoded[i])).toBe(-1);
    });

    it('when a range is { $gt: 5 } up to the top of numbers, then 5, 4 and strings are out and larger numbers in', () => {
      expect(typeBracketOf(5)).toBe(NUMBER_RANK);
      const ascending = keyRangeBounds(
        { start: [5], startInclusive: false, end: [new TypeEdge(NUMBER_RANK, 1)], endInclusive: true },
        [1],
      );
      // A descending index lists the same keys from the top of numbers down to 5.
      const descending = keyRangeBounds(
        { start: [new TypeEdge(NUMBER_RANK, 1)], startInclusive: true, end: [5], endInclusive: false },
        [-1],
      );

      for (const [bounds, direction] of [
        [ascending, 1],
        [descending, -1],
      ] as const) {
        const holds = (v: unknown): boolean => inBounds(concat(encodeKey([v], [direction]), Uint8Array.of(7)), bounds);
        expect([5, Long.fromNumber(5), 4, 'a', null].map(holds)).toEqual([false, false, false, false, false]);
        expect([5.5, 1e300, Infinity, new Int32(6)].map(holds)).toEqual([true, true, true, true]);
      }
    });

    it('when a range fixes the first field of a compound index, then every second value of that first value is in', () => {
      const directions = [1, -1];
      const bounds = keyRangeBounds({ start: [1], startInclusive: true, end: [1], endInclusive: true }, directions);

      const holds = (key: unknown[]): boolean => inBounds(encodeKey(key, directions), bounds);

      expect([holds([1, new MinKey()]), holds([1, 'z']), holds([1, new MaxKey()])]).toEqual([true, true, true]);
      expect([holds([0, 'z']), holds([2, new MinKey()]), holds(['1', 1])]).toEqual([false, false, false]);
    });

    it('when bytes end in FF, then the successor drops them and steps the last other byte; all FF has none', () => {
      expect(successor(Uint8Array.of(1, 2, 0xff, 0xff))).toEqual(Uint8Array.of(1, 3));
      expect(successor(Uint8Array.of(0xff))).toBeUndefined();
      expect(successor(new Uint8Array(0))).toBeUndefined();
    });

    it('when a key is larger than the scratch buffer, then it encodes whole and still orders', () => {
      const long = 'x'.repeat(20_000);

      const shorter = encodeKey([long, 1], [1, 1]);
      const longer = encodeKey([long + 'y', 0], [1, 1]);

      expect(shorter.length).toBeGreaterThan(20_000);
      expect(compareBytes(shorter, longer)).toBe(-1);
    });
  });

  describe('properties against compareKeys', () => {
    it('when two keys are encoded, then bytewise order and equality agree with compareKeys', () => {
      fc.assert(
        fc.property(keyPair, ({ directions, a, b }) => {
          const expected = sign(compareKeys(a, b, directions));

          expect(sign(compareBytes(encodeKey(a, directions), encodeKey(b, directions)))).toBe(expected);
        }),
        { seed: SEED, numRuns: 3000 },
      );
    });

    it('when bytes are appended to two unequal keys, then their order holds; a key prefix encodes to a byte prefix', () => {
      fc.assert(
        fc.property(
          keyPair,
          fc.uint8Array({ maxLength: 8 }),
          fc.uint8Array({ maxLength: 8 }),
          ({ directions, a, b }, tailA, tailB) => {
            const encodedA = encodeKey(a, directions);
            const expected = sign(compareKeys(a, b, directions));

            if (expected !== 0) {
              const withTails = compareBytes(concat(encodedA, tailA), concat(encodeKey(b, directions), tailB));
              expect(sign(withTails)).toBe(expected);
            }
            for (let k = 0; k < a.length; k++) {
              const prefix = encodeKey(a.slice(0, k), directions.slice(0, k));
              expect(encodedA.subarray(0, prefix.length)).toEqual(prefix);
            }
          },
        ),
        { seed: SEED, numRuns: 2000 },
      );
    });

    it('when a random range is scanned, then the keys in its byte bounds are exactly those the range predicates accept', () => {
      /** A prefix field: a key's field (so ranges meet keys), it with an edge inside, any value, or an edge. */
      const boundField = fc.oneof(
        { arbitrary: fc.nat().map((key) => new FieldOfKey(key)), weight: 4 },
        fc
          .tuple(fc.nat(), fc.constantFrom<-1 | 1>(-1, 1), fc.nat())
          .map(([key, edge, pick]) => new FieldOfKey(key, edge, pick)),
        value,
        typeEdge,
        fc.tuple(value, typeEdge).map(([first, edge]) => [first, edge]),
        typeEdge.map((edge) => ({ a: edge })),
        fc.tuple(value, typeEdge).map(([first, edge]) => ({ a: [first, edge], b: 1 })),
      );
      const scenario = fc.integer({ min: 1, max: 3 }).chain((length) =>
        fc.record({
          directions: directionsOf(length),
          keys: fc.array(fc.array(fc.oneof(value, value.map(twin)), { minLength: length, maxLength: length }), {
            minLength: 1,
            maxLength: 8,
          }),
          tails: fc.array(fc.uint8Array({ maxLength: 8 }), { minLength: 8, maxLength: 8 }),
          start: fc.array(boundField, { maxLength: length }),
          startInclusive: fc.boolean(),
          end: fc.array(boundField, { maxLength: length }),
          endInclusive: fc.boolean(),
          sameEnd: fc.boolean(),
        }),
      );

      fc.assert(
        fc.property(scenario, (s) => {
          const resolve = (prefix: unknown[]): unknown[] =>
            prefix.map((field, i) =>
              field instanceof FieldOfKey ? field.resolve(s.keys[field.key % s.keys.length][i]) : field,
            );
          const start = resolve(s.start);
          const range: KeyRange = {
            start,
            startInclusive: s.startInclusive,
            end: s.sameEnd ? start : resolve(s.end),
            endInclusive: s.endInclusive,
          };
          const expected = new Set<number>();
          s.keys.forEach((key, seq) => {
            if (rangeHolds(range, key, s.directions)) expected.add(seq);
          });

          const bounds = keyRangeBounds(range, s.directions);
          const actual = new Set<number>();
          s.keys.forEach((key, seq) => {
            if (inBounds(concat(encodeKey(key, s.directions), s.tails[seq]), bounds)) actual.add(seq);
          });

          expect([...actual].sort()).toEqual([...expected].sort());
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
  });

  describe('decoding', () => {
    it('when a key of any types is decoded from between other bytes, then each field compares equal and re-encodes to the same bytes', () => {
      fc.assert(
        fc.property(
          decodableKey,
          fc.uint8Array({ maxLength: 4 }),
          fc.uint8Array({ maxLength: 8 }),
          ([directions, key], before, after) => {
            const encoded = encodeKey(key, directions);
            const entry = embed(before, encoded, after);

            const decoded = decodeKey(entry, directions, before.length);

            expect(decoded.map((field, i) => compareValues(field, key[i]))).toEqual(key.map(() => 0));
            expect(encodeKey(decoded, directions)).toEqual(encoded);
            expect(encodedLength(entry, directions, before.length)).toBe(encoded.length);
          },
        ),
        { seed: SEED, numRuns: 3000 },
      );
    });

    it('when the end given cuts a key short, then decoding throws instead of reading past it', () => {
      fc.assert(
        fc.property(decodableKey, fc.uint8Array({ minLength: 1, maxLength: 8 }), ([directions, key], after) => {
          const encoded = encodeKey(key, directions);
          const entry = concat(encoded, after);

          expect(decodeKey(entry, directions, 0, encoded.length)).toHaveLength(key.length);
          expect(() => decodeKey(entry, directions, 0, encoded.length - 1)).toThrow(RangeError);
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });

    it('when strings hold U+0000, lone or paired surrogates, or run long, then the same code units come back, either direction', () => {
      const strings = [
        '',
        '\u0000',
        'a\u0000b',
        '\u0000\u0000',
        '😀',
        '\ud800',
        '\udfff\ud800x',
        'x'.repeat(12),
        'user-00000013',
        'ascii first, then é',
        'a'.repeat(20_000),
        // Longer than the buffer code units are gathered in at first.
        'é😀\u0000'.repeat(3_000),
      ];

      for (const direction of [1, -1]) {
        const decoded = strings.map((text) => decodeKey(encodeKey([text], [direction]), [direction])[0]);

        expect(decoded).toEqual(strings);
      }
    });

    it('when numbers are NaN, -0, infinite or of another number type, then NaN, 0, the infinity and the double come back', () => {
      const numbers = [
        Number.NaN,
        -0,
        -Infinity,
        Infinity,
        -5.5,
        new Int32(-7),
        Long.fromBigInt(2n ** 53n + 1n),
        Decimal128.fromString('1E+400'),
      ];
      const directions = numbers.map((_, i) => (i % 2 === 0 ? 1 : -1));

      const decoded = decodeKey(encodeKey(numbers, directions), directions);

      // toEqual tells 0 from -0 and takes NaN as equal to NaN.
      expect(decoded).toEqual([Number.NaN, 0, -Infinity, Infinity, -5.5, -7, 2 ** 53, Infinity]);
    });

    it('when dates are before 1970 or invalid, then the same instants come back as dates', () => {
      const dates = [
        new Date(-1),
        new Date('0001-01-01T00:00:00Z'),
        new Date('1969-07-20T20:17:40Z'),
        new Date(Number.NaN),
      ];

      for (const direction of [1, -1]) {
        const directions = dates.map(() => direction);

        const decoded = decodeKey(encodeKey(dates, directions), directions);

        expect(decoded.every((date) => date instanceof Date)).toBe(true);
        expect(decoded.map((date) => (date as Date).getTime())).toEqual(dates.map((date) => date.getTime()));
      }
    });

    it('when objects nest in a descending field, then the same fields come back in the same order', () => {
      const nested = { b: { c: [1, 'x', { d: null }], e: [] }, a: 'y', 1: true, f: [[], {}] };
      const directions = [-1, 1];

      const decoded = decodeKey(encodeKey([nested, 'after'], directions), directions);

      expect(decoded).toEqual([nested, 'after']);
      expect(Object.keys(decoded[0] as object)).toEqual(Object.keys(nested));
    });

    it('when a field is named __proto__, then it comes back as a field and the prototype is untouched', () => {
      const withProtoField = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>;

      const [decoded] = decodeKey(encodeKey([withProtoField], [-1]), [-1]) as [Record<string, unknown>];

      expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
      expect(Object.keys(decoded)).toEqual(['__proto__', 'y']);
      expect(Object.getOwnPropertyDescriptor(decoded, '__proto__')?.value).toEqual({ x: 1 });
    });

    it('when values of the other types are decoded, then they come back as the bson values the comparator reads', () => {
      const id = new ObjectId();
      const key = [
        id,
        new Binary(Uint8Array.of(1, 2, 3), 4),
        Uint8Array.of(9),
        new Timestamp({ t: 2 ** 32 - 1, i: 7 }),
        /a.b/gi,
        new BSONRegExp('x', 'im'),
        new Code('f()'),
        new MinKey(),
        new MaxKey(),
        true,
        undefined,
        new BSONSymbol('s'),
        (): number => 1,
      ];
      const directions = key.map((_, i) => (i % 3 === 0 ? -1 : 1));

      const decoded = decodeKey(encodeKey(key, directions), directions);

      expect(decoded[0]).toBeInstanceOf(ObjectId);
      expect((decoded[0] as ObjectId).equals(id)).toBe(true);
      expect(decoded[1]).toEqual(new Binary(Uint8Array.of(1, 2, 3), 4));
      expect(decoded[2]).toEqual(new Binary(Uint8Array.of(9), 0));
      expect(decoded[3]).toEqual(new Timestamp({ t: 2 ** 32 - 1, i: 7 }));
      // The RegExp's flags are kept, g included, though BSONRegExp's constructor refuses it.
      expect(decoded[4]).toMatchObject({ pattern: 'a.b', options: 'gi' });
      expect(decoded[4]).toBeInstanceOf(BSONRegExp);
      expect(decoded[5]).toMatchObject({ pattern: 'x', options: 'im' });
      // The comparator reads a Code as String(code), "[object Object]" for every bson Code: that is
      // all the key holds.
      expect(decoded[6]).toBeInstanceOf(Code);
      expect((decoded[6] as Code).code).toBe('[object Object]');
      expect(compareValues(decoded[6], key[6])).toBe(0);
      expect(decoded[7]).toBeInstanceOf(MinKey);
      expect(decoded[8]).toBeInstanceOf(MaxKey);
      expect(decoded.slice(9, 12)).toEqual([true, null, 's']);
      // A function's text is its source, kept in a Code whose String() gives it back.
      expect(decoded[12]).toBeInstanceOf(Code);
      expect(compareValues(decoded[12], key[12])).toBe(0);
    });

    it('when the bytes are not a key, then decoding throws a RangeError', () => {
      // 05 is no type byte; 13 opens a string, which here never ends or holds 00 02 (no unit).
      expect(() => decodeKey(Uint8Array.of(0x05), [1])).toThrow(RangeError);
      expect(() => decodeKey(Uint8Array.of(0x13, 0x61), [1])).toThrow(RangeError);
      expect(() => decodeKey(Uint8Array.of(0x13, 0x00, 0x02, 0x00, 0x00), [1])).toThrow(RangeError);
      expect(() => encodedLength(Uint8Array.of(0x13, 0x61), [1])).toThrow(RangeError);
    });
  });
});
