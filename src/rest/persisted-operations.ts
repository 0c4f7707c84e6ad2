import fs from 'node:fs';
import path from 'node:path';
import {
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { BadUserInputError, isAppError } from '../errors';
import type { GraphQLContext } from '../graphql/context';
import { operationExecutorOf, type PreparedOperation } from '../graphql/execution/operation-executor';
import { withoutValues } from '../graphql/format-error';
import { fragmentsOf, spreadFragmentNames } from '../graphql/selections';
import { schemaDirectory } from '../graphql/schema';
import type {
  CandidateStatisticsQuery,
  CandidateStatisticsQueryVariables,
  FindCandidatesQuery,
  FindCandidatesQueryVariables,
  GetCandidateQuery,
  GetCandidateQueryVariables,
  GetCandidatesByListQuery,
  GetCandidatesByListQueryVariables,
  JobMatchMutation,
  JobMatchMutationVariables,
  ListSavedListsQuery,
  ListSavedListsQueryVariables,
  OfferToAssistMutation,
  OfferToAssistMutationVariables,
  RegisterCandidateMutation,
  RegisterCandidateMutationVariables,
  RunSavedSearchQuery,
  RunSavedSearchQueryVariables,
} from './generated/operations';
import { compileJsonWriter, type JsonWriter } from './shape';
import { compileTranscoder, type TranscoderCompilation } from './transcoder/compile-transcoder';

/** The operations behind /v1, one file each in schema/rest/ (fragments in fragments.graphql). */
export const OPERATION_FILES = {
  FindCandidates: 'find-candidates.graphql',
  GetCandidate: 'get-candidate.graphql',
  GetCandidatesByList: 'get-candidates-by-list.graphql',
  JobMatch: 'job-match.graphql',
  OfferToAssist: 'offer-to-assist.graphql',
  RegisterCandidate: 'register-candidate.graphql',
  CandidateStatistics: 'candidate-statistics.graphql',
  RunSavedSearch: 'run-saved-search.graphql',
  ListSavedLists: 'list-saved-lists.graphql',
} as const;

export type OperationName = keyof typeof OPERATION_FILES;

/** What each operation takes and returns: generated from schema/rest/*.graphql (npm run codegen). */
export interface OperationTypes {
  FindCandidates: { variables: FindCandidatesQueryVariables; data: FindCandidatesQuery };
  GetCandidate: { variables: GetCandidateQueryVariables; data: GetCandidateQuery };
  GetCandidatesByList: { variables: GetCandidatesByListQueryVariables; data: GetCandidatesByListQuery };
  JobMatch: { variables: JobMatchMutationVariables; data: JobMatchMutation };
  OfferToAssist: { variables: OfferToAssistMutationVariables; data: OfferToAssistMutation };
  RegisterCandidate: { variables: RegisterCandidateMutationVariables; data: RegisterCandidateMutation };
  CandidateStatistics: { variables: CandidateStatisticsQueryVariables; data: CandidateStatisticsQuery };
  RunSavedSearch: { variables: RunSavedSearchQueryVariables; data: RunSavedSearchQuery };
  ListSavedLists: { variables: ListSavedListsQueryVariables; data: ListSavedListsQuery };
}

export type VariablesOf<N extends OperationName> = OperationTypes[N]['variables'];
export type DataOf<N extends OperationName> = OperationTypes[N]['data'];

const FRAGMENTS_FILE = 'fragments.graphql';

export interface PersistedOperations {
  /**
   * Runs one operation against the shared schema with the request's context. Resolves with
   * `data`; rejects with the AppError of the core, a BadUserInputError for variables the
   * schema refuses, or (for anything else) the original error, which the edge logs as a 500.
   */
  run<N extends OperationName>(name: N, variables: VariablesOf<N>, context: GraphQLContext): Promise<DataOf<N>>;
  /**
   * The writer of the REST body found at `path` of the operation's data (e.g. `['candidates']`),
   * compiled from its selection: the JSON of withoutNulls, in one pass (shape.ts).
   */
  jsonWriter(name: OperationName, path: readonly string[]): JsonWriter;
  /**
   * The transcoder of the REST body at `path` of a read operation, compiled from its selection
   * (transcoder/compile-transcoder.ts), or why it could not be: that operation then runs on the
   * executor only.
   */
  transcoder(name: OperationName, path: readonly string[]): TranscoderCompilation;
}

/** schema/rest/ beside the SDL. */
export function persistedOperationsDirectory(): string {
  return path.join(schemaDirectory(), 'rest');
}

/**
 * Reads, parses and validates every persisted operation once, at start: an operation that no
 * longer matches the schema stops the start instead of failing requests. Each document holds
 * its operation and exactly the fragments it uses, so requests never parse.
 */
export function loadPersistedOperations(
  schema: GraphQLSchema,
  directory = persistedOperationsDirectory(),
): PersistedOperations {
  const read = (file: string) => fs.readFileSync(path.join(directory, file), 'utf8');
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of parse(read(FRAGMENTS_FILE)).definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) throw new Error(`${FRAGMENTS_FILE} may hold fragments only`);
    fragments.set(definition.name.value, definition);
  }

  // Compiled once here when GRAPHQL_JIT is on, with the executor of the app instance.
  const executor = operationExecutorOf(schema);
  const documents = new Map<OperationName, PreparedOperation>();
  const sources = new Map<OperationName, DocumentNode>();
  for (const [name, file] of Object.entries(OPERATION_FILES) as [OperationName, string][]) {
    const parsed = parse(read(file));
    const operations = parsed.definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    if (operations.length !== 1 || operations[0].name?.value !== name) {
      throw new Error(`schema/rest/${file} must hold exactly one operation, named ${name}`);
    }
    const document: DocumentNode = {
      kind: Kind.DOCUMENT,
      definitions: [...parsed.definitions, ...usedFragments(parsed, fragments)],
    };
    const errors = validate(schema, document);
    if (errors.length > 0) {
      throw new Error(
        `persisted operation ${name} (schema/rest/${file}) is invalid: ${errors.map((e) => e.message).join('; ')}`,
      );
    }
    documents.set(name, executor.prepare(document, name));
    sources.set(name, document);
  }

  return {
    async run<N extends OperationName>(
      name: N,
      variables: VariablesOf<N>,
      context: GraphQLContext,
    ): Promise<DataOf<N>> {
      const operation = documents.get(name);
      if (operation === undefined) throw new Error(`no persisted operation ${name}`);
      const result = await operation(variables, context);
      if (result.errors && result.errors.length > 0) throw firstFailure(result.errors);
      if (!result.data) throw new Error(`persisted operation ${name} returned no data`);
      // The one place the executor's untyped data meets its type: the document was validated
      // against the schema at start, and the type was generated from that same document.
      return result.data as DataOf<N>;
    },
    jsonWriter(name, path) {
      const document = sources.get(name);
      if (document === undefined) throw new Error(`no persisted operation ${name}`);
      return compileJsonWriter(schema, document, name, path);
    },
    transcoder(name, path) {
      const document = sources.get(name);
      if (document === undefined) throw new Error(`no persisted operation ${name}`);
      return compileTranscoder(schema, document, name, path);
    },
  };
}

