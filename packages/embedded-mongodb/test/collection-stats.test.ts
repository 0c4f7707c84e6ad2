import { calculateObjectSize, type Document } from 'bson';
import type { Db } from 'mongodb';
import { embeddedStoreForSuite } from './support/store-under-test';

/** collStats and dbStats report the BSON size of what the collection holds after every kind of write. */
describe('embedded store data sizes', () => {
  const suite = embeddedStoreForSuite();
  let db: Db;

  beforeAll(() => {
    db = suite.client.db('sizes');
  });

  async function storedBytes(name: string): Promise<number> {
    const docs: Document[] = await db.collection(name).find({}).toArray();
    return docs.reduce((sum, doc) => sum + calculateObjectSize(doc), 0);
  }

  it('when documents are inserted, updated, replaced and deleted, then collStats and dbStats give their current size', async () => {
    // Arrange
    const people = db.collection<{ _id: number; name: string; tags?: string[] }>('people');
    await people.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, name: `person ${i}` })));
    const sizeAfterInsert = (await db.command({ collStats: 'people' })).size as number;

    // Act
    await people.updateMany({ _id: { $lt: 10 } }, { $set: { tags: ['a', 'longer tag than before'] } });
    await people.replaceOne({ _id: 15 }, { name: 'a much longer name than the one before' });
    await people.deleteMany({ _id: { $gte: 18 } });

    // Assert
    const expected = await storedBytes('people');
    const stats = await db.command({ collStats: 'people' });
    expect(sizeAfterInsert).toBeGreaterThan(0);
    expect(stats.count).toBe(18);
    expect(stats.size).toBe(expected);
    expect(stats.avgObjSize).toBe(Math.round(expected / 18));
    expect((await db.command({ dbStats: 1 })).dataSize).toBe(expected);
  });
});
