import type { Document } from 'bson';
import { CommandError } from '../errors';
import { bsonTypeOf, BsonType } from './bson-types';
import { PATH_OPERATORS } from './match-expression';
import { isPlainObject } from './path-values';
import { isRegexValue } from './regex';
import { compareValues } from './value-order';

/**
 * What mongod's update parser checks of an operator-style update's paths, and the parts of its
 * semantics mingo's updater does not share: the positional `$` is the array position the filter
 * matched, `$pull`/`$pullAll` remove by value equality (not by query) unless given a condition,
 * and `$addToSet` adds what no element equals in BSON order (fields in order, numbers by value).
 */

/** mongod's FieldRef holds at most 255 parts. */
const MAX_PATH_PARTS = 255;

/** Names of internal query operators (mingo-options.ts) that `$pull` and `$pullAll` are rewritten to. */
export const PULL_EQUALS_ANY = '$_storePullEqualsAny';
export const PULL_DOCUMENT_MATCHES = '$_storePullDocumentMatches';
/** The internal query operator an array filter is rewritten to (mingo-options.ts). */
export const ARRAY_FILTER_ELEMENT = '$_storeArrayFilterElement';

function pathsOf(operators: Document): string[] {
  const paths: string[] = [];
  for (const [operator, fields] of Object.entries(operators)) {
    if (!isPlainObject(fields)) continue;
    for (const [path, value] of Object.entries(fields)) {
      paths.push(path);
      if (operator === '$rename' && typeof value === 'string') paths.push(value);
    }
  }
  return paths;
}

/** The operator whose field (or, for $rename, target) `path` is. */
function operator(path: string, operators: Document): string | undefined {
  for (const [name, fields] of Object.entries(operators)) {
    if (!isPlainObject(fields)) continue;
    if (Object.hasOwn(fields, path)) return name;
    if (name === '$rename' && Object.values(fields).includes(path)) return name;
  }
  return undefined;
}

function renameRole(path: string, operators: Document): 'source' | 'destination' {
  const fields = operators.$rename as Document;
  return Object.hasOwn(fields, path) ? 'source' : 'destination';
}

function conflict(path: string, other: string): CommandError {
  const at = path.length < other.length ? path : other;
  return new CommandError(
    'ConflictingUpdateOperators',
    `Updating the path '${path}' would create a conflict at '${at}'`,
  );
}

/**
 * Checks an operator-style update as mongod parses it, before any document is touched: path
 * lengths, where `$` may stand, and two operators naming one path (or a path and its prefix).
 * Returns whether it uses the positional `$`.
 */
export function checkOperatorPaths(operators: Document): boolean {
  let positional = false;
  const seen: string[] = [];
  for (const path of pathsOf(operators)) {
    const parts = path.split('.');
    if (parts.length > MAX_PATH_PARTS)
      throw new CommandError('Location10396001', "Field paths cannot contain more than 255 '.'");
    if (operator(path, operators) === '$rename' && parts.some((part) => part.startsWith('$')))
      throw new CommandError(
        'BadValue',
        `The ${renameRole(path, operators)} field for $rename may not be dynamic: ${path}`,
      );
    const dollars = parts.filter((part) => part === '$').length;
    if (dollars > 0) {
      if (parts[0] === '$')
        throw new CommandError(
          'BadValue',
          `Cannot have positional (i.e. '$') element in the first position in path '${path}'`,
        );
      if (dollars > 1)
        throw new CommandError('BadValue', `Too many positional (i.e. '$') elements found in path '${path}'`);
      positional = true;
    }
    for (const other of seen) {
      if (other === path || other.startsWith(`${path}.`) || path.startsWith(`${other}.`)) throw conflict(path, other);
    }
    seen.push(path);
  }
  return positional;
}

