import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  visit,
  BREAK,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields, collectSubfields } from 'graphql/execution/collectFields';
import { fragmentsOf } from '../graphql/selections';

/**
 * The JSON of a REST response from the data of a GraphQL result. The contract marks every
 * candidate field but publicId optional and none nullable, so a field GraphQL answers with
 * null (not recorded, or a reference that resolves to nothing) is omitted, at every depth.
 * Arrays keep their elements (an empty `content` stays `[]`); list items are never null in
 * the schema.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== null && item !== undefined) out[key] = withoutNulls(item);
    }
    return out;
  }
  return value;
}

/** Writes the JSON text of `JSON.stringify(withoutNulls(value))` in one pass over `value`. */
export type JsonWriter = (value: unknown) => string;

/**
 * How the values at one place of a result are written: a leaf (scalar, enum), a list, or an
 * object whose fields are known in the order GraphQL puts them in the result. `any` is the
 * general writer, for what the plan cannot know (an abstract type, a conditional selection).
 */
type Plan =
  | { readonly kind: 'leaf' }
  | { readonly kind: 'any' }
  | { readonly kind: 'list'; readonly of: Plan }
  | { readonly kind: 'object'; readonly fields: readonly FieldPlan[] };

interface FieldPlan {
  /** the response name (alias or field name) */
  readonly key: string;
  /** `"key":`, written once here instead of on every value */
  readonly prefix: string;
  readonly plan: Plan;
}

const LEAF: Plan = { kind: 'leaf' };
const ANY: Plan = { kind: 'any' };

/**
 * The writer of the REST body of one persisted operation: the value found at `path` of its
 * data (e.g. `['candidates']`), written as the contract's JSON (nulls left out, as
 * withoutNulls) in one pass, without the copy withoutNulls makes. Compiled once, at start, from
 * the operation's selection set: the fields of each object are written in the order GraphQL
 * puts them in the result (graphql-js's collectFields, which graphql-jit follows), each with
 * its name already encoded. The result's objects hold exactly those fields in that order, as
 * every GraphQL executor answers (the spec's CollectFields); rest-golden.test.ts holds it for
 * both of ours. A value of another kind than the plan expects (an object for a scalar, a scalar
 * for a list) goes to the general writer, with the same result as withoutNulls.
 */
export function compileJsonWriter(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string,
  path: readonly string[],
): JsonWriter {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName,
  );
  if (operation === undefined) throw new Error(`no operation ${operationName} to compile a JSON writer for`);
  const fragments: Record<string, FragmentDefinitionNode> = Object.fromEntries(fragmentsOf(document));
  const root = schema.getRootType(operation.operation);
  if (root === undefined || root === null) throw new Error(`the schema has no root type for ${operation.operation}`);

  // Conditional selections depend on the request's variables: the plan then writes generally.
  const plan = hasConditions(document)
    ? ANY
    : planOfPath(schema, fragments, root, collectFields(schema, fragments, {}, root, operation.selectionSet), path);
  const writer = generate(plan);
  return (value) => writer(value) as string;
}

function planOfPath(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLObjectType,
  fields: Map<string, readonly FieldNode[]>,
  path: readonly string[],
): Plan {
  const [key, ...rest] = path;
  const nodes = fields.get(key);
  if (nodes === undefined) throw new Error(`the operation selects no field ${key} on ${type.name}`);
  const fieldType = type.getFields()[nodes[0].name.value]?.type;
  if (fieldType === undefined) throw new Error(`${type.name} has no field ${nodes[0].name.value}`);
  if (rest.length === 0) return planOf(schema, fragments, fieldType, nodes);
  const named = getNullableType(fieldType);
  if (!isObjectType(named))
    throw new Error(`the path of a JSON writer goes through objects only, not ${String(fieldType)}`);
  return planOfPath(schema, fragments, named, collectSubfields(schema, fragments, {}, named, nodes), rest);
}

