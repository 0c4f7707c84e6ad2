import type { Document } from 'bson';
import { MongoServerError, type MongoClient } from 'mongodb';
import { matchExactly, matchValue, MatchError } from './matcher';
import { EntityMap, executeOperation } from './operations';
import { isSupportedSchema, type CollectionData, type Operation, type SpecFile, type SpecTest } from './spec-files';

const MAJORITY = { writeConcern: { w: 'majority' } } as const;

/** MongoDB's code for a command or option the server does not support (CommandNotSupported). */
const COMMAND_NOT_SUPPORTED = 115;

/**
 * A test the server declined with a clear "not supported" error: an acceptable outcome (the
 * operation gave no wrong answer), counted apart from passes and failures.
 */
export class RefusedAsNotSupported extends Error {
  constructor(operation: string, message: string) {
    super(`${operation}: ${message}`);
    this.name = 'RefusedAsNotSupported';
  }
}

/** Whether the server refused the command, or a statement of a bulk write, as not supported. */
function isNotSupported(error: unknown): boolean {
  if (!(error instanceof MongoServerError)) return false;
  if (error.code === COMMAND_NOT_SUPPORTED) return true;
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  return (
    Array.isArray(writeErrors) &&
    writeErrors.some((writeError: { code?: unknown }) => writeError.code === COMMAND_NOT_SUPPORTED)
  );
}

/** initialData: drop each collection, then create it or fill it, through the internal client. */
async function loadInitialData(internal: MongoClient, data: readonly CollectionData[]): Promise<void> {
  for (const { databaseName, collectionName, createOptions, documents } of data) {
    const db = internal.db(databaseName);
    await db
      .collection(collectionName)
      .drop(MAJORITY)
      .catch(() => undefined);
    if (createOptions) await db.createCollection(collectionName, { ...createOptions, ...MAJORITY });
    if (documents.length > 0) await db.collection(collectionName).insertMany(documents, MAJORITY);
    else if (!createOptions) await db.createCollection(collectionName, MAJORITY);
  }
}

function checkError(operation: Operation, error: unknown, entities: EntityMap): void {
  const expected = operation.expectError!;
  const path = `${operation.name} error`;
  const serverError = error instanceof MongoServerError;
  const err = error as Document & Error;
  if (expected.isClientError === true && serverError)
    throw new MatchError(path, `expected a client error, got server error ${err.message}`);
  if (expected.isClientError === false && !serverError)
    throw new MatchError(path, `expected a server error, got ${String(error)}`);
  if (
    typeof expected.errorContains === 'string' &&
    !err.message.toLowerCase().includes(expected.errorContains.toLowerCase())
  ) {
    throw new MatchError(path, `message "${err.message}" lacks "${expected.errorContains}"`);
  }
  if (expected.errorCode !== undefined && err.code !== expected.errorCode)
    throw new MatchError(path, `code ${String(err.code)}, expected ${String(expected.errorCode)}`);
  if (expected.errorCodeName !== undefined && err.codeName !== expected.errorCodeName) {
    throw new MatchError(path, `codeName ${String(err.codeName)}, expected ${String(expected.errorCodeName)}`);
  }
  const labels = (name: string): boolean =>
    typeof err.hasErrorLabel === 'function' && (err.hasErrorLabel as (l: string) => boolean)(name);
  for (const label of (expected.errorLabelsContain as string[] | undefined) ?? []) {
    if (!labels(label)) throw new MatchError(path, `missing error label ${label}`);
  }
  for (const label of (expected.errorLabelsOmit as string[] | undefined) ?? []) {
    if (labels(label)) throw new MatchError(path, `unexpected error label ${label}`);
  }
  if (expected.errorResponse !== undefined)
    matchValue(expected.errorResponse, err.errorResponse ?? err, `${path}.errorResponse`, { root: true });
  // For bulk write errors, expectResult describes the partial result the error carries.
  if (expected.expectResult !== undefined) {
    matchValue(expected.expectResult, err.result, `${path}.result`, { root: true, entities: entities.asMap() });
  }
}

async function runOperation(operation: Operation, entities: EntityMap): Promise<void> {
  let result: Awaited<ReturnType<typeof executeOperation>>;
  try {
    result = await executeOperation(entities, operation.name, operation.object, operation.arguments);
  } catch (error) {
    if (isNotSupported(error) && operation.expectError?.errorCode !== COMMAND_NOT_SUPPORTED) {
      throw new RefusedAsNotSupported(operation.name, (error as Error).message);
    }
    if (operation.ignoreResultAndError) return;
    if (error instanceof MatchError || !operation.expectError) throw error;
    checkError(operation, error, entities);
    return;
  }
  if (operation.ignoreResultAndError) return;
  if (operation.expectError)
    throw new MatchError(operation.name, `expected an error, got ${JSON.stringify(result.value)}`);
  if (operation.expectResult !== undefined) {
    matchValue(operation.expectResult, result.value, operation.name, {
      root: true,
      rootElements: result.rootElements,
      entities: entities.asMap(),
    });
  }
  if (operation.saveResultAsEntity) entities.set(operation.saveResultAsEntity, result.value);
}

/** outcome: each collection must hold exactly the expected documents (read sorted by _id). */
async function checkOutcome(internal: MongoClient, outcome: readonly CollectionData[]): Promise<void> {
  for (const { databaseName, collectionName, documents } of outcome) {
    const actual = await internal
      .db(databaseName)
      .collection(collectionName)
      .find({}, { sort: { _id: 1 }, readPreference: 'primary', readConcern: { level: 'local' } })
      .toArray();
    matchExactly(documents, actual, `outcome ${databaseName}.${collectionName}`);
  }
}

/** Runs one spec test: set up data, create entities, run operations, check the outcome. */
export async function runSpecTest(uri: string, internal: MongoClient, file: SpecFile, test: SpecTest): Promise<void> {
  if (!isSupportedSchema(file.schemaVersion)) throw new Error(`unsupported schemaVersion ${file.schemaVersion}`);
  if (file.initialData) await loadInitialData(internal, file.initialData);
  const entities = EntityMap.create(uri, file.createEntities ?? []);
  try {
    for (const operation of test.operations) await runOperation(operation, entities);
  } finally {
    await entities.close();
  }
  if (test.outcome) await checkOutcome(internal, test.outcome);
}
