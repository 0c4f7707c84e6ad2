/**
 * The worked examples of the partner and client docs, taken from the pages themselves and run
 * against the service on the quick start's demo data (2,000 candidates, seed 1), as a new partner
 * would run them: every REST route's request succeeds, and the employer's question is answered
 * in one request on REST, on GraphQL and by the playground's pre-filled query, with the
 * candidate the pages name.
 *
 * Only the candidates the examples can reach are stored (every nurse in Jordan or Lebanon, the
 * saved list's members, the candidates named, every holder of the keyword), each exactly as the
 * quick start stores it: a filter is a predicate on one candidate, so the answers are the quick
 * start's, at a fraction of the cost of storing all 2,000.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateDemoData } from 'demo-data';
import type { CandidateDoc } from 'candidate-documents';
import { shippedDemoReference } from '../../src/app/demo-reference';
import { DEFAULT_QUERY } from '../../src/graphql/playground';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { TestClock } from '../support/test-clock';

const ROOT = path.resolve(__dirname, '../..');
const REST_PAGE = fs.readFileSync(path.join(ROOT, 'docs/partners-rest.md'), 'utf8');
const GRAPHQL_PAGE = fs.readFileSync(path.join(ROOT, 'docs/graphql-clients.md'), 'utf8');

/** The one candidate of the quick start's data that answers the employer's question, as the pages say. */
const ANSWER = 'bczUudnCS0-YmrNpXmFmKg';
/** The other candidate of the job-match example, and the saved list of the by-list example. */
const ALSO_NAMED = 'FD7ySU64S960J0YnbZNg_Q';
const SAVED_LIST = 'nJK3Xw9NTbadisPaXEoF-w';
/** Ages count from the current year; the pages were written for 2026. */
const clock = new TestClock('2026-06-15T09:00:00Z');

/** The fenced blocks of a language in a page section (from its heading to the next of its level or higher). */
function blocks(page: string, language: string, heading?: string): string[] {
  let text = page;
  if (heading !== undefined) {
    const start = page.indexOf(heading);
    if (start < 0) throw new Error(`no section "${heading}"`);
    const level = /^#+/.exec(heading)?.[0] ?? '#';
    const next = page.slice(start + heading.length).search(new RegExp(`^#{1,${level.length}} `, 'm'));
    text = page.slice(start, next < 0 ? undefined : start + heading.length + next);
  }
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]);
}

/** The curl commands of `sh` blocks, split as sh splits words (quotes may span lines), variables expanded. */
function curlCommands(page: string, variables: Record<string, string>): string[][] {
  const expand = (word: string) => word.replace(/\$(KEY|BASE)\b/g, (_, name: string) => variables[name]);
  const commands: string[][] = [];
  for (const block of blocks(page, 'sh')) {
    for (const match of block.replace(/\\\n\s*/g, ' ').matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
      const word = match[1] ?? expand((match[2] ?? match[3]).replace(/\\(.)/g, '$1'));
      if (match[3] === 'curl') commands.push([]);
      else commands.at(-1)?.push(word);
    }
  }
  return commands;
}

/** What curl sends for these arguments (-H, -d, -G with --data-urlencode, the URL). */
async function curl(args: string[]): Promise<{ request: string; status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  const query: string[] = [];
  let body: string | undefined;
  let url = '';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-H') {
      const [name, ...value] = args[++i].split(':');
      headers[name.trim().toLowerCase()] = value.join(':').trim();
    } else if (args[i] === '-d') body = args[++i];
    else if (args[i] === '--data-urlencode') {
      const [name, ...value] = args[++i].split('=');
      query.push(`${name}=${encodeURIComponent(value.join('='))}`);
    } else if (args[i] !== '-G') url = args[i];
  }
  if (query.length > 0) url += (url.includes('?') ? '&' : '?') + query.join('&');
  const response = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, body });
  return {
    request: `${body === undefined ? 'GET' : 'POST'} ${new URL(url).pathname}`,
    status: response.status,
    body: await response.json(),
  };
}

const idsOf = (page: { content: { publicId: string }[] }) => page.content.map((candidate) => candidate.publicId);

