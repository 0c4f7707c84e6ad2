import type { Document } from 'bson';
import { MingoError } from 'mingo/util';

/** MongoDB server error codes the store reports, with the code names MongoDB pairs them with. */
export const ErrorCode = {
  InternalError: 1,
  BadValue: 2,
  NoSuchKey: 4,
  FailedToParse: 9,
  Overflow: 15,
  TypeMismatch: 14,
  Unauthorized: 13,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CursorNotFound: 43,
  NamespaceExists: 48,
  DollarPrefixedFieldName: 52,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  WriteConflict: 112,
  CommandNotSupported: 115,
  ConflictingOperationInProgress: 117,
  CannotBuildIndexKeys: 166,
  CannotIndexParallelArrays: 171,
  TransactionTooOld: 225,
  NoSuchTransaction: 251,
  TransactionCommitted: 256,
  OperationNotSupportedInTransaction: 263,
  NoQueryExecutionPlans: 291,
  DuplicateKey: 11000,
  /** MongoDB 4.0's refusal of an index key over its limit; this store's engine has one too (4 KB). */
  KeyTooLong: 17280,
  /** A document's language override field is not a string (text indexes). */
  Location17261: 17261,
  /** A document's language override names a language text indexes do not know. */
  Location17262: 17262,
  /** `$match` with `$text` elsewhere than first in a pipeline. */
  Location17313: 17313,
  /** `{$meta: 'textScore'}` asked of a query without `$text`. */
  Location40218: 40218,
  UnrecognizedPipelineStage: 40324,
  /** MongoDB's reply to a field its command parser does not know ("BSON field '…' is an unknown field"). */
  Location40415: 40415,
  ConflictingUpdateOperators: 40,
  NotSingleValueField: 54,
  QueryFeatureNotAllowed: 224,
  /** An aggregation expression object naming an operator and more fields. */
  Location15983: 15983,
  /** A field name starting with '$' in an aggregation expression object. */
  Location16410: 16410,
  /** Regular expression flags given both in `$regex` and in `$options`. */
  Location51074: 51074,
  Location51075: 51075,
  /** A regular expression pattern the engine cannot compile. */
  Location51091: 51091,
  /** A regular expression flag mongod does not know. */
  Location51108: 51108,
  /** A regular expression pattern holding a null byte. */
  Location51109: 51109,
  /** A filter path with more parts than documents may nest. */
  Location5729100: 5729100,
  /** A field path of more than 255 parts. */
  Location10396001: 10396001,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;

const codeNames = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** An error a command answers with `ok: 0`; the shape the MongoDB driver turns into a MongoServerError. */
export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;

  constructor(
    codeName: ErrorCodeName,
    message: string,
    /** Extra reply fields MongoDB sends with this error (keyPattern and keyValue for duplicate keys). */
    readonly details: Document = {},
  ) {
    super(message);
    this.name = 'CommandError';
    this.code = ErrorCode[codeName];
    this.codeName = codeNames.get(this.code) ?? codeName;
  }

  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.details };
  }

  /** The entry of a write command's `writeErrors` array for the statement at `index`. */
  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.details };
  }
}

/**
 * Converts whatever a command threw into a CommandError. mingo rejects bad operators and
 * expressions with MingoError, which is the client's mistake (BadValue); anything else is ours.
 */
export function asCommandError(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  if (error instanceof MingoError && error.message.startsWith('Expression must contain a single operator'))
    return new CommandError(
      'Location15983',
      'an expression specification must contain exactly one field, the name of the expression',
    );
  if (error instanceof MingoError) return new CommandError('BadValue', error.message);
  return new CommandError('InternalError', error instanceof Error ? error.message : String(error));
}
