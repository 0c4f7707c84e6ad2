/**
 * The REST bodies of the three POSTs (src/rest/request-bodies.ts) are written as zod schemas so
 * that their errors read as the contract's; their shape is the SDL's input types'. This holds
 * the two together: every field of an input type is a field of the body, as required, as a list
 * or not, and of the same kind; the body has no field the input type lacks, except the
 * read-model fields a reference may carry (contract 2.4: "as in 2.2"), which are optional.
 */
import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';
import type { z } from 'zod';
import { createSchema } from '../../src/graphql/schema';
import { createRequestBodies, type MutationName } from '../../src/rest/request-bodies';

const schema = createSchema();
const bodies = createRequestBodies(schema);

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  entries?: Record<string, string>;
  format?: string;
}
const defOf = (type: z.ZodType): ZodDef => (type as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The zod type without its optional/nullable wrappers and transforms, and whether it may be absent. */
function unwrap(type: z.ZodType): { def: ZodDef; optional: boolean } {
  let def = defOf(type);
  let optional = false;
  for (;;) {
    if (def.type === 'optional' || def.type === 'nullable') optional = true;
    const inner =
      def.type === 'pipe' ? def.in : def.type === 'optional' || def.type === 'nullable' ? def.innerType : undefined;
    if (inner === undefined) return { def, optional };
    def = defOf(inner);
  }
}

/** The zod leaf each GraphQL scalar is checked as on REST. */
const SCALAR_KINDS: Record<string, (def: ZodDef) => boolean> = {
  String: (def) => def.type === 'string' && def.format === undefined,
  PublicId: (def) => def.type === 'string' && def.format === undefined,
  Date: (def) => def.type === 'string' && def.format === 'date',
  Boolean: (def) => def.type === 'boolean',
  Int: (def) => def.type === 'number' && def.format === 'int32',
  Long: (def) => def.type === 'number' && def.format === 'safeint',
};

/** Every difference between a body's zod type and the GraphQL input type at `path`. */
function differences(rest: ZodDef, graphql: GraphQLInputType, path: string): string[] {
  const type = getNullableType(graphql);
  if (isListType(type)) {
    if (rest.type !== 'array' || rest.element === undefined)
      return [`${path}: a list in the SDL, ${rest.type} on REST`];
    return differences(unwrap(rest.element).def, type.ofType, `${path}[]`);
  }
  if (isEnumType(type)) {
    const values = type.getValues().map((value) => value.name);
    return rest.type === 'enum' && JSON.stringify(Object.values(rest.entries ?? {})) === JSON.stringify(values)
      ? []
      : [`${path}: enum ${type.name} differs`];
  }
  if (isScalarType(type)) {
    return SCALAR_KINDS[type.name]?.(rest)
      ? []
      : [`${path}: ${type.name} in the SDL, ${rest.type}${rest.format ? ` (${rest.format})` : ''} on REST`];
  }
  if (rest.type !== 'object' || rest.shape === undefined)
    return [`${path}: ${type.name} in the SDL, ${rest.type} on REST`];
  return objectDifferences(rest.shape, type, path);
}

function objectDifferences(shape: Record<string, z.ZodType>, type: GraphQLInputObjectType, path: string): string[] {
  const found: string[] = [];
  const fields = type.getFields();
  for (const [name, field] of Object.entries(fields)) {
    const where = path === '' ? name : `${path}.${name}`;
    if (!(name in shape)) {
      found.push(`${where}: in the SDL, not in the REST body`);
      continue;
    }
    const { def, optional } = unwrap(shape[name]);
    if (optional === isNonNullType(field.type))
      found.push(`${where}: ${isNonNullType(field.type) ? 'required' : 'optional'} in the SDL, not on REST`);
    found.push(...differences(def, field.type, where));
  }
  const isReference = type.name.endsWith('RefInput');
  for (const name of Object.keys(shape).filter((key) => !(key in fields))) {
    const where = path === '' ? name : `${path}.${name}`;
    if (!isReference) found.push(`${where}: in the REST body, not in the SDL's ${type.name}`);
    else if (!unwrap(shape[name]).optional) found.push(`${where}: a read-model field of a reference must be optional`);
  }
  return found;
}

const INPUT_TYPES: Record<MutationName, string> = {
  JobMatch: 'JobMatchInput',
  OfferToAssist: 'OfferToAssistInput',
  RegisterCandidate: 'RegisterCandidateInput',
};

describe('REST bodies against the SDL input types', () => {
  test.each(Object.entries(INPUT_TYPES) as [MutationName, string][])(
    'when the body of %s is compared with %s, then they have the same fields, kinds and required fields',
    (name, inputName) => {
      const input = schema.getType(inputName);
      if (!isInputObjectType(input)) throw new Error(`${inputName} is not an input type`);
      const { def } = unwrap(bodies[name]);

      expect(def.shape === undefined ? ['the body is not an object'] : objectDifferences(def.shape, input, '')).toEqual(
        [],
      );
    },
  );

  test('when an SDL input type and a REST body differ, then the comparison names the difference', () => {
    const input = schema.getType('CandidateCouponInput');
    if (!isInputObjectType(input)) throw new Error('CandidateCouponInput is not an input type');
    const { def } = unwrap(bodies.JobMatch);
    const candidate = unwrap(defOf(def.shape!.candidates).element!).def;

    // The job match's candidate has no couponCode: compared with the offer's candidate, that shows.
    expect(objectDifferences(candidate.shape!, input, 'candidates[]')).toEqual([
      'candidates[].couponCode: in the SDL, not in the REST body',
    ]);
  });
});
