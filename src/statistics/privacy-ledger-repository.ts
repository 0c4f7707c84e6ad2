import type { Collection, Db } from 'mongodb';
import type { IndexSpec } from '../store/indexes';
import { isDuplicateKeyError } from '../store/duplicate-key';

/** The collections of the privacy budget: shared by every instance over the same store. */
export const PRIVACY_LEDGER_COLLECTIONS = {
  budgets: 'statisticsBudgets',
  answers: 'statisticsAnswers',
} as const;

/**
 * TTL indexes: MongoDB drops a period's budgets and answers once the period is over (they are
 * never read again then). The embedded store has no TTL monitor; there they stay, a few hundred
 * bytes per key and period and an answer per distinct query.
 */
export const privacyLedgerIndexes: readonly IndexSpec[] = [
  {
    collection: PRIVACY_LEDGER_COLLECTIONS.budgets,
    key: { expiresAt: 1 },
    options: { name: 'statisticsBudgets_expiresAt_ttl', expireAfterSeconds: 0 },
  },
  {
    collection: PRIVACY_LEDGER_COLLECTIONS.answers,
    key: { expiresAt: 1 },
    options: { name: 'statisticsAnswers_expiresAt_ttl', expireAfterSeconds: 0 },
  },
];

/**
 * The fields of a statistics question's filter besides its codes, as the analyst gave them
 * (trimmed, cased, requirements and ids deduplicated and sorted); each absent when not given.
 */
export interface StatisticsQuestionFilterDoc {
  languages?: { language: string; minSpokenLevel?: string; minWrittenLevel?: string }[];
  minYearsExperience?: number;
  maxYearsExperience?: number;
  minEducationLevel?: number;
  maxEducationLevel?: number;
  minAge?: number;
  maxAge?: number;
  exams?: { exam: string; minScore?: number }[];
  keyword?: string;
  inSavedLists?: string[];
  notInSavedLists?: string[];
}

/**
 * A statistics question as the service understood it: the filter (codes normalised and sorted,
 * the other fields as StatisticsQuestionFilterDoc), includeEmployed, the dimensions in the order
 * asked, and ε. Never an answer.
 */
export interface StatisticsQuestionDoc extends StatisticsQuestionFilterDoc {
  locations: string[];
  nationalities: string[];
  occupations: string[];
  includeEmployed: boolean;
  groupBy: string[];
  epsilon: number;
}

/** A query that was charged: what it asked and when. */
export interface ChargedQueryDoc {
  question: StatisticsQuestionDoc;
  time: Date;
}

/**
 * How many charged queries a budget keeps (the latest): the default budget of 5 at ε = 1 is 5 a
 * period; the bound keeps the document small for keys given budgets for thousands.
 */
export const MAX_LISTED_QUERIES = 100;

/** What one key has spent in one budget period, in thousandths of ε (integers: no rounding drift). */
interface BudgetDoc {
  /** `<keyId>/<period number>` */
  _id: string;
  keyId: string;
  period: number;
  spentMilli: number;
  /** the queries charged, oldest first (the latest MAX_LISTED_QUERIES); absent until the first */
  queries?: ChargedQueryDoc[];
  /** the end of the period */
  expiresAt: Date;
}

/** A published answer, kept so that the same query in the same period gets it again at no cost. */
interface AnswerDoc<T> {
  /** SHA-256 of the key, the period and the query's canonical form */
  _id: string;
  keyId: string;
  period: number;
  answer: T;
  /** the end of the period */
  expiresAt: Date;
}

/**
 * The privacy ledger: budgets spent per key and period, and the answers already published.
 * Charges are conditional updates in the store (`spentMilli` may only grow while the sum stays
 * within the budget), so instances sharing the store cannot overspend together.
 */
export class PrivacyLedgerRepository {
  private readonly budgets: Collection<BudgetDoc>;
  private readonly answers: Collection<AnswerDoc<unknown>>;

  constructor(db: Db) {
    this.budgets = db.collection<BudgetDoc>(PRIVACY_LEDGER_COLLECTIONS.budgets);
    this.answers = db.collection<AnswerDoc<unknown>>(PRIVACY_LEDGER_COLLECTIONS.answers);
  }

  /** Thousandths of ε the key has spent in the period. */
  async spent(keyId: string, period: number): Promise<number> {
    const doc = await this.budgets.findOne({ _id: `${keyId}/${period}` }, { projection: { spentMilli: 1 } });
    return doc?.spentMilli ?? 0;
  }

  /** What the key spent in the period and the queries it was spent on, oldest first. */
  async budgetOf(keyId: string, period: number): Promise<{ spentMilli: number; queries: ChargedQueryDoc[] }> {
    const doc = await this.budgets.findOne({ _id: `${keyId}/${period}` });
    return { spentMilli: doc?.spentMilli ?? 0, queries: doc?.queries ?? [] };
  }

  /**
   * Adds `costMilli` to what the key spent in the period if the sum stays at most `budgetMilli`,
   * and lists `query` among the period's charged queries in the same update: the new sum, or
   * null (nothing charged, nothing listed) when it would exceed the budget.
   */
  async charge(
    keyId: string,
    period: number,
    costMilli: number,
    budgetMilli: number,
    expiresAt: Date,
    query: ChargedQueryDoc,
  ): Promise<number | null> {
    const _id = `${keyId}/${period}`;
    try {
      await this.budgets.updateOne(
        { _id },
        { $setOnInsert: { keyId, period, spentMilli: 0, expiresAt } },
        { upsert: true },
      );
    } catch (error) {
      // Two first charges of a period at once: the other one created the document.
      if (!isDuplicateKeyError(error)) throw error;
    }
    const after = await this.budgets.findOneAndUpdate(
      { _id, spentMilli: { $lte: budgetMilli - costMilli } },
      { $inc: { spentMilli: costMilli }, $push: { queries: { $each: [query], $slice: -MAX_LISTED_QUERIES } } },
      { returnDocument: 'after' },
    );
    return after === null ? null : after.spentMilli;
  }

  async storedAnswer<T>(id: string): Promise<T | null> {
    const doc = await this.answers.findOne({ _id: id });
    return doc === null ? null : (doc.answer as T);
  }

  /** Whether an answer is stored under the id (without reading it). */
  async hasAnswer(id: string): Promise<boolean> {
    return (await this.answers.findOne({ _id: id }, { projection: { _id: 1 } })) !== null;
  }

  /** Stores the answer unless one is already stored under the id; returns the one stored (the first). */
  async storeAnswer<T>(id: string, keyId: string, period: number, answer: T, expiresAt: Date): Promise<T> {
    try {
      await this.answers.insertOne({ _id: id, keyId, period, answer, expiresAt });
      return answer;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const first = await this.storedAnswer<T>(id);
      if (first === null) throw error;
      return first;
    }
  }
}
