/**
 * Files of `../shared` (MongoDB's specification tests; for the service's tests also the product's
 * REST contract), which sit beside the checkout of the repository in CI but not in a clone of the
 * project alone. A suite that needs them
 * runs when they are there, is skipped with a printed reason when they are not, and fails
 * loudly in CI (CI=true), where their absence means a broken checkout, not a user's clone.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** `../shared` beside the checkout (the repository root is four levels above this file: packages/embedded-mongodb/test/support). */
export const SHARED_DIRECTORY = path.resolve(__dirname, '../../../../../shared');

/** MongoDB's CRUD specification tests (unified format), relative to SHARED_DIRECTORY. */
export const CRUD_SPEC_PATH = 'mongodb-spec/crud';

export function sharedFile(relative: string): string {
  return path.join(SHARED_DIRECTORY, relative);
}

/**
 * Why `suite` cannot run here (`../shared/<relative>` is absent), printed once; undefined when
 * the file is there. Throws under CI=true instead: CI has ../shared, and a skip there would let
 * the suites that need them pass without running.
 */
export function missingShared(relative: string, suite: string): string | undefined {
  const file = sharedFile(relative);
  if (existsSync(file)) return undefined;
  const reason = `${file} is absent (a clone of the project without ../shared beside it)`;
  if (process.env.CI === 'true') {
    throw new Error(
      `${suite}: ${reason}; CI must run this suite, so ../shared has to be checked out beside the project`,
    );
  }
  // Straight to stderr: jest shows no console output of a suite whose tests are all skipped.
  process.stderr.write(`${suite} skipped: ${reason}\n`);
  return reason;
}
