import { BSON } from 'mongodb';
import {
  BREAK,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  OperationTypeNode,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields, collectSubfields } from 'graphql/execution/collectFields';
import { getArgumentValues, getVariableValues } from 'graphql/execution/values';
import { fieldSourceOf, type FieldSource } from '../../graphql/resolvers/field-source';
import { fragmentsOf } from '../../graphql/selections';
import type { ReferenceCollection } from '../../reference/reference-repository';
import type { ReferenceCache } from '../../reference/reference-cache';
import { asBuffer, BSON_TYPE, findElement, promotedInt64, publicIdOf, skipValue, stringAt } from '../../store/raw-bson';
import { giveUp, JsonOutput, NotTranscodable } from './json-output';
import { HASH_SEED, hashOf, NameTable } from './name-table';

/**
 * The REST body of a persisted read operation, written from the stored BSON bytes of its
 * documents straight into JSON bytes: the same bytes as the GraphQL executor's result written
 * by the operation's JSON writer (shape.ts), without a JavaScript object per document or field.
 *
 * Compiled once per operation from its selection and the schema: every selected field's
 * resolver must be described (graphql/resolvers/field-source.ts) as a read of a stored path,
 * a reference lookup, or a join; a field without a resolver reads the stored field of its
 * name. Anything else (a resolver that computes, an abstract type, a conditional selection, a
 * scalar this file does not know) refuses the operation, which then runs on the executor.
 *
 * At run time a stored value that the executor would coerce, refuse or serialise otherwise than
 * as itself (an Int out of range, a number where an enum is expected, invalid UTF-8...) gives
 * up the whole answer (NotTranscodable), and that request is answered by the executor: the
 * executor's answer is the reference, the transcoder only writes what it writes identically.
 */
export interface Transcoder {
  readonly operationName: string;
  /** What the body is: one candidate (or null), or a page of candidates. */
  readonly body: 'candidate' | 'page';
  /** The top-level stored fields of a candidate that the selection reads (a search projects them). */
  readonly candidateFields: readonly string[];
  /**
   * The arguments of each field on the path to the body, from the request's variables, as the
   * executor coerces them; undefined when the executor would refuse the variables (it then
   * answers, with its error).
   */
  argumentsOf(variables: Readonly<Record<string, unknown>>): Record<string, unknown>[] | undefined;
  /** The publicIds of the job opportunities the candidates join, each once. */
  joinedJobOpportunities(candidates: readonly Uint8Array[]): string[];
  /** The JSON body of one candidate; throws NotTranscodable when the executor must answer. */
  writeCandidate(candidate: Uint8Array, inputs: TranscoderInputs): Buffer;
  /** The JSON body of a page; throws NotTranscodable when the executor must answer. */
  writePage(page: RawPage, inputs: TranscoderInputs): Buffer;
}

/** A page of candidates as stored bytes (what CandidatePage holds, its content undecoded). */
export interface RawPage {
  content: readonly Uint8Array[];
  totalElements: number;
  totalPages: number;
  size: number;
  number: number;
}

export interface TranscoderInputs {
  reference: ReferenceCache;
  /** the joined job opportunities by publicId */
  jobOpportunities: ReadonlyMap<string, Uint8Array>;
}

export type TranscoderCompilation = { transcoder: Transcoder } | { refused: string };

export { NotTranscodable };

type ScalarKind = 'String' | 'Int' | 'Float' | 'Boolean' | 'Long' | 'Date' | 'DateTime' | 'PublicId';
const SCALARS: ReadonlySet<string> = new Set<ScalarKind>([
  'String',
  'Int',
  'Float',
  'Boolean',
  'Long',
  'Date',
  'DateTime',
  'PublicId',
]);

type ValuePlan =
  | { readonly kind: 'scalar'; readonly scalar: ScalarKind }
  | {
      readonly kind: 'enum';
      readonly values: ReadonlySet<string>;
      /** the values' bytes, and each value quoted as written, by the table's index */
      readonly table: NameTable;
      readonly quoted: readonly Buffer[];
    }
  | { readonly kind: 'list'; readonly of: ValuePlan; readonly itemsNonNull: boolean }
  | { readonly kind: 'object'; readonly plan: ObjectPlan };