/** The update with each `$` part replaced by the array position the filter matched. */
export function withPosition(operators: Document, position: string | undefined): Document {
  if (position === undefined)
    throw new CommandError('BadValue', 'The positional operator did not find the match needed from the query.');
  const resolved: Document = {};
  for (const [operator, fields] of Object.entries(operators)) {
    if (!isPlainObject(fields)) {
      resolved[operator] = fields;
      continue;
    }
    const entries = Object.entries(fields).map(([path, value]) => [
      path.includes('$')
        ? path
            .split('.')
            .map((part) => (part === '$' ? position : part))
            .join('.')
        : path,
      value,
    ]);
    resolved[operator] = Object.fromEntries(entries);
  }
  return resolved;
}

/**
 * `$pull` of a value removes the elements equal to it (an array only by an equal array), of a
 * document without operators the documents matching it as a query, of a condition the elements
 * meeting it; `$pullAll` removes the elements equal to one of its values. mingo's `$pull` would
 * query every element, so the first two are given it as internal operators.
 */
function pullSpec(spec: unknown): unknown {
  if (isPlainObject(spec)) {
    const first = Object.keys(spec)[0];
    // A condition at the path ($pull's wrapped form) starts with an operator a path accepts.
    if (first !== undefined && PATH_OPERATORS.has(first)) return spec;
    return { [PULL_DOCUMENT_MATCHES]: spec };
  }
  if (isRegexValue(spec)) return spec;
  return { [PULL_EQUALS_ANY]: [spec] };
}

function valueAt(doc: Document, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(part)) current = current[Number(part)];
    else if (isPlainObject(current) && Object.hasOwn(current, part)) current = current[part];
    else return undefined;
  }
  return current;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(BsonType).map(([name, code]) => [code, name]));

/** `$addToSet`: the array after adding the values no element equals; undefined when nothing changes. */
function addedToSet(current: unknown, path: string, spec: unknown): unknown[] | undefined {
  let values: unknown[] = [spec];
  if (isPlainObject(spec) && '$each' in spec) {
    if (!Array.isArray(spec.$each))
      throw new CommandError(
        'TypeMismatch',
        `The argument to $each in $addToSet must be an array but it was of type ${TYPE_NAMES.get(bsonTypeOf(spec.$each))}`,
      );
    values = spec.$each;
  }
  if (current !== undefined && !Array.isArray(current)) {
    const field = path.slice(path.lastIndexOf('.') + 1);
    throw new CommandError(
      'BadValue',
      `Cannot apply $addToSet to non-array field. Field named '${field}' has non-array type ${TYPE_NAMES.get(bsonTypeOf(current))}`,
    );
  }
  const result = current === undefined ? [] : [...current];
  for (const value of values) {
    if (!result.some((element) => compareValues(element, value) === 0)) result.push(value);
  }
  return current !== undefined && result.length === current.length ? undefined : result;
}

/**
 * The update mingo is to run on `target`: `$pull`/`$pullAll` rewritten as above, and each
 * `$addToSet` on a plain path (no array filter) applied here as the `$set` of the new array.
 */
export function forMingo(target: Document, operators: Document): Document {
  const { $pull: pull, $pullAll: pullAll, $addToSet: addToSet, ...rest } = operators;
  const result: Document = { ...rest };
  if (pull !== undefined || pullAll !== undefined) {
    const pulls: Document = {};
    if (isPlainObject(pull)) for (const [path, spec] of Object.entries(pull)) pulls[path] = pullSpec(spec);
    if (isPlainObject(pullAll)) {
      for (const [path, values] of Object.entries(pullAll)) {
        if (!Array.isArray(values))
          throw new CommandError(
            'BadValue',
            `$pullAll requires an array argument but was given a ${TYPE_NAMES.get(bsonTypeOf(values))}`,
          );
        pulls[path] = { [PULL_EQUALS_ANY]: values };
      }
    }
    result.$pull = pulls;
  }
  if (isPlainObject(addToSet)) {
    const kept: Document = {};
    const sets: Document = {};
    for (const [path, spec] of Object.entries(addToSet)) {
      if (path.includes('$[')) {
        kept[path] = spec;
        continue;
      }
      const updated = addedToSet(valueAt(target, path), path, spec);
      if (updated) sets[path] = updated;
    }
    if (Object.keys(kept).length > 0) result.$addToSet = kept;
    if (Object.keys(sets).length > 0) result.$set = { ...(result.$set as Document | undefined), ...sets };
  }
  return result;
}

