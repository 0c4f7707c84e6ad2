import { MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';

/**
 * Text indexes and `$text` as MongoDB's manual documents them: the examples of the manual page
 * "$text" (its `articles` collection), then what the pages "Text Indexes", "Specify a Language
 * for a Text Index", "Assign Weights to Text Search Results" and "Text Score" describe. These
 * run against a real MongoDB too when MONGODB_URI is set.
 */

/** Documents of these tests: numbered, as the manual's are. */
interface Numbered extends Document {
  _id: number;
}

/** The manual's `articles` collection. */
const ARTICLES = [
  { _id: 1, subject: 'coffee', author: 'xyz', views: 50 },
  { _id: 2, subject: 'Coffee Shopping', author: 'efg', views: 5 },
  { _id: 3, subject: 'Baking a cake', author: 'abc', views: 90 },
  { _id: 4, subject: 'baking', author: 'xyz', views: 100 },
  { _id: 5, subject: 'Café Con Leche', author: 'abc', views: 200 },
  { _id: 6, subject: 'Сырники', author: 'jkl', views: 80 },
  { _id: 7, subject: 'coffee and cream', author: 'efg', views: 10 },
  { _id: 8, subject: 'Cafe con Leche', author: 'xyz', views: 10 },
];

async function errorOf(action: () => Promise<unknown>): Promise<MongoServerError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof MongoServerError) return error;
    throw error;
  }
  throw new Error('expected the server to refuse');
}

