import type { Document } from 'bson';
import { CommandError } from '../errors';
import { evaluateLetVariables } from '../engine/aggregation';
import { isNumber } from '../engine/bson-types';
import { isPlainObject } from '../engine/path-values';
import { toNumber } from '../engine/value-order';

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function wrongType(field: string, expected: string, value: unknown): CommandError {
  return new CommandError(
    'TypeMismatch',
    `BSON field '${field}' is the wrong type '${typeName(value)}', expected type '${expected}'`,
  );
}

/** The collection a command names in its first field. */
export function collectionArgument(command: Document, field: string): string {
  const name = command[field] as unknown;
  if (typeof name !== 'string' || name.length === 0) {
    throw new CommandError('InvalidNamespace', `collection name has invalid type ${typeName(name)}`);
  }
  return name;
}

export function optionalDocument(command: Document, field: string): Document | undefined {
  const value = command[field] as unknown;
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw wrongType(field, 'object', value);
  return value;
}

export function requiredArray(command: Document, field: string): unknown[] {
  const value = command[field] as unknown;
  if (!Array.isArray(value)) throw wrongType(field, 'array', value);
  return value;
}

/**
 * A flag as mongod's command parsers read it (IDL `safeBool`): a boolean, or a number, true when
 * not zero. `qualified` names the field in the error (`findAndModify.remove`).
 */
export function optionalFlag(command: Document, field: string, qualified = field): boolean {
  const value = command[field] as unknown;
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (isNumber(value)) return toNumber(value) !== 0;
  throw new CommandError(
    'TypeMismatch',
    `BSON field '${qualified}' is the wrong type '${typeName(value)}', expected types '[bool, long, int, decimal, double]'`,
  );
}

export function optionalInteger(command: Document, field: string): number | undefined {
  const value = command[field] as unknown;
  if (value === undefined || value === null) return undefined;
  const number =
    typeof value === 'number' ? value : Number((value as { toNumber?: () => number }).toNumber?.() ?? Number.NaN);
  if (!Number.isFinite(number)) throw wrongType(field, 'long', value);
  return Math.trunc(number);
}

export function nonNegativeInteger(command: Document, field: string): number {
  const value = optionalInteger(command, field) ?? 0;
  if (value < 0) throw new CommandError('BadValue', `${field} must be non-negative, not ${value}`);
  return value;
}

/**
 * A command's `collation`. The simple collation (binary comparison) is what no collation means;
 * any other is refused, because filters, sorts, distinct and unique indexes would all compare
 * strings binarily and answer differently from MongoDB.
 */
export function assertSimpleCollation(command: Document, field = 'collation'): void {
  const collation = optionalDocument(command, field);
  if (collation && collation.locale !== 'simple') {
    throw new CommandError(
      'CommandNotSupported',
      `the embedded store supports only the simple collation, not locale '${String(collation.locale)}'`,
    );
  }
}

/** Options shared by commands that evaluate filters or expressions. */
export function evaluationOptions(command: Document): { variables?: Document } {
  assertSimpleCollation(command);
  const variables = optionalDocument(command, 'let');
  return variables ? { variables: evaluateLetVariables(variables) } : {};
}
