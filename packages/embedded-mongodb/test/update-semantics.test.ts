import type { Collection, Document } from 'mongodb';
import { storeUnderTestForSuite } from './support/store-under-test';
import { serverError } from './support/server-error';

/**
 * What updates do, as mongod does them: the positional `$` (the array position the filter
 * matched), the document an upsert builds from its filter, `$setOnInsert`, `$pull`, `$addToSet`,
 * and findAndModify's flags.
 */

/** Documents keyed by number, so the driver's types accept numeric _id filters. */
type Keyed = Document & { _id: number };

describe('embedded store: updates as mongod applies them', () => {
  const suite = storeUnderTestForSuite('update_semantics');
  let items: Collection<Keyed>;

  beforeEach(() => {
    items = suite.db.collection<Keyed>('items');
  });

  /** Applies an update to the document with _id 1 (the update as a Document, which the driver's types cannot check). */
  async function updateFirst(update: Document): Promise<void> {
    await items.updateOne({ _id: 1 }, update);
  }

  /** The document an update leaves (the filter of the update as a Document, which the driver's types cannot check). */
  async function after(filter: Document, update: Document, options: { upsert?: boolean } = {}): Promise<Document[]> {
    await items.updateMany(filter, update, options);
    return items.find({}).sort({ _id: 1 }).toArray();
  }

  describe('the positional $', () => {
    it('when the filter names the array inside $and, then $ is the position it matched', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [0, 1, 2] });

      // Act
      await items.updateOne({ $and: [{ a: 1 }] }, { $set: { 'a.$': 5 } });

      // Assert
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: [0, 5, 2] });
    });

    it('when the array is reached through a dotted path, then $ follows it', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, x: { y: [8, 7, 6] } },
        { _id: 2, x: { y: [7, 9] } },
      ]);

      // Act
      const result = await items.updateMany({ 'x.y': 7 }, { $inc: { 'x.y.$': 1 } });

      // Assert
      expect(result.modifiedCount).toBe(2);
      expect(await items.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, x: { y: [8, 8, 6] } },
        { _id: 2, x: { y: [8, 9] } },
      ]);
    });

    it('when $elemMatch or a one-clause $or finds the element, then $ is its position', async () => {
      // Arrange
      await items.insertMany([
        {
          _id: 1,
          a: [
            { b: 1, c: 1 },
            { b: 2, c: 1 },
          ],
        },
        { _id: 2, a: [{ b: 3 }, { b: 4 }] },
      ]);

      // Act
      await items.updateOne({ _id: 1, a: { $elemMatch: { b: 2 } } }, { $set: { 'a.$.c': 9 } });
      await items.updateOne({ $or: [{ 'a.b': 4 }] }, { $set: { 'a.$.c': 8 } });

      // Assert
      expect(await items.find({}).sort({ _id: 1 }).toArray()).toEqual([
        {
          _id: 1,
          a: [
            { b: 1, c: 1 },
            { b: 2, c: 9 },
          ],
        },
        { _id: 2, a: [{ b: 3 }, { b: 4, c: 8 }] },
      ]);
    });

    it('when the filter did not match through an array, then $ is refused and nothing changes', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [1, 2], b: 1 });

      // Act
      const noArray = await serverError(items.updateOne({ b: 1 }, { $set: { 'a.$': 5 } }));
      const viaOr = await serverError(items.updateOne({ $or: [{ a: 1 }, { a: 9 }] }, { $set: { 'a.$': 5 } }));

      // Assert
      expect(noArray.code).toBe(2);
      expect(noArray.message).toBe('The positional operator did not find the match needed from the query.');
      expect(viaOr.code).toBe(2);
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: [1, 2], b: 1 });
    });

    it('when the filter names the position itself, then that is no match for $ (mongod uses only traversals)', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, a: [0] },
        { _id: 2, a: [{ b: [0, 1] }] },
        { _id: 3, a: [0, 1], b: [0] },
      ]);

      // Act
      const byPosition = await serverError(items.updateOne({ _id: 1, 'a.0': 0 }, { $set: { 'a.$': 1 } }));
      await items.updateOne({ _id: 2, 'a.0.b': 1 }, { $set: { 'a.0.b.$': 2 } });
      await items.updateOne({ _id: 3, a: 1, 'b.0': 0 }, { $set: { 'a.$': 2 } });

      // Assert
      expect(byPosition.code).toBe(2);
      expect(await items.find({}).sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, a: [0] },
        { _id: 2, a: [{ b: [0, 2] }] },
        { _id: 3, a: [0, 2], b: [0] },
      ]);
    });

    it('when a path holds $ twice or starts with it, then the update is refused', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [[1]] });

      // Act
      const twice = await serverError(items.updateOne({ a: [1] }, { $set: { 'a.$.$': 5 } }));
      const first = await serverError(items.updateOne({ a: [1] }, { $set: { $: 5 } }));

      // Assert
      expect(twice.code).toBe(2);
      expect(twice.message).toBe("Too many positional (i.e. '$') elements found in path 'a.$.$'");
      expect(first.code).toBe(2);
    });

    it('when an upsert inserts with a positional update, then it is refused', async () => {
      // Act
      const error = await serverError(items.updateOne({ a: 1 }, { $set: { 'a.$': 5 } }, { upsert: true }));

      // Assert
      expect(error.code).toBe(2);
      expect(await items.countDocuments({})).toBe(0);
    });
  });

  describe('update paths', () => {
    it('when an update path has more than 255 parts, then the update is refused with 10396001', async () => {
      // Arrange
      await items.insertOne({ _id: 1 });

      // Act
      const error = await serverError(
        items.updateOne({ _id: 1 }, { $set: { [Array.from({ length: 257 }, () => 'a').join('.')]: 1 } }),
      );

      // Assert
      expect(error.code).toBe(10396001);
      expect(error.message).toBe("Field paths cannot contain more than 255 '.'");
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1 });
    });
  });

  describe('the document an upsert inserts', () => {
    it('when the filter holds equalities in $and and a one-clause $or, then the new document has them all', async () => {
      // Act
      const docs = await after(
        { $and: [{ c: 1 }, { d: 1 }, { $or: [{ x: 1 }] }] },
        { $set: { y: 1 } },
        { upsert: true },
      );

      // Assert
      expect(docs).toHaveLength(1);
      expect(docs[0]).toMatchObject({ c: 1, d: 1, x: 1, y: 1 });
    });

    it.each<[string, Document]>([
      ['$eq', { _id: 1, x: { $eq: 1 } }],
      ['a one-value $in', { _id: 1, x: { $in: [1] } }],
      ['a one-value $all', { _id: 1, x: { $all: [1] } }],
      ['an $and', { $and: [{ _id: 1 }, { x: 1 }] }],
      ['a nested one-clause $or', { $or: [{ $and: [{ _id: 1 }, { $or: [{ x: 1 }] }] }] }],
    ])('when the filter holds %s, then the value is seeded', async (_, filter) => {
      // Act
      const docs = await after(filter, { $set: { y: 1 } }, { upsert: true });

      // Assert
      expect(docs).toEqual([{ _id: 1, x: 1, y: 1 }]);
    });

    it.each<[string, Document]>([
      ['a range', { x: { $gt: 1 } }],
      ['$ne', { x: { $ne: 1 } }],
      ['a two-value $in', { x: { $in: [1, 2] } }],
      ['$elemMatch', { x: { $elemMatch: { $eq: 1 } } }],
      ['$exists', { x: { $exists: true } }],
      ['$not', { x: { $not: { $eq: 1 } } }],
      ['a two-clause $or', { $or: [{ x: 1 }, { x: 2 }] }],
      ['$nor', { $nor: [{ x: 1 }] }],
      ['a regular expression', { x: /abc/ }],
    ])('when the filter holds %s, then the field is not seeded', async (_, filter) => {
      // Act
      const docs = await after(filter, { $set: { y: 1 } }, { upsert: true });

      // Assert
      expect(docs).toHaveLength(1);
      expect(docs[0]).not.toHaveProperty('x');
      expect(docs[0].y).toBe(1);
    });

    it.each<[Document, string]>([
      [{ x: { $all: [1, 2] } }, "cannot infer query fields to set, path 'x' is matched twice"],
      [{ $and: [{ x: 1 }, { x: 2 }] }, "cannot infer query fields to set, path 'x' is matched twice"],
      [{ x: 1, 'x.x': 1 }, "cannot infer query fields to set, both paths 'x' and 'x.x' are matched"],
    ])('when the filter %j sets a path twice, then the upsert is refused with 54', async (filter, message) => {
      // Act
      const error = await serverError(items.updateOne(filter, { $set: { y: 1 } }, { upsert: true }));

      // Assert
      expect(error.code).toBe(54);
      expect(error.message).toBe(message);
      expect(await items.countDocuments({})).toBe(0);
    });

    it('when $setOnInsert and $set name the same path, then the update is refused with 40', async () => {
      // Act
      const upsert = await serverError(
        items.updateOne({ _id: 1 }, { $set: { a: 1 }, $setOnInsert: { a: 2 } }, { upsert: true }),
      );

      // Assert
      expect(upsert.code).toBe(40);
      expect(upsert.message).toBe("Updating the path 'a' would create a conflict at 'a'");
      expect(await items.countDocuments({})).toBe(0);
    });

    it('when $setOnInsert sets fields, then only the inserted document gets them', async () => {
      // Act
      await items.updateOne({ _id: 1 }, { $set: { a: 1 }, $setOnInsert: { b: 1 } }, { upsert: true });
      await items.updateOne({ _id: 1 }, { $set: { a: 2 }, $setOnInsert: { b: 2 } }, { upsert: true });

      // Assert
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: 2, b: 1 });
    });
  });

  describe('array operators', () => {
    it('when $pull names an array, then only elements equal to that whole array go', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [[1], 1, [1, 2], [[1]]] });

      // Act
      await updateFirst({ $pull: { a: [1] } });

      // Assert
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: [1, [1, 2], [[1]]] });
    });

    it('when $pull names a value, then elements equal to it go, not arrays holding it', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [1, [1], 2] });

      // Act
      await updateFirst({ $pull: { a: 1 } });

      // Assert
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: [[1], 2] });
    });

    it('when $pull holds a condition, then elements meeting it go, arrays by mongod semantics', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [[1], [2], 3, { b: 1 }, { b: 2 }] });

      // Act
      await updateFirst({ $pull: { a: { $in: [[2], 3] } } });
      await updateFirst({ $pull: { a: { b: 1 } } });

      // Assert
      expect(await items.findOne({ _id: 1 })).toEqual({ _id: 1, a: [[1], { b: 2 }] });
    });

    it('when $addToSet adds a document with the fields in another order, then it is a new element', async () => {
      // Arrange
      await items.insertOne({ _id: 1, a: [{ x: 1, y: 2 }] });

      // Act
      await updateFirst({ $addToSet: { a: { y: 2, x: 1 } } });
      await updateFirst({ $addToSet: { a: { x: 1, y: 2 } } });

      // Assert
      expect(await items.findOne({ _id: 1 })).toEqual({
        _id: 1,
        a: [
          { x: 1, y: 2 },
          { y: 2, x: 1 },
        ],
      });
    });
  });

  describe('array filters', () => {
    /** Applies an update with array filters to the document with _id 1 and reads it back. */
    async function withFilters(update: Document, arrayFilters: Document[]): Promise<Document | null> {
      await items.updateOne({ _id: 1 }, update, { arrayFilters });
      return items.findOne({ _id: 1 });
    }

    it('when an array filter names the element, then it tests the element itself, arrays included', async () => {
      // Arrange
      await items.insertOne({
        _id: 1,
        a: [
          [0, 1],
          [1, 2],
        ],
        b: [[1, 2], [3]],
        c: [0, 1, 0, 1],
      });

      // Act
      await withFilters({ $pull: { 'a.$[i]': 1 } }, [{ i: 2 }]);
      await withFilters({ $set: { 'b.$[j]': 'pair' } }, [{ j: { $size: 2 } }]);
      const after = await withFilters({ $set: { 'c.$[k]': 2 } }, [{ k: 0 }]);

      // Assert
      expect(after).toEqual({ _id: 1, a: [[0, 1], [2]], b: ['pair', [3]], c: [2, 1, 2, 1] });
    });

    it('when an array filter names a field of the element, then documents are tested by it', async () => {
      // Arrange
      await items.insertOne({
        _id: 1,
        a: [
          { b: 0, c: 1 },
          { b: 0, c: -1 },
          { b: 1, c: 1 },
        ],
      });

      // Act
      const after = await withFilters({ $min: { 'a.$[i].c': 0 } }, [{ 'i.b': 0 }]);

      // Assert
      expect(after).toEqual({
        _id: 1,
        a: [
          { b: 0, c: 0 },
          { b: 0, c: -1 },
          { b: 1, c: 1 },
        ],
      });
    });

    it.each<[string, number, Document, Document[]]>([
      ['two identifiers in one filter', 9, { $set: { 'a.$[i]': 5 } }, [{ i: 0, j: 0 }]],
      ['two filters for one identifier', 9, { $set: { 'a.$[i]': 5, 'a.$[j]': 6 } }, [{ i: 0 }, { j: 0 }, { i: 1 }]],
      ['a filter the update does not use', 9, { $set: { 'a.$[i]': 5 } }, [{ i: 0 }, { j: 0 }]],
      ['a filter naming no field', 9, { $set: { 'a.$[i]': 5 } }, [{ $alwaysTrue: 1 }]],
      ['$expr in a filter', 224, { $set: { 'a.$[i]': 5 } }, [{ $expr: { $eq: ['$foo', '$bar'] } }]],
      ['an identifier without a filter', 2, { $set: { 'a.$[i]': 5 } }, []],
      ['a dynamic $rename', 2, { $rename: { 'a.$[i]': 'b' } }, [{ i: 0 }]],
    ])(
      'when the update has %s, then it is refused with %d even where nothing matches',
      async (_, code, update, arrayFilters) => {
        // Act
        const error = await serverError(items.updateOne({ _id: 1 }, update, { arrayFilters }));

        // Assert
        expect(error.code).toBe(code);
      },
    );

    it('when findAndModify removes with array filters, then it is refused', async () => {
      // Act
      const error = await serverError(
        suite.db.command({ findAndModify: 'items', query: {}, remove: true, arrayFilters: [{ i: 0 }] }),
      );

      // Assert
      expect(error.code).toBe(9);
    });
  });

  describe('findAndModify and update flags', () => {
    it('when findAndModify gets remove: 1, then it removes as with remove: true', async () => {
      // Arrange
      await items.insertMany([{ _id: 1 }, { _id: 2 }]);

      // Act
      const reply = await suite.db.command({ findAndModify: 'items', query: { _id: 1 }, remove: 1 });

      // Assert
      expect(reply.value).toEqual({ _id: 1 });
      expect(await items.find({}).toArray()).toEqual([{ _id: 2 }]);
    });

    it('when findAndModify gets new: 1 and upsert: 1, then it upserts and answers the new document', async () => {
      // Act
      const reply = await suite.db.command({
        findAndModify: 'items',
        query: { _id: 1 },
        update: { $set: { a: 1 } },
        new: 1,
        upsert: 1,
      });

      // Assert
      expect(reply.value).toEqual({ _id: 1, a: 1 });
    });

    it('when findAndModify gets remove: "yes", then it is refused as the wrong type', async () => {
      // Act
      const error = await serverError(suite.db.command({ findAndModify: 'items', query: {}, remove: 'yes' }));

      // Assert
      expect(error.code).toBe(14);
    });

    it('when an update statement says multi: 1 and upsert: 1, then both hold', async () => {
      // Arrange
      await items.insertMany([
        { _id: 1, a: 1 },
        { _id: 2, a: 1 },
      ]);

      // Act
      const reply = await suite.db.command({
        update: 'items',
        updates: [
          { q: { a: 1 }, u: { $set: { b: 1 } }, multi: 1 },
          { q: { _id: 3 }, u: { $set: { b: 1 } }, upsert: 1 },
        ],
      });

      // Assert
      expect(reply.nModified).toBe(2);
      expect(reply.upserted).toEqual([{ index: 1, _id: 3 }]);
    });
  });
});
