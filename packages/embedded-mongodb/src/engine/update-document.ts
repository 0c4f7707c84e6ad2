import { ObjectId, serialize, type Document } from 'bson';
import { update as applyOperators } from 'mingo/updater';
import { Aggregator } from 'mingo/aggregator';
import { cloneDeep, MingoError, setValue } from 'mingo/util';
import { CommandError } from '../errors';
import { filterEqualities, type MatchDetails, type Matcher } from './match-expression';
import { compileStoreFilter, mingoOptions, type EvaluationOptions } from './mingo-options';
import { isPlainObject } from './path-values';
import { hasArithmetic, resolvePendingNumbers, withPendingNumbers } from './update-arithmetic';
import { checkOperatorPaths, forMingo, withPosition } from './update-operators';
import { withPlainNumbers, withTypesOf } from './typed-numbers';
import { compareValues } from './value-order';

/** The `u` of an update statement, classified. */
export type UpdateSpec =
  | {
      readonly kind: 'operators';
      readonly operators: Document;
      /** Some path holds the positional `$`: each document needs the position its filter matched. */
      readonly positional: boolean;
    }
  | { readonly kind: 'replacement'; readonly replacement: Document }
  | { readonly kind: 'pipeline'; readonly stages: Document[] };

export interface UpdateContext extends EvaluationOptions {
  /** The statement's filter: it gives the positional `$` operator its meaning. */
  readonly filter: Document;
  /** The filter with its numbers as sent (engine/typed-numbers.ts), for an upsert's seed; else `filter`. */
  readonly seedFilter?: Document;
  readonly arrayFilters?: Document[];
}

const UPDATE_OPERATORS = new Set([
  '$addToSet',
  '$bit',
  '$currentDate',
  '$inc',
  '$max',
  '$min',
  '$mul',
  '$pop',
  '$pull',
  '$pullAll',
  '$push',
  '$rename',
  '$set',
  '$setOnInsert',
  '$unset',
]);

export function parseUpdateSpec(raw: unknown): UpdateSpec {
  // mingo's expressions compute on JavaScript numbers (the pipeline's results are typed by value).
  if (Array.isArray(raw)) return { kind: 'pipeline', stages: raw.map((stage) => withPlainNumbers(stage as Document)) };
  if (!isPlainObject(raw))
    throw new CommandError('FailedToParse', 'Update argument must be either an object or an array');
  const keys = Object.keys(raw);
  if (!keys.some((key) => key.startsWith('$'))) return { kind: 'replacement', replacement: raw };
  // Once one key is an operator, all must be (a plain field here is as unknown as `$foo`).
  const unknown = keys.find((key) => !UPDATE_OPERATORS.has(key));
  if (unknown) {
    throw new CommandError(
      'FailedToParse',
      `Unknown modifier: ${unknown}. Expected a valid update modifier or pipeline-style update specified as an array`,
    );
  }
  return { kind: 'operators', operators: withPlainArguments(raw), positional: checkOperatorPaths(raw) };
}

/**
 * The operators with plain numbers where they are arguments rather than values to store
 * (`$push`'s `$position`, `$slice` and `$sort`, `$pop`, `$pull`'s and `$pullAll`'s values and
 * conditions, which only compare): mingo reads those as JavaScript numbers. The values `$set`,
 * `$setOnInsert`, `$push` and `$addToSet` store, and the operands of `$inc`, `$mul`, `$min`,
 * `$max` and `$bit` (update-arithmetic.ts), keep their types.
 */
function withPlainArguments(operators: Document): Document {
  const { $push: push, $pop: pop, $pull: pull, $pullAll: pullAll } = operators;
  if (push === undefined && pop === undefined && pull === undefined && pullAll === undefined) return operators;
  const result: Document = { ...operators };
  if (isPlainObject(push)) {
    const pushes: Document = {};
    for (const [path, spec] of Object.entries(push)) {
      if (!isPlainObject(spec) || !('$each' in spec)) pushes[path] = spec;
      else {
        const { $each: each, ...modifiers } = spec;
        pushes[path] = { $each: each, ...withPlainNumbers(modifiers) };
      }
    }
    result.$push = pushes;
  }
  for (const name of ['$pop', '$pull', '$pullAll'] as const) {
    if (isPlainObject(result[name])) result[name] = withPlainNumbers(result[name]);
  }
  return result;
}

