import type { Collection, Document } from 'mongodb';
import { storeUnderTestForSuite } from './support/store-under-test';
import { serverError } from './support/server-error';

/**
 * Commands answering as mongod does where MongoDB's own tests found the store apart: `_id`
 * index requests, `$expr` as an aggregation expression, filters in pipeline stages, and inserts
 * refused before they create anything.
 */

/** Documents keyed by number, so the driver's types accept numeric _id filters. */
type Keyed = Document & { _id: number };

describe('embedded store: commands as mongod answers them', () => {
  const suite = storeUnderTestForSuite('command_semantics');
  let items: Collection<Keyed>;

  beforeEach(() => {
    items = suite.db.collection<Keyed>('items');
  });

  async function collectionNames(): Promise<string[]> {
    return (await suite.db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name);
  }

  describe('the _id index', () => {
    it('when an index on {_id: 1} is requested under any name, then it is the _id index and nothing changes', async () => {
      // Arrange
      await items.insertOne({ _id: 1 });

      // Act
      const byDefaultName = await items.createIndex({ _id: 1 });
      const named = await items.createIndex({ _id: 1 }, { name: 'by_id' });
      const indexes = await items.listIndexes().toArray();

      // Assert
      expect(byDefaultName).toBe('_id_1');
      expect(named).toBe('by_id');
      expect(indexes.map((index) => index.name)).toEqual(['_id_']);
    });

    it('when an index on {_id: -1} is requested, then it is a new index', async () => {
      // Arrange
      await items.insertOne({ _id: 1 });

      // Act
      await items.createIndex({ _id: -1 });

      // Assert
      expect((await items.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_', '_id_-1']);
    });
  });

  describe('$expr in aggregation', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, x: 1, y: 5 },
        { _id: 2, x: 2, y: 10 },
      ]);
    });

    it('when $group groups by an $expr, then it groups by the value of its argument', async () => {
      // Act
      const empty = await items.aggregate([{ $group: { _id: { $expr: {} } } }]).toArray();
      const computed = await items
        .aggregate([{ $group: { _id: { $expr: { $multiply: ['$x', 10] } } } }, { $sort: { _id: 1 } }])
        .toArray();
      const summed = await items
        .aggregate([{ $group: { _id: 1, sum: { $sum: { $expr: { $add: ['$x', '$y'] } } } } }])
        .toArray();

      // Assert
      expect(empty).toEqual([{ _id: {} }]);
      expect(computed).toEqual([{ _id: 10 }, { _id: 20 }]);
      expect(summed).toEqual([{ _id: 1, sum: 18 }]);
    });

    it('when $sortByCount counts by an $expr, then it counts every document under its value', async () => {
      // Act
      const counted = await items.aggregate([{ $sortByCount: { $expr: {} } }]).toArray();

      // Assert
      expect(counted).toEqual([{ _id: {}, count: 2 }]);
    });

    it('when an expression object names an operator and a field, then the pipeline is refused with 15983', async () => {
      // Act
      const error = await serverError(
        items.aggregate([{ $group: { _id: { $expr: { $eq: ['$x', 1] }, other: '$y' } } }]).toArray(),
      );

      // Assert
      expect(error.code).toBe(15983);
    });
  });

  describe('filters inside pipelines', () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: 1, tags: [1], owner: 10 },
        { _id: 2, tags: [[1]], owner: 20 },
      ]);
      await suite.db.collection<Keyed>('owners').insertMany([
        { _id: 10, min: 1 },
        { _id: 20, min: 5 },
      ]);
    });

    it('when a later $match filters, then it matches as the query language does', async () => {
      // Act
      const rows = await items.aggregate([{ $project: { tags: 1 } }, { $match: { tags: { $in: [[1]] } } }]).toArray();
      const refused = await serverError(
        items.aggregate([{ $project: { tags: 1 } }, { $match: { $or: [] } }]).toArray(),
      );

      // Assert
      expect(rows).toEqual([
        { _id: 1, tags: [1] },
        { _id: 2, tags: [[1]] },
      ]);
      expect(refused.code).toBe(2);
    });

    it('when a $lookup pipeline matches with $expr on its let variables, then each document gets its matches', async () => {
      // Act
      const rows = await items
        .aggregate([
          {
            $lookup: {
              from: 'owners',
              let: { owner: '$owner' },
              pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$owner'] }, min: { $lt: 3 } } }],
              as: 'owner',
            },
          },
          { $project: { owner: 1 } },
          { $sort: { _id: 1 } },
        ])
        .toArray();

      // Assert
      expect(rows).toEqual([
        { _id: 1, owner: [{ _id: 10, min: 1 }] },
        { _id: 2, owner: [] },
      ]);
    });
  });

  describe('inserts refused', () => {
    it('when every document of an insert is refused for its _id, then no collection is created', async () => {
      // Act
      const regex = await serverError(items.insertOne({ _id: /x/ as unknown as number }));
      const array = await serverError(items.insertOne({ _id: [1] as unknown as number }));

      // Assert
      expect(regex.code).toBe(2);
      expect(array.code).toBe(2);
      expect(await collectionNames()).toEqual([]);
    });

    it('when an unordered insert refuses one document, then the others are stored', async () => {
      // Act
      const error = await serverError(
        items.insertMany([{ _id: /x/ as unknown as number }, { _id: 2 }], { ordered: false }),
      );

      // Assert
      expect(error.code).toBe(2);
      expect(await items.find({}).toArray()).toEqual([{ _id: 2 }]);
    });
  });
});