type FieldPlan = {
  /** `"key":` */
  readonly prefix: Buffer;
  /** `,"key":` */
  readonly nextPrefix: Buffer;
  readonly nonNull: boolean;
  /** the element of the document the field starts from, and the names below it */
  readonly slot: number;
  readonly rest: readonly Buffer[];
} & (
  | { readonly kind: 'value'; readonly value: ValuePlan }
  | { readonly kind: 'reference'; readonly reference: ReferencePlan }
  | { readonly kind: 'joined'; readonly plan: ObjectPlan }
  | { readonly kind: 'constant'; readonly json: Buffer }
);

interface ObjectPlan {
  readonly fields: readonly FieldPlan[];
  /** the stored names the fields start from, the table's index being the slot */
  readonly names: NameTable;
  readonly slotNames: readonly string[];
  /** scratch of the scan of one document: where each slot's value starts (-1: absent), and its type */
  readonly offsets: Int32Array;
  readonly types: Uint8Array;
  /**
   * The name found after each name (at index + 1; at 0: after the start or a name the table
   * could not learn) in the documents scanned before, -1: none yet; names from `slotNames.length`
   * on are not selected, but learned from documents to be expected as well. Stored documents mostly share their
   * order of fields, so a scan first compares a name with the slot expected there, and hashes
   * it only when it differs. A hint, always checked.
   */
  readonly expected: Int32Array;
  /** true when a join is below (the collecting pass visits only those) */
  readonly joins: boolean;
}

interface ReferencePlan {
  readonly collection: ReferenceCollection;
  readonly plan: ObjectPlan;
  /** each reference document's JSON under this selection, per reference snapshot; null: the executor must answer */
  readonly written: WeakMap<ReferenceCache, WrittenReferences>;
  /** the snapshot of the last lookup and its entry of `written` (one snapshot per app: the WeakMap is rarely read) */
  lastCache: ReferenceCache | undefined;
  lastWritten: WrittenReferences | undefined;
}

/** The JSON of each reference document under one selection, by key; null: the executor must answer. */
interface WrittenReferences {
  readonly byKey: Map<unknown, Buffer | null>;
  /** the string keys of at most PACKED_MAX bytes, by packedKey */
  readonly packed: Map<number, Buffer | null>;
}

/** Longest string key looked up by its bytes: five bytes and the length fit a number exactly. */
const PACKED_MAX = 5;

/** The bytes of a short string as one number (its length in the top byte: "A" and "A\0" differ). */
function packedKey(buf: Buffer, at: number, length: number): number {
  let key = length;
  for (let i = 0; i < length; i++) key = key * 256 + buf[at + i];
  return key;
}

type PageField =
  | { readonly kind: 'candidates'; readonly prefix: Buffer; readonly item: ObjectPlan }
  | { readonly kind: 'number'; readonly prefix: Buffer; readonly name: string; readonly nonNull: boolean }
  | { readonly kind: 'constant'; readonly prefix: Buffer; readonly json: Buffer };

