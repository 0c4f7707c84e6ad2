/**
 * graphql-http's `serverAudits`: the audits of the GraphQL-over-HTTP specification, run
 * against the real /graphql (with an API key, as every client sends one). Every MUST passes;
 * SHOULD and MAY audits are recommendations and are not asserted.
 */
import { serverAudits, type AuditResult } from 'graphql-http';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';

let service: AppUnderTest;
let results: AuditResult[];

beforeAll(async () => {
  service = await startAppUnderTest({ candidates: 3 });
  const key = await service.key('READ_CANDIDATE_DATA');
  const withKey: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-api-key': key } });
  results = [];
  for (const audit of serverAudits({ url: `${service.url}/graphql`, fetchFn: withKey })) results.push(await audit.fn());
});

afterAll(async () => {
  await service.stop();
});

describe('GraphQL over HTTP (graphql-http serverAudits)', () => {
  test('when the audits run, then there are MUST audits among them', () => {
    expect(results.filter((result) => result.name.startsWith('MUST')).length).toBeGreaterThan(10);
  });

  test('when every MUST audit of the specification runs against /graphql, then each passes', () => {
    const failed = results
      .filter((result) => result.name.startsWith('MUST') && result.status !== 'ok')
      .map((result) => `${result.name}: ${'reason' in result ? result.reason : ''}`);

    expect(failed).toEqual([]);
  });
});
