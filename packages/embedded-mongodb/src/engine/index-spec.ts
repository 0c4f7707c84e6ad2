import type { Document } from 'bson';
import { CommandError } from '../errors';
import { fixTextSpec, isTextKey, SCORE_FIELD, TERM_FIELD, type TextIndexDefinition } from './text/text-spec';

export interface IndexField {
  readonly path: string;
  readonly parts: readonly string[];
  /** 1 ascending, -1 descending. */
  readonly direction: 1 | -1;
}

/** A validated index definition, as created by createIndexes and listed by listIndexes. */
export interface IndexSpec {
  readonly name: string;
  readonly key: Document;
  readonly fields: readonly IndexField[];
  readonly unique: boolean;
  readonly sparse: boolean;
  readonly partialFilterExpression?: Document;
  /** Every option as given (expireAfterSeconds, collation, ...), echoed back by listIndexes. */
  readonly options: Document;
  /** Set for a text index: its fields are `[<before>, _fts (term), _ftsx (score), <after>]`. */
  readonly text?: TextIndexDefinition;
}

export const ID_INDEX_NAME = '_id_';

/** Options that only affect how an index is built or stored, which listIndexes does not echo. */
const IGNORED_OPTIONS = new Set(['key', 'name', 'v', 'background', 'ns']);

function directionOf(field: string, value: unknown): 1 | -1 {
  if (typeof value === 'number' && value !== 0 && !Number.isNaN(value)) return value > 0 ? 1 : -1;
  // A hashed index answers equality like an ascending one; ordering is never promised for it.
  if (value === 'hashed') return 1;
  if (typeof value === 'string') {
    throw new CommandError(
      'CannotCreateIndex',
      `index type '${value}' (field '${field}') is not supported by the embedded store`,
    );
  }
  throw new CommandError(
    'CannotCreateIndex',
    `Values in the index key pattern can only be numbers or strings, not ${JSON.stringify(value)}`,
  );
}

export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, value]) => `${field}_${String(value)}`)
    .join('_');
}

/** Parses one element of createIndexes' `indexes` array. */
export function parseIndexSpec(raw: unknown): IndexSpec {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CommandError('TypeMismatch', 'each index specification must be an object');
  }
  const doc = raw as Document;
  const key = doc.key as unknown;
  if (key === null || typeof key !== 'object' || Array.isArray(key) || Object.keys(key).length === 0) {
    throw new CommandError('CannotCreateIndex', 'index key pattern must be a non-empty object');
  }
  const keyDoc = key as Document;
  const text = isTextKey(keyDoc) ? fixTextSpec(keyDoc, doc) : undefined;
  const fields = Object.entries(text?.key ?? keyDoc).map(([path, value]) => ({
    path,
    parts: path.split('.'),
    direction: path === TERM_FIELD || path === SCORE_FIELD ? (1 as const) : directionOf(path, value),
  }));
  const name = doc.name === undefined ? defaultIndexName(keyDoc) : doc.name;
  if (typeof name !== 'string' || name.length === 0) {
    throw new CommandError('CannotCreateIndex', 'index name must be a non-empty string');
  }
  const options: Document = {};
  for (const [option, value] of Object.entries(doc)) {
    if (IGNORED_OPTIONS.has(option)) continue;
    // A text index's own options are listed as mongod stores them, in the place they were given.
    options[option] = text && option in text.options ? text.options[option] : value;
  }
  if (text) for (const [option, value] of Object.entries(text.options)) options[option] ??= value;
  const partial = doc.partialFilterExpression as unknown;
  if (partial !== undefined && (partial === null || typeof partial !== 'object' || Array.isArray(partial))) {
    throw new CommandError('CannotCreateIndex', 'partialFilterExpression must be an object');
  }
  const isId = fields.length === 1 && fields[0].path === '_id';
  return {
    name,
    key: text?.key ?? keyDoc,
    fields,
    unique: doc.unique === true || isId,
    sparse: doc.sparse === true,
    partialFilterExpression: partial,
    options,
    ...(text ? { text: text.definition } : {}),
  };
}

export function idIndexSpec(): IndexSpec {
  return parseIndexSpec({ key: { _id: 1 }, name: ID_INDEX_NAME });
}

/** The document listIndexes returns for a spec. */
export function describeIndex(spec: IndexSpec): Document {
  return { v: 2, key: spec.key, name: spec.name, ...spec.options };
}

function sameKey(a: IndexSpec, b: IndexSpec): boolean {
  if (a.fields.length !== b.fields.length) return false;
  return a.fields.every((field, i) => field.path === b.fields[i].path && a.key[field.path] === b.key[field.path]);
}

function sameOptions(a: IndexSpec, b: IndexSpec): boolean {
  const normalise = (spec: IndexSpec): string =>
    JSON.stringify(Object.entries(spec.options).sort(([x], [y]) => (x < y ? -1 : 1)));
  return a.unique === b.unique && normalise(a) === normalise(b);
}

/**
 * How a requested index relates to the existing ones: 'exists' when an identical index is
 * there (createIndexes is then a no-op), 'new' otherwise; conflicting definitions throw the
 * errors MongoDB gives.
 */
export function classifyIndexRequest(requested: IndexSpec, existing: Iterable<IndexSpec>): 'exists' | 'new' {
  const specs = [...existing];
  for (const current of specs) {
    // mongod takes {_id: 1} under any name for the _id index itself (and discards the name).
    if (current.name === ID_INDEX_NAME && sameKey(current, requested) && sameOptions(current, requested))
      return 'exists';
    if (current.name === requested.name) {
      if (!sameKey(current, requested)) {
        throw new CommandError(
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(describeIndex(requested))}, existing index: ${JSON.stringify(describeIndex(current))}`,
        );
      }
      if (!sameOptions(current, requested) && current.name !== ID_INDEX_NAME) {
        throw new CommandError(
          'IndexOptionsConflict',
          `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(describeIndex(requested))}, existing index: ${JSON.stringify(describeIndex(current))}`,
        );
      }
      return 'exists';
    }
    if (sameKey(current, requested) && sameOptions(current, requested)) {
      throw new CommandError('IndexOptionsConflict', `Index already exists with a different name: ${current.name}`);
    }
  }
  const text = requested.text && specs.find((current) => current.text !== undefined);
  if (text) {
    throw new CommandError(
      'CannotCreateIndex',
      `only one text index per collection allowed, found existing text index "${text.name}"`,
    );
  }
  return 'new';
}
