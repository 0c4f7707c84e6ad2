import fs from 'node:fs';
import path from 'node:path';
import { EJSON, type Document } from 'bson';
import { CRUD_SPEC_PATH, sharedFile } from '../../support/shared-files';

/** Types of the unified test format (the parts the CRUD files use). */
export interface RunOnRequirement {
  readonly minServerVersion?: string;
  readonly maxServerVersion?: string;
  readonly topologies?: readonly string[];
  readonly serverless?: 'require' | 'forbid' | 'allow';
  readonly serverParameters?: Document;
  readonly auth?: boolean;
  readonly csfle?: boolean;
}

export interface CollectionData {
  readonly collectionName: string;
  readonly databaseName: string;
  readonly createOptions?: Document;
  readonly documents: Document[];
}

export interface Operation {
  readonly name: string;
  readonly object: string;
  readonly arguments?: Document;
  readonly expectResult?: unknown;
  readonly expectError?: Document;
  readonly saveResultAsEntity?: string;
  readonly ignoreResultAndError?: boolean;
}

export interface SpecTest {
  readonly description: string;
  readonly runOnRequirements?: readonly RunOnRequirement[];
  readonly skipReason?: string;
  readonly operations: readonly Operation[];
  readonly outcome?: readonly CollectionData[];
}

export interface SpecFile {
  readonly fileName: string;
  readonly description: string;
  readonly schemaVersion: string;
  readonly runOnRequirements?: readonly RunOnRequirement[];
  readonly createEntities?: readonly Document[];
  readonly initialData?: readonly CollectionData[];
  readonly tests: readonly SpecTest[];
}

/**
 * The spec folder sits beside the checkout in ../shared (see ../shared/mongodb-spec/README.md).
 * CRUD_SPEC_DIR points the runner at another folder of unified-format CRUD files, such as the
 * whole `source/crud/tests/unified` of a specifications checkout, for a check outside the
 * committed suite.
 */
export const SHARED_CRUD_SPEC_DIRECTORY = sharedFile(CRUD_SPEC_PATH);
export const CRUD_SPEC_DIRECTORY = process.env.CRUD_SPEC_DIR
  ? path.resolve(process.env.CRUD_SPEC_DIR)
  : SHARED_CRUD_SPEC_DIRECTORY;

/** Highest schema version this runner understands (same major version only). */
const SUPPORTED_SCHEMA = [1, 21];

export function isSupportedSchema(version: string): boolean {
  const [major, minor = 0] = version.split('.').map(Number);
  return major === SUPPORTED_SCHEMA[0] && minor <= SUPPORTED_SCHEMA[1];
}

/** Loads every spec file; values are parsed as relaxed Extended JSON, as the format requires. */
export function loadSpecFiles(directory = CRUD_SPEC_DIRECTORY): SpecFile[] {
  return fs
    .readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((fileName) => ({
      fileName,
      ...(EJSON.parse(fs.readFileSync(path.join(directory, fileName), 'utf8'), { relaxed: true }) as Omit<
        SpecFile,
        'fileName'
      >),
    }));
}
