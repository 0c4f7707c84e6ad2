import { ApolloArmor } from '@escape.tech/graphql-armor';
import { parse, specifiedRules, validate, type GraphQLSchema } from 'graphql';
import type { Config } from '../config';

/**
 * The abuse limits of /graphql (graphql-armor: depth, cost, aliases; field suggestions off
 * outside development). One definition for the server and for the publishing of trusted
 * documents, which refuses an operation the server would refuse.
 */
export function protectionOf(config: Config) {
  const development = config.environment === 'development';
  return new ApolloArmor({
    maxDepth: { n: config.graphqlMaxDepth, ignoreIntrospection: true },
    costLimit: { maxCost: config.graphqlMaxCost, ignoreIntrospection: true },
    maxAliases: { n: config.graphqlMaxAliases },
    // Not armor's maxTokens: it parses inside Apollo's parsing hook and turns every syntax error
    // into a 500 quoting the document. graphql-js's own parse option is used instead.
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: !development },
  }).protect();
}

/**
 * What the server would say of a document before running it: parse errors (with its token
 * limit), schema validation and the abuse limits. Messages only; empty when it would run.
 */
export function operationProblems(config: Config, schema: GraphQLSchema): (body: string) => string[] {
  const rules = [...specifiedRules, ...protectionOf(config).validationRules];
  return (body) => {
    try {
      const document = parse(body, { maxTokens: config.graphqlMaxTokens });
      return validate(schema, document, rules).map((error) => error.message);
    } catch (error) {
      return [error instanceof Error ? error.message : String(error)];
    }
  };
}
