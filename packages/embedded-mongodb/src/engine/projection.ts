import { serialize, type Document } from 'bson';
import { Query } from 'mingo/query';
import { CommandError } from '../errors';
import { mingoOptions, type EvaluationOptions } from './mingo-options';
import { isPlainObject } from './path-values';
import { fieldNames, onlyTopLevelFields, withoutTopLevelFields } from './raw-bson';
import { decodeTyped, withPlainNumbers, withTypesOf } from './typed-numbers';

/** Keeps the stored document's top-level field order (mingo moves `_id` last, MongoDB does not). */
function inStoredOrder(stored: Document, projected: Document): Document {
  const ordered: Document = {};
  for (const key of Object.keys(stored)) if (key in projected) ordered[key] = projected[key];
  for (const key of Object.keys(projected)) if (!(key in ordered)) ordered[key] = projected[key];
  return ordered;
}

/**
 * A find-style projection (inclusion, exclusion, $slice, $elemMatch, positional `$`) applied by
 * mingo to one document at a time, so only returned documents are ever projected. The
 * positional operator needs the query's filter, which is only re-evaluated when it is used.
 */
export function compileProjection(
  projection: unknown,
  filter: Document,
  options: EvaluationOptions = {},
): (doc: Document) => Document {
  if (projection === undefined || projection === null) return (doc) => doc;
  if (!isPlainObject(projection)) throw new CommandError('TypeMismatch', 'projection must be an object');
  if (Object.keys(projection).length === 0) return (doc) => doc;
  const keys = Object.keys(projection);
  const positional = keys.some((key) => key.endsWith('.$'));
  const query = new Query(positional ? filter : {}, mingoOptions(options));
  return (doc) => {
    // mingo's expressions compute on JavaScript numbers, and it edits the sub-objects it shares
    // with its input (nested paths): it works on a copy with plain numbers, and the numbers it
    // keeps as they were get their stored types back.
    const [projected] = query.find([withPlainNumbers(doc)], projection).all() as Document[];
    return projected === undefined ? doc : inStoredOrder(doc, withTypesOf(doc, projected) as Document);
  };
}

/**
 * A projection applied to stored BSON, giving BSON: none (the bytes as stored), the exclusion
 * of top-level fields (the `{_id: 0}` of most reads) and the inclusion of top-level fields (the
 * service's reads of the fields an operation selects) work on the bytes, copying the kept
 * elements as they are stored, so their cost does not grow with the number of fields named;
 * anything else decodes, projects and encodes.
 */
export function compileBsonProjection(
  projection: unknown,
  filter: Document,
  options: EvaluationOptions = {},
): (bson: Uint8Array) => Uint8Array {
  if (projection === undefined || projection === null) return (bson) => bson;
  if (isPlainObject(projection)) {
    const entries = Object.entries(projection);
    if (entries.length === 0) return (bson) => bson;
    const excludesTopLevelOnly = entries.every(
      ([key, value]) => !key.includes('.') && !key.startsWith('$') && (value === 0 || value === false),
    );
    // `{_id: 0}` alone, or with other exclusions; an exclusion of every field but _id keeps _id.
    if (excludesTopLevelOnly) {
      const names = fieldNames(entries.map(([key]) => key));
      return (bson) => withoutTopLevelFields(bson, names);
    }
    const included = topLevelInclusion(entries);
    if (included !== undefined) {
      const names = fieldNames(included);
      return (bson) => onlyTopLevelFields(bson, names);
    }
  }
  const present = compileProjection(projection, filter, options);
  return (bson) => serialize(present(decodeTyped(bson)));
}

const isInclusion = (value: unknown) => value === 1 || value === true;
const isExclusion = (value: unknown) => value === 0 || value === false;

/**
 * The top-level fields an inclusion projection keeps (`_id` unless it is excluded), or undefined
 * when the projection is anything else: a dotted path, an operator, an expression, another
 * exclusion than `_id`'s. MongoDB keeps the included fields in the document's order, as the
 * copy of the stored elements does.
 */
function topLevelInclusion(entries: readonly [string, unknown][]): string[] | undefined {
  const fields: string[] = [];
  let withId = true;
  for (const [key, value] of entries) {
    if (key === '' || key.includes('.') || key.startsWith('$')) return undefined;
    if (key === '_id' && isExclusion(value)) withId = false;
    else if (isInclusion(value)) fields.push(key);
    else return undefined;
  }
  if (fields.length === 0) return undefined;
  return withId ? ['_id', ...fields] : fields;
}
