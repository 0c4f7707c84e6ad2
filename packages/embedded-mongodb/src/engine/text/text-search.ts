import { deserialize, type Document } from 'bson';
import { CommandError } from '../../errors';
import type { Collection } from '../collection';
import { compileStoreFilter, type EvaluationOptions } from '../mingo-options';
import { isPlainObject } from '../path-values';
import { planQuery } from '../query-planner';
import { fieldNames, onlyTopLevelFields } from '../raw-bson';
import { ESTIMATE_CAP, type SortedIndex } from '../sorted-index';
import { documentSortKeys, sortRecords, type SortSpec } from '../sort';
import type { StoredRecord } from '../stored-record';
import {
  findTextFilter,
  parseTextQuery,
  queryLanguage,
  textMatcher,
  type TextFilter,
  type TextParams,
  type TextQuery,
} from './text-query';
import { stemsOfStopWords } from './languages';
import { termKey, textIndexFields } from './text-spec';

/** How a $text query is answered: terms read from the text index, the documents they lead to checked. */
export interface TextPlan {
  readonly kind: 'text';
  readonly index: SortedIndex;
  readonly query: TextQuery;
  /** The values of the index's equality prefix fields, from the filter. */
  readonly prefix: readonly unknown[];
  /** The filter's other conditions, checked on each document found (`{}`: none). */
  readonly rest: Document;
  /** The scores are asked for (sort or projection): explain shows TEXT_OR then, not OR. */
  readonly needsScore: boolean;
  /** A `$text` in a branch of the top-level `$or`: the other branches' filters (each answered by an index). */
  readonly orBranches?: readonly Document[];
}

export interface TextRequest extends EvaluationOptions {
  readonly filter: Document;
  readonly sort?: SortSpec;
  readonly skip: number;
  readonly limit: number;
  /** The projection asks for the score (`{$meta: 'textScore'}`). */
  readonly projectsScore?: boolean;
}

export interface TextResult {
  readonly plan: TextPlan;
  readonly records: StoredRecord[];
  /** Each returned record's text score. */
  readonly scores: ReadonlyMap<StoredRecord, number>;
  readonly keysExamined: number;
  readonly docsExamined: number;
}

/** The message mongod's query planner errors carry, before their reason. */
function plannerError(collection: Collection, reason: string): CommandError {
  return new CommandError(
    'NoQueryExecutionPlans',
    `error processing query: ns=${collection.namespace} planner returned error :: caused by :: ${reason}`,
  );
}

/** The collection's text index; IndexNotFound as mongod when there is none. */
export function textIndexOf(collection: Collection | undefined, namespace: string): SortedIndex {
  if (!collection) {
    throw new CommandError('IndexNotFound', `text index required for $text query (no such collection '${namespace}')`);
  }
  const index = collection.indexList().find((candidate) => candidate.spec.text !== undefined);
  if (!index) throw new CommandError('IndexNotFound', 'text index required for $text query');
  return index;
}

/** The `$text` of a filter checked against the collection (its index, its language), or undefined. */
export function textFilterOf(
  collection: Collection | undefined,
  namespace: string,
  filter: Document,
): { text: TextFilter; index: SortedIndex } | undefined {
  let index: SortedIndex | undefined;
  const text = findTextFilter(filter, (params: TextParams) => {
    index = textIndexOf(collection, namespace);
    parseTextQuery(params, queryLanguage(params, index.spec.text!));
  });
  return text && index ? { text, index } : undefined;
}

/** The equality values the filter gives the text index's prefix fields (mongod requires all of them). */
function prefixValues(collection: Collection, index: SortedIndex, rest: Document): unknown[] {
  const before = index.spec.text!.before;
  if (before.length === 0) return [];
  const values: unknown[] = [];
  for (const path of before) {
    const value = equalityValue(rest, path);
    if (value === undefined) {
      throw plannerError(
        collection,
        'failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)',
      );
    }
    values.push(value.value);
  }
  return values;
}

/** `{path: v}` or `{path: {$eq: v}}` in a filter's top-level conjunction. */
function equalityValue(filter: Document, path: string): { value: unknown } | undefined {
  for (const [key, value] of Object.entries(filter) as [string, unknown][]) {
    if (key === '$and' && Array.isArray(value)) {
      for (const clause of value as Document[]) {
        const found = equalityValue(clause, path);
        if (found) return found;
      }
    }
    if (key !== path) continue;
    const operators = isPlainObject(value) ? Object.keys(value) : [];
    if (operators.length > 0 && operators.every((operator) => operator.startsWith('$'))) {
      if (operators.length === 1 && operators[0] === '$eq') return { value: (value as Document).$eq };
      return undefined;
    }
    if (value instanceof RegExp || Array.isArray(value)) return undefined;
    return { value };
  }
  return undefined;
}

