import { ObjectId, type Document } from 'bson';
import { Aggregator, update as applyOperators } from 'mingo';
import { cloneDeep, MingoError, setValue } from 'mingo/util';
import { CommandError } from '../errors';
import { mingoOptions, type EvaluationOptions } from './mingo-options';
import { isPlainObject } from './path-values';
import { compareValues } from './value-order';

/** The `u` of an update statement, classified. */
export type UpdateSpec =
  | { readonly kind: 'operators'; readonly operators: Document }
  | { readonly kind: 'replacement'; readonly replacement: Document }
  | { readonly kind: 'pipeline'; readonly stages: Document[] };

export interface UpdateContext extends EvaluationOptions {
  /** The statement's filter: it gives the positional `$` operator its meaning. */
  readonly filter: Document;
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
  if (Array.isArray(raw)) return { kind: 'pipeline', stages: raw as Document[] };
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
  return { kind: 'operators', operators: raw };
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

/** Splits out $setOnInsert, which mingo does not know: it applies only when upserting. */
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
  try {
    applyOperators(target, applicable, context.arrayFilters, context.filter, { queryOptions: mingoOptions(context) });
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
  const [result] = new Aggregator(stages, mingoOptions(context)).run<Document>([target]);
  return result;
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
    case 'operators':
      next = cloneDeep(current);
      runOperators(next, operatorsFor(spec.operators, false), context);
      break;
    case 'pipeline':
      next = withIdFirst(runPipeline(cloneDeep(current), spec.stages, context));
      if (!('_id' in next)) next = withIdFirst({ ...next, _id: current._id });
      break;
  }
  assertIdUnchanged(current, next);
  return compareValues(current, next) === 0 ? undefined : next;
}

/** The equality conditions of a filter, as the seed of an upserted document. */
function upsertSeed(filter: Document): Document {
  const seed: Document = {};
  const visit = (conditions: Document): void => {
    for (const [key, value] of Object.entries(conditions)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const clause of value) if (isPlainObject(clause)) visit(clause);
      } else if (!key.startsWith('$')) {
        const isOperators = isPlainObject(value) && Object.keys(value).some((k) => k.startsWith('$'));
        if (!isOperators) setValue(seed, key, cloneDeep(value));
        else if ('$eq' in value) setValue(seed, key, cloneDeep(value.$eq));
      }
    }
  };
  visit(filter);
  return seed;
}

/** The document an upsert inserts when its filter matched nothing. */
export function upsertedDocument(spec: UpdateSpec, context: UpdateContext): Document {
  const seed = upsertSeed(context.filter);
  let doc: Document;
  switch (spec.kind) {
    case 'replacement':
      assertNoOperatorFields(spec.replacement);
      doc = { ...spec.replacement };
      if (!('_id' in doc) && '_id' in seed) doc._id = seed._id;
      break;
    case 'operators':
      doc = seed;
      runOperators(doc, operatorsFor(spec.operators, true), context);
      if ('_id' in seed && '_id' in doc) assertIdUnchanged(seed, doc);
      break;
    case 'pipeline':
      doc = runPipeline(seed, spec.stages, context);
      break;
  }
  if (!('_id' in doc)) doc._id = new ObjectId();
  return withIdFirst(doc);
}
