import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  parse,
  specifiedRules,
  validate,
  type GraphQLError,
  type GraphQLSchema,
  type ValidationContext,
} from 'graphql';
import type { Config } from '../config';
import { mutationFieldsWithWrittenOutInput } from './written-out-input';

/**
 * The abuse limits of /graphql (graphql-armor: depth, cost, aliases; field suggestions off
 * outside development). One definition for the server and for the publishing of trusted
 * documents, which refuses an operation the server would refuse.
 */
export function protectionOf(config: Config) {
  const development = config.environment === 'development';
  const costOverDepth = costReportedUnlessTooDeep();
  return new ApolloArmor({
    maxDepth: { n: config.graphqlMaxDepth, ignoreIntrospection: true, onAccept: [costOverDepth.depthAccepted] },
    costLimit: {
      maxCost: config.graphqlMaxCost,
      ignoreIntrospection: true,
      propagateOnRejection: false,
      onReject: [costOverDepth.costRejected],
    },
    maxAliases: { n: config.graphqlMaxAliases },
    // Not armor's maxTokens: it parses inside Apollo's parsing hook and turns every syntax error
    // into a 500 quoting the document. graphql-js's own parse option is used instead.
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: !development },
  }).protect();
}

/**
 * What the server would say of a document before running it: parse errors (with its token
 * limit), schema validation and the abuse limits; and, since the document is to be stored, a
 * mutation whose input is written out in it instead of taken from variables. Messages only;
 * empty when it may be published.
 */
export function operationProblems(config: Config, schema: GraphQLSchema): (body: string) => string[] {
  const rules = [...specifiedRules, ...protectionOf(config).validationRules];
  return (body) => {
    try {
      const document = parse(body, { maxTokens: config.graphqlMaxTokens });
      const writtenOut = mutationFieldsWithWrittenOutInput(document);
      // Said alone: a validation message may quote a value, and these values may be identity data.
      if (writtenOut.length > 0)
        return writtenOut.map(
          (field) =>
            `the arguments of ${field} hold values written out in the document: a published document is stored, so a mutation takes its input from variables`,
        );
      return validate(schema, document, rules).map((error) => error.message);
    } catch (error) {
      return [error instanceof Error ? error.message : String(error)];
    }
  };
}

/**
 * The cost of a query grows as 1.5 to the power of its depth, so every query over the depth limit
 * is over the cost limit too: reporting both would name a limit the caller did not aim at. The
 * cost rule runs first (armor's order), so its rejection waits for the depth rule of the same
 * operation and is reported only when the depth was within its limit.
 */
function costReportedUnlessTooDeep(): {
  costRejected: (context: ValidationContext | null, error: GraphQLError) => void;
  depthAccepted: (context: ValidationContext | null) => void;
} {
  const pending = new WeakMap<ValidationContext, GraphQLError>();
  return {
    costRejected(context, error) {
      if (context !== null) pending.set(context, error);
    },
    depthAccepted(context) {
      const error = context === null ? undefined : pending.get(context);
      if (context === null || error === undefined) return;
      pending.delete(context);
      context.reportError(error);
    },
  };
}
