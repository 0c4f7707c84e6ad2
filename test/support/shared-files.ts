/**
 * Files of `../shared` for the service's tests: the embedded store's support (missingShared,
 * sharedFile) plus the product's REST contract and a describe that skips with the reason.
 */
export { CRUD_SPEC_PATH, missingShared, SHARED_DIRECTORY, sharedFile } from 'embedded-mongodb/test-support';

/** The product's REST contract (a file of the shared folder named seed/), relative to SHARED_DIRECTORY. */
export const CONTRACT_PATH = 'seed/000_c5a116db02a6af1f.txt';

/**
 * `describe` when nothing is missing (`reason` undefined, see missingShared); otherwise a
 * describe whose body is never called (it would read the missing files) holding one skipped
 * test named with the reason.
 */
export function describeUnlessMissing(reason: string | undefined): (title: string, body: () => void) => void {
  if (reason === undefined) return describe;
  return (title) =>
    describe(title, () => {
      test.skip(`(skipped: ${reason})`, () => undefined);
    });
}
