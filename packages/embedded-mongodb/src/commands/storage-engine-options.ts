import type { Document } from 'bson';
import { STORAGE_ENGINE_NAME } from '../engine/catalog';
import { isPlainObject } from '../engine/path-values';
import { CommandError } from '../errors';

/** The options this store's engine takes per collection (`storageEngine: { embedded: {…} }`). */
const ENGINE_OPTIONS: Readonly<Record<string, 'boolean'>> = {
  // No byte of a deleted or replaced document stays on the disk after its commit (secure-space.ts).
  secureDelete: 'boolean',
};

/**
 * Checks `create`'s `storageEngine` as mongod does: one embedded document per storage engine,
 * each engine one this server has (else InvalidOptions, "… is not a registered storage engine
 * for this server"), with options that engine knows. A client sends options of the engine the
 * server names in buildInfo's `storageEngines`.
 */
export function checkStorageEngineOptions(value: unknown): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) throw new CommandError('TypeMismatch', "BSON field 'storageEngine' must be an object");
  for (const [engine, options] of Object.entries(value as Document)) {
    if (!isPlainObject(options))
      throw new CommandError('BadValue', `'storageEngine.${engine}' has to be an embedded document.`);
    if (engine !== STORAGE_ENGINE_NAME)
      throw new CommandError('InvalidOptions', `${engine} is not a registered storage engine for this server`);
    for (const [name, option] of Object.entries(options as Document)) {
      const type = ENGINE_OPTIONS[name];
      if (type === undefined)
        throw new CommandError('InvalidOptions', `unknown option to the ${engine} storage engine: ${name}`);
      if (typeof option !== type)
        throw new CommandError('TypeMismatch', `'storageEngine.${engine}.${name}' must be a ${type}`);
    }
  }
}
