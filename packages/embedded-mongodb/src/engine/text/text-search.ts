import { deserialize, serialize, type Document } from 'bson';
import { CommandError } from '../../errors';
import type { Collection } from '../collection';
import { compileStoreFilter, type EvaluationOptions } from '../mingo-options';
import { isPlainObject } from '../path-values';
import { planQuery } from '../query-planner';
import { fieldNames, onlyTopLevelFields } from '../raw-bson';
import { ESTIMATE_CAP, type SortedIndex } from '../sorted-index';
import { documentSortKeys, firstInOrder, sortRecords, type SortSpec } from '../sort';
import { compareValues } from '../value-order';
import { RECORD_NUMBER_BYTES } from '../../persistence/storage-engine';
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
import { termKey, textIndexFields, type TextIndexDefinition } from './text-spec';
import { suffixFilter, suffixSortPlaces, topLevelFieldsRead, type SuffixFilter } from './text-suffix';
import { decodeTyped } from '../typed-numbers';

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
  /** The documents the query matches, before skip and limit. */
  readonly matched: number;
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

/** The documents a search's index entries lead to, each once, in the order first read. */
interface Postings {
  readonly seqs: number[];
  /** Each document's score, summed over the terms. */
  readonly scores: number[];
  /** Each document's first entry's values decoded: its term's score, then fields after the score. */
  readonly values: (readonly unknown[])[];
  /** Each document's first entry's bytes, and where its term's score starts in them. */
  readonly keys: Buffer[];
  readonly starts: number[];
}

/**
 * Reads the index for each term: every entry `[prefix, term, score, …]` adds its score to its
 * record's. With `after`, each posting also holds that many values after the score decoded.
 * Returns the postings, and the entries read.
 */
function readPostings(
  index: SortedIndex,
  prefix: readonly unknown[],
  terms: readonly string[],
  after = 0,
): { postings: Postings; keys: number } {
  const postings: Postings = { seqs: [], scores: [], values: [], keys: [], starts: [] };
  // A document has one entry per term: only several terms lead to it more than once.
  const placeOf = terms.length > 1 ? new Map<number, number>() : undefined;
  let keys = 0;
  for (const term of terms) {
    const key = [...prefix, termKey(term)];
    index.scanAfterPrefix(
      { start: key, startInclusive: true, end: key, endInclusive: true },
      prefix.length + 1,
      1 + after,
      (seq, values, bytes, start) => {
        keys++;
        const place = placeOf?.get(seq);
        if (place !== undefined) {
          postings.scores[place] += values[0] as number;
          return;
        }
        placeOf?.set(seq, postings.seqs.length);
        postings.seqs.push(seq);
        postings.scores.push(values[0] as number);
        postings.values.push(values);
        postings.keys.push(bytes);
        postings.starts.push(start);
      },
    );
  }
  return { postings, keys };
}

/**
 * How a sort by fields after the score compares two postings by their keys' bytes, when those
 * fields run to the end of the key in its order (or all reversed): from the first of them on,
 * the bytes compare as the fields do, and nothing need be decoded. The text score may come first.
 */
interface ByteSort {
  readonly byScoreFirst: boolean;
  /** The place (among a posting's values) of the first field compared as bytes. */
  readonly place: number;
  /** 1: in the index's order; -1: reversed. */
  readonly sign: number;
}

function byteSortOf(index: SortedIndex, sort: SortSpec, places: readonly number[]): ByteSort | undefined {
  const definition = index.spec.text!;
  const byScoreFirst = places[0] === 0;
  const rest = places.slice(byScoreFirst ? 1 : 0);
  const fields = rest.map((place, i) => ({ place, direction: sort[i + (byScoreFirst ? 1 : 0)].direction }));
  if (fields.length === 0 || rest[rest.length - 1] !== definition.after.length) return undefined;
  if (rest.some((place, i) => place !== rest[0] + i)) return undefined;
  // The place of a field after the score is its position after the term.
  const termPosition = definition.before.length;
  const signs = fields.map(({ place, direction }) => direction * index.spec.fields[termPosition + 1 + place].direction);
  if (signs.some((sign) => sign !== signs[0])) return undefined;
  return { byScoreFirst, place: rest[0], sign: signs[0] };
}