/** The fragments `document` spreads, transitively, that it does not define itself. */
function usedFragments(
  document: DocumentNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const own = fragmentsOf(document);
  const all = new Map([...fragments, ...own]);
  const roots = document.definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION ? [d.selectionSet] : [],
  );
  // An unknown fragment is left for validation to report.
  return spreadFragmentNames(roots, all).flatMap((name) => {
    const fragment = own.has(name) ? undefined : fragments.get(name);
    return fragment === undefined ? [] : [fragment];
  });
}

/**
 * The error a failed execution stands for. The core's AppErrors come first (a NOT_FOUND beats
 * the nulls it caused); then unexpected errors (a 500 is never hidden behind a 400); then the
 * schema's refusals of variables or scalars, which are the caller's input.
 */
function firstFailure(errors: readonly GraphQLError[]): unknown {
  const originals = errors.map(original);
  const appError = originals.find(isAppError);
  if (appError) return appError;
  const unexpected = errors.find((error, i) => !isClientError(error, originals[i]));
  if (unexpected) return original(unexpected);
  return new BadUserInputError(`Invalid input: ${withoutValues(errors[0].message)}`);
}

function original(error: GraphQLError): unknown {
  let current: unknown = error;
  while (current instanceof GraphQLError && current.originalError !== undefined) current = current.originalError;
  return current;
}

/** Coercion of variables and scalar parsing: graphql-js or our scalars refusing the input. */
function isClientError(error: GraphQLError, cause: unknown): boolean {
  if (!(cause instanceof GraphQLError)) return false;
  return (
    cause.extensions?.code === 'BAD_USER_INPUT' || (error.path === undefined && error.message.startsWith('Variable "$'))
  );
}
