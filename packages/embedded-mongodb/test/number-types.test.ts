import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Decimal128, Double, Int32, Long, MongoClient, type Collection, type Document } from 'mongodb';
import { startEmbeddedStore } from '../src/index';
import { storeUnderTestForSuite } from './support/store-under-test';
import { serverError } from './support/server-error';

/**
 * A number keeps the BSON type it was written as (double, int, long, decimal) through inserts,
 * updates, findAndModify, upserts and a restart, as mongod keeps it: `$type` tells them apart,
 * the driver reads them back as sent, and they still compare, sort and group as equal numbers.
 */

type Keyed = Document & { _id: number };

/** The `$type` alias of a value read with `promoteValues: false`. */
function typeName(value: unknown): string {
  switch ((value as { _bsontype?: string } | null)?._bsontype) {
    case 'Double':
      return 'double';
    case 'Int32':
      return 'int';
    case 'Long':
      return 'long';
    case 'Decimal128':
      return 'decimal';
    default:
      return typeof value;
  }
}

/** The numeric value of a value read with `promoteValues: false`. */
function numberOf(value: unknown): number {
  const tagged = value as { _bsontype?: string; toNumber?: () => number; value?: number; toString(): string };
  if (tagged._bsontype === 'Long') return tagged.toNumber!();
  if (tagged._bsontype === 'Decimal128') return Number(tagged.toString());
  return Number(tagged.value);
}

