import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** An operator's tool (`npm run <tool> -- ...`) from sources, as its own process, on `dataDir`. */
async function tool(file: string, args: readonly string[], dataDir: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'error' },
  });
  return stdout;
}

function get(service: ServiceProcess, route: string, key: string): Promise<Response> {
  return fetch(`${service.url}${route}`, { headers: { 'x-api-key': key } });
}

/**
 * The operator's tools while `npm start` runs on the same DATA_DIR: they connect to the
 * service's store (it publishes its address) instead of refusing, and the service sees what
 * they wrote on the next request (the shared read epoch), with no restart.
 */
describe('operator tools beside the running service', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-beside-'));
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, DEMO_CANDIDATES: '30', LOG_LEVEL: 'info' }, 60_000);
  }, 90_000);

  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when an operator creates a key with the keys tool while the service runs, then the service accepts that key at once', async () => {
    // Arrange
    const before = await get(service, '/v1/candidates', 'x'.repeat(43));

    // Act
    const key = (
      await tool('src/cli/keys.ts', ['create', '--name', 'partner', '--permissions', 'READ_CANDIDATE_DATA'], dataDir)
    ).trim();
    const after = await get(service, '/v1/candidates', key);

    // Assert
    expect(before.status).toBe(401);
    expect(key).toMatch(/^cdk_[A-Za-z0-9_-]{43}$/);
    expect(after.status).toBe(200);
  }, 60_000);

  test('when an operator erases a candidate with the erase tool while the service runs, then the service answers 404 for it at once', async () => {
    // Arrange
    const key = service.key!;
    const page = (await (await get(service, '/v1/candidates?limit=1', key)).json()) as {
      content: { publicId: string }[];
    };
    const [{ publicId }] = page.content;
    const before = await get(service, `/v1/candidates/${publicId}`, key);

    // Act
    const said = await tool('src/cli/erase.ts', [publicId], dataDir);
    const after = await get(service, `/v1/candidates/${publicId}`, key);

    // Assert
    expect(before.status).toBe(200);
    expect(said).toContain(`Erased ${publicId}`);
    expect(after.status).toBe(404);
  }, 60_000);
  test('when an operator imports candidates with the import tool while the service runs, then the service answers the imported candidate and the change feed shows its import', async () => {
    // Arrange
    const key = service.key!;
    const page = (await (await get(service, '/v1/candidates?limit=1', key)).json()) as {
      content: { publicId: string }[];
    };
    const [{ publicId }] = page.content;
    const line = (await (await get(service, `/v1/candidates/${publicId}`, key)).text()).replace(
      `"publicId":"${publicId}"`,
      '"publicId":"importedBesideService1"',
    );
    const file = path.join(dataDir, '..', `${path.basename(dataDir)}-import.ndjson`);
    fs.writeFileSync(file, `${line}\n`);

    // Act
    const said = await tool('src/cli/import.ts', [file], dataDir);
    const after = await get(service, '/v1/candidates/importedBesideService1', key);
    const feed = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query: '{ candidateChanges(first: 100) { edges { node { kind publicId } } } }' }),
    });
    fs.rmSync(file, { force: true });

    // Assert
    expect(said).toMatch(/^Imported: 1 inserted, 0 updated, 0 unchanged, 0 refused/);
    expect(after.status).toBe(200);
    expect(await after.text()).toBe(line);
    const { data } = (await feed.json()) as {
      data: { candidateChanges: { edges: { node: { kind: string; publicId: string } }[] } };
    };
    expect(data.candidateChanges.edges.map(({ node }) => node)).toContainEqual({
      kind: 'IMPORTED',
      publicId: 'importedBesideService1',
    });
  }, 60_000);
});