function planOf(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLOutputType,
  nodes: readonly FieldNode[],
): Plan {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return { kind: 'list', of: planOf(schema, fragments, nullable.ofType, nodes) };
  const named = getNamedType(nullable);
  if (!isObjectType(named)) return nodes.some((node) => node.selectionSet !== undefined) ? ANY : LEAF;
  const fields: FieldPlan[] = [];
  for (const [key, subnodes] of collectSubfields(schema, fragments, {}, named, nodes)) {
    const name = subnodes[0].name.value;
    const fieldType = name === '__typename' ? undefined : named.getFields()[name]?.type;
    fields.push({
      key,
      prefix: `${JSON.stringify(key)}:`,
      plan: fieldType === undefined ? ANY : planOf(schema, fragments, fieldType, subnodes),
    });
  }
  return { kind: 'object', fields };
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

/**
 * The writer of a plan as JavaScript made once: one function per object and list of the
 * selection, reading each field by its name (what V8 reads fastest, where a loop over the
 * names would look every one up by a computed key). The names come from the schema and the
 * operation, and enter the code only as JSON string literals.
 */
function generate(plan: Plan): (value: unknown) => string | undefined {
  const functions: string[] = [];
  const emit = (part: Plan): string => {
    switch (part.kind) {
      case 'leaf':
        return 'leaf';
      case 'any':
        return 'writeAny';
      case 'list': {
        const item = emit(part.of);
        const name = `write${functions.length}`;
        functions.push(
          `function ${name}(v) {
            if (!Array.isArray(v)) return writeAny(v);
            let out = '[', sep = '';
            for (let i = 0; i < v.length; i++) {
              const x = v[i];
              if (x === null) continue;
              const j = x === undefined ? undefined : ${item}(x);
              out += sep + (j === undefined ? 'null' : j);
              sep = ',';
            }
            return out + ']';
          }`,
        );
        return name;
      }
      case 'object': {
        const fields = part.fields.map((field) => ({ ...field, writer: emit(field.plan) }));
        const name = `write${functions.length}`;
        functions.push(
          `function ${name}(v) {
            if (typeof v !== 'object' || v === null || Array.isArray(v)) return writeAny(v);
            let out = '{', sep = '', x, j;
            ${fields
              .map(
                (field) => `x = v[${JSON.stringify(field.key)}];
            if (x !== null && x !== undefined && (j = ${field.writer}(x)) !== undefined) { out += sep + ${JSON.stringify(field.prefix)} + j; sep = ','; }`,
              )
              .join('\n            ')}
            return out + '}';
          }`,
        );
        return name;
      }
    }
  };
  const root = emit(plan);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- the serialiser is compiled from the operation's plan (no input reaches the source)
  return new Function('writeAny', 'leaf', `'use strict';\n${functions.join('\n')}\nreturn ${root};`)(
    writeAny,
    writeLeaf,
  ) as (value: unknown) => string | undefined;
}

/** A scalar or enum value as JSON (a custom scalar serialised to an object, generally). */
function writeLeaf(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return writeAny(value);
    default:
      return JSON.stringify(value);
  }
}

/** What JSON.stringify writes otherwise than as itself in a string: quote, backslash, control characters, surrogates (a lone one is escaped). */
// eslint-disable-next-line no-control-regex -- JSON escapes exactly these control characters
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(withoutNulls(value))` for any value, in one pass. */
function writeAny(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    let out = '[';
    let first = true;
    for (const item of value) {
      if (item === null) continue;
      if (!first) out += ',';
      first = false;
      // JSON.stringify writes an element without JSON (undefined, a function) as null.
      out += (item === undefined ? undefined : writeAny(item)) ?? 'null';
    }
    return `${out}]`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  let out = '{';
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    const json = writeAny(item);
    // JSON.stringify leaves out a property whose value has no JSON (a function, a symbol).
    if (json === undefined) continue;
    if (!first) out += ',';
    first = false;
    out += `${JSON.stringify(key)}:${json}`;
  }
  return `${out}}`;
}