/** _id first, as MongoDB stores it. */
export function withIdFirst(doc: Document): Document {
  const keys = Object.keys(doc);
  if (keys[0] === '_id' || !('_id' in doc)) return doc;
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

function assertIdUnchanged(before: Document, after: Document): void {
  if (!('_id' in after) || compareValues(before._id, after._id) !== 0) {
    throw new CommandError(
      'ImmutableField',
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
}

function assertNoOperatorFields(doc: Document): void {
  for (const key of Object.keys(doc)) {
    if (key.startsWith('$')) {
      throw new CommandError(
        'BadValue',
        `The dollar ($) prefixed field '${key}' in '${key}' is not valid for storage.`,
      );
    }
  }
}

/**
 * Splits out $setOnInsert, which mingo does not know: it applies only when upserting (its paths
 * were checked against the other operators' when the update was parsed).
 */
function operatorsFor(operators: Document, inserting: boolean): Document {
  const { $setOnInsert: onInsert, ...rest } = operators;
  if (!inserting || onInsert === undefined) return rest;
  return { ...rest, $set: { ...(rest.$set as Document | undefined), ...(onInsert as Document) } };
}

/**
 * mingo refuses every operator that touches `_id`. MongoDB allows `$set` of `_id` to the value it
 * already has, and on an upsert to a document that has none yet; those are applied here.
 */
function withoutAllowedIdAssignment(target: Document, operators: Document): Document {
  const set = operators.$set as Document | undefined;
  if (!set || !('_id' in set)) return operators;
  if ('_id' in target && compareValues(set._id, target._id) !== 0) return operators;
  target._id ??= set._id;
  const { _id: _assigned, ...rest } = set;
  return { ...operators, $set: rest };
}

function runOperators(target: Document, operators: Document, context: UpdateContext): void {
  const applicable = withoutAllowedIdAssignment(target, operators);
  if (Object.keys(applicable).length === 0) return;
  const before = hasArithmetic(applicable) ? cloneDeep(target) : undefined;
  try {
    // The positional `$` is resolved already: mingo gets no filter to test the document against again.
    applyOperators(
      target,
      forMingo(target, withPendingNumbers(applicable)),
      context.arrayFilters,
      {},
      {
        queryOptions: mingoOptions(context),
      },
    );
    if (before) resolvePendingNumbers(before, target);
  } catch (error) {
    if (error instanceof MingoError && error.message.includes('immutable field')) {
      throw new CommandError('ImmutableField', error.message.replace(/\.$/, ''));
    }
    throw error;
  }
}

/** The stages an update pipeline may hold. */
const UPDATE_PIPELINE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

/**
 * Runs an update pipeline on one document. Run as a plain aggregation: mingo's own pipeline
 * updater fails on results whose new fields it cannot address by path, such as the top-level
 * '$a' or 'a.b' fields $setField creates (MongoDB 5.0+ stores them).
 */
function runPipeline(target: Document, stages: Document[], context: UpdateContext): Document {
  for (const stage of stages) {
    const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
    if (name === undefined)
      throw new CommandError('TypeMismatch', 'each stage of an update pipeline must be an object naming one stage');
    if (!UPDATE_PIPELINE_STAGES.has(name))
      throw new CommandError('InvalidOptions', `${name} is not allowed to be used within an update`);
  }
  // mingo's expressions compute on JavaScript numbers: the numbers it computes are ints and
  // doubles by value, those it kept get their stored types back.
  const [result] = new Aggregator(stages, mingoOptions(context)).run<Document>([withPlainNumbers(target)]);
  return withTypesOf(target, result) as Document;
}

/**
 * The new version of a stored document, built on a copy: the stored object is never touched,
 * so a write that fails later (duplicate key) leaves nothing half-applied. Returns undefined
 * when the update changes nothing.
 */
export function updatedDocument(current: Document, spec: UpdateSpec, context: UpdateContext): Document | undefined {
  let next: Document;
  switch (spec.kind) {
    case 'replacement':
      assertNoOperatorFields(spec.replacement);
      if ('_id' in spec.replacement) assertIdUnchanged(current, spec.replacement);
      next = withIdFirst({ ...spec.replacement, _id: current._id });
      break;
    case 'operators': {
      next = cloneDeep(current);
      const operators = spec.positional
        ? withPosition(spec.operators, matchedPosition(current, context))
        : spec.operators;
      runOperators(next, operatorsFor(operators, false), context);
      break;
    }
    case 'pipeline':
      next = withIdFirst(runPipeline(cloneDeep(current), spec.stages, context));
      if (!('_id' in next)) next = withIdFirst({ ...next, _id: current._id });
      break;
  }
  assertIdUnchanged(current, next);
  return sameStoredDocument(current, next) ? undefined : next;
}

/** Equal and of the same types throughout (an int set to an equal double changes the document, as in mongod). */
function sameStoredDocument(current: Document, next: Document): boolean {
  return compareValues(current, next) === 0 && Buffer.from(serialize(current)).equals(serialize(next));
}

/** Each statement's filter compiled once, for the position it matched in each document it updates. */
const positionMatchers = new WeakMap<UpdateContext, Matcher>();

/** The array position the filter matched in a document (what the positional `$` stands for). */
function matchedPosition(doc: Document, context: UpdateContext): string | undefined {
  let matcher = positionMatchers.get(context);
  if (!matcher) {
    matcher = compileStoreFilter(context.filter, context);
    positionMatchers.set(context, matcher);
  }
  const details: MatchDetails = {};
  matcher(doc, details);
  return details.elemMatchKey;
}

/**
 * The equality conditions of a filter, as the seed of an upserted document; a replacement keeps
 * only `_id`. Two conditions on one path, or on a path and its prefix, leave it undecided.
 */
function upsertSeed(filter: Document, idOnly: boolean): Document {
  const seed: Document = {};
  const seeded: string[] = [];
  for (const [path, value] of filterEqualities(filter)) {
    if (idOnly && path !== '_id' && !path.startsWith('_id.')) continue;
    for (const other of seeded) {
      if (other === path)
        throw new CommandError(
          'NotSingleValueField',
          `cannot infer query fields to set, path '${path}' is matched twice`,
        );
      if (other.startsWith(`${path}.`) || path.startsWith(`${other}.`))
        throw new CommandError(
          'NotSingleValueField',
          `cannot infer query fields to set, both paths '${other}' and '${path}' are matched`,
        );
    }
    seeded.push(path);
    setValue(seed, path, cloneDeep(value));
  }
  return seed;
}

/** The document an upsert inserts when its filter matched nothing. */
export function upsertedDocument(spec: UpdateSpec, context: UpdateContext): Document {
  const seed = upsertSeed(context.seedFilter ?? context.filter, spec.kind === 'replacement');
  let doc: Document;
  switch (spec.kind) {
    case 'replacement':
      assertNoOperatorFields(spec.replacement);
      doc = { ...spec.replacement };
      if (!('_id' in doc) && '_id' in seed) doc._id = seed._id;
      break;
    case 'operators':
      doc = seed;
      runOperators(
        doc,
        operatorsFor(spec.positional ? withPosition(spec.operators, undefined) : spec.operators, true),
        context,
      );
      if ('_id' in seed && '_id' in doc) assertIdUnchanged(seed, doc);
      break;
    case 'pipeline':
      doc = runPipeline(seed, spec.stages, context);
      break;
  }
  if (!('_id' in doc)) doc._id = new ObjectId();
  return withIdFirst(doc);
}
