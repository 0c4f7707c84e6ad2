import { BSONRegExp, Long, MongoServerError, type Collection, type Document } from 'mongodb';
import { embeddedStoreForSuite, storeUnderTestForSuite } from './support/store-under-test';
import { serverError } from './support/server-error';

/**
 * How a filter matches documents and which filters are refused, as mongod's match expression
 * parser and matcher decide (MongoDB's manual and the server's own query tests): whole-array
 * operands, null and missing fields, numeric path parts, nested arrays, `$type`, `$all`, `$not`,
 * `$mod`, regular expression options and the errors malformed operators get.
 */

/** Documents keyed by number, with any fields a case needs. */
interface Keyed {
  _id: number;
  [field: string]: unknown;
}

/** A dotted path of `parts` parts (`parts - 1` dots). */
function pathOfParts(parts: number): string {
  return Array.from({ length: parts }, () => 'a').join('.');
}

describe('embedded store: which documents a filter matches', () => {
  const suite = storeUnderTestForSuite('match_semantics');
  let items: Collection<Keyed>;

  beforeEach(() => {
    items = suite.db.collection<Keyed>('items');
  });

  /** The error a filter is refused with. */
  function refusal(filter: Document): Promise<MongoServerError> {
    return serverError(items.find(filter).toArray());
  }

  /** The sorted _ids of the documents a filter matches. */
  async function ids(filter: Document): Promise<number[]> {
    const found = await items.find(filter, { projection: { _id: 1 } }).toArray();
    return found.map((doc) => doc._id).sort((x, y) => x - y);
  }

  describe('whole arrays as operands', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, key: [1] },
        { _id: 2, key: [] },
        { _id: 3, key: [[]] },
        { _id: 4, key: 1 },
        { _id: 5, key: [1, 2] },
      ]);
    });

    it('when $in lists an array, then a field equal to that whole array matches, as do arrays holding it', async () => {
      // Act
      const inOne = await ids({ key: { $in: [[1]] } });
      const inEmpty = await ids({ key: { $in: [[]] } });

      // Assert
      expect(inOne).toEqual([1]);
      expect(inEmpty).toEqual([2, 3]);
    });

    it('when $ne, $nin or $not name an array, then a field equal to that whole array is excluded', async () => {
      // Act
      const ne = await ids({ key: { $ne: [1] } });
      const nin = await ids({ key: { $nin: [[1]] } });
      const notIn = await ids({ key: { $not: { $in: [[1]] } } });

      // Assert
      expect(ne).toEqual([2, 3, 4, 5]);
      expect(nin).toEqual([2, 3, 4, 5]);
      expect(notIn).toEqual([2, 3, 4, 5]);
    });

    it('when $elemMatch asks for an element in a list of arrays, then an array element equal to one matches', async () => {
      // Act
      const found = await ids({ key: { $elemMatch: { $in: [[]] } } });

      // Assert
      expect(found).toEqual([3]);
    });

    it('when $all lists arrays, then a field equal to the whole array matches', async () => {
      // Act
      const allOne = await ids({ key: { $all: [[1]] } });
      const allEmpty = await ids({ key: { $all: [[]] } });

      // Assert
      expect(allOne).toEqual([1]);
      expect(allEmpty).toEqual([2, 3]);
    });

    it('when an equality names an array, then only that whole array or an array holding it matches, in order', async () => {
      // Arrange
      await items.insertOne({ _id: 6, key: [2, 1] });

      // Act
      const found = await ids({ key: [1, 2] });

      // Assert
      expect(found).toEqual([5]);
    });
  });

  describe('null and missing fields', () => {
    beforeEach(async () => {
      await items.insertMany([{ _id: 1 }, { _id: 2, foo: 1 }, { _id: 3, foo: null }, { _id: 4, foo: [1, null] }]);
    });

    it('when $all lists null, then a document without the field matches as it does for $in', async () => {
      // Act
      const all = await ids({ foo: { $all: [null] } });
      const inNull = await ids({ foo: { $in: [null] } });
      const notAll = await ids({ foo: { $not: { $all: [null] } } });

      // Assert
      expect(all).toEqual([1, 3, 4]);
      expect(inNull).toEqual([1, 3, 4]);
      expect(notAll).toEqual([2]);
    });

    it('when a dotted path meets scalars, then it is missing there and null matches it', async () => {
      // Arrange
      await items.insertMany([
        { _id: 5, foo: { bar: null } },
        { _id: 6, foo: { bar: 2 } },
        { _id: 7, foo: [{ bar: 2 }, {}] },
        { _id: 8, foo: [{ bar: 2 }] },
      ]);

      // Act
      const isNull = await ids({ 'foo.bar': null });
      const absent = await ids({ 'foo.bar': { $exists: false } });

      // Assert
      expect(isNull).toEqual([1, 2, 3, 4, 5, 7]);
      expect(absent).toEqual([1, 2, 3, 4]);
    });
  });

  describe('paths through arrays', () => {
    it('when a path part is a number, then it names an array position and also a field of that name in the elements', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, a: [{ 1: 4 }, 5] },
        { _id: 2, a: [3, 4] },
        { _id: 3, a: { 1: 4 } },
      ]);

      // Act
      const four = await ids({ 'a.1': 4 });
      const five = await ids({ 'a.1': 5 });

      // Assert
      expect(four).toEqual([1, 2, 3]);
      expect(five).toEqual([1]);
    });

    it('when an array holds arrays, then a path does not reach into the inner ones unless it names a position', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, a: [[{ b: 1 }]] },
        { _id: 2, a: [{ b: 1 }] },
      ]);

      // Act
      const exists = await ids({ 'a.b': { $exists: true } });
      const equal = await ids({ 'a.b': 1 });
      const byPosition = await ids({ 'a.0.b': 1 });
      const nested = await ids({ a: 1 });

      // Assert
      expect(exists).toEqual([2]);
      expect(equal).toEqual([2]);
      expect(byPosition).toEqual([1, 2]);
      expect(nested).toEqual([]);
    });

    it('when $size or $elemMatch name a dotted path, then the arrays reached through an array count', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, a: [{ b: [1, 2] }, { b: [3] }] },
        { _id: 2, a: { b: [1, 2, 3] } },
      ]);

      // Act
      const sizeOne = await ids({ 'a.b': { $size: 1 } });
      const elemMatch = await ids({ 'a.b': { $elemMatch: { $gt: 2 } } });

      // Assert
      expect(sizeOne).toEqual([1]);
      expect(elemMatch).toEqual([1, 2]);
    });
  });

  describe('$type', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: [1, 2, 3] },
        { _id: 2, a: [1, 'foo', 3] },
        { _id: 3, a: [] },
        { _id: 4, a: [[]] },
        { _id: 5, a: 1 },
        { _id: 6, a: 'foo' },
        { _id: 7 },
        { _id: 8, a: 1.5 },
        { _id: 9, a: Long.fromString('9007199254740993') },
      ]);
    });

    it('when $type names a type, then array elements of that type match as well as the field itself', async () => {
      // Act
      const numbers = await ids({ a: { $type: 'number' } });
      const strings = await ids({ a: { $type: 'string' } });
      const arrays = await ids({ a: { $type: 'array' } });
      const nestedArrays = await ids({ 'a.0': { $type: 'array' } });
      const byCode = await ids({ a: { $type: [2, 'array'] } });

      // Assert
      expect(numbers).toEqual([1, 2, 5, 8, 9]);
      expect(strings).toEqual([2, 6]);
      expect(arrays).toEqual([1, 2, 3, 4]);
      expect(nestedArrays).toEqual([4]);
      expect(byCode).toEqual([1, 2, 3, 4, 6]);
    });

    it('when $type names one numeric type, then only numbers stored as that type match', async () => {
      // Act
      const doubles = await ids({ a: { $type: 'double' } });
      const ints = await ids({ a: { $type: 'int' } });
      const longs = await ids({ a: { $type: 'long' } });

      // Assert
      expect(doubles).toEqual([8]);
      expect(ints).toEqual([1, 2, 5]);
      expect(longs).toEqual([9]);
    });

    it('when the field is missing, then no $type matches it, "undefined" included, and $not of each does', async () => {
      // Act
      const undefinedType = await ids({ a: { $type: 'undefined' } });
      const nullType = await ids({ a: { $type: 'null' } });
      const notUndefined = await ids({ a: { $not: { $type: 'undefined' } } });

      // Assert
      expect(undefinedType).toEqual([]);
      expect(nullType).toEqual([]);
      expect(notUndefined).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it.each([
      [['string', null], 14],
      [[{}, 'string'], 14],
      ['string2', 2],
      [100, 2],
      [1.5, 2],
      [[], 9],
    ])('when $type is given %j, then the query is refused with code %d', async (type, code) => {
      // Act
      const error = await refusal({ a: { $type: type } });

      // Assert
      expect(error.code).toBe(code);
    });
  });

  describe('logical operators', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: 1 },
        { _id: 2, a: 2 },
      ]);
    });

    it.each(['$and', '$or', '$nor'])(
      'when %s is an empty array, then the query is refused with BadValue',
      async (op) => {
        // Act
        const error = await refusal({ [op]: [] });

        // Assert
        expect(error.code).toBe(2);
        expect(error.message).toBe('$and/$or/$nor must be a nonempty array');
      },
    );

    it.each([
      [{ a: { $not: 'a' } }, '$not needs a regex or a document'],
      [{ a: { $not: {} } }, '$not cannot be empty'],
      [{ $or: [1] }, '$or/$and/$nor entries need to be full objects'],
      [{ $and: { a: 1 } }, '$and must be an array'],
      [{ a: { $not: { b: 1 } } }, 'unknown operator: b'],
    ])('when the filter is %j, then it is refused with BadValue "%s"', async (filter, message) => {
      // Act
      const error = await refusal(filter);

      // Assert
      expect(error.code).toBe(2);
      expect(error.message).toBe(message);
    });

    it('when $not holds a regular expression or operators, then it matches what they do not', async () => {
      // Arrange
      await items.insertOne({ _id: 3, a: 'abc' });

      // Act
      const notRegex = await ids({ a: { $not: /^a/ } });
      const notRange = await ids({ a: { $not: { $gt: 1, $lt: 3 } } });

      // Assert
      expect(notRegex).toEqual([1, 2]);
      expect(notRange).toEqual([1, 3]);
    });
  });

  describe('$all and $in operands', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: [{ x: 3 }, 1] },
        { _id: 2, a: [{ x: 3 }, { x: 1 }] },
      ]);
    });

    it.each([
      [{ a: { $all: [1, { $elemMatch: { x: 3 } }] } }, 'no $ expressions in $all'],
      [{ a: { $all: [{ $elemMatch: { x: 3 } }, 1] } }, '$all/$elemMatch has to be consistent'],
      [{ a: { $all: 1 } }, '$all needs an array'],
      [{ a: { $in: [{ $gt: 1 }] } }, 'cannot nest $ under $in'],
      [{ a: { $in: 1 } }, '$in needs an array'],
      [{ a: { $nin: 1 } }, '$nin needs an array'],
      [{ a: { $size: -1 } }, 'Failed to parse $size. Expected a positive number in: $size: -1'],
      [{ a: { $size: 1.5 } }, 'Failed to parse $size. Expected an integer: $size: 1.5'],
      [{ a: { $size: '1' } }, 'Failed to parse $size. Expected a number in: $size: "1"'],
      [{ a: { $elemMatch: 1 } }, '$elemMatch needs an Object'],
      [{ a: { $gt: new BSONRegExp('x') } }, "Can't have RegEx as arg to predicate over field 'a'."],
      [{ a: { $ne: new BSONRegExp('x') } }, "Can't have regex as arg to $ne."],
      [{ a: { $foo: 1 } }, 'unknown operator: $foo'],
      [
        { $foo: 1 },
        "unknown top level operator: $foo. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.",
      ],
    ])('when the filter is %j, then it is refused with BadValue "%s"', async (filter, message) => {
      // Act
      const error = await refusal(filter);

      // Assert
      expect(error.code).toBe(2);
      expect(error.message).toBe(message);
    });

    it('when $all lists only $elemMatch conditions, then each must be met by some element', async () => {
      // Act
      const both = await ids({ a: { $all: [{ $elemMatch: { x: 3 } }, { $elemMatch: { x: 1 } }] } });
      const none = await ids({ a: { $all: [] } });

      // Assert
      expect(both).toEqual([2]);
      expect(none).toEqual([]);
    });
  });

  describe('$mod', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: 5 },
        { _id: 2, a: -5 },
        { _id: 3, a: 5.9 },
        { _id: 4, a: [1, 7] },
        { _id: 5, a: 'five' },
        { _id: 6, a: -1e19 },
        { _id: 7, a: [1, [3], [[5]]] },
        { _id: 8, a: Long.fromString('-9223372036854775808') },
      ]);
    });

    it('when $mod is well formed, then values truncated toward zero match by their remainder, none beyond 64 bits', async () => {
      // Act
      const one = await ids({ a: { $mod: [2, 1] } });
      const minusOne = await ids({ a: { $mod: [2, -1] } });
      const truncatedOperands = await ids({ a: { $mod: [2.9, 1.2] } });

      // Assert
      expect(one).toEqual([1, 3, 4, 7]);
      expect(minusOne).toEqual([2]);
      expect(truncatedOperands).toEqual([1, 3, 4, 7]);
      expect(await ids({ a: { $mod: [-1, 0] } })).toEqual([1, 2, 3, 4, 7, 8]);
    });

    it.each([
      [[0, 1], 'divisor cannot be 0'],
      [[0.5, 0], 'divisor cannot be 0'],
      [[1], 'malformed mod, not enough elements'],
      [[], 'malformed mod, not enough elements'],
      [[1, 2, 3], 'malformed mod, too many elements'],
      [['a', 1], 'malformed mod, divisor not a number'],
      [[1, 'a'], 'malformed mod, remainder not a number'],
      [5, 'malformed mod, needs to be an array'],
      [
        [Number.NaN, 1],
        'malformed mod, divisor value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type',
      ],
      [
        [1, Infinity],
        'malformed mod, remainder value is invalid :: caused by :: Unable to coerce NaN/Inf to integral type',
      ],
      [[1e30, 1], 'malformed mod, divisor value is invalid :: caused by :: Out of bounds coercing to integral value'],
    ])('when $mod is %j, then the query is refused with BadValue "%s"', async (operand, message) => {
      // Act
      const error = await refusal({ a: { $mod: operand } });

      // Assert
      expect(error.code).toBe(2);
      expect(error.message).toBe(message);
    });
  });

  describe('regular expressions', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: 'a\nb' },
        { _id: 2, a: 'ab' },
        { _id: 3, a: 'AB' },
      ]);
    });

    it('when a regular expression carries the s flag, then its dot matches a newline', async () => {
      // Act
      const withFlag = await ids({ a: new BSONRegExp('^a.b$', 's') });
      const withOption = await ids({ a: { $regex: '^a.b$', $options: 's' } });
      const without = await ids({ a: /^a.b$/ });

      // Assert
      expect(withFlag).toEqual([1]);
      expect(withOption).toEqual([1]);
      expect(without).toEqual([]);
    });

    it('when the x option is given, then whitespace and comments in the pattern are ignored', async () => {
      // Act
      const extended = await ids({ a: { $regex: '^ a b # the letters\n $', $options: 'xi' } });

      // Assert
      expect(extended).toEqual([2, 3]);
    });

    it('when $options holds a flag mongod does not know, then the query is refused with 51108', async () => {
      // Act
      const error = await refusal({ a: { $regex: 'a', $options: 'g' } });

      // Assert
      expect(error.code).toBe(51108);
      expect(error.message).toBe('invalid flag in regex options: g');
    });

    it.each([
      [{ a: { $options: 'i' } }, 2, '$options needs a $regex'],
      [{ a: { $regex: 1 } }, 2, '$regex has to be a string'],
      [{ a: { $regex: new BSONRegExp('a', 'i'), $options: 'm' } }, 51075, 'options set in both $regex and $options'],
      [{ a: { $options: 'm', $regex: new BSONRegExp('a', 'i') } }, 51074, 'options set in both $regex and $options'],
    ])('when the filter is %j, then it is refused with code %d', async (filter, code, message) => {
      // Act
      const error = await refusal(filter);

      // Assert
      expect(error.code).toBe(code);
      expect(error.message).toBe(message);
    });
  });

  describe('beside $text', () => {
    it('when $text is combined with conditions on arrays, then those match as they do without $text', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, about: 'welder with pipeline experience', key: [1] },
        { _id: 2, about: 'welder and fitter', key: [1, 2] },
        { _id: 3, about: 'welder', key: [[1]] },
        { _id: 4, about: 'nurse', key: [1] },
      ]);
      await items.createIndex({ about: 'text' });

      // Act
      const wholeArray = await ids({ $text: { $search: 'welder' }, key: { $in: [[1]] } });
      const notWholeArray = await ids({ $text: { $search: 'welder' }, key: { $ne: [1] } });
      const viaAnd = await ids({ $and: [{ $text: { $search: 'welder' } }, { 'key.0': { $type: 'array' } }] });

      // Assert
      expect(wholeArray).toEqual([1, 3]);
      expect(notWholeArray).toEqual([2]);
      expect(viaAnd).toEqual([3]);
    });
  });

  describe('a collection that does not exist', () => {
    it('when a command filters it with a malformed filter, then the filter is refused as mongod parses it first', async () => {
      // Arrange
      const absent = suite.db.collection<Keyed>('absent');
      const malformed: Document = { $and: [] };

      // Act
      const errors = await Promise.all([
        serverError(absent.find(malformed).toArray()),
        serverError(absent.countDocuments(malformed)),
        serverError(suite.db.command({ count: 'absent', query: malformed })),
        serverError(absent.distinct('a', malformed)),
        serverError(absent.aggregate([{ $match: malformed }]).toArray()),
        serverError(absent.deleteMany(malformed)),
        serverError(absent.updateMany(malformed, { $set: { a: 1 } })),
        serverError(absent.findOneAndUpdate(malformed, { $set: { a: 1 } })),
      ]);

      // Assert
      expect(errors.map((error) => error.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 2]);
      expect(await suite.db.listCollections({ name: 'absent' }).toArray()).toEqual([]);
    });
  });

  describe('projections that name matches', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: [1, 2, 3], b: [{ c: 1 }, { c: 2 }] },
        { _id: 2, a: [[2], 2], b: [] },
      ]);
    });

    it('when a projection takes a.$, then the element the filter matched is returned', async () => {
      // Act
      const found = await items
        .find({ a: 2 }, { projection: { 'a.$': 1 } })
        .sort({ _id: 1 })
        .toArray();

      // Assert
      expect(found).toEqual([
        { _id: 1, a: [2] },
        { _id: 2, a: [2] },
      ]);
    });

    it('when a projection takes $elemMatch, then the first element meeting it is returned', async () => {
      // Act
      const found = await items.findOne({ _id: 1 }, { projection: { b: { $elemMatch: { c: { $gt: 1 } } } } });

      // Assert
      expect(found).toEqual({ _id: 1, b: [{ c: 2 }] });
    });
  });

  describe('path length', () => {
    it('when a filter path has more parts than documents may nest, then the query is refused with 5729100', async () => {
      // Arrange
      await items.insertOne({ _id: 1 });

      // Act
      const error = await refusal({ [pathOfParts(181)]: 1 });
      const found = await ids({ [pathOfParts(180)]: { $exists: false } });

      // Assert
      expect(error.code).toBe(5729100);
      expect(error.message).toBe('FieldPath is too long');
      expect(found).toEqual([1]);
    });
  });
});

describe('embedded store: filter operators it refuses as not supported', () => {
  // mongod runs these (server-side JavaScript, JSON Schema, geometry); the store says it does not.
  const suite = embeddedStoreForSuite();

  it.each<[string, Document]>([
    ['$where', { $where: 'this.a == 1' }],
    ['$jsonSchema', { $jsonSchema: { required: ['a'] } }],
    ['$geoWithin', { loc: { $geoWithin: { $center: [[0, 0], 1] } } }],
    ['$near', { loc: { $near: [0, 0] } }],
  ])('when a filter uses %s, then it is refused with 115 naming it', async (operator, filter) => {
    // Arrange
    const items = suite.client.db('match_refusals').collection('items');
    await items.insertOne({ a: 1, loc: [0, 0] });

    // Act
    const error = await serverError(items.find(filter).toArray());

    // Assert
    expect(error.code).toBe(115);
    expect(error.message).toContain(operator);
    expect(error.message).toContain('not supported');
  });
});
