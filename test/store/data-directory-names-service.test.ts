import { makeTempDir } from 'embedded-mongodb/test-support';
import { createApp, type CandidateDirectory } from '../../src/app/main';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { DATA_DIR_NAMES, expectStoreFilesIn } from '../support/data-directory-names';

/**
 * The service (its embedded store a child process, as under `npm start`) on a DATA_DIR named as
 * operators name them; the tools on the same names: data-directory-names.test.ts.
 */
describe.each(DATA_DIR_NAMES)('the service on a DATA_DIR $label', ({ make }) => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: CandidateDirectory | undefined;

  beforeEach(() => {
    temp = makeTempDir('data-dir-names-service');
  });
  afterEach(async () => {
    await app?.stop();
    app = undefined;
    temp.remove();
  });

  test('when the service starts on it, then it serves the demo candidates it stored there', async () => {
    // Arrange
    const dataDir = make(temp.dir);
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', DEMO_CANDIDATES: '2', LOG_LEVEL: 'silent' });

    // Act
    app = await createApp(config, createLogger(config));
    const url = await app.start();
    const answer = await fetch(`${url}/v1/candidates?limit=5&includeEmployed=true`, {
      headers: { 'x-api-key': app.demo!.createdKey! },
    });

    // Assert
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { totalElements: number }).totalElements).toBe(2);
    expectStoreFilesIn(dataDir);
  }, 60_000);
});