describe('embedded store: number types as stored', () => {
  const suite = storeUnderTestForSuite('number_types');
  let items: Collection<Keyed>;

  beforeEach(() => {
    items = suite.db.collection<Keyed>('items');
  });

  /** The sorted _ids of the documents a filter matches. */
  async function ids(filter: Document): Promise<number[]> {
    const found = await items.find(filter, { projection: { _id: 1 } }).toArray();
    return found.map((doc) => doc._id).sort((x, y) => x - y);
  }

  /** A field of one document as stored: its type alias and its value. */
  async function stored(id: number, field: string): Promise<[string, number]> {
    const doc = await items.findOne({ _id: id }, { promoteValues: false });
    const value: unknown = doc?.[field];
    return [typeName(value), numberOf(value)];
  }

  describe('$type and equality', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, a: new Double(1) },
        { _id: 2, a: new Int32(1) },
        { _id: 3, a: Long.fromNumber(1) },
        { _id: 4, a: Decimal128.fromString('1') },
        { _id: 5, a: [new Double(2), 'x'] },
        { _id: 6, a: new Double(-0) },
      ]);
    });

    it('when a whole double, an int, a long and a decimal are stored, then $type names each one only', async () => {
      // Act
      const doubles = await ids({ a: { $type: 'double' } });
      const ints = await ids({ a: { $type: 'int' } });
      const longs = await ids({ a: { $type: 'long' } });
      const decimals = await ids({ a: { $type: 'decimal' } });
      const numbers = await ids({ a: { $type: 'number' } });
      const byCodes = await ids({ a: { $type: [16, 18] } });

      // Assert
      expect(doubles).toEqual([1, 5, 6]);
      expect(ints).toEqual([2]);
      expect(longs).toEqual([3]);
      expect(decimals).toEqual([4]);
      expect(numbers).toEqual([1, 2, 3, 4, 5, 6]);
      expect(byCodes).toEqual([2, 3]);
    });

    it('when $type sits beside $text, then the text search tells the stored types apart as a plain find does', async () => {
      // Arrange
      await items.updateMany({}, { $set: { words: 'nurse' } });
      await items.createIndex({ words: 'text' });

      // Act
      const doubles = await ids({ $text: { $search: 'nurse' }, a: { $type: 'double' } });
      const longs = await ids({ $text: { $search: 'nurse' }, a: { $type: 'long' } });

      // Assert
      expect(doubles).toEqual([1, 5, 6]);
      expect(longs).toEqual([3]);
    });

    it('when a text search projects its score, then the other fields come back with their stored types', async () => {
      // Arrange
      await items.updateMany({}, { $set: { words: 'nurse' } });
      await items.createIndex({ words: 'text' });

      // Act
      const found = await items
        .find({ $text: { $search: 'nurse' }, _id: { $in: [1, 3] } }, { promoteValues: false })
        .project({ a: 1, score: { $meta: 'textScore' } })
        .sort({ _id: 1 })
        .toArray();

      // Assert
      expect(found.map((doc) => typeName(doc.a))).toEqual(['double', 'long']);
    });

    it('when numbers of different types are equal, then equality, $in, $nin and $elemMatch treat them as one', async () => {
      // Act
      const equal = await ids({ a: 1 });
      const inLong = await ids({ a: { $in: [Long.fromNumber(2)] } });
      const ninDouble = await ids({ a: { $nin: [new Double(1)] } });
      const elemMatch = await ids({ a: { $elemMatch: { $eq: new Int32(2) } } });

      // Assert
      expect(equal).toEqual([1, 2, 3, 4]);
      expect(inLong).toEqual([5]);
      expect(ninDouble).toEqual([5, 6]);
      expect(elemMatch).toEqual([5]);
    });

    it('when distinct lists numbers of different types, or $size is a long, then equal numbers are one', async () => {
      // Act
      const values = await items.distinct('a', { _id: { $in: [1, 2, 3, 4] } });
      const sizeTwo = await ids({ a: { $size: Long.fromNumber(2) } });

      // Assert
      expect(values.map(Number)).toEqual([1]);
      expect(sizeTwo).toEqual([5]);
    });

    it('when read back, then each number comes back as the type it was written as', async () => {
      // Act
      const types = await Promise.all([1, 2, 3, 4].map((id) => stored(id, 'a')));
      const promoted = await items.findOne({ _id: 3 });

      // Assert
      expect(types).toEqual([
        ['double', 1],
        ['int', 1],
        ['long', 1],
        ['decimal', 1],
      ]);
      expect(promoted?.a).toBe(1);
    });

    it('when a projection computes from typed numbers, then it computes and the fields it keeps keep their types', async () => {
      // Act
      const projected = await items
        .find(
          { _id: { $in: [1, 3] } },
          { projection: { a: 1, twice: { $multiply: ['$a', 2] }, 'x.y': 1 }, promoteValues: false },
        )
        .sort({ _id: 1 })
        .toArray();

      // Assert
      expect(projected.map((doc) => [typeName(doc.a), numberOf(doc.twice)])).toEqual([
        ['double', 2],
        ['long', 2],
      ]);
    });

    it('when numbers of different types are sorted, then they sort by value', async () => {
      // Arrange
      await items.deleteMany({});
      await items.insertMany([
        { _id: 1, n: Long.fromNumber(3) },
        { _id: 2, n: new Double(2) },
        { _id: 3, n: 1 },
        { _id: 4, n: Decimal128.fromString('1.5') },
        { _id: 5, n: 2.5 },
      ]);

      // Act
      const ascending = await items.find({}).sort({ n: 1 }).toArray();
      await items.createIndex({ n: -1 });
      const byIndex = await items
        .find({ n: { $gte: 1 } })
        .sort({ n: -1 })
        .toArray();

      // Assert
      expect(ascending.map((doc) => doc._id)).toEqual([3, 4, 2, 5, 1]);
      expect(byIndex.map((doc) => doc._id)).toEqual([1, 5, 2, 4, 3]);
    });

    it('when doubles, ints and longs are grouped, then equal ones make one group', async () => {
      // Act
      const groups = await items
        .aggregate([
          { $match: { _id: { $in: [1, 2, 3, 6] } } },
          { $group: { _id: '$a', n: { $sum: 1 } } },
          { $sort: { _id: 1 } },
        ])
        .toArray();

      // Assert
      expect(groups.map((group) => [Number(group._id), group.n])).toEqual([
        [0, 1],
        [1, 3],
      ]);
    });
  });

  describe('updates', () => {
    it('when $set writes an equal number of another type, then the field takes that type and the update counts', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: 1 });

      // Act
      const changed = await items.updateOne({ _id: 1 }, { $set: { a: new Double(1) } });
      const again = await items.updateOne({ _id: 1 }, { $set: { a: new Double(1) } });

      // Assert
      expect(changed.modifiedCount).toBe(1);
      expect(again.modifiedCount).toBe(0);
      expect(await stored(1, 'a')).toEqual(['double', 1]);
      expect(await ids({ a: { $type: 'double' } })).toEqual([1]);
    });

    it('when other fields are updated, then the untouched numbers keep their types', async () => {
      // Arrange
      await items.insertOne({ _id: 1, d: new Double(4), l: Long.fromNumber(5), nested: { d: [new Double(6)] } });

      // Act
      await items.updateOne({ _id: 1 }, { $set: { other: 'x' } });

      // Assert
      expect(await stored(1, 'd')).toEqual(['double', 4]);
      expect(await stored(1, 'l')).toEqual(['long', 5]);
      expect(await ids({ 'nested.d': { $type: 'double' } })).toEqual([1]);
    });

    it.each([
      ['int + int', new Int32(1), new Int32(2), ['int', 3]],
      ['int + int beyond 32 bits', new Int32(2147483647), new Int32(1), ['long', 2147483648]],
      ['int + double', new Int32(1), new Double(0.5), ['double', 1.5]],
      ['int + whole double', new Int32(1), new Double(1), ['double', 2]],
      ['double + int', new Double(1), new Int32(1), ['double', 2]],
      ['long + int', Long.fromNumber(1), new Int32(2), ['long', 3]],
      ['int + long', new Int32(1), Long.fromNumber(2), ['long', 3]],
      ['long + double', Long.fromNumber(1), new Double(2), ['double', 3]],
    ])('when $inc adds %s, then the result has mongod type', async (_, current, amount, expected) => {
      // Arrange
      await items.insertOne({ _id: 1, n: current });

      // Act
      await items.updateOne({ _id: 1 }, { $inc: { n: amount } });

      // Assert
      expect(await stored(1, 'n')).toEqual(expected);
    });

    it.each([
      ['int × int', new Int32(3), new Int32(2), ['int', 6]],
      ['int × int beyond 32 bits', new Int32(65536), new Int32(65536), ['long', 4294967296]],
      ['int × double', new Int32(2), new Double(1.5), ['double', 3]],
      ['long × int', Long.fromNumber(3), new Int32(2), ['long', 6]],
      ['double × long', new Double(3), Long.fromNumber(2), ['double', 6]],
    ])('when $mul multiplies %s, then the result has mongod type', async (_, current, factor, expected) => {
      // Arrange
      await items.insertOne({ _id: 1, n: current });

      // Act
      await items.updateOne({ _id: 1 }, { $mul: { n: factor } });

      // Assert
      expect(await stored(1, 'n')).toEqual(expected);
    });

    it('when $inc or $mul meet a missing field, then it is created with the operand type', async () => {
      // Arrange
      await items.insertOne({ _id: 1 });

      // Act
      await items.updateOne(
        { _id: 1 },
        { $inc: { i: Long.fromNumber(5), 'deep.j': new Double(2) }, $mul: { m: Long.fromNumber(3), k: new Double(2) } },
      );

      // Assert
      expect(await stored(1, 'i')).toEqual(['long', 5]);
      expect((await items.findOne({ _id: 1 }, { promoteValues: false }))?.deep.j._bsontype).toBe('Double');
      expect(await stored(1, 'm')).toEqual(['long', 0]);
      expect(await stored(1, 'k')).toEqual(['double', 0]);
    });

    it('when $inc goes beyond 64 bits or meets a string, then it is refused and the document is unchanged', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, n: Long.MAX_VALUE },
        { _id: 2, n: 'text' },
      ]);

      // Act
      const overflow = await serverError(items.updateOne({ _id: 1 }, { $inc: { n: 1 } }));
      const text = await serverError(items.updateOne({ _id: 2 }, { $inc: { n: 1 } }));

      // Assert
      expect(overflow.code).toBe(2);
      expect(text.code).toBe(14);
      expect(await ids({ n: Long.MAX_VALUE })).toEqual([1]);
    });

    it('when $inc targets array elements through $[] and array filters, then each keeps mongod type', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [new Int32(1), new Double(2), Long.fromNumber(3)] });

      // Act
      await items.updateOne({ _id: 1 }, { $inc: { 'a.$[]': new Int32(1) } });
      await items.updateOne(
        { _id: 1 },
        { $inc: { 'a.$[big]': new Int32(10) } },
        { arrayFilters: [{ big: { $gte: 4 } }] },
      );
      const doc = await items.findOne({ _id: 1 }, { promoteValues: false });

      // Assert
      expect((doc?.a as unknown[]).map((value) => [typeName(value), numberOf(value)])).toEqual([
        ['int', 2],
        ['double', 3],
        ['long', 14],
      ]);
    });

    it('when $min and $max compare numbers of different types, then the kept value keeps its type', async () => {
      // Arrange
      await items.insertOne({ _id: 1, low: new Double(5), high: Long.fromNumber(5) });

      // Act
      await items.updateOne({ _id: 1 }, { $min: { low: new Int32(3) }, $max: { high: new Double(4) } });

      // Assert
      expect(await stored(1, 'low')).toEqual(['int', 3]);
      expect(await stored(1, 'high')).toEqual(['long', 5]);
    });

    it('when an upsert inserts, then $setOnInsert values and the filter equalities keep their types', async () => {
      // Act
      await items.updateOne(
        { _id: 1, seeded: new Double(7) },
        { $setOnInsert: { d: new Double(3), l: Long.fromNumber(4) }, $set: { i: new Int32(5) } },
        { upsert: true },
      );

      // Assert
      expect(await stored(1, 'seeded')).toEqual(['double', 7]);
      expect(await stored(1, 'd')).toEqual(['double', 3]);
      expect(await stored(1, 'l')).toEqual(['long', 4]);
      expect(await stored(1, 'i')).toEqual(['int', 5]);
    });

    it('when $addToSet meets an equal number of another type, then nothing is added; $pull removes every equal number', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, a: [new Int32(1)] },
        { _id: 2, a: [new Int32(1), new Double(1), Long.fromNumber(1), Decimal128.fromString('1'), 2] },
      ]);

      // Act
      await items.updateOne(
        { _id: 1 },
        { $addToSet: { a: { $each: [new Double(1), Long.fromNumber(1), Long.fromNumber(2)] } } },
      );
      await items.updateOne({ _id: 2 }, { $pull: { a: new Double(1) } } as Document);
      const added = await items.findOne({ _id: 1 }, { promoteValues: false });
      const pulled = await items.findOne({ _id: 2 });

      // Assert
      expect((added?.a as unknown[]).map((value) => [typeName(value), numberOf(value)])).toEqual([
        ['int', 1],
        ['long', 2],
      ]);
      expect(pulled?.a).toEqual([2]);
    });

    it('when findAndModify updates, then the document it returns and the stored one keep the types', async () => {
      // Arrange
      await items.insertOne({ _id: 1, n: new Int32(1), d: new Double(2) });

      // Act
      const after = await items.findOneAndUpdate(
        { _id: 1 },
        { $inc: { n: Long.fromNumber(1) } },
        { returnDocument: 'after', promoteValues: false },
      );

      // Assert
      expect(typeName(after?.n)).toBe('long');
      expect(typeName(after?.d)).toBe('double');
      expect(await ids({ n: { $type: 'long' }, d: { $type: 'double' } })).toEqual([1]);
    });

    it('when $push sorts numbers of different types, then they sort by value and keep their types', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [Long.fromNumber(5), new Int32(1)] });

      // Act
      await items.updateOne({ _id: 1 }, { $push: { a: { $each: [new Double(3)], $sort: 1 } } } as Document);
      const doc = await items.findOne({ _id: 1 }, { promoteValues: false });

      // Assert
      expect((doc?.a as unknown[]).map((value) => [typeName(value), numberOf(value)])).toEqual([
        ['int', 1],
        ['double', 3],
        ['long', 5],
      ]);
    });

    it('when $bit works on a long or an int, then the result keeps that type', async () => {
      // Arrange
      await items.insertOne({ _id: 1, l: Long.fromNumber(6), i: new Int32(6) });

      // Act
      await items.updateOne({ _id: 1 }, {
        $bit: { l: { and: Long.fromNumber(3) }, i: { or: new Int32(1) } },
      } as Document);

      // Assert
      expect(await stored(1, 'l')).toEqual(['long', 2]);
      expect(await stored(1, 'i')).toEqual(['int', 7]);
    });

    it('when a pipeline update sets other fields, then the numbers it keeps keep their types', async () => {
      // Arrange
      await items.insertOne({ _id: 1, d: new Double(4), l: Long.fromNumber(5), n: 2 });

      // Act
      await items.updateOne({ _id: 1 }, [{ $set: { sum: { $add: ['$d', '$l', '$n'] } } }]);

      // Assert
      expect(await stored(1, 'd')).toEqual(['double', 4]);
      expect(await stored(1, 'l')).toEqual(['long', 5]);
      expect((await items.findOne({ _id: 1 }))?.sum).toBe(11);
    });

    it('when a unique index holds a number, then an equal number of another type is a duplicate key', async () => {
      // Arrange
      await items.createIndex({ u: 1 }, { unique: true });
      await items.insertOne({ _id: 1, u: new Int32(1) });

      // Act
      const duplicate = await serverError(items.insertOne({ _id: 2, u: new Double(1) }));
      const duplicateLong = await serverError(items.insertOne({ _id: 3, u: Long.fromNumber(1) }));

      // Assert
      expect(duplicate.code).toBe(11000);
      expect(duplicateLong.code).toBe(11000);
    });

    it('when a transaction inserts and updates typed numbers, then they are committed with their types', async () => {
      // Arrange
      await items.insertOne({ _id: 1, n: new Int32(1) });
      const session = suite.client.startSession();

      // Act
      try {
        await session.withTransaction(async () => {
          await items.insertOne({ _id: 2, d: new Double(2), l: Long.fromNumber(3) }, { session });
          await items.updateOne({ _id: 1 }, { $inc: { n: Long.fromNumber(1) } }, { session });
        });
      } finally {
        await session.endSession();
      }

      // Assert
      expect(await stored(2, 'd')).toEqual(['double', 2]);
      expect(await stored(2, 'l')).toEqual(['long', 3]);
      expect(await stored(1, 'n')).toEqual(['long', 2]);
    });

    it('when operator arguments are longs or whole doubles, then they work as the numbers they stand for', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [1, 2, 3], b: [1, 2, 3], n: 1 });

      // Act
      await items.updateOne({ _id: 1 }, {
        $push: { a: { $each: [new Double(0)], $position: Long.fromNumber(0), $slice: new Double(3) } },
        $pop: { b: Long.fromNumber(1) },
      } as Document);
      await items.updateOne({ _id: 1 }, [{ $set: { n: { $add: ['$n', Long.fromNumber(2)] } } }]);
      const doc = await items.findOne({ _id: 1 }, { promoteValues: false });

      // Assert
      expect((doc?.a as unknown[]).map((value) => [typeName(value), numberOf(value)])).toEqual([
        ['double', 0],
        ['int', 1],
        ['int', 2],
      ]);
      expect((doc?.b as unknown[]).map(numberOf)).toEqual([1, 2]);
      expect(numberOf(doc?.n)).toBe(3);
    });

    it('when a replacement holds typed numbers, then they are stored as sent', async () => {
      // Arrange
      await items.insertOne({ _id: 1, n: 1 });

      // Act
      await items.replaceOne({ _id: 1 }, { n: new Double(1), l: Long.fromNumber(2) });

      // Assert
      expect(await stored(1, 'n')).toEqual(['double', 1]);
      expect(await stored(1, 'l')).toEqual(['long', 2]);
    });
  });
});

describe('embedded store: number types across a restart', () => {
  it('when the store restarts on its data directory, then whole doubles and longs keep their types', async () => {
    // Arrange
    const dbPath = mkdtempSync(path.join(os.tmpdir(), 'number-types-'));
    try {
      const first = await startEmbeddedStore({ dbPath, port: 0 });
      const writer = await MongoClient.connect(first.uri);
      await writer
        .db('t')
        .collection('c')
        .insertOne({ _id: 1, d: new Double(1), l: Long.fromNumber(2) } as Document);
      await writer.close();
      await first.close();

      // Act
      const second = await startEmbeddedStore({ dbPath, port: 0 });
      const reader = await MongoClient.connect(second.uri);
      const items = reader.db('t').collection<Keyed>('c');
      const byType = await items.countDocuments({ d: { $type: 'double' }, l: { $type: 'long' } });
      const doc = await items.findOne({ _id: 1 }, { promoteValues: false });
      await reader.close();
      await second.close();

      // Assert
      expect(byType).toBe(1);
      expect([typeName(doc?.d), typeName(doc?.l)]).toEqual(['double', 'long']);
    } finally {
      rmSync(dbPath, { recursive: true, force: true });
    }
  });
});