/** The places of the postings in record number order (natural order). */
function inRecordOrder(postings: Postings, places: readonly number[] = postings.seqs.map((_, i) => i)): number[] {
  const { seqs } = postings;
  return [...places].sort((a, b) => seqs[a] - seqs[b]);
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
  const { postings, keys } = readPostings(index, prefix, query.negatedTerms);
  return { seqs: new Set(postings.seqs), keys };
}

/**
 * Runs a query with `$text` (found by textFilterOf): the index gives the candidates and their
 * scores; the rest of the filter and the parts of the search the index cannot answer (phrases,
 * negations, case or diacritic sensitivity) are checked on the documents; then sort (the text
 * score descending for `{$meta: 'textScore'}`), skip and limit. When the rest of the filter and
 * the sort read only the index's fields after the score, they are answered from the entries
 * read for the terms (see text-suffix.ts), and only the documents returned are read.
 */
export function runTextQuery(
  collection: Collection,
  found: { text: TextFilter; index: SortedIndex },
  request: TextRequest,
  runBranch: (filter: Document) => StoredRecord[],
): TextResult {
  const plan = textPlan(collection, found, request);
  const { text } = found;
  const definition = plan.index.spec.text!;
  const textBranch = text.place.kind === 'or' ? branchWithoutText(text) : text.rest;
  const fromSuffix = plan.orBranches ? undefined : suffixAnswers(definition, textBranch, request);
  const result = fromSuffix
    ? matchesFromSuffix(collection, plan, textBranch, request, fromSuffix)
    : matchesFromDocuments(collection, plan, textBranch, request, runBranch);
  // A page's count follows it (the same filter): it is then answered without reading again.
  rememberCount(plan.index, request, () => ({
    matched: result.matched,
    keysExamined: result.keysExamined,
    docsExamined: result.docsExamined,
  }));
  return result;
}

/** The plan of a `$text` query, checking what mongod checks (the prefix's equalities, the other `$or` branches). */
function textPlan(
  collection: Collection,
  found: { text: TextFilter; index: SortedIndex },
  request: TextRequest,
): TextPlan {
  const { text, index } = found;
  const query = parseTextQuery(text.params, queryLanguage(text.params, index.spec.text!));
  const needsScore = request.projectsScore === true || (request.sort ?? []).some((field) => field.meta);
  const orBranches = text.place.kind === 'or' ? otherBranches(collection, text) : undefined;
  const textBranch = text.place.kind === 'or' ? branchWithoutText(text) : text.rest;
  const prefix = prefixValues(collection, index, textBranch);
  return { kind: 'text', index, query, prefix, rest: text.rest, needsScore, orBranches };
}

/** How the filter and the sort are answered from the values after the score. */
interface SuffixAnswers {
  /** From the values after the score; undefined: on the documents (`documentFields`) or no filter. */
  readonly filter?: SuffixFilter;
  /** The filter is checked on the documents, which need only these top-level fields (undefined: all). */
  readonly onDocuments?: { readonly fields?: readonly string[] };
  /** undefined: no sort */
  readonly sortPlaces?: readonly number[];
}

/** How a query is answered from the values after the score: its sort must be (the filter may be checked on documents). */
function suffixAnswers(
  definition: TextIndexDefinition,
  filter: Document,
  request: TextRequest,
): SuffixAnswers | undefined {
  if (definition.after.length === 0) return undefined;
  const sortPlaces = request.sort ? suffixSortPlaces(request.sort, definition) : undefined;
  if (request.sort && !sortPlaces) return undefined;
  if (Object.keys(filter).length === 0) return { sortPlaces };
  const answered = suffixFilter(filter, definition, (rest) => compile(rest, request));
  if (answered) return { filter: answered, sortPlaces };
  return { onDocuments: { fields: topLevelFieldsRead(filter) }, sortPlaces };
}

/**
 * The matches of a query whose sort reads only the fields after the score: each document's
 * posting decides the filter when it reads only those fields, or (a null, missing or numeric
 * value, which the key does not hold exactly, or a filter on other fields) the fields the filter
 * reads of the document; the search's phrases and negations are checked on the indexed fields
 * of the documents that get that far. The sort reads the postings, and only the documents of
 * the page are read for the answer.
 */