const IDENTIFIER = /^[a-z][a-zA-Z0-9]*$/;

/** The `$[identifier]` parts of an update's paths, each with a path that uses it. */
function identifiersUsed(operators: Document): Map<string, string> {
  const used = new Map<string, string>();
  for (const path of pathsOf(operators)) {
    for (const part of path.split('.')) {
      if (part.startsWith('$[') && part.endsWith(']') && part.length > 3) used.set(part.slice(2, -1), path);
    }
  }
  return used;
}

function arrayFilterError(reason: string): CommandError {
  return new CommandError('FailedToParse', `Error parsing array filter :: caused by :: ${reason}`);
}

/** The identifier an array filter is about: the first part of every path in it (mongod's placeholder). */
function placeholderOf(filter: Record<string, unknown>, found?: string): string | undefined {
  let placeholder = found;
  for (const [key, value] of Object.entries(filter)) {
    let name: string | undefined;
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (Array.isArray(value))
        for (const clause of value) if (isPlainObject(clause)) placeholder = placeholderOf(clause, placeholder);
      continue;
    } else if (key === '$expr') {
      throw new CommandError('QueryFeatureNotAllowed', '$expr is not allowed in this context');
    } else if (key === '$where' || key === '$text') {
      throw new CommandError('BadValue', `${key} is not allowed in this context`);
    } else if (key.startsWith('$')) {
      continue;
    } else {
      name = key.split('.')[0];
    }
    if (placeholder !== undefined && placeholder !== name)
      throw arrayFilterError(`Expected a single top-level field name, found '${placeholder}' and '${name}'`);
    placeholder = name;
  }
  return placeholder;
}

/**
 * Checks an update's array filters as mongod parses them (each names one identifier, used by the
 * update, and every identifier the update uses has one) and rewrites each for mingo: mingo tests
 * a filter on `{identifier: [element]}`, mongod on `{identifier: element}`, which the internal
 * operator restores.
 */
export function arrayFiltersFor(raw: unknown, operators: Document | undefined): Document[] | undefined {
  const used = operators ? identifiersUsed(operators) : new Map<string, string>();
  if (raw === undefined || raw === null) {
    const [missing] = used;
    if (missing)
      throw new CommandError(
        'BadValue',
        `No array filter found for identifier '${missing[0]}' in path '${missing[1]}'`,
      );
    return undefined;
  }
  if (!Array.isArray(raw)) throw new CommandError('TypeMismatch', 'arrayFilters must be an array of objects');
  const seen = new Set<string>();
  const rewritten = raw.map((filter: unknown) => {
    if (!isPlainObject(filter)) throw new CommandError('TypeMismatch', 'each array filter must be an object');
    const identifier = placeholderOf(filter);
    if (identifier === undefined)
      throw arrayFilterError('Cannot use an expression without a top-level field name in arrayFilters');
    if (!IDENTIFIER.test(identifier))
      throw new CommandError(
        'BadValue',
        `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${identifier}'`,
      );
    if (seen.has(identifier))
      throw new CommandError(
        'FailedToParse',
        `Found multiple array filters with the same top-level field name ${identifier}`,
      );
    seen.add(identifier);
    return { [identifier]: { [ARRAY_FILTER_ELEMENT]: filter } };
  });
  for (const identifier of seen) {
    if (!used.has(identifier))
      throw new CommandError(
        'FailedToParse',
        `The array filter for identifier '${identifier}' was not used in the update ${JSON.stringify(operators ?? {})}`,
      );
  }
  for (const [identifier, path] of used) {
    if (!seen.has(identifier))
      throw new CommandError('BadValue', `No array filter found for identifier '${identifier}' in path '${path}'`);
  }
  return rewritten;
}
