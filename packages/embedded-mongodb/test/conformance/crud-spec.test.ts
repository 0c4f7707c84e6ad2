import { MongoClient } from 'mongodb';
import { externalStoreUri, startStoreUnderTest, type StoreUnderTest } from '../support/store-under-test';
import { skipReason } from './unified/requirements';
import { RefusedAsNotSupported, runSpecTest } from './unified/run-test';
import { EMBEDDED_SERVER_FACTS, probeServerFacts } from './unified/server-facts';
import { CRUD_SPEC_DIRECTORY, SHARED_CRUD_SPEC_DIRECTORY, loadSpecFiles } from './unified/spec-files';
import { Tally } from './unified/tally';
import { CRUD_SPEC_PATH, missingShared } from '../support/shared-files';

/**
 * MongoDB's CRUD specification tests (unified format), run through the official driver against
 * the embedded store, or against the real MongoDB in MONGODB_URI.
 */
// CRUD_SPEC_DIR names its own folder; only the default one is ../shared's.
const specMissing = process.env.CRUD_SPEC_DIR
  ? undefined
  : missingShared(CRUD_SPEC_PATH, 'MongoDB CRUD specification tests');
const external = externalStoreUri();
const server = external ? probeServerFacts(external) : EMBEDDED_SERVER_FACTS;
const tally = new Tally();

let store: StoreUnderTest;
let internal: MongoClient;

beforeAll(async () => {
  store = await startStoreUnderTest();
  internal = await MongoClient.connect(store.uri);
});

afterAll(async () => {
  await internal?.close();
  await store?.stop();
  console.log(tally.report('CRUD spec', external ? 'the MongoDB in MONGODB_URI' : 'the embedded store'));
});

if (specMissing) test.skip(`CRUD specification tests (skipped: ${specMissing})`, () => undefined);

for (const file of specMissing ? [] : loadSpecFiles()) {
  describe(file.fileName, () => {
    for (const test of file.tests) {
      const name = `${file.fileName}: ${test.description}`;
      const reason = skipReason(file, test, server);
      if (reason) {
        tally.skip(name, reason);
        it.skip(`${test.description} (skipped: ${reason})`, () => undefined);
        continue;
      }
      it(test.description, async () => {
        try {
          await runSpecTest(store.uri, internal, file, test);
          tally.passed++;
        } catch (error) {
          if (error instanceof RefusedAsNotSupported) {
            tally.refuse(name, error.message);
            return;
          }
          tally.failed++;
          throw error;
        }
      });
    }
  });
}

describe('the runner', () => {
  it('when it reads the server version, then it is the one the skips were decided on', async () => {
    const buildInfo = await internal.db('admin').command({ buildInfo: 1 });
    expect(String(buildInfo.version).split('.').map(Number).slice(0, 3)).toEqual(server.version.slice(0, 3));
  });

  // Runs after every spec test (jest runs describe blocks in order). A refusal is acceptable in
  // the whole CRUD suite (CRUD_SPEC_DIR), but everything the files in ../shared use is supported.
  const shared = CRUD_SPEC_DIRECTORY === SHARED_CRUD_SPEC_DIRECTORY && !specMissing;
  (shared ? it : it.skip)(
    shared
      ? 'when the spec files of ../shared have run, then the server refused none of them as not supported'
      : `when the spec files of ../shared have run, then none was refused (skipped: ${specMissing ?? `CRUD_SPEC_DIR points at ${CRUD_SPEC_DIRECTORY}`})`,
    () => {
      expect(tally.refused).toEqual([]);
    },
  );
});
