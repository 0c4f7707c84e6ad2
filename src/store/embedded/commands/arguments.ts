import type { Document } from 'bson';
import { CommandError } from '../errors';
import { isPlainObject } from '../engine/path-values';

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function wrongType(field: string, expected: string, value: unknown): CommandError {
  return new CommandError('TypeMismatch', `BSON field '${field}' is the wrong type '${typeName(value)}', expected type '${expected}'`);
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

export function optionalInteger(command: Document, field: string): number | undefined {
  const value = command[field] as unknown;
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'number' ? value : Number((value as { toNumber?: () => number }).toNumber?.() ?? Number.NaN);
  if (!Number.isFinite(number)) throw wrongType(field, 'long', value);
  return Math.trunc(number);
}

export function nonNegativeInteger(command: Document, field: string): number {
  const value = optionalInteger(command, field) ?? 0;
  if (value < 0) throw new CommandError('BadValue', `${field} must be non-negative, not ${value}`);
  return value;
}

/** Options shared by commands that evaluate filters or expressions. */
export function evaluationOptions(command: Document): { collation?: Document; variables?: Document } {
  const collation = optionalDocument(command, 'collation');
  // The "simple" collation is binary comparison, which is what no collation means.
  const effective = collation && collation.locale !== 'simple' ? collation : undefined;
  return { collation: effective, variables: optionalDocument(command, 'let') };
}