class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** Compiles the transcoder of the body at `path` of a persisted read operation, or says why it cannot. */
export function compileTranscoder(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string,
  path: readonly string[],
): TranscoderCompilation {
  try {
    return { transcoder: compile(schema, document, operationName, path) };
  } catch (error) {
    if (error instanceof Refusal) return { refused: error.message };
    throw error;
  }
}

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string,
  path: readonly string[],
): Transcoder {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName,
  );
  if (operation === undefined) throw new Error(`no operation ${operationName} to compile a transcoder for`);
  if (operation.operation !== OperationTypeNode.QUERY) refuse('only queries are transcoded');
  if (hasConditions(document)) refuse('a selection under @skip or @include depends on the variables');
  const fragments: Record<string, FragmentDefinitionNode> = Object.fromEntries(fragmentsOf(document));
  const root = schema.getQueryType();
  if (!root) refuse('the schema has no query type');

  // The fields on the path to the body, with their nodes: their arguments are the root's input.
  const steps: { field: GraphQLField<unknown, unknown>; node: FieldNode }[] = [];
  let type: GraphQLObjectType = root;
  let fields = collectFields(schema, fragments, {}, type, operation.selectionSet);
  let bodyType: GraphQLOutputType | undefined;
  let bodyNodes: readonly FieldNode[] = [];
  path.forEach((key, i) => {
    const nodes = fields.get(key);
    if (nodes === undefined) throw new Error(`the operation selects no field ${key} on ${type.name}`);
    if (fields.size !== 1) refuse(`${type.name} selects more than the path to the body`);
    const field = type.getFields()[nodes[0].name.value];
    steps.push({ field, node: nodes[0] });
    if (i === path.length - 1) {
      bodyType = field.type;
      bodyNodes = nodes;
      return;
    }
    const next = getNamedType(field.type);
    if (!isObjectType(next) || isListType(nullable(field.type))) refuse(`the path goes through ${String(field.type)}`);
    type = next;
    fields = collectSubfields(schema, fragments, {}, type, nodes);
  });
  if (bodyType === undefined) throw new Error('an empty path');
  const context: CompileContext = { schema, fragments };
  const named = getNamedType(bodyType);
  if (!isObjectType(named) || isListType(nullable(bodyType))) refuse(`the body is ${String(bodyType)}`);

  const candidateType = schema.getType('Candidate');
  let candidatePlan: ObjectPlan;
  let pageFields: PageField[] = [];
  let bodyKind: 'candidate' | 'page';
  if (named === candidateType) {
    bodyKind = 'candidate';
    candidatePlan = compileObject(context, named, bodyNodes);
  } else {
    bodyKind = 'page';
    let item: ObjectPlan | undefined;
    for (const [key, subnodes] of collectSubfields(schema, fragments, {}, named, bodyNodes)) {
      const prefix = Buffer.from(`${JSON.stringify(key)}:`, 'utf8');
      const name = subnodes[0].name.value;
      if (name === '__typename') {
        pageFields.push({ kind: 'constant', prefix, json: Buffer.from(JSON.stringify(named.name)) });
        continue;
      }
      const field = named.getFields()[name];
      const source = fieldSourceOf(schema, named, field);
      if (source?.kind === 'candidates') {
        const itemType = getNamedType(field.type);
        if (itemType !== candidateType) refuse(`${named.name}.${name} lists ${itemType.name}`);
        item = compileObject(context, itemType as GraphQLObjectType, subnodes);
        pageFields.push({ kind: 'candidates', prefix, item });
      } else if (field.resolve === undefined && isScalarType(getNamedType(field.type))) {
        const scalar = getNamedType(field.type).name;
        if (scalar !== 'Int') refuse(`${named.name}.${name} is ${scalar}`);
        pageFields.push({ kind: 'number', prefix, name, nonNull: isNonNullType(field.type) });
      } else {
        refuse(`${named.name}.${name} is neither the page's candidates nor a number`);
      }
    }
    if (item === undefined) refuse(`${named.name} selects no candidates`);
    candidatePlan = item;
    pageFields = pageFields.slice();
  }

  const output = new JsonOutput();
  const found = { type: 0 };
  const run = (write: () => void): Buffer => {
    output.reset();
    try {
      write();
    } catch (error) {
      output.reset();
      throw error;
    }
    return output.take();
  };
  const writer = new Writer(output, found);
  const joinPlan = candidatePlan.joins ? joinsOnly(candidatePlan) : undefined;

  return {
    operationName,
    body: bodyKind,
    candidateFields: [...new Set(['publicId', ...candidatePlan.slotNames])],
    argumentsOf(variables) {
      const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 50 });
      if (coerced.errors) return undefined;
      try {
        return steps.map(({ field, node }) => getArgumentValues(field, node, coerced.coerced));
      } catch {
        return undefined;
      }
    },
    joinedJobOpportunities(candidates) {
      if (joinPlan === undefined) return [];
      const keys = new Set<string>();
      for (const candidate of candidates) writer.collectJoins(joinPlan, asBuffer(candidate), 0, keys);
      return [...keys];
    },
    writeCandidate(candidate, inputs) {
      return run(() => writer.object(candidatePlan, asBuffer(candidate), 0, inputs));
    },
    writePage(page, inputs) {
      return run(() => {
        output.byte(0x7b);
        let first = true;
        for (const field of pageFields) {
          if (field.kind === 'number') {
            const value = (page as unknown as Record<string, unknown>)[field.name];
            if (value === null || value === undefined) {
              if (field.nonNull) giveUp();
              continue;
            }
            if (!isInt32(value)) giveUp();
            if (!first) output.byte(0x2c);
            output.raw(field.prefix);
            output.int(value);
          } else {
            if (!first) output.byte(0x2c);
            output.raw(field.prefix);
            if (field.kind === 'constant') output.raw(field.json);
            else {
              output.byte(0x5b);
              page.content.forEach((candidate, i) => {
                if (i > 0) output.byte(0x2c);
                writer.object(field.item, asBuffer(candidate), 0, inputs);
              });
              output.byte(0x5d);
            }
          }
          first = false;
        }
        output.byte(0x7d);
      });
    },
  };
}

