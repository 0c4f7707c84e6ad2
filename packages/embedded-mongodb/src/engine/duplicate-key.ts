import type { Document } from 'bson';
import { CommandError } from '../errors';
import type { IndexSpec } from './index-spec';

/** Renders a value the way MongoDB prints it inside an E11000 message. */
function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`;
  const bsonType = (value as { _bsontype?: string })._bsontype;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- every BSON class (ObjectId, Long, Decimal128...) prints itself
  if (bsonType === 'ObjectId') return `ObjectId('${String(value)}')`;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as above
  if (bsonType !== undefined) return String(value);
  const entries = Object.entries(value as Document).map(([k, v]) => `${k}: ${formatValue(v)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

/** MongoDB's duplicate key error, with the keyPattern and keyValue drivers expose. */
export function duplicateKeyError(namespace: string, spec: IndexSpec, key: readonly unknown[]): CommandError {
  const keyValue: Document = {};
  spec.fields.forEach((field, i) => {
    keyValue[field.path] = key[i];
  });
  const shown = spec.fields.map((field, i) => `${field.path}: ${formatValue(key[i])}`).join(', ');
  return new CommandError(
    'DuplicateKey',
    `E11000 duplicate key error collection: ${namespace} index: ${spec.name} dup key: { ${shown} }`,
    {
      keyPattern: spec.key,
      keyValue,
    },
  );
}