function matchesFromSuffix(
  collection: Collection,
  plan: TextPlan,
  filter: Document,
  request: TextRequest,
  answers: SuffixAnswers,
): TextResult {
  const { index, query, prefix } = plan;
  const definition = index.spec.text!;
  const { sort } = request;
  const sortPlaces = answers.sortPlaces;
  const byteSort = sort && sortPlaces ? byteSortOf(index, sort, sortPlaces) : undefined;
  // Decoded: what the filter reads, and what the sort reads unless it compares bytes.
  const decoded = byteSort ? (answers.filter?.lastPlace ?? 0) : definition.after.length;
  const { postings, keys: termKeys } = readPostings(index, prefix, query.boundsTerms, decoded);
  const { seqs, scores, values } = postings;
  let keys = termKeys;
  const excluded = negatedFromIndex(index, prefix, query);
  if (excluded) keys += excluded.keys;
  const matcher = textMatcher(query, definition, excluded !== undefined);
  const indexed = textIndexFields(definition);
  const textFields = indexed && fieldNames(indexed);
  const read = answers.filter?.fields ?? answers.onDocuments?.fields;
  const filterFields = read && fieldNames(read);
  const checkDocument = (answers.filter || answers.onDocuments) && compile(filter, request);
  // A filter on other fields that an index answers exactly: its record numbers, when cheaper.
  const narrowed = answers.onDocuments && !matcher ? exactlyIndexed(collection, filter, seqs.length) : undefined;
  if (narrowed) keys += narrowed.keys;
  const onDocuments = answers.onDocuments !== undefined && narrowed === undefined;
  // Counted as fetched, as mongod's TEXT_OR or FETCH fetches every candidate.
  let docsExamined = 0;
  const matches: number[] = [];
  for (let place = 0; place < seqs.length; place++) {
    const seq = seqs[place];
    if (excluded?.seqs.has(seq)) continue;
    if (narrowed && !narrowed.seqs.has(seq)) continue;
    docsExamined++;
    let decided = answers.filter ? answers.filter.test(values[place]) : onDocuments ? undefined : true;
    if (decided === false) continue;
    if (decided === undefined || matcher) {
      const stored = collection.record(seq).stored();
      if (stored === undefined) continue;
      if (decided === undefined)
        decided = checkDocument!(decodeTyped(filterFields ? onlyTopLevelFields(stored, filterFields) : stored));
      if (!decided) continue;
      if (matcher && !matcher(deserialize(textFields ? onlyTopLevelFields(stored, textFields) : stored))) continue;
    }
    matches.push(place);
  }

  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  let page: number[];
  if (byteSort) {
    page = firstInOrder(matches, wanted, bytesComparison(index, postings, byteSort));
  } else if (sort && sortPlaces) {
    // Ties in record number order, as the matches of a text search come.
    page = firstInOrder(matches, wanted, (a, b) => {
      for (let i = 0; i < sort.length; i++) {
        const at = sortPlaces[i];
        const c = at === 0 ? scores[a] - scores[b] : compareValues(values[a][at], values[b][at]);
        if (c !== 0) return c < 0 ? -sort[i].direction : sort[i].direction;
      }
      return seqs[a] - seqs[b];
    });
  } else {
    page = inRecordOrder(postings, matches);
  }
  if (request.skip > 0 || wanted !== Infinity) page = page.slice(request.skip, wanted);
  const records: StoredRecord[] = [];
  const scoreOf = new Map<StoredRecord, number>();
  for (const place of page) {
    const record = collection.record(seqs[place]);
    records.push(record);
    scoreOf.set(record, scores[place]);
  }
  return { plan, records, scores: scoreOf, matched: matches.length, keysExamined: keys, docsExamined };
}

/** Two postings (by place) compared as a ByteSort says; ties in record number order. */
function bytesComparison(index: SortedIndex, postings: Postings, byteSort: ByteSort): (a: number, b: number) => number {
  const { seqs, scores, keys, starts } = postings;
  const from = index.spec.text!.before.length + 1;
  // Where each posting's compared bytes start, found when first compared.
  const fieldStarts = new Int32Array(seqs.length).fill(-1);
  const startOf = (place: number): number => {
    if (fieldStarts[place] < 0)
      fieldStarts[place] = index.fieldStart(keys[place], from, starts[place], from + byteSort.place);
    return fieldStarts[place];
  };
  return (a, b) => {
    if (byteSort.byScoreFirst && scores[a] !== scores[b]) return scores[a] > scores[b] ? -1 : 1;
    const keyA = keys[a];
    const keyB = keys[b];
    const c = keyA.compare(
      keyB,
      startOf(b),
      keyB.length - RECORD_NUMBER_BYTES,
      startOf(a),
      keyA.length - RECORD_NUMBER_BYTES,
    );
    return c !== 0 ? c * byteSort.sign : seqs[a] - seqs[b];
  };
}

