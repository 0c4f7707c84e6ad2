import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';
import { startEmbeddedStore } from '../src/index';
import { embeddedStoreForSuite } from './support/store-under-test';

/**
 * Text search beyond the manual's `$text` page: stemming, stop words, weights, languages per
 * document, compound and wildcard text indexes, the index kept in step with writes and
 * transactions, explain, and a durable store reopened.
 */

/** Documents of these tests: numbered. */
interface Numbered extends Document {
  _id: number;
}

async function errorOf(action: () => Promise<unknown>): Promise<MongoServerError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof MongoServerError) return error;
    throw error;
  }
  throw new Error('expected the server to refuse');
}

/** The names of every stage of an explain's plan tree. */
function stagesOf(plan: Document): string[] {
  const children = [plan.inputStage, ...((plan.inputStages as Document[] | undefined) ?? [])].filter(Boolean);
  return [plan.stage as string, ...children.flatMap((child) => stagesOf(child as Document))];
}

describe('text search behaviour', () => {
  const suite = embeddedStoreForSuite();
  let counter = 0;

  /** A fresh collection with these documents and this text index. */
  async function collectionWith(
    docs: Numbered[],
    key: Document,
    options: Document = {},
  ): Promise<Collection<Numbered>> {
    const collection = suite.client.db('text_behaviour').collection<Numbered>(`c${counter++}`);
    if (docs.length > 0) await collection.insertMany(docs);
    await collection.createIndex(key, options);
    return collection;
  }

  const idsOf = async (collection: Collection<Numbered>, filter: Document): Promise<unknown[]> =>
    (await collection.find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id);

  describe('terms', () => {
    const jobs = [
      { _id: 1, role: 'Registered nurse in a surgical ward' },
      { _id: 2, role: 'Nursing assistant' },
      { _id: 3, role: 'Civil engineer; bridges and roads' },
      { _id: 4, role: 'The engineers of the future' },
    ];

    it('when words are inflected, then their stems match ("nurses" finds "nurse" and "Nursing", "engineering" finds "engineers")', async () => {
      const collection = await collectionWith(jobs, { role: 'text' });
      expect(await idsOf(collection, { $text: { $search: 'nurses' } })).toEqual([1, 2]);
      expect(await idsOf(collection, { $text: { $search: 'engineering' } })).toEqual([3, 4]);
    });

    it('when the search holds only stop words, then nothing matches; stop words beside a word change nothing', async () => {
      const collection = await collectionWith(jobs, { role: 'text' });
      expect(await idsOf(collection, { $text: { $search: 'the of and' } })).toEqual([]);
      expect(await idsOf(collection, { $text: { $search: 'the bridges' } })).toEqual([3]);
    });

    it('when a phrase spans punctuation as written, then it must appear as written (case and diacritics folded)', async () => {
      const collection = await collectionWith(jobs, { role: 'text' });
      expect(await idsOf(collection, { $text: { $search: '"CIVIL ENGINEER"' } })).toEqual([3]);
      expect(await idsOf(collection, { $text: { $search: '"engineer bridges"' } })).toEqual([]);
      expect(await idsOf(collection, { $text: { $search: 'engineer -"civil engineer"' } })).toEqual([4]);
    });

    it('when a negated word stems as a stop word the document holds does, then the document is still left out', async () => {
      // "haves" is no stop word but stems to "have", which is one: the index holds no entry for it.
      const collection = await collectionWith(
        [
          { _id: 1, role: 'nurses who have children' },
          { _id: 2, role: 'nurses' },
        ],
        { role: 'text' },
      );
      expect(await idsOf(collection, { $text: { $search: 'nurse -haves' } })).toEqual([2]);
      expect(await idsOf(collection, { $text: { $search: 'nurse -children' } })).toEqual([2]);
    });

    it('when the index language is "none", then nothing is stemmed and no word is a stop word', async () => {
      const collection = await collectionWith(jobs, { role: 'text' }, { default_language: 'none' });
      expect(await idsOf(collection, { $text: { $search: 'nurses' } })).toEqual([]);
      expect(await idsOf(collection, { $text: { $search: 'the' } })).toEqual([4]);
    });

    it('when a word is longer than an index key keeps whole, then it is still found by itself only', async () => {
      const long = 'x'.repeat(300);
      const collection = await collectionWith(
        [
          { _id: 1, role: long },
          { _id: 2, role: `${long}y` },
        ],
        { role: 'text' },
      );
      expect(await idsOf(collection, { $text: { $search: long } })).toEqual([1]);
    });
  });

  describe('scores', () => {
    it('when fields have weights, then a match in a heavier field scores that many times more', async () => {
      const collection = await collectionWith(
        [
          { _id: 1, title: 'welder', body: 'steel' },
          { _id: 2, title: 'steel', body: 'welder' },
        ],
        { title: 'text', body: 'text' },
        { weights: { title: 10 } },
      );
      const found = await collection
        .find({ $text: { $search: 'welder' } }, { projection: { score: { $meta: 'textScore' } } })
        .sort({ score: { $meta: 'textScore' } })
        .toArray();
      // A term that is the whole string scores 1.1 times more.
      expect(found.map((doc) => doc._id)).toEqual([1, 2]);
      expect(found[0].score).toBeCloseTo(10 * 1.1, 12);
      expect(found[1].score).toBeCloseTo(1.1, 12);
    });

    it('when a word repeats in a field, then each repeat adds half of the previous one, scaled by its share of the field', async () => {
      const collection = await collectionWith([{ _id: 1, body: 'weld weld weld steel' }], { body: 'text' });
      const [found] = await collection
        .find({ $text: { $search: 'weld' } }, { projection: { _id: 0, score: { $meta: 'textScore' } } })
        .toArray();
      // (1 + 1/2 + 1/4) × (0.5 × 3/4 + 0.5)
      expect(found.score).toBeCloseTo(1.75 * 0.875, 12);
    });
  });

  describe('languages', () => {
    it('when a document names its language, then it is read in that language ("las" is a Spanish stop word)', async () => {
      const collection = await collectionWith(
        [
          { _id: 1, body: 'las leches' },
          { _id: 2, body: 'las leches', language: 'spanish' },
        ],
        { body: 'text' },
      );
      expect(await idsOf(collection, { $text: { $search: 'las' } })).toEqual([1]);
      expect(await idsOf(collection, { $text: { $search: 'leche', $language: 'es' } })).toEqual([1, 2]);
    });

    it('when the index names another override field and a default language, then both are used', async () => {
      const collection = await collectionWith(
        [
          { _id: 1, body: 'die Pflege', idioma: 'english' },
          { _id: 2, body: 'die Pflege' },
        ],
        { body: 'text' },
        { default_language: 'german', language_override: 'idioma' },
      );
      const index = (await collection.listIndexes().toArray()).find((each) => each.name === 'body_text');
      expect(index).toMatchObject({ default_language: 'german', language_override: 'idioma' });
      // "die" is a German stop word, not an English one.
      expect(await idsOf(collection, { $text: { $search: 'die', $language: 'none' } })).toEqual([1]);
    });

    it('when a document names a language text indexes do not know, or not as a string, then it is refused whole', async () => {
      const collection = await collectionWith([], { body: 'text' });
      const unknown = await errorOf(() => collection.insertOne({ _id: 1, body: 'x', language: 'klingon' }));
      expect(unknown.code).toBe(17262);
      expect(unknown.message).toBe('language override unsupported: klingon');
      const notString = await errorOf(() => collection.insertOne({ _id: 2, body: 'x', language: 5 }));
      expect(notString.code).toBe(17261);
      await expect(collection.countDocuments({})).resolves.toBe(0);
    });
  });

  describe('compound and wildcard text indexes', () => {
    const docs = [
      { _id: 1, country: 'JO', profile: { role: 'nurse' } },
      { _id: 2, country: 'LB', profile: { role: 'nurse' } },
      { _id: 3, country: 'JO', profile: { role: 'teacher' } },
    ];

    it('when a text index has an equality prefix, then a search with that equality reads only its part', async () => {
      const collection = await collectionWith(docs, { country: 1, 'profile.role': 'text' });
      expect(await idsOf(collection, { country: 'JO', $text: { $search: 'nurse' } })).toEqual([1]);
      const explained = await collection.find({ country: 'LB', $text: { $search: 'nurse' } }).explain('executionStats');
      expect(explained.queryPlanner.winningPlan).toMatchObject({ stage: 'TEXT_MATCH', indexPrefix: { country: 'LB' } });
      expect(explained.executionStats.totalKeysExamined).toBe(1);
    });

    it('when the equality on a prefix field is missing, then the query cannot use the index and is refused', async () => {
      const collection = await collectionWith(docs, { country: 1, 'profile.role': 'text' });
      const error = await errorOf(() => collection.find({ $text: { $search: 'nurse' } }).toArray());
      expect(error.code).toBe(291);
      expect(error.message).toContain(
        'failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)',
      );
    });

    it('when the text index is a wildcard, then every string of the document is searched', async () => {
      const collection = await collectionWith(docs, { '$**': 'text' });
      expect(await idsOf(collection, { $text: { $search: 'teacher' } })).toEqual([3]);
      expect(await idsOf(collection, { $text: { $search: 'lb' } })).toEqual([2]);
    });

    it('when index options are malformed, then the index is refused with mongod messages', async () => {
      const collection = suite.client.db('text_behaviour').collection(`c${counter++}`);
      const cases: [Document, Document, string][] = [
        [{ a: 'text', b: 1, c: 'text' }, {}, "'text' fields in index must all be adjacent"],
        [
          { a: 'text' },
          { weights: { a: 0 } },
          'text index weight must be in the exclusive interval (0,100000) but found: 0',
        ],
        [{ a: 'text' }, { default_language: 'klingon' }, 'default_language is not valid'],
        [{ a: 'text' }, { language_override: '$lang' }, 'language_override is not valid'],
        [{ a: 'text', b: 2 }, {}, 'expected value 1 or -1 for non-text key in compound index'],
      ];
      for (const [key, options, message] of cases) {
        const error = await errorOf(() => collection.createIndex(key, options));
        expect({ code: error.code, message: error.message }).toEqual({ code: 67, message });
      }
    });
  });

  describe('fields after the text', () => {
    /** What a document holds after its text, in every form an index key holds differently from the document. */
    const listedOf = (i: number): Document => {
      const forms: Document[] = [
        { listed: true },
        { listed: false },
        { listed: null },
        {},
        { listed: 1 },
        { listed: 'yes' },
      ];
      return forms[i % forms.length];
    };
    const roles = ['welder', 'welding inspector', 'nurse', 'welder and nurse'];
    const docs: Numbered[] = Array.from({ length: 120 }, (_, i) => ({
      _id: i,
      role: roles[i % roles.length],
      ...listedOf(i),
      // Some days shared (ties broken by code), some documents without a date (null in the key).
      ...(i % 10 === 9 ? {} : { created: new Date(Date.UTC(2020, 0, 1 + ((i * 7) % 50))) }),
      code: `c${(i * 37) % 120}`,
      kind: i % 3 === 0 ? 'a' : 'b',
    }));
    const withAfter = { role: 'text', listed: 1, created: 1, code: 1 };

    it('when a search filters and sorts on them, then it answers as without them, whatever the values are', async () => {
      // Arrange: the same documents, with and without the fields after the text (and with an
      // index of another field the filter names).
      const after = await collectionWith(docs, withAfter);
      await after.createIndex({ kind: 1 });
      const plain = await collectionWith(docs, { role: 'text' });
      const searches: { filter: Document; sort?: Document; skip?: number; limit?: number }[] = [
        { filter: { $text: { $search: 'welder' }, listed: true }, sort: { created: 1, code: 1 }, limit: 7 },
        { filter: { $text: { $search: 'welder' }, listed: true }, sort: { created: 1, code: 1 }, skip: 3, limit: 5 },
        {
          filter: { $text: { $search: 'welder nurse' }, listed: { $in: [false, true] } },
          sort: { created: -1, code: 1 },
        },
        { filter: { $text: { $search: 'welder nurse' }, listed: true }, sort: { created: -1, code: -1 }, limit: 6 },
        { filter: { $text: { $search: 'welder' }, listed: null }, sort: { code: 1 } },
        { filter: { $text: { $search: 'welder' }, listed: { $ne: true } }, sort: { code: 1 } },
        { filter: { $text: { $search: 'welder' }, listed: { $gte: 1 } }, sort: { code: 1 } },
        {
          filter: { $text: { $search: 'welder nurse' }, $or: [{ listed: true }, { code: { $lt: 'c3' } }] },
          sort: { score: { $meta: 'textScore' }, code: 1 },
          limit: 9,
        },
        { filter: { $text: { $search: 'welder -nurse' }, listed: true }, sort: { code: 1 } },
        { filter: { $text: { $search: '"welding inspector"' }, listed: true }, sort: { created: 1, code: 1 } },
        { filter: { $text: { $search: 'welder' }, listed: true }, sort: { _id: -1 }, limit: 4 },
        { filter: { $text: { $search: 'nurse' }, created: { $gte: new Date(Date.UTC(2020, 0, 20)) } } },
        { filter: { $text: { $search: 'nurse' }, $nor: [{ listed: false }] }, sort: { created: 1, code: -1 } },
        // Filters on other fields too: checked on the documents, or by the index of `kind`.
        { filter: { $text: { $search: 'welder' }, listed: true, kind: 'a' }, sort: { created: 1, code: 1 }, limit: 3 },
        {
          filter: { $text: { $search: 'welder nurse' }, kind: { $in: ['b'] }, $or: [{ listed: true }, { listed: 1 }] },
          sort: { score: { $meta: 'textScore' }, code: 1 },
        },
        { filter: { $text: { $search: 'nurse' }, kind: 'a' }, sort: { created: 1, code: 1 }, limit: 8 },
        { filter: { $text: { $search: 'welder' }, $expr: { $eq: ['$kind', 'a'] } }, sort: { code: 1 } },
        { filter: { $text: { $search: '"welding inspector"' }, kind: 'b' }, sort: { code: -1 } },
      ];
      const run = (collection: Collection<Numbered>, { filter, sort, skip, limit }: (typeof searches)[number]) =>
        Promise.all([
          collection
            .find(filter, { projection: { score: { $meta: 'textScore' } }, sort, skip, limit })
            .toArray()
            .then((found) => (sort ? found : found.sort((a, b) => a._id - b._id))),
          collection.countDocuments(filter),
        ]);

      for (const search of searches) {
        // Act
        const [expected, answered] = await Promise.all([run(plain, search), run(after, search)]);

        // Assert: both alike, and as many as the search alone and the rest of the filter alone find together.
        expect({ search, answered }).toEqual({ search, answered: expected });
        const { $text, ...rest } = search.filter;
        const found = await plain.find({ $text }, { projection: { _id: 1 } }).toArray();
        const both = await plain.countDocuments({ ...rest, _id: { $in: found.map((doc) => doc._id) } });
        expect({ search, count: answered[1] }).toEqual({ search, count: both });
      }
      // The comparison is not between two empty answers.
      expect((await run(after, searches[0]))[1]).toBe(10);
    });

    it('when a document is written between two counts of the same search, then the second count sees it', async () => {
      const collection = await collectionWith(docs, withAfter);
      const query = { $text: { $search: 'welder' }, listed: true };
      const before = await collection.countDocuments(query);
      await collection.insertOne({ _id: 1000, role: 'welder', listed: true, created: new Date(), code: 'new' });
      expect(await collection.countDocuments(query)).toBe(before + 1);
      await collection.updateOne({ _id: 1000 }, { $set: { listed: false } });
      expect(await collection.countDocuments(query)).toBe(before);
    });
  });

  describe('other conditions beside $text', () => {
    it('when the other conditions have an index of their own, then the answer is the same as without it', async () => {
      const docs = Array.from({ length: 600 }, (_, i) => ({
        _id: i,
        status: i % 3 === 0 ? 'draft' : 'active',
        role: i % 2 === 0 ? 'staff nurse' : 'welder',
      }));
      const collection = await collectionWith(docs, { role: 'text' });
      const query = { status: 'active', $text: { $search: 'nurse' } };
      const page = () =>
        collection
          .find(query, { projection: { _id: 1 } })
          .sort({ score: { $meta: 'textScore' }, _id: -1 })
          .skip(5)
          .limit(10)
          .toArray();
      const expected = docs
        .filter((doc) => doc.status === 'active' && doc.role === 'staff nurse')
        .map((doc) => ({ _id: doc._id }))
        .reverse()
        .slice(5, 15);
      expect(await page()).toEqual(expected);
      await expect(collection.countDocuments(query)).resolves.toBe(200);
      await collection.createIndex({ status: 1 });
      expect(await page()).toEqual(expected);
      await expect(collection.countDocuments(query)).resolves.toBe(200);
    });
  });

  describe('the index in step with writes', () => {
    it('when documents are updated and deleted, then searches find their current text only', async () => {
      const collection = await collectionWith(
        [
          { _id: 1, role: 'welder' },
          { _id: 2, role: 'carpenter' },
        ],
        { role: 'text' },
      );
      await collection.updateOne({ _id: 1 }, { $set: { role: 'electrician' } });
      await collection.deleteOne({ _id: 2 });
      await collection.insertOne({ _id: 3, role: 'welder and carpenter' });
      expect(await idsOf(collection, { $text: { $search: 'welder' } })).toEqual([3]);
      expect(await idsOf(collection, { $text: { $search: 'electrician' } })).toEqual([1]);
      expect(await idsOf(collection, { $text: { $search: 'carpenter' } })).toEqual([3]);
    });

    it('when a transaction writes, then its own reads search its writes, an abort leaves nothing and a commit keeps them', async () => {
      const collection = await collectionWith([{ _id: 1, role: 'welder' }], { role: 'text' });
      const session = suite.client.startSession();
      try {
        session.startTransaction();
        await collection.insertOne({ _id: 2, role: 'welder' }, { session });
        await collection.updateOne({ _id: 1 }, { $set: { role: 'baker' } }, { session });
        expect(await collection.find({ $text: { $search: 'welder' } }, { session }).toArray()).toHaveLength(1);
        await session.abortTransaction();
        expect(await idsOf(collection, { $text: { $search: 'welder' } })).toEqual([1]);
        await session.withTransaction(async () => {
          await collection.insertOne({ _id: 3, role: 'welder' }, { session });
        });
        expect(await idsOf(collection, { $text: { $search: 'welder' } })).toEqual([1, 3]);
      } finally {
        await session.endSession();
      }
    });
  });

  describe('explain', () => {
    it('when a rare word is searched among many documents, then the plan reads its index entries and fetches only the matches', async () => {
      const docs = Array.from({ length: 1_000 }, (_, i) => ({
        _id: i,
        role: i % 100 === 7 ? 'glassblower' : `worker number ${i} on shift ${i % 3}`,
      }));
      const collection = await collectionWith(docs, { role: 'text' });
      const explained = await collection
        .find({ $text: { $search: 'glassblower' } }, { projection: { score: { $meta: 'textScore' } } })
        .sort({ score: { $meta: 'textScore' } })
        .explain('executionStats');
      const stages = stagesOf(explained.queryPlanner.winningPlan as Document);
      expect(stages).toEqual(['SORT', 'TEXT_MATCH', 'TEXT_OR', 'IXSCAN']);
      expect(explained.executionStats).toMatchObject({ nReturned: 10, totalKeysExamined: 10, totalDocsExamined: 10 });
      const counted = await collection.countDocuments({ $text: { $search: 'glassblower' } });
      expect(counted).toBe(10);
    });
  });
});