describe('the worked examples of docs/partners-rest.md and docs/graphql-clients.md, on the quick start data', () => {
  let service: AppUnderTest;
  let key: string;

  beforeAll(async () => {
    const quickStart = generateDemoData({ candidates: 2000, seed: 1, reference: shippedDemoReference() });
    const members = new Set(quickStart.savedLists.find((list) => list.publicId === SAVED_LIST)?.candidatePublicIds);
    const reachable = (c: CandidateDoc) =>
      (['JO', 'LB'].includes(c.countryIsoCode ?? '') &&
        (c.candidateOccupations ?? []).some((o) => o.occupation?.isco08Code === '2221')) ||
      members.has(c.publicId) ||
      [ANSWER, ALSO_NAMED].includes(c.publicId) ||
      /intensive care|ventilat/i.test(
        JSON.stringify([c.candidateOccupations, c.candidateSkills, c.candidateCertifications, c.candidateEducations]),
      );
    const candidates = quickStart.candidates.filter(reachable);
    service = await startAppUnderTest({
      clock,
      documents: {
        jobOpportunities: () => quickStart.jobOpportunities,
        candidates: () => candidates,
        candidateCount: candidates.length,
        savedLists: () => quickStart.savedLists.filter((list) => list.publicId === SAVED_LIST),
      },
    });
    key = await service.key(
      'READ_CANDIDATE_DATA',
      'SUBMIT_JOB_MATCHES',
      'OFFER_CANDIDATE_SERVICES',
      'REGISTER_CANDIDATES',
    );
  });

  afterAll(async () => {
    await service?.stop();
  });

  it("when the employer's question is asked with the contract's filters only, then the page says how many a partner would sift (17)", async () => {
    const response = await fetch(`${service.url}/v1/candidates?location=JO,LB&occupation=2221`, {
      headers: { 'x-api-key': key },
    });

    expect(((await response.json()) as { totalElements: number }).totalElements).toBe(17);
    expect(REST_PAGE).toMatch(/17 candidates are nurses in Jordan or Lebanon/);
  });

  it("when the GraphQL page's query is run with its variables, then it answers the employer's question with the same candidate", async () => {
    const query = blocks(GRAPHQL_PAGE, 'graphql').find((block) => block.includes('EmployersQuestion')) as string;
    const variables = JSON.parse(
      blocks(GRAPHQL_PAGE, 'json', "### Search: an employer's question in one request")[0],
    ) as Record<string, unknown>;

    const { status, body } = await graphql<{ candidates: { content: { publicId: string }[] } }>(
      service.url,
      query,
      variables,
      key,
    );

    expect([status, body.errors]).toEqual([200, undefined]);
    expect(idsOf(body.data!.candidates)).toEqual([ANSWER]);
  });

  it("when the playground's pre-filled query is run, then it asks the employer's question and answers it", async () => {
    const { status, body } = await graphql<{ candidates: { content: { publicId: string }[] } }>(
      service.url,
      DEFAULT_QUERY,
      {},
      key,
    );

    expect([status, body.errors]).toEqual([200, undefined]);
    expect(idsOf(body.data!.candidates)).toEqual([ANSWER]);
  });

  it("when the GraphQL page's ranked keyword search is run, then the best match holds the phrase", async () => {
    const query = blocks(GRAPHQL_PAGE, 'graphql').find((block) => block.includes('RELEVANCE')) as string;

    const { status, body } = await graphql<{
      candidatesConnection: { totalCount: number; edges: { node: Record<string, unknown> }[] };
    }>(service.url, query, {}, key);

    expect([status, body.errors]).toEqual([200, undefined]);
    expect(body.data!.candidatesConnection.totalCount).toBeGreaterThan(0);
    expect(JSON.stringify(body.data!.candidatesConnection.edges[0].node).toLowerCase()).toContain('intensive care');
  });

  it('when every curl command of the REST page is run in order (last: it registers a nurse in Jordan), then each route answers it with success', async () => {
    const commands = curlCommands(REST_PAGE, { KEY: key, BASE: service.url });

    const answers = [];
    for (const command of commands) answers.push(await curl(command));

    expect(answers.map(({ request, status }) => `${request} ${status}`)).toEqual([
      'GET /v1/candidates 200',
      'GET /v1/candidates 200',
      `GET /v1/candidates/${ANSWER} 200`,
      `GET /v1/candidates/by-list/${SAVED_LIST} 200`,
      'POST /v1/candidates/job-match 201',
      'POST /v1/candidates/offer-to-assist 201',
      'POST /v1/candidates/register 201',
    ]);
    expect(idsOf(answers[0].body as never)).toEqual([ANSWER]);
    expect((answers[1].body as { totalElements: number }).totalElements).toBeGreaterThan(0);
  });
});