interface CompileContext {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
}

function nullable(type: GraphQLOutputType): GraphQLOutputType {
  return isNonNullType(type) ? type.ofType : type;
}

function compileObject(context: CompileContext, type: GraphQLObjectType, nodes: readonly FieldNode[]): ObjectPlan {
  const slotNames: string[] = [];
  const slotOf = (name: string) => {
    const index = slotNames.indexOf(name);
    if (index >= 0) return index;
    slotNames.push(name);
    return slotNames.length - 1;
  };
  const fields: FieldPlan[] = [];
  let joins = false;
  for (const [key, subnodes] of collectSubfields(context.schema, context.fragments, {}, type, nodes)) {
    const prefix = Buffer.from(`${JSON.stringify(key)}:`, 'utf8');
    const common = { prefix, nextPrefix: Buffer.concat([Buffer.from(','), prefix]) };
    const name = subnodes[0].name.value;
    if (name === '__typename') {
      fields.push({
        ...common,
        nonNull: true,
        slot: -1,
        rest: [],
        kind: 'constant',
        json: Buffer.from(JSON.stringify(type.name)),
      });
      continue;
    }
    const field = type.getFields()[name];
    const source: FieldSource | undefined = fieldSourceOf(context.schema, type, field);
    if (source === undefined) refuse(`the resolver of ${type.name}.${name} does more than read, look up or join`);
    if (source.path.length === 0) refuse(`${type.name}.${name} reads its parent whole`);
    const located = {
      ...common,
      nonNull: isNonNullType(field.type),
      slot: slotOf(source.path[0]),
      rest: source.path.slice(1).map((part) => Buffer.from(part, 'utf8')),
    };
    switch (source.kind) {
      case 'stored': {
        const value = compileValue(context, field.type, subnodes, `${type.name}.${name}`);
        if (value.kind === 'object' || value.kind === 'list') joins ||= joinsBelow(value);
        fields.push({ ...located, kind: 'value', value });
        break;
      }
      case 'reference': {
        const target = getNamedType(field.type);
        if (!isObjectType(target) || isListType(nullable(field.type)))
          refuse(`${type.name}.${name} looks up a ${String(field.type)}`);
        const plan = compileObject(context, target, subnodes);
        if (plan.joins) refuse(`${target.name} joins`);
        fields.push({
          ...located,
          kind: 'reference',
          reference: {
            collection: source.collection,
            plan,
            written: new WeakMap(),
            lastCache: undefined,
            lastWritten: undefined,
          },
        });
        break;
      }
      case 'joined': {
        const target = getNamedType(field.type);
        if (!isObjectType(target) || isListType(nullable(field.type)))
          refuse(`${type.name}.${name} joins a ${String(field.type)}`);
        const plan = compileObject(context, target, subnodes);
        // One batch per page: a join below a join would need a second round.
        if (plan.joins) refuse(`${target.name} joins again below ${type.name}.${name}`);
        fields.push({ ...located, kind: 'joined', plan });
        joins = true;
        break;
      }
      case 'candidates':
        refuse(`${type.name}.${name} lists candidates below a candidate`);
    }
  }
  return {
    fields: fields.map(shapedField),
    names: new NameTable(
      slotNames.map((slotName) => Buffer.from(slotName, 'utf8')),
      LEARNED_NAMES,
    ),
    slotNames,
    offsets: new Int32Array(slotNames.length),
    types: new Uint8Array(slotNames.length),
    expected: new Int32Array(slotNames.length + LEARNED_NAMES + 1).fill(-1),
    joins,
  };
}

