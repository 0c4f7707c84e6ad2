import {
  Binary,
  BSONRegExp,
  Code,
  Decimal128,
  deserialize,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  serialize,
  Timestamp,
} from 'bson';
import {
  documentFieldOffset,
  embeddedDocument,
  fieldNames,
  withDocumentField,
  withoutTopLevelFields,
} from '../src/engine/raw-bson';
import { decodeTyped } from '../src/engine/typed-numbers';

/** A document with an element of every type the store may hold, so skipping each is exercised. */
const everyType = {
  _id: new ObjectId('0123456789abcdef01234567'),
  double: new Double(1.5),
  string: 'héllo',
  doc: { a: 1, b: [1, 2] },
  array: ['x', { y: null }],
  binary: new Binary(Buffer.from([1, 2, 3]), 4),
  bool: true,
  date: new Date(Date.UTC(2020, 1, 2)),
  null: null,
  regex: new BSONRegExp('a+b', 'i'),
  code: new Code('x => x'),
  int32: new Int32(7),
  timestamp: new Timestamp({ t: 1, i: 2 }),
  long: Long.fromString('9007199254740993'),
  decimal: Decimal128.fromString('1.10'),
  min: new MinKey(),
  max: new MaxKey(),
  last: 'end',
};

describe('raw BSON', () => {
  test('when top-level fields are left out, then the rest decodes exactly as before, in order, for every element type', () => {
    const bson = serialize(everyType);

    const without = withoutTopLevelFields(bson, fieldNames(['_id', 'regex', 'last']));

    const { _id, regex, last, ...rest } = deserialize(bson);
    expect(deserialize(without)).toEqual(rest);
    expect(Object.keys(deserialize(without))).toEqual(Object.keys(rest));
    expect(without.length).toBe(serialize(rest).length);
  });

  test('when none of the named fields is present, then the very same bytes come back', () => {
    const bson = serialize({ a: 1 });

    expect(withoutTopLevelFields(bson, fieldNames(['_id']))).toBe(bson);
  });

  test('when a document is wrapped in a record and unwrapped, then its bytes are unchanged', () => {
    const doc = serialize(everyType);

    const record = withDocumentField(serialize({ t: 'put', db: 'app', c: 'candidates' }), 'd', doc);

    expect(deserialize(record)).toEqual({ t: 'put', db: 'app', c: 'candidates', d: deserialize(doc) });
    expect(Buffer.from(embeddedDocument(record, 'd')!)).toEqual(Buffer.from(doc));
    // The document is the last element: the data files find it from the record's length.
    const at = documentFieldOffset(record, doc);
    expect(Buffer.from(record.subarray(at, at + doc.length))).toEqual(Buffer.from(doc));
    expect(at + doc.length).toBe(record.length - 1);
    expect(embeddedDocument(record, 'missing')).toBeUndefined();
  });

  test('when a document holds whole doubles and longs at any depth, then the typed decoding gives each back as written', () => {
    // Arrange: beside every other element type, so the walk skips each of them
    const written = {
      ...everyType,
      whole: new Double(2),
      negativeZero: new Double(-0),
      beyond32Bits: new Double(2 ** 40),
      smallLong: Long.fromNumber(3),
      nested: { list: [1, new Double(4), { deeper: [Long.fromNumber(-5)] }], 'dotted.name': new Double(6) },
    };
    const bson = serialize(written);

    // Act
    const decoded = decodeTyped(bson);

    // Assert: the same bytes again, and the wrappers only where a plain number would change the type
    expect(Buffer.from(serialize(decoded))).toEqual(Buffer.from(bson));
    expect(decoded.whole).toEqual(new Double(2));
    expect(Object.is(decoded.negativeZero, -0)).toBe(true);
    expect(decoded.beyond32Bits).toBe(2 ** 40);
    expect(decoded.double).toBe(1.5);
    expect(decoded.int32).toBe(7);
    expect(decoded.smallLong).toEqual(Long.fromNumber(3));
    expect(decoded.nested.list[1]).toEqual(new Double(4));
    expect(decoded.nested.list[2].deeper[0]).toEqual(Long.fromNumber(-5));
    expect(decoded.nested['dotted.name']).toEqual(new Double(6));
  });
});
