import {
  Binary,
  BSONRegExp,
  Decimal128,
  Double,
  deserialize,
  Int32,
  Long,
  ObjectId,
  serialize,
  type Document,
} from 'bson';
import { compileBsonProjection, compileProjection } from '../src/engine/projection';

/**
 * The projection of stored BSON: the top-level inclusions and exclusions it applies to the
 * bytes must answer exactly what the general projection (mingo, on the decoded document) does.
 */
const documents: Document[] = [
  {
    _id: new ObjectId('0123456789abcdef01234567'),
    name: 'Ada',
    address: { city: 'London', zip: 'N1' },
    skills: [
      { code: 'MATH', level: 5 },
      { code: 'CODE', level: 4 },
    ],
    empty: [],
    nothing: null,
    binary: new Binary(Buffer.from([1, 2, 3]), 4),
    regex: new BSONRegExp('a+b', 'i'),
    int32: new Int32(7),
    long: Long.fromString('9007199254740993'),
    decimal: Decimal128.fromString('1.10'),
    when: new Date(Date.UTC(2020, 1, 2)),
    unicode: 'Zürich 東京 😀',
  },
  { name: 'no id', skills: [] },
  { _id: 2, héllo: 'wörld', name: 'second', nothing: null },
  {},
];

describe('projection of stored BSON', () => {
  test.each([
    [{ name: 1 }],
    [{ name: true, skills: 1 }],
    [{ _id: 0, name: 1, address: 1 }],
    [{ _id: false, skills: 1, name: 1, missing: 1 }],
    [{ _id: 1, unicode: 1, héllo: 1 }],
    [{ _id: 1 }],
    [{ nothing: 1, empty: 1, binary: 1, regex: 1, int32: 1, long: 1, decimal: 1, when: 1 }],
    [{ _id: 0, absent: 1 }],
    [{ _id: 0 }],
    [{ name: 0, skills: 0 }],
  ])(
    'when the projection is %j, then the bytes decode to what the general projection answers, in the same order',
    (projection) => {
      const onBytes = compileBsonProjection(projection, {});
      const general = compileProjection(projection, {});
      for (const doc of documents) {
        const expected = general(deserialize(serialize(doc)));

        const projected = deserialize(onBytes(serialize(doc)), { promoteLongs: false, promoteValues: false });

        expect(projected).toEqual(deserialize(serialize(expected), { promoteLongs: false, promoteValues: false }));
        expect(Object.keys(projected)).toEqual(Object.keys(expected));
      }
    },
  );

  test('when a top-level inclusion is applied, then the kept elements are the stored bytes (types as stored), not a re-encoding', () => {
    // A double holding an integer decodes to a number that would encode as int32; MongoDB keeps the double.
    const stored = serialize({ _id: 1, count: new Double(3), name: 'x' });

    const projected = compileBsonProjection({ _id: 0, count: 1 }, {})(stored);

    expect(Buffer.from(projected)).toEqual(serialize({ count: new Double(3) }));
  });

  test.each([
    [{ 'address.city': 1 }],
    [{ name: 1, skills: 0 }],
    [{ skills: { $slice: 1 } }],
    [{ name: '$address.city' }],
  ])(
    "when the projection %j is more than top-level inclusions, then it is still MongoDB's (through the general projection)",
    (projection) => {
      const onBytes = compileBsonProjection(projection, {});
      const general = compileProjection(projection, {});
      const doc = documents[0];
      let expected: Document | Error;
      try {
        expected = general(deserialize(serialize(doc)));
      } catch (error) {
        expected = error as Error;
      }

      if (expected instanceof Error) expect(() => onBytes(serialize(doc))).toThrow(expected.message);
      else expect(deserialize(onBytes(serialize(doc)))).toEqual(deserialize(serialize(expected)));
    },
  );
});