/**
 * The plan with only what leads to a join, for the collecting pass: its scans then match the few
 * names on the way instead of every selected one.
 */
function joinsOnly(plan: ObjectPlan): ObjectPlan {
  const slotNames: string[] = [];
  const fields: FieldPlan[] = [];
  const prunedValue = (value: ValuePlan): ValuePlan =>
    value.kind === 'object'
      ? shapedValue({ kind: 'object', plan: joinsOnly(value.plan) })
      : value.kind === 'list'
        ? shapedValue({ ...value, of: prunedValue(value.of) })
        : value;
  for (const field of plan.fields) {
    if (field.kind === 'joined' || (field.kind === 'value' && joinsBelow(field.value))) {
      const name = plan.slotNames[field.slot];
      let slot = slotNames.indexOf(name);
      if (slot < 0) slot = slotNames.push(name) - 1;
      fields.push(field.kind === 'value' ? { ...field, slot, value: prunedValue(field.value) } : { ...field, slot });
    }
  }
  return {
    fields: fields.map(shapedField),
    names: new NameTable(
      slotNames.map((slotName) => Buffer.from(slotName, 'utf8')),
      LEARNED_NAMES,
    ),
    slotNames,
    offsets: new Int32Array(slotNames.length),
    types: new Uint8Array(slotNames.length),
    expected: new Int32Array(slotNames.length + LEARNED_NAMES + 1).fill(-1),
    joins: plan.joins,
  };
}

function joinsBelow(value: ValuePlan): boolean {
  if (value.kind === 'object') return value.plan.joins;
  if (value.kind === 'list') return joinsBelow(value.of);
  return false;
}

function compileValue(
  context: CompileContext,
  type: GraphQLOutputType,
  nodes: readonly FieldNode[],
  where: string,
): ValuePlan {
  const inner = nullable(type);
  if (isListType(inner)) {
    return shapedValue({
      kind: 'list',
      of: compileValue(context, inner.ofType, nodes, where),
      itemsNonNull: isNonNullType(inner.ofType),
    });
  }
  if (isScalarType(inner)) {
    if (!SCALARS.has(inner.name)) refuse(`${where} is a ${inner.name}, a scalar the transcoder does not write`);
    return shapedValue({ kind: 'scalar', scalar: inner.name as ScalarKind });
  }
  if (isEnumType(inner)) {
    const values = inner.getValues();
    if (values.some((value) => value.value !== value.name)) refuse(`${where}: ${inner.name} maps its values`);
    return shapedValue({
      kind: 'enum',
      values: new Set(values.map((value) => value.name)),
      table: new NameTable(values.map((value) => Buffer.from(value.name, 'utf8'))),
      quoted: values.map((value) => Buffer.from(JSON.stringify(value.name), 'utf8')),
    });
  }
  if (isObjectType(inner)) return shapedValue({ kind: 'object', plan: compileObject(context, inner, nodes) });
  return refuse(`${where} is of the abstract type ${String(inner)}`);
}

/**
 * Every field plan with the same properties in the same order (those of other kinds undefined),
 * and so every value plan: the writer reads them at the same sites whatever their kind, and
 * objects of one shape keep those reads monomorphic, where a shape per kind made them megamorphic.
 */
function shapedField(field: FieldPlan): FieldPlan {
  const f = field as unknown as Record<string, unknown>;
  return {
    prefix: f.prefix,
    nextPrefix: f.nextPrefix,
    nonNull: f.nonNull,
    slot: f.slot,
    rest: f.rest,
    kind: f.kind,
    value: f.value,
    reference: f.reference,
    plan: f.plan,
    json: f.json,
  } as FieldPlan;
}

function shapedValue(value: ValuePlan): ValuePlan {
  const v = value as unknown as Record<string, unknown>;
  return {
    kind: v.kind,
    scalar: v.scalar,
    values: v.values,
    table: v.table,
    quoted: v.quoted,
    of: v.of,
    itemsNonNull: v.itemsNonNull,
    plan: v.plan,
  } as ValuePlan;
}

