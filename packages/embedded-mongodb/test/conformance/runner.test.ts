import { MongoClient, MongoServerError, type Document } from 'mongodb';
import type { EmbeddedStore } from '../../src/index';
import { embeddedStoreForSuite } from '../support/store-under-test';
import { MatchError } from './unified/matcher';
import { EntityMap, executeOperation } from './unified/operations';
import { RefusedAsNotSupported, runSpecTest } from './unified/run-test';
import type { SpecFile, SpecTest } from './unified/spec-files';

/**
 * The unified-format runner itself: it must hand the server what a spec test says (so a wrong
 * answer is the server's, not the driver's), and tell a refusal from a failure.
 */

const DATABASE = 'runner_checks';

const ENTITIES: Document[] = [
  { client: { id: 'client0' } },
  { database: { id: 'database0', client: 'client0', databaseName: DATABASE } },
  { collection: { id: 'collection0', database: 'database0', collectionName: 'coll0' } },
];

/** A spec file of one test, written here (the spec repository's files stay outside the project). */
function specFile(test: SpecTest): SpecFile {
  return {
    fileName: 'runner-check.json',
    description: 'runner check',
    schemaVersion: '1.0',
    createEntities: ENTITIES,
    initialData: [{ databaseName: DATABASE, collectionName: 'coll0', documents: [{ _id: 1, x: 'ping' }] }],
    tests: [test],
  };
}

describe('the unified-format runner', () => {
  const suite = embeddedStoreForSuite();
  let store: EmbeddedStore;
  let internal: MongoClient;

  beforeAll(() => {
    ({ store, client: internal } = suite);
  });

  beforeEach(async () => {
    await internal.db(DATABASE).dropDatabase();
  });

  it.each([
    ['insertOne', { document: { _id: null } }],
    ['insertMany', { documents: [{ _id: null }] }],
    ['bulkWrite', { requests: [{ insertOne: { document: { _id: null } } }] }],
  ])('when %s inserts a document whose _id is null, then the server receives the null', async (name, args) => {
    // Arrange
    const entities = EntityMap.create(store.uri, ENTITIES);

    // Act
    try {
      await executeOperation(entities, name, 'collection0', args);
    } finally {
      await entities.close();
    }

    // Assert: the Node driver alone would have sent a new ObjectId instead
    const stored = await internal.db(DATABASE).collection('coll0').find({}).toArray();
    expect(stored).toEqual([{ _id: null }]);
  });

  it('when the server refuses an operation as not supported, then the test is reported as refused, not failed', async () => {
    // Arrange
    const file = specFile({
      description: 'find with a collation',
      operations: [
        {
          name: 'find',
          object: 'collection0',
          arguments: { filter: { x: 'PING' }, collation: { locale: 'en_US', strength: 2 } },
          expectResult: [{ _id: 1, x: 'ping' }],
        },
      ],
    });

    // Act
    const outcome = runSpecTest(store.uri, internal, file, file.tests[0]);

    // Assert
    await expect(outcome).rejects.toThrow(RefusedAsNotSupported);
    await expect(outcome).rejects.toThrow(/simple collation/);
  });

  it('when the server gives a wrong answer, then the test fails with the difference', async () => {
    // Arrange
    const file = specFile({
      description: 'count that expects another number',
      operations: [{ name: 'countDocuments', object: 'collection0', arguments: { filter: {} }, expectResult: 2 }],
    });

    // Act
    const outcome = runSpecTest(store.uri, internal, file, file.tests[0]);

    // Assert
    await expect(outcome).rejects.toThrow(MatchError);
  });

  it('when a test runs modifyCollection, then the runner sends collMod', async () => {
    // Arrange
    const entities = EntityMap.create(store.uri, ENTITIES);
    await internal.db(DATABASE).createCollection('coll0');

    // Act
    const error = await executeOperation(entities, 'modifyCollection', 'database0', {
      collection: 'coll0',
      validator: { x: { $type: 'string' } },
    })
      .then(
        () => undefined,
        (e: unknown) => e,
      )
      .finally(() => entities.close());

    // Assert: the store's answer to collMod, not "not supported by this runner"
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(115);
  });
});