describe('text indexes and $text, as the manual documents them', () => {
  let store: StoreUnderTest;
  let client: MongoClient;
  let articles: Collection<Numbered>;

  const ids = async (search: Document): Promise<number[]> =>
    (
      await articles
        .find({ $text: search as { $search: string } })
        .sort({ _id: 1 })
        .toArray()
    ).map((doc) => doc._id);

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
    articles = client.db('text_manual').collection<Numbered>('articles');
    await articles.drop().catch(() => undefined);
    await articles.insertMany(ARTICLES);
    await articles.createIndex({ subject: 'text' });
  });

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  describe('the manual page "$text"', () => {
    it('when searching for one word, then the documents holding it (any case, any form) match', async () => {
      expect(await ids({ $search: 'coffee' })).toEqual([1, 2, 7]);
    });

    it('when searching for several words, then a document holding any of them matches (stemmed: "bake" finds "Baking")', async () => {
      expect(await ids({ $search: 'bake coffee cake' })).toEqual([1, 2, 3, 4, 7]);
    });

    it('when searching for a quoted phrase, then only documents holding the phrase match', async () => {
      expect(await ids({ $search: '"coffee shop"' })).toEqual([2]);
    });

    it('when a word is negated with a minus, then documents holding it are left out', async () => {
      expect(await ids({ $search: 'coffee -shop' })).toEqual([1, 7]);
    });

    it('when the search names Spanish as its language, then its words are stemmed as Spanish', async () => {
      expect(await ids({ $search: 'leche', $language: 'es' })).toEqual([5, 8]);
    });

    it('when the search is case sensitive, then only the case given matches, words and phrases alike', async () => {
      expect(await ids({ $search: 'Coffee', $caseSensitive: true })).toEqual([2]);
      expect(await ids({ $search: '"Café Con"', $caseSensitive: true })).toEqual([5]);
      expect(await ids({ $search: 'Coffee -shop', $caseSensitive: true })).toEqual([2]);
    });

    it('when the search is diacritic sensitive, then a diacritic must be as written', async () => {
      expect(await ids({ $search: 'CAFÉ', $diacriticSensitive: true })).toEqual([5]);
      expect(await ids({ $search: 'leches -cafés', $diacriticSensitive: true })).toEqual([8]);
    });

    it('when the search is neither case nor diacritic sensitive (the default), then "сы́рники CAFÉS" finds both spellings of café and the Cyrillic word', async () => {
      expect(await ids({ $search: 'сы́рники CAFÉS' })).toEqual([5, 6, 8]);
    });

    it('when the score is projected, then each document carries its relevance ("cake" in "Baking a cake": 0.75)', async () => {
      const found = await articles
        .find({ $text: { $search: 'cake' } }, { projection: { score: { $meta: 'textScore' } } })
        .toArray();
      expect(found).toEqual([{ ...ARTICLES[2], score: 0.75 }]);
    });

    it('when sorted by score, then the best match comes first and a limit keeps the best ones', async () => {
      const found = await articles
        .find({ $text: { $search: 'coffee' } }, { projection: { subject: 1, score: { $meta: 'textScore' } } })
        .sort({ score: { $meta: 'textScore' }, _id: 1 })
        .limit(2)
        .toArray();
      // "coffee" alone scores 1; in a two-word subject 0.5 × 1/2 + 0.5 = 0.75.
      expect(found).toEqual([
        { _id: 1, subject: 'coffee', score: 1 },
        { _id: 2, subject: 'Coffee Shopping', score: 0.75 },
      ]);
    });

    it('when sorted by score without projecting it, then the order is by score all the same', async () => {
      const found = await articles
        .find({ $text: { $search: 'bake coffee' } }, { projection: { _id: 1 } })
        .sort({ score: { $meta: 'textScore' }, _id: -1 })
        .toArray();
      // "Baking a cake" 0.75 and "baking" 1 (bake); "coffee" 1, the two-word coffees 0.75.
      expect(found.map((doc) => doc._id)).toEqual([4, 1, 7, 3, 2]);
    });
  });

  describe('text indexes as listIndexes shows them', () => {
    it('when a text index is created, then it is named and listed as mongod stores it', async () => {
      const index = (await articles.listIndexes().toArray()).find((each) => each.name === 'subject_text');
      expect(index).toEqual({
        v: 2,
        key: { _fts: 'text', _ftsx: 1 },
        name: 'subject_text',
        weights: { subject: 1 },
        default_language: 'english',
        language_override: 'language',
        textIndexVersion: 3,
      });
    });

    it('when a second text index is asked for, then it is refused: one text index per collection', async () => {
      const error = await errorOf(() => articles.createIndex({ author: 'text' }));
      expect(error.code).toBe(67);
      expect(error.message).toBe(
        'only one text index per collection allowed, found existing text index "subject_text"',
      );
    });

    it('when the same text index is asked for again, then nothing changes', async () => {
      await expect(articles.createIndex({ subject: 'text' })).resolves.toBe('subject_text');
    });
  });

  describe('counting and aggregating', () => {
    it('when counting documents that match a search, then the count is of the matches', async () => {
      await expect(articles.countDocuments({ $text: { $search: 'coffee' } })).resolves.toBe(3);
      await expect(articles.countDocuments({ $text: { $search: 'coffee' }, views: { $gt: 20 } })).resolves.toBe(1);
    });

    it('when $text is the first $match of a pipeline, then later stages can read and sort by the score', async () => {
      const found = await articles
        .aggregate([
          { $match: { $text: { $search: 'cake baking' } } },
          { $project: { _id: 1, score: { $meta: 'textScore' } } },
          { $sort: { score: -1, _id: 1 } },
        ])
        .toArray();
      // "Baking a cake": bake 0.75 + cake 0.75; "baking" alone: 1.
      expect(found).toEqual([
        { _id: 3, score: 1.5 },
        { _id: 4, score: 1 },
      ]);
    });

    it('when a pipeline groups the documents of a search, then it sees exactly the matches', async () => {
      const grouped = await articles
        .aggregate([
          { $match: { $text: { $search: 'coffee' } } },
          { $group: { _id: '$author', views: { $sum: '$views' } } },
          { $sort: { _id: 1 } },
        ])
        .toArray();
      expect(grouped).toEqual([
        { _id: 'efg', views: 15 },
        { _id: 'xyz', views: 50 },
      ]);
    });
  });

  describe('the errors mongod gives', () => {
    it('when a collection has no text index, then $text is refused with IndexNotFound', async () => {
      const plain = client.db('text_manual').collection<Numbered>('plain');
      await plain.insertOne({ _id: 1, subject: 'coffee' });
      const error = await errorOf(() => plain.find({ $text: { $search: 'coffee' } }).toArray());
      expect(error.code).toBe(27);
      expect(error.message).toBe('text index required for $text query');
    });

    it('when the collection does not exist, then $text is refused with IndexNotFound naming it', async () => {
      const error = await errorOf(() =>
        client
          .db('text_manual')
          .collection('absent')
          .find({ $text: { $search: 'coffee' } })
          .toArray(),
      );
      expect(error.code).toBe(27);
      expect(error.message).toBe("text index required for $text query (no such collection 'text_manual.absent')");
    });

    it('when a query holds two $text, then it is refused', async () => {
      const error = await errorOf(() =>
        articles.find({ $and: [{ $text: { $search: 'coffee' } }, { $text: { $search: 'cake' } }] }).toArray(),
      );
      expect(error.code).toBe(2);
      expect(error.message).toBe('Too many text expressions');
    });

    it('when $text is under $nor, then it is refused', async () => {
      const error = await errorOf(() => articles.find({ $nor: [{ $text: { $search: 'coffee' } }] }).toArray());
      expect(error.code).toBe(2);
      expect(error.message).toBe('text expression not allowed in nor');
    });

    it('when $text is inside $elemMatch, then it is refused', async () => {
      const error = await errorOf(() =>
        articles.find({ tags: { $elemMatch: { $text: { $search: 'coffee' } } } }).toArray(),
      );
      expect(error.code).toBe(2);
      expect(error.message).toBe('$text can only be applied to the top-level document');
    });

    it('when $text is used as an operator of a field, even under $not, then it is refused', async () => {
      const error = await errorOf(() =>
        articles.find({ subject: { $not: { $text: { $search: 'coffee' } } } }).toArray(),
      );
      expect(error.code).toBe(2);
    });

    it('when $text is in an $or whose other branch no index serves, then the query cannot be planned', async () => {
      const error = await errorOf(() =>
        articles.find({ $or: [{ $text: { $search: 'coffee' } }, { views: 200 }] }).toArray(),
      );
      expect(error.code).toBe(291);
      expect(error.message).toContain(
        'Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.',
      );
    });

    it('when $text is in an $or whose other branches an index serves, then the matches of every branch are found', async () => {
      await articles.createIndex({ views: 1 });
      try {
        const found = await articles
          .find({ $or: [{ $text: { $search: 'coffee' } }, { views: 200 }] })
          .sort({ _id: 1 })
          .toArray();
        expect(found.map((doc) => doc._id)).toEqual([1, 2, 5, 7]);
      } finally {
        await articles.dropIndex('views_1');
      }
    });

    it('when the text score is asked of a query without $text, then it is refused', async () => {
      const projected = await errorOf(() =>
        articles.find({ views: 5 }, { projection: { score: { $meta: 'textScore' } } }).toArray(),
      );
      expect(projected.code).toBe(40218);
      expect(projected.message).toBe('query requires text score metadata, but it is not available');
      const sorted = await errorOf(() =>
        articles
          .find({})
          .sort({ score: { $meta: 'textScore' } })
          .toArray(),
      );
      expect(sorted.code).toBe(40218);
    });

    it('when a $match with $text is not the first stage, then the pipeline is refused', async () => {
      const error = await errorOf(() =>
        articles.aggregate([{ $match: { views: 5 } }, { $match: { $text: { $search: 'coffee' } } }]).toArray(),
      );
      expect(error.code).toBe(17313);
      expect(error.message).toBe('$match with $text is only allowed as the first pipeline stage');
    });

    it('when $language names a language text indexes do not know, then the search is refused', async () => {
      const error = await errorOf(() => ids({ $search: 'coffee', $language: 'klingon' }));
      expect(error.code).toBe(2);
      expect(error.message).toBe('unsupported language: "klingon" for text index version 3');
    });

    it('when $text lacks $search, has it of another type, or has an unknown field, then it is refused', async () => {
      expect((await errorOf(() => ids({ $language: 'en' }))).code).toBe(4);
      const typed = await errorOf(() => ids({ $search: 5 }));
      expect(typed.code).toBe(14);
      expect(typed.message).toBe('"$search" had the wrong type. Expected string, found int');
      const extra = await errorOf(() => ids({ $search: 'coffee', $limit: 1 }));
      expect(extra.code).toBe(2);
      expect(extra.message).toBe('extra fields in $text');
    });
  });
});
