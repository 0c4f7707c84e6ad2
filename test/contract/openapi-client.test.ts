/**
 * A REST client generated from /openapi.json (openapi-typescript types, committed in
 * test/support/generated/openapi.d.ts and held to the document by `npm run openapi:types`,
 * checked here; openapi-fetch as the client), as partners generate one, against the real
 * service: the operations, their parameters and their answers, problem answers included, are
 * what the generated types say.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import type { paths } from '../support/generated/openapi';
import { OPENAPI_FILE } from '../support/openapi-validator';

const GENERATED = path.resolve(__dirname, '../support/generated/openapi.d.ts');
const OPENAPI_TYPESCRIPT = path.resolve(__dirname, '../../node_modules/openapi-typescript/bin/cli.js');
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  let service: AppUnderTest;
  let reader: string;
  let matcher: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 12, seed: 9 });
    reader = await service.key('READ_CANDIDATE_DATA');
    matcher = await service.key('SUBMIT_JOB_MATCHES');
  });

  afterAll(async () => {
    await service.stop();
  });

  const clientOf = (key?: string) =>
    createClient<paths>({ baseUrl: service.url, headers: key ? { 'x-api-key': key } : {} });

  test('when the types are generated again from the document, then they equal the committed ones (else: npm run openapi:types)', async () => {
    await expect(
      promisify(execFile)(process.execPath, [OPENAPI_TYPESCRIPT, OPENAPI_FILE, '-o', GENERATED, '--check']),
    ).resolves.toBeDefined();
  });

  test('when the client searches with typed query parameters and fetches a result by its path parameter, then it gets typed pages and candidates', async () => {
    const client = clientOf(reader);

    const page = await client.GET('/v1/candidates', {
      params: { query: { limit: 5, page: 0, includeEmployed: true } },
    });
    const first = page.data!.content[0];
    const one = await client.GET('/v1/candidates/{publicId}', { params: { path: { publicId: first.publicId } } });

    expect(page.response.status).toBe(200);
    expect(page.data!.totalElements).toBe(12);
    expect(page.data!.content).toHaveLength(5);
    expect(one.response.status).toBe(200);
    expect(one.data).toEqual(
      expect.objectContaining({ publicId: first.publicId, status: first.status, country: first.country }),
    );
  });

  test('when the service answers with a problem (404, 401, 400), then the client gets it as the typed error, a Problem', async () => {
    const missing = await clientOf(reader).GET('/v1/candidates/{publicId}', {
      params: { path: { publicId: UNKNOWN_ID } },
    });
    const anonymous = await clientOf().GET('/v1/candidates', {});
    const bad = await clientOf(reader).GET('/v1/candidates', { params: { query: { limit: 1000 } } });
    const badBody = await clientOf(matcher).POST('/v1/candidates/job-match', { body: { candidates: [] } });

    expect(
      [missing, anonymous, bad, badBody].map(({ response, error }) => [
        response.status,
        error?.status,
        response.headers.get('content-type'),
      ]),
    ).toEqual([
      [404, 404, expect.stringContaining('application/problem+json')],
      [401, 401, expect.stringContaining('application/problem+json')],
      [400, 400, expect.stringContaining('application/problem+json')],
      [400, 400, expect.stringContaining('application/problem+json')],
    ]);
    expect(missing.error).toEqual(
      expect.objectContaining({ type: expect.stringMatching(/not-found$/), title: expect.any(String) }),
    );
  });

  test('when a job match names an unknown candidate, then the typed 404 problem comes back and nothing is recorded', async () => {
    const answer = await clientOf(matcher).POST('/v1/candidates/job-match', {
      body: { candidates: [{ publicId: UNKNOWN_ID }] },
    });

    expect(answer.response.status).toBe(404);
    expect(answer.error?.status).toBe(404);
    expect(answer.data).toBeUndefined();
  });
});