/** The matches of any other query: the documents of the index's candidates checked, then sorted. */
function matchesFromDocuments(
  collection: Collection,
  plan: TextPlan,
  textBranch: Document,
  request: TextRequest,
  runBranch: (filter: Document) => StoredRecord[],
): TextResult {
  const { index, query, prefix, orBranches } = plan;
  const definition = index.spec.text!;
  const { postings, keys: termKeys } = readPostings(index, prefix, query.boundsTerms);
  let keys = termKeys;
  const excluded = negatedFromIndex(index, prefix, query);
  if (excluded) keys += excluded.keys;
  let docsExamined = 0;
  const matcher = textMatcher(query, definition, excluded !== undefined);
  const branchFilter = Object.keys(textBranch).length > 0 ? compile(textBranch, request) : undefined;
  const narrowed = branchFilter && !matcher ? exactlyIndexed(collection, textBranch, postings.seqs.length) : undefined;
  if (narrowed) keys += narrowed.keys;
  // The matcher reads only the fields the index reads (all of them for `$**`), the filter only
  // the fields it names (all of them when it has an expression).
  const indexed = textIndexFields(definition);
  const filterRead = branchFilter && topLevelFieldsRead(textBranch);
  const read = !branchFilter ? indexed : !matcher ? filterRead : filterRead && indexed && [...filterRead, ...indexed];
  const readFields = read && fieldNames(read);
  const scores = new Map<StoredRecord, number>();
  let records: StoredRecord[] = [];
  for (const place of inRecordOrder(postings)) {
    const seq = postings.seqs[place];
    if (excluded?.seqs.has(seq)) continue;
    if (narrowed && !narrowed.seqs.has(seq)) continue;
    const record = collection.record(seq);
    // Fetched, as mongod's TEXT_OR or FETCH fetches every candidate (decoded only when checked).
    docsExamined++;
    if (!narrowed && (branchFilter || matcher)) {
      const stored = record.stored();
      if (stored === undefined) continue;
      const doc = decodeTyped(readFields ? onlyTopLevelFields(stored, readFields) : stored);
      if ((branchFilter && !branchFilter(doc)) || (matcher && !matcher(doc))) continue;
    }
    records.push(record);
    scores.set(record, postings.scores[place]);
  }
  if (orBranches) records = unionWithBranches(collection, plan.rest, records, orBranches, runBranch, request);

  const matched = records.length;
  const wanted = request.limit > 0 ? request.skip + request.limit : Infinity;
  if (request.sort) records = sortByScore(records, request.sort, wanted, (record) => scores.get(record) ?? 0);
  if (request.skip > 0 || wanted !== Infinity) records = records.slice(request.skip, wanted);
  return { plan, records, scores, matched, keysExamined: keys, docsExamined };
}

/** What a count of a `$text` query answers, and what it read. */
export interface TextCount {
  readonly plan: TextPlan;
  /** The documents the query matches, before skip and limit. */
  readonly matched: number;
  readonly keysExamined: number;
  readonly docsExamined: number;
}

/** The name a count of this filter is remembered by on the text index. */
function countName(request: TextRequest): string {
  const bytes = serialize({ filter: request.filter, variables: request.variables ?? null });
  return `text count:${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')}`;
}

function rememberCount(
  index: SortedIndex,
  request: TextRequest,
  count: () => Omit<TextCount, 'plan'>,
): Omit<TextCount, 'plan'> {
  return index.rememberDerived(countName(request), count);
}

/**
 * How many documents a `$text` query matches (skip and limit aside): remembered with the index
 * until the collection is next written, so the count that goes with a page (the same filter)
 * costs nothing more, and reading no document when the index alone decides.
 */
export function countTextMatches(
  collection: Collection,
  found: { text: TextFilter; index: SortedIndex },
  request: TextRequest,
  runBranch: (filter: Document) => StoredRecord[],
): TextCount {
  const plan = textPlan(collection, found, request);
  const counted = rememberCount(plan.index, request, () => {
    const { matched, keysExamined, docsExamined } = runTextQuery(
      collection,
      found,
      { ...request, sort: undefined, skip: 0, limit: 0 },
      runBranch,
    );
    return { matched, keysExamined, docsExamined };
  });
  return { plan, matched: counted.matched, keysExamined: counted.keysExamined, docsExamined: counted.docsExamined };
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