describe('a durable store with a text index', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'text-index-data-'));
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when the store is closed and opened again, then the text index is there, searchable, and kept in step', async () => {
    const first = await startEmbeddedStore({ dbPath: dataDir, port: 0 });
    let client = await MongoClient.connect(first.uri);
    const before = client.db('durable').collection<Numbered>('jobs');
    await before.insertMany([
      { _id: 1, role: 'welder', language: 'english' },
      { _id: 2, role: 'soldador', language: 'spanish' },
    ]);
    await before.createIndex({ role: 'text' }, { weights: { role: 3 } });
    await client.close();
    await first.close();

    const second = await startEmbeddedStore({ dbPath: dataDir, port: 0 });
    client = await MongoClient.connect(second.uri);
    try {
      const after = client.db('durable').collection<Numbered>('jobs');
      const index = (await after.listIndexes().toArray()).find((each) => each.name === 'role_text');
      expect(index).toMatchObject({ key: { _fts: 'text', _ftsx: 1 }, weights: { role: 3 } });
      const found = await after
        .find({ $text: { $search: 'welders' } }, { projection: { score: { $meta: 'textScore' } } })
        .toArray();
      expect(found).toEqual([{ _id: 1, role: 'welder', language: 'english', score: expect.closeTo(3 * 1.1, 12) }]);
      await after.deleteOne({ _id: 1 });
      await after.insertOne({ _id: 3, role: 'welder' });
      expect((await after.find({ $text: { $search: 'welder' } }).toArray()).map((doc) => doc._id)).toEqual([3]);
    } finally {
      await client.close();
      await second.close();
    }
  });
});
