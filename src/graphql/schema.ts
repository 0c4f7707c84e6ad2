import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers';
import { describeFieldSources } from './resolvers/field-source';

/** The `schema/` folder of the project, from sources (src/graphql) or from the build (dist/src/graphql). */
export function schemaDirectory(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'schema');
    if (fs.existsSync(path.join(candidate, 'query.graphql'))) return candidate;
  }
  throw new Error(`no schema/ folder above ${__dirname}`);
}

/** The SDL files of the GraphQL schema, in name order (persisted REST operations excluded). */
export function loadTypeDefs(directory = schemaDirectory()): string[] {
  return fs
    .readdirSync(directory)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => fs.readFileSync(path.join(directory, name), 'utf8'));
}

export function createSchema(): GraphQLSchema {
  const schema = makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
  // What the described resolvers do, for the compilers that read it (src/rest/transcoder/).
  describeFieldSources(schema, resolvers);
  return schema;
}
