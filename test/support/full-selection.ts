import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import { createSchema } from '../../src/graphql/schema';

/**
 * The selection set of every field of `typeName`, nested objects included, built from the
 * schema itself so that a field added to the SDL is selected too. Recursive fields (the
 * candidate's `partner`) are followed `recursion` times.
 */
export function fullSelection(typeName: string, recursion = 1, schema: GraphQLSchema = createSchema()): string {
  const build = (name: string, seen: Map<string, number>): string => {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
    const fields = Object.values(type.getFields()).flatMap((field) => {
      if (field.args.some((arg) => arg.type.toString().endsWith('!') && arg.defaultValue === undefined)) return [];
      const named = getNamedType(field.type);
      if (!isObjectType(named)) return [field.name];
      const depth = seen.get(named.name) ?? 0;
      if (depth > recursion) return [];
      const next = new Map(seen).set(named.name, depth + 1);
      return [`${field.name} { ${build(named.name, next)} }`];
    });
    return fields.join(' ');
  };
  return build(typeName, new Map([[typeName, 1]]));
}