/**
 * Reads the index for each term: every entry `[prefix, term, score, …]` adds its score to its
 * record's. Returns the records' scores by record number, and the entries read.
 */
function scoresFromIndex(
  index: SortedIndex,
  prefix: readonly unknown[],
  terms: readonly string[],
): { scores: Map<number, number>; keys: number } {
  const scores = new Map<number, number>();
  const scorePosition = prefix.length + 1;
  let keys = 0;
  for (const term of terms) {
    const key = [...prefix, termKey(term)];
    index.scan(
      { start: key, startInclusive: true, end: key, endInclusive: true },
      false,
      (entry) => {
        keys++;
        scores.set(entry.seq, (scores.get(entry.seq) ?? 0) + (entry.key[scorePosition] as number));
      },
      scorePosition + 1,
    );
  }
  return { scores, keys };
}

/** How many index entries may be read to spare decoding one text candidate's document. */
const ENTRIES_PER_DOCUMENT = 20;

/**
 * The record numbers a filter's exact index bounds select, when reading them from the index
 * costs less than decoding the text candidates' documents: the candidates are then narrowed by
 * their record numbers (an index intersection) instead of by the filter on each document.
 */
function exactlyIndexed(
  collection: Collection,
  filter: Document,
  candidates: number,
): { seqs: Set<number>; keys: number } | undefined {
  const plan = planQuery(collection, { filter, skip: 0, limit: 0 });
  if (plan.kind !== 'ixscan' || !plan.exact) return undefined;
  if (plan.estimate >= ESTIMATE_CAP) {
    const entries = plan.ranges.reduce((sum, range) => sum + plan.index.count(range), 0);
    if (entries > candidates * ENTRIES_PER_DOCUMENT) return undefined;
  }
  const seqs = new Set<number>();
  let keys = 0;
  for (const range of plan.ranges)
    plan.index.scan(
      range,
      false,
      (entry) => {
        keys++;
        seqs.add(entry.seq);
      },
      0,
    );
  return { seqs, keys };
}

/**
 * The documents holding a negated term, from the index, when that is exactly what the matcher
 * would find: the search is neither case nor diacritic sensitive (index terms are folded), and
 * no negated term is what a stop word stems to (stop words have no entries).
 */
function negatedFromIndex(
  index: SortedIndex,
  prefix: readonly unknown[],
  query: TextQuery,
): { seqs: Set<number>; keys: number } | undefined {
  if (query.negatedTerms.length === 0 || query.caseSensitive || query.diacriticSensitive) return undefined;
  const stopStems = stemsOfStopWords();
  if (query.negatedTerms.some((term) => stopStems.has(term))) return undefined;
  const { scores, keys } = scoresFromIndex(index, prefix, query.negatedTerms);
  return { seqs: new Set(scores.keys()), keys };
}

/**
 * Runs a query with `$text` (found by textFilterOf): the index gives the candidates and their
 * scores; the rest of the filter and the parts of the search the index cannot answer (phrases,
 * negations, case or diacritic sensitivity) are checked on the documents; then sort (the text
 * score descending for `{$meta: 'textScore'}`), skip and limit.
 */
export function runTextQuery(
  collection: Collection,
  found: { text: TextFilter; index: SortedIndex },
  request: TextRequest,
  runBranch: (filter: Document) => StoredRecord[],
): TextResult {
  const { text, index } = found;
  const definition = index.spec.text!;
  const query = parseTextQuery(text.params, queryLanguage(text.params, definition));
  const needsScore = request.projectsScore === true || (request.sort ?? []).some((field) => field.meta);
  const orBranches = text.place.kind === 'or' ? otherBranches(collection, text) : undefined;
  const textBranch = text.place.kind === 'or' ? branchWithoutText(text) : text.rest;
  const prefix = prefixValues(collection, index, textBranch);
  const plan: TextPlan = { kind: 'text', index, query, prefix, rest: text.rest, needsScore, orBranches };

  const { scores: bySeq, keys: termKeys } = scoresFromIndex(index, prefix, query.boundsTerms);
  let keys = termKeys;
  const excluded = negatedFromIndex(index, prefix, query);
  if (excluded) keys += excluded.keys;
  let docsExamined = 0;
  const matcher = textMatcher(query, definition, excluded !== undefined);
  const branchFilter = Object.keys(textBranch).length > 0 ? compile(textBranch, request) : undefined;
  const narrowed = branchFilter && !matcher ? exactlyIndexed(collection, textBranch, bySeq.size) : undefined;
  if (narrowed) keys += narrowed.keys;
  // The matcher reads only the fields the index reads (all of them for `$**`).
  const indexed = textIndexFields(definition);
  const textFields = indexed && fieldNames(indexed);
  const scores = new Map<StoredRecord, number>();
  let records: StoredRecord[] = [];
  for (const seq of [...bySeq.keys()].sort((a, b) => a - b)) {
    if (excluded?.seqs.has(seq)) continue;
    if (narrowed && !narrowed.seqs.has(seq)) continue;
    const record = collection.record(seq);
    // Fetched, as mongod's TEXT_OR or FETCH fetches every candidate (decoded only when checked).
    docsExamined++;
    if (!narrowed && (branchFilter || matcher)) {
      const stored = record.stored();
      if (stored === undefined) continue;
      const doc = deserialize(branchFilter || !textFields ? stored : onlyTopLevelFields(stored, textFields));
      if ((branchFilter && !branchFilter(doc)) || (matcher && !matcher(doc))) continue;
    }
    records.push(record);
    scores.set(record, bySeq.get(seq)!);
  }
  if (orBranches) records = unionWithBranches(collection, text.rest, records, orBranches, runBranch, request);

  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  if (request.sort) records = sortByScore(records, request.sort, wanted, (record) => scores.get(record) ?? 0);
  if (request.skip > 0 || wanted !== Infinity) records = records.slice(request.skip, wanted);
  return { plan, records, scores, keysExamined: keys, docsExamined };
}

