import { ObjectId, type Document } from 'bson';
import { CommandError } from '../errors';
import type { Catalog } from './catalog';
import type { Collection } from './collection';
import { ID_INDEX_NAME } from './index-spec';
import { isPlainObject } from './path-values';
import { checkFilter } from './mingo-options';
import { runQuery } from './query-executor';
import type { SortSpec } from './sort';
import type { StoredRecord } from './stored-record';
import { updatedDocument, upsertedDocument, type UpdateContext, type UpdateSpec } from './update-document';
import { arrayFiltersFor } from './update-operators';

export interface Selection extends UpdateContext {
  readonly sort?: SortSpec;
  readonly hint?: unknown;
  /** Only the first match (updateOne, deleteOne, findAndModify). */
  readonly single: boolean;
}

function select(collection: Collection, selection: Selection): StoredRecord[] {
  return runQuery(collection, {
    filter: selection.filter,
    sort: selection.sort,
    skip: 0,
    limit: selection.single ? 1 : 0,
    hint: selection.hint,
    variables: selection.variables,
  }).records;
}

/**
 * MongoDB's limit on nesting ("Nested Depth for BSON Documents" in the manual's limits): the
 * document is level 1 and each embedded document or array adds one.
 */
const MAX_NESTING_DEPTH = 100;

/** Whether a value nests deeper than `levelsLeft` more levels (stops looking once it does). */
function nestsDeeperThan(value: unknown, levelsLeft: number): boolean {
  const children = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : undefined;
  if (children === undefined) return false;
  if (levelsLeft === 0) return true;
  return children.some((child) => nestsDeeperThan(child, levelsLeft - 1));
}

/** Refuses a document MongoDB would not store because it nests too deep. */
function assertNestingDepth(doc: Document, action: 'insert' | 'update'): void {
  if (!nestsDeeperThan(doc, MAX_NESTING_DEPTH)) return;
  const message =
    action === 'insert'
      ? `cannot insert document because it exceeds ${MAX_NESTING_DEPTH} levels of nesting`
      : `Document exceeds maximum nesting depth of ${MAX_NESTING_DEPTH}`;
  throw new CommandError('Overflow', message);
}

/** An `_id` that is a document may not hold '$'-prefixed field names, at any depth. */
function assertNoDollarFieldInId(value: unknown): void {
  if (!isPlainObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key.startsWith('$')) {
      throw new CommandError(
        'DollarPrefixedFieldName',
        `_id fields may not contain '$'-prefixed fields: ${key} is not valid for storage.`,
      );
    }
    assertNoDollarFieldInId(inner);
  }
}

/** Checks a document about to be inserted and gives it an `_id` when it has none. */
export function prepareInsert(doc: unknown): Document {
  if (!isPlainObject(doc)) throw new CommandError('TypeMismatch', 'document to insert must be an object');
  assertNestingDepth(doc, 'insert');
  if (!('_id' in doc)) return { _id: new ObjectId(), ...doc };
  const id = doc._id;
  if (Array.isArray(id)) throw new CommandError('BadValue', "can't use an array for _id");
  if (id instanceof RegExp || (id as { _bsontype?: string } | null)?._bsontype === 'BSONRegExp') {
    throw new CommandError('BadValue', "can't use a regex for _id");
  }
  assertNoDollarFieldInId(id);
  // Wherever _id is here (drivers append the one they generate), the collection stores it first.
  return doc;
}

export interface UpdateOutcome {
  readonly matched: number;
  readonly modified: number;
  /** The document an upsert inserted. */
  readonly upserted?: Document;
  /** Per matched record: the version before and after (after undefined when unchanged). */
  readonly changes: ReadonlyArray<{ readonly before: Document; readonly after?: Document }>;
}

/**
 * Applies an update to the selected documents one by one (a multi-update that fails half way,
 * say on a duplicate key, keeps the documents updated before the failure, as in MongoDB).
 */
export function updateDocuments(
  catalog: Catalog,
  target: { db: string; collection: string },
  spec: UpdateSpec,
  statement: Selection,
  upsert: boolean,
): UpdateOutcome {
  // The array filters are checked with the update, before any document is looked at.
  const arrayFilters = arrayFiltersFor(statement.arrayFilters, spec.kind === 'operators' ? spec.operators : undefined);
  const selection: Selection = { ...statement, arrayFilters };
  const collection = catalog.getCollection(target.db, target.collection);
  if (!collection) checkFilter(selection.filter, selection);
  const records = collection ? select(collection, selection) : [];
  if (records.length === 0) {
    if (!upsert) return { matched: 0, modified: 0, changes: [] };
    const doc = prepareInsert(upsertedDocument(spec, selection));
    catalog.ensureCollection(target.db, target.collection).insert(doc);
    return { matched: 0, modified: 0, upserted: doc, changes: [] };
  }
  const changes: Array<{ before: Document; after?: Document }> = [];
  let modified = 0;
  for (const record of records) {
    const before = record.doc;
    const after = updatedDocument(before, spec, selection);
    if (after) {
      assertNestingDepth(after, 'update');
      collection!.replace(record, after);
      modified++;
    }
    changes.push({ before, after });
  }
  return { matched: records.length, modified, changes };
}

/** Deletes the selected documents; returns them. */
export function deleteDocuments(
  catalog: Catalog,
  target: { db: string; collection: string },
  selection: Selection,
): Document[] {
  const collection = catalog.getCollection(target.db, target.collection);
  if (!collection) {
    checkFilter(selection.filter, selection);
    return [];
  }
  const records = select(collection, selection);
  for (const record of records) collection.remove(record);
  return records.map((record) => record.doc);
}

/**
 * Replaces a collection's documents, keeping its options and indexes ($out). Not atomic: a
 * duplicate key half way leaves the documents inserted before it.
 */
export function replaceCollectionContents(
  catalog: Catalog,
  target: { db: string; collection: string },
  docs: readonly Document[],
): void {
  const existing = catalog.getCollection(target.db, target.collection);
  const specs =
    existing
      ?.indexList()
      .filter((index) => index.name !== ID_INDEX_NAME)
      .map((index) => index.spec) ?? [];
  if (existing) catalog.dropCollection(target.db, target.collection);
  const collection = catalog.createCollection(target.db, target.collection, existing?.options ?? {});
  collection.createIndexes(specs);
  for (const doc of docs) collection.insert(prepareInsert(doc));
}