/** True when a selection of the document is under @skip or @include. */
function hasConditions(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(directive) {
      if (directive.name.value === 'skip' || directive.name.value === 'include') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

function isInt32(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value <= 2147483647 && value >= -2147483648;
}

// The element types read on every value, as local constants (read as a module's export, each is a property lookup).
const T_DOUBLE = BSON_TYPE.double;
const T_STRING = BSON_TYPE.string;
const T_DOCUMENT = BSON_TYPE.document;
const T_ARRAY = BSON_TYPE.array;
const T_UNDEFINED = BSON_TYPE.undefined;
const T_BOOLEAN = BSON_TYPE.boolean;
const T_DATE_TIME = BSON_TYPE.dateTime;
const T_NULL = BSON_TYPE.null;
const T_REGEX = BSON_TYPE.regex;
const T_INT32 = BSON_TYPE.int32;
const T_INT64 = BSON_TYPE.int64;

function int32At(buf: Buffer, at: number): number {
  return buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16) | (buf[at + 3] << 24);
}

/** How many names a plan learns from documents beside its selected ones (the names it reads past). */
const LEARNED_NAMES = 64;

/** Largest |milliseconds| a Date holds (ECMAScript's time value range). */
const MAX_TIME = 8.64e15;

/** The writing and collecting passes over stored documents. */
class Writer {
  constructor(
    private readonly out: JsonOutput,
    private readonly found: { type: number },
  ) {}

  /** Fills the plan's scratch with where each slot's value is in the document at `start`. */
  private scan(plan: ObjectPlan, buf: Buffer, start: number): void {
    const { offsets, types, names, expected } = plan;
    const selected = names.given;
    offsets.fill(-1);
    const end = start + int32At(buf, start) - 1;
    let p = start + 4;
    let previous = -1;
    while (p < end) {
      const type = buf[p++];
      const nameStart = p;
      let slot = expected[previous + 1];
      const length = slot >= 0 ? names.lengthAt(buf, nameStart, slot) : -1;
      if (length >= 0) {
        p += length;
      } else {
        let hash = HASH_SEED;
        for (let b = buf[p]; b !== 0; b = buf[++p]) hash = Math.imul(hash ^ b, 0x01000193);
        slot = names.find(buf, nameStart, p, hash);
        if (slot < 0) slot = names.learn(buf, nameStart, p, hash);
        if (slot >= 0) expected[previous + 1] = slot;
      }
      previous = slot;
      p++;
      if (slot >= 0 && slot < selected) {
        offsets[slot] = p;
        types[slot] = type;
      }
      p = skipValue(buf, type, p);
      if (p < 0) giveUp();
    }
  }

  /** Where the field's value is (after the names below its slot), -1 when absent; its type in `found.type`. */
  private locate(plan: ObjectPlan, field: FieldPlan, buf: Buffer): number {
    let at = plan.offsets[field.slot];
    let type = plan.types[field.slot];
    for (const name of field.rest) {
      if (at < 0) break;
      // A property of anything but an object is undefined to the resolver (an array's too).
      at = type === T_DOCUMENT ? findElement(buf, at, name, this.found) : -1;
      type = this.found.type;
    }
    this.found.type = type;
    return at;
  }

  object(plan: ObjectPlan, buf: Buffer, start: number, inputs: TranscoderInputs): void {
    const out = this.out;
    this.scan(plan, buf, start);
    out.byte(0x7b);
    let first = true;
    for (const field of plan.fields) {
      if (field.kind === 'constant') {
        out.raw(first ? field.prefix : field.nextPrefix);
        out.raw(field.json);
        first = false;
        continue;
      }
      // Most fields are the element of their own name: read from the scan, with no walk below.
      let at: number;
      let type: number;
      if (field.rest.length === 0) {
        at = plan.offsets[field.slot];
        type = plan.types[field.slot];
      } else {
        at = this.locate(plan, field, buf);
        type = this.found.type;
      }
      if (at < 0 || type === T_NULL) {
        if (field.nonNull) giveUp();
        continue;
      }
      if (type === T_UNDEFINED) giveUp();
      switch (field.kind) {
        case 'value':
          out.raw(first ? field.prefix : field.nextPrefix);
          this.value(field.value, buf, type, at, inputs);
          break;
        case 'reference': {
          const json = this.referenceJson(field.reference, buf, type, at, inputs.reference);
          if (json === undefined) {
            if (field.nonNull) giveUp();
            continue;
          }
          out.raw(first ? field.prefix : field.nextPrefix);
          out.raw(json);
          break;
        }
        case 'joined': {
          // Every publicId is a string: a key of another type finds nothing (null), but a
          // regular expression, which a lookup by `$in` would match against them.
          if (type === T_REGEX) giveUp();
          const joined = type === T_STRING ? inputs.jobOpportunities.get(stringAt(buf, at)) : undefined;
          if (joined === undefined) {
            if (field.nonNull) giveUp();
            continue;
          }
          out.raw(first ? field.prefix : field.nextPrefix);
          // The scratch of the joined plan is its own: the document's is still needed after.
          this.object(field.plan, asBuffer(joined), 0, inputs);
          break;
        }
      }
      first = false;
    }
    out.byte(0x7d);
  }

  private value(plan: ValuePlan, buf: Buffer, type: number, at: number, inputs: TranscoderInputs): void {
    const out = this.out;
    switch (plan.kind) {
      case 'scalar':
        return this.scalar(plan.scalar, buf, type, at);
      case 'enum': {
        if (type !== T_STRING) giveUp();
        // Compared as bytes with the enum's values (each kept quoted, as written): no string is made.
        const start = at + 4;
        const end = start + int32At(buf, at) - 1;
        const index = plan.table.find(buf, start, end, hashOf(buf, start, end));
        return index >= 0 ? out.raw(plan.quoted[index]) : giveUp();
      }
      case 'object':
        if (type !== T_DOCUMENT) giveUp();
        return this.object(plan.plan, buf, at, inputs);
      case 'list': {
        if (type !== T_ARRAY) giveUp();
        const end = at + int32At(buf, at) - 1;
        let p = at + 4;
        let first = true;
        out.byte(0x5b);
        while (p < end) {
          const itemType = buf[p++];
          while (buf[p] !== 0) p++;
          p++;
          if (itemType === T_NULL) {
            if (plan.itemsNonNull) giveUp();
          } else {
            if (itemType === T_UNDEFINED) giveUp();
            if (!first) out.byte(0x2c);
            this.value(plan.of, buf, itemType, p, inputs);
            first = false;
          }
          p = skipValue(buf, itemType, p);
          if (p < 0) giveUp();
        }
        out.byte(0x5d);
        return;
      }
    }
  }

  /** A scalar as the schema's serialize and JSON.stringify would write it; anything they would coerce or refuse gives up. */
  private scalar(scalar: ScalarKind, buf: Buffer, type: number, at: number): void {
    const out = this.out;
    switch (scalar) {
      case 'String':
      case 'PublicId':
      case 'Date':
        if (type !== T_STRING) giveUp();
        return out.utf8String(buf, at + 4, at + 4 + int32At(buf, at) - 1);
      case 'Boolean':
        if (type !== T_BOOLEAN || buf[at] > 1) giveUp();
        return out.ascii(buf[at] === 0 ? 'false' : 'true');
      case 'Int': {
        const value = numberAt(buf, type, at);
        if (!isInt32(value)) giveUp();
        return out.int(value);
      }
      case 'Float': {
        const value = numberAt(buf, type, at);
        if (value === undefined || !Number.isFinite(value)) giveUp();
        return out.ascii(String(value));
      }
      case 'Long': {
        // The Long scalar serializes safe integers only; anything else is the executor's field error.
        const value = numberAt(buf, type, at);
        if (value === undefined || !Number.isSafeInteger(value)) giveUp();
        return out.ascii(String(value));
      }
      case 'DateTime': {
        if (type !== T_DATE_TIME) giveUp();
        const ms = buf.readInt32LE(at + 4) * 2 ** 32 + buf.readUInt32LE(at);
        if (!(Math.abs(ms) <= MAX_TIME)) giveUp();
        return out.isoDateTime(ms);
      }
    }
  }

  /** The reference document's JSON for the key at `at`, undefined when it names none. */
  private referenceJson(
    reference: ReferencePlan,
    buf: Buffer,
    type: number,
    at: number,
    cache: ReferenceCache,
  ): Buffer | undefined {
    let written = reference.lastCache === cache ? reference.lastWritten : undefined;
    if (written === undefined) {
      written = reference.written.get(cache);
      if (written === undefined) {
        written = this.writeReferences(reference, cache);
        reference.written.set(cache, written);
      }
      reference.lastCache = cache;
      reference.lastWritten = written;
    }
    // The resolver looks the stored value up as it is: a string or a number can match a key, nothing else.
    let json: Buffer | null | undefined;
    if (type === T_STRING) {
      // A short code (a country, a language, an occupation) is looked up by its bytes, without a string.
      const length = int32At(buf, at) - 1;
      json =
        length <= PACKED_MAX
          ? written.packed.get(packedKey(buf, at + 4, length))
          : written.byKey.get(stringAt(buf, at));
    } else if (type === T_INT32) json = written.byKey.get(int32At(buf, at));
    else if (type === T_DOUBLE) json = written.byKey.get(buf.readDoubleLE(at));
    else if (type === T_INT64) json = written.byKey.get(promotedInt64(buf, at));
    else return undefined;
    if (json === null) giveUp();
    return json;
  }

  /** Every document of the collection written once under the selection, from its BSON form. */
  private writeReferences(reference: ReferencePlan, cache: ReferenceCache): WrittenReferences {
    const written: WrittenReferences = { byKey: new Map(), packed: new Map() };
    const writer = new Writer(new JsonOutput(1024), { type: 0 });
    const none: TranscoderInputs = { reference: cache, jobOpportunities: new Map() };
    for (const key of cache.keys(reference.collection)) {
      const document = BSON.serialize(cache.find(reference.collection, key) as object);
      let json: Buffer | null;
      try {
        writer.object(reference.plan, asBuffer(document), 0, none);
        json = writer.out.take();
      } catch (error) {
        if (!(error instanceof NotTranscodable)) throw error;
        writer.out.reset();
        json = null;
      }
      written.byKey.set(key, json);
      if (typeof key === 'string') {
        const bytes = Buffer.from(key, 'utf8');
        if (bytes.length <= PACKED_MAX) written.packed.set(packedKey(bytes, 0, bytes.length), json);
      }
    }
    return written;
  }

  /** Adds the publicIds of the job opportunities joined below `plan` in the document at `start`. */
  collectJoins(plan: ObjectPlan, buf: Buffer, start: number, keys: Set<string>): void {
    this.scan(plan, buf, start);
    for (const field of plan.fields) {
      if (field.kind !== 'joined' && !(field.kind === 'value' && joinsBelow(field.value))) continue;
      const at = this.locate(plan, field, buf);
      const type = this.found.type;
      if (at < 0) continue;
      if (field.kind === 'joined') {
        if (type === T_STRING) keys.add(stringAt(buf, at));
      } else if (field.kind === 'value') {
        this.collectValue(field.value, buf, type, at, keys);
      }
    }
  }

  private collectValue(plan: ValuePlan, buf: Buffer, type: number, at: number, keys: Set<string>): void {
    if (plan.kind === 'object' && type === T_DOCUMENT) {
      // The plan's scratch is refilled by the nested scan: the caller reads its own first.
      this.collectJoins(plan.plan, buf, at, keys);
    } else if (plan.kind === 'list' && type === T_ARRAY) {
      const end = at + int32At(buf, at) - 1;
      let p = at + 4;
      while (p < end) {
        const itemType = buf[p++];
        while (buf[p] !== 0) p++;
        p++;
        this.collectValue(plan.of, buf, itemType, p, keys);
        p = skipValue(buf, itemType, p);
        if (p < 0) giveUp();
      }
    }
  }
}

/** A stored number as bson decodes it (int64 within the promoted range), undefined for any other type. */
function numberAt(buf: Buffer, type: number, at: number): number | undefined {
  if (type === T_INT32) return int32At(buf, at);
  if (type === T_DOUBLE) return buf.readDoubleLE(at);
  if (type === T_INT64) return promotedInt64(buf, at);
  return undefined;
}

export { publicIdOf };