/** How many documents a `$text` query matches, reading no document when the index alone decides. */
export function countTextMatches(
  collection: Collection,
  found: { text: TextFilter; index: SortedIndex },
  request: TextRequest,
  runBranch: (filter: Document) => StoredRecord[],
): TextResult {
  return runTextQuery(collection, found, { ...request, sort: undefined }, runBranch);
}

function compile(filter: Document, options: EvaluationOptions): (doc: Document) => boolean {
  return compileStoreFilter(filter, options);
}

/** The `$or` branch holding the `$text`, without it. */
function branchWithoutText(text: TextFilter): Document {
  const branches = text.rest.$or as Document[];
  const branch = branches[(text.place as { branch: number }).branch];
  const rest: Document = {};
  for (const [key, value] of Object.entries(branch)) if (key !== '$text') rest[key] = value;
  return rest;
}

/**
 * The other branches of the `$or` holding the `$text`: mongod answers such a query only when an
 * index serves each of them, and refuses it otherwise.
 */
function otherBranches(collection: Collection, text: TextFilter): Document[] {
  const place = text.place as { branch: number };
  const refuse = (): never => {
    throw plannerError(
      collection,
      'Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.',
    );
  };
  if (place.branch < 0) refuse();
  const branches = (text.rest.$or as Document[]).filter((_branch, i) => i !== place.branch);
  for (const branch of branches)
    if (planQuery(collection, { filter: branch, skip: 0, limit: 0 }).kind !== 'ixscan') refuse();
  return branches;
}

/** The text branch's records with the other branches' (each once), then the filter outside the `$or`. */
function unionWithBranches(
  collection: Collection,
  filter: Document,
  fromText: StoredRecord[],
  branches: readonly Document[],
  runBranch: (filter: Document) => StoredRecord[],
  options: EvaluationOptions,
): StoredRecord[] {
  const seen = new Set(fromText.map((record) => record.seq));
  const all = [...fromText];
  for (const branch of branches) {
    for (const record of runBranch(branch)) {
      if (seen.has(record.seq)) continue;
      seen.add(record.seq);
      all.push(record);
    }
  }
  const outside: Document = {};
  for (const [key, value] of Object.entries(filter)) if (key !== '$or') outside[key] = value;
  const test = Object.keys(outside).length > 0 ? compile(outside, options) : undefined;
  return test ? all.filter((record) => test(record.doc)) : all;
}

/**
 * Sorts by a sort that may hold `{$meta: 'textScore'}`. When the score comes first, only the
 * records that can be among the first `wanted` (those scoring at least the wanted-th best) are
 * read for the other sort fields, and only those fields are decoded.
 */
function sortByScore(
  records: StoredRecord[],
  sort: SortSpec,
  wanted: number,
  scoreOf: (record: StoredRecord) => number,
): StoredRecord[] {
  let candidates = records;
  if (sort[0].meta && wanted < records.length) {
    const scores = records.map(scoreOf).sort((a, b) => b - a);
    const cutoff = scores[wanted - 1];
    candidates = records.filter((record) => scoreOf(record) >= cutoff);
  }
  const names = fieldNames(sort.filter((field) => !field.meta).map((field) => field.parts[0]));
  const fromDocument = documentSortKeys(
    sort.map((field) => (field.meta ? { ...field, path: '', parts: [] } : field)),
    (record) => (names.length === 0 ? {} : deserialize(onlyTopLevelFields(record.bson, names))),
  );
  const keysOf = (record: StoredRecord): unknown[] => {
    const keys = fromDocument(record);
    sort.forEach((field, i) => {
      // Descending by score: the sort field's direction (-1) turns the comparison round.
      if (field.meta) keys[i] = scoreOf(record);
    });
    return keys;
  };
  return sortRecords(candidates, sort, wanted, keysOf);
}
