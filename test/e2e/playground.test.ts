import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Kind, parse, validate } from 'graphql';
import type { Page, Request } from 'playwright-core';
import { DemoGenerator } from 'demo-data';
import { shippedDemoReference } from '../../src/app/demo-reference';
import { CandidateRepository } from '../../src/candidates/candidate-repository';
import { DEFAULT_QUERY, PLAYGROUND_CONTENT_SECURITY_POLICY, STATISTICS_QUERY } from '../../src/graphql/playground';
import { createSchema } from '../../src/graphql/schema';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { chromiumMissingReason, launchChromium, type HeadlessBrowser } from '../support/browser';

/** Bound of every single browser step. */
const STEP_MS = 30_000;
/** Bound of one test: a handful of steps, each far below STEP_MS when things work. */
const TEST_MS = 120_000;

const missingBrowser = chromiumMissingReason();
if (missingBrowser) {
  // Printed so that a run without a browser never passes for one that tested the playground.
  console.warn(`GraphQL playground browser tests skipped: ${missingBrowser}`);
}
const testInBrowser = missingBrowser ? test.skip : test;

/**
 * The candidate of the quick start's demo data (2,000, seed 1) that answers the pre-filled query
 * (the employer's question of the docs), with a year of birth the query's age limit keeps in any
 * year: the 40 candidates of the test data answer it rarely.
 */
function employersAnswer() {
  for (const candidate of new DemoGenerator({
    candidates: 2000,
    seed: 1,
    reference: shippedDemoReference(),
  }).candidates())
    if (candidate.publicId === 'bczUudnCS0-YmrNpXmFmKg')
      return { ...candidate, yearOfBirth: new Date().getUTCFullYear() - 35 };
  throw new Error("the quick start's demo data lacks the employer's answer");
}

/** The opening words of the SDL description of `Candidate`: the docs explorer must show them. */
function candidateDescriptionStart(): string {
  const sdl = readFileSync(path.resolve(__dirname, '../../schema/candidate.graphql'), 'utf8');
  const type = parse(sdl).definitions.find(
    (d) => d.kind === Kind.OBJECT_TYPE_DEFINITION && d.name.value === 'Candidate',
  );
  const description = type && 'description' in type ? type.description?.value : undefined;
  if (!description) throw new Error('schema/candidate.graphql: type Candidate has no description');
  return description.split(/\s+/).slice(0, 4).join(' ');
}

/** What a page did besides rendering: every request it started and every CSP violation. */
interface PageRecord {
  page: Page;
  requests: Request[];
  violations: string[];
  errors: string[];
}

describe('GraphQL playground', () => {
  let service: AppUnderTest;
  let browser: HeadlessBrowser | undefined;
  let baseUrl: string;
  let apiKey: string;
  /** an analyst's key: statistics only */
  let statisticsKey: string;
  /** the first page of the store's candidates, read from the store itself */
  let expected: { total: number; publicIds: string[] };
  /** the first page of the pre-filled query, as the API answers it */
  let prefilled: { total: number; publicIds: string[] };
  const openPages: Page[] = [];

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 40, seed: 11 });
    baseUrl = service.url;
    apiKey = await service.key('READ_CANDIDATE_DATA');
    statisticsKey = await service.key('READ_STATISTICS');
    const firstPage = await new CandidateRepository(service.db).search(
      { includeEmployed: false },
      { skip: 0, limit: 5 },
    );
    expected = { total: firstPage.total, publicIds: firstPage.items.map((c) => c.publicId) };
    await new CandidateRepository(service.db).insert(employersAnswer());
    const answer = await graphql<{ candidates: { totalElements: number; content: { publicId: string }[] } }>(
      baseUrl,
      DEFAULT_QUERY,
      {},
      apiKey,
    );
    const page = answer.body.data!.candidates;
    prefilled = { total: page.totalElements, publicIds: page.content.map((c) => c.publicId) };
    if (!missingBrowser) browser = await launchChromium();
  }, 180_000);

  afterEach(async () => {
    await Promise.all(openPages.splice(0).map((page) => page.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  }, 60_000);

  /**
   * Opens /graphql as a browser would and waits until GraphiQL's editors are up. `firstVisit`:
   * as a browser that never opened it (GraphiQL keeps its tabs in the origin's local storage,
   * which the tests' one browser profile shares).
   */
  async function openPlayground(options: { firstVisit?: boolean } = {}): Promise<PageRecord> {
    if (!browser) throw new Error('no browser: these tests are skipped without one');
    const page = await browser.context.newPage();
    openPages.push(page);
    page.setDefaultTimeout(STEP_MS);
    const record: PageRecord = { page, requests: [], violations: [], errors: [] };
    page.on('request', (request) => record.requests.push(request));
    page.on('pageerror', (error) => record.errors.push(error.message));
    await page.exposeFunction('reportCspViolation', (violation: string) => record.violations.push(violation));
    if (options.firstVisit) {
      await page.addInitScript(() => {
        for (const key of Object.keys(localStorage)) if (key.startsWith('graphiql:')) localStorage.removeItem(key);
      });
    }
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { reportCspViolation: (v: string) => void }).reportCspViolation;
        report(`${event.effectiveDirective} blocked ${event.blockedURI}`);
      });
    });

    const response = await page.goto(`${baseUrl}/graphql`, { timeout: STEP_MS });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(PLAYGROUND_CONTENT_SECURITY_POLICY);
    await page.getByRole('button', { name: /^Execute query/ }).waitFor();
    await page.getByRole('region', { name: 'Query Editor' }).locator('.CodeMirror-code').waitFor();
    return record;
  }

  /** Puts the key into the headers editor the way an analyst does: click, select all, type. */
  async function enterApiKey(page: Page, key: string): Promise<void> {
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headers = page.getByRole('region', { name: 'Headers' });
    await headers.locator('.CodeMirror').filter({ visible: true }).click();
    await page.keyboard.press('ControlOrMeta+A');
    const typed = JSON.stringify({ 'X-API-Key': key });
    await page.keyboard.type(typed);
    // The editor closes brackets and quotes as one types; what it added after the cursor goes.
    await page.keyboard.press('Shift+ControlOrMeta+End');
    await page.keyboard.press('Delete');
    // The editor paints a frame later than it edits: wait for the typed text, and nothing else.
    const exactly = new RegExp(`^\\s*${typed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
    await headers.locator('.CodeMirror-line').filter({ visible: true, hasText: exactly }).waitFor();
  }

  /**
   * Presses "Re-fetch GraphQL schema" until the introspection carries `key`, as a person does when
   * the docs say "Error fetching schema": GraphiQL reads the headers editor into its schema
   * fetch only after the editor's change has settled (a debounce), so a press right after typing
   * may still send the old headers.
   */
  async function refetchSchemaWith(page: Page, key: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const introspection = page.waitForRequest(
        (r) => r.method() === 'POST' && /IntrospectionQuery/.test(r.postData() ?? ''),
        { timeout: STEP_MS },
      );
      await page.getByRole('button', { name: /^Re-fetch GraphQL schema/ }).click();
      const sent = await introspection;
      if (sent.headers()['x-api-key'] === key) {
        await sent.response();
        return;
      }
      if (attempt === 5) throw new Error('the schema was never fetched with the API key of the headers editor');
    }
  }

  /** Text of the result pane (the lines it currently renders). */
  function resultPane(page: Page) {
    return page.getByRole('region', { name: 'Result Window' }).locator('.CodeMirror-code');
  }

  /** Every request went to the service (data: URLs are the stylesheet's own fonts and icons). */
  function expectSelfContained(record: PageRecord): void {
    const origin = new URL(baseUrl).origin;
    const urls = record.requests.map((request) => request.url());
    expect(urls).toContain(`${baseUrl}/graphql`);
    expect(urls.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).toEqual([]);
    expect(record.violations).toEqual([]);
    expect(record.errors).toEqual([]);
  }

  /** The shell's same-origin asset URLs, in the order the page names them. */
  function assetUrls(html: string): string[] {
    return [...html.matchAll(/<(?:script\b[^>]*\bsrc|link\b[^>]*\bhref)\s*=\s*"([^"]+)"/gi)].map((m) => m[1]);
  }

  test('when the page is requested, then it is a small shell naming content-hashed assets of this service, under a strict CSP without inline scripts', async () => {
    const response = await fetch(`${baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/https?:/);
    expect(html.length).toBeLessThan(2_000);
    expect(html).toContain('<title>Candidate Directory GraphQL</title>');
    // No inline script: every <script> names a file.
    expect(html.match(/<script\b[^>]*>\s*<\/script>/g)).toHaveLength(2);
    const urls = assetUrls(html);
    expect(urls).toHaveLength(4);
    for (const url of urls) expect(url).toMatch(/^\/graphql\/assets\/[\w-]+\.[A-Za-z0-9]{12}\.(?:js|css|ico)$/);
  });

  test('when the page is asked again with its ETag, then the answer is 304 without a body', async () => {
    const first = await fetch(`${baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    const etag = first.headers.get('etag')!;

    // Not fetch: given If-None-Match, it adds Cache-Control: no-cache (the Fetch standard), which asks for the whole page.
    const again = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(`${baseUrl}/graphql`, { headers: { accept: 'text/html', 'if-none-match': etag } }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });

    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  test('when an asset is requested, then it is immutable for a year and compressed as the client accepts (brotli, gzip, or none), the same bytes every time', async () => {
    const html = await (await fetch(`${baseUrl}/graphql`, { headers: { accept: 'text/html' } })).text();
    const script = assetUrls(html).find((url) => /\/graphiql\.\w+\.js$/.test(url))!;
    const fetchRaw = (encoding: string) =>
      // undici decodes what it fetches: the encoded length is read from Content-Length.
      fetch(`${baseUrl}${script}`, { headers: { 'accept-encoding': encoding } });

    const br = await fetchRaw('gzip, deflate, br');
    const brAgain = await fetchRaw('br');
    const gzip = await fetchRaw('gzip');
    const identity = await fetchRaw('identity');

    expect(br.status).toBe(200);
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(br.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(br.headers.get('vary')).toMatch(/Accept-Encoding/i);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(identity.headers.get('content-encoding')).toBeNull();
    const lengths = [br, brAgain, gzip, identity].map((r) => Number(r.headers.get('content-length')));
    expect(lengths[0]).toBe(lengths[1]);
    expect(lengths[0]).toBeLessThan(lengths[2]);
    expect(lengths[2]).toBeLessThan(lengths[3] / 2);
    const bodies = await Promise.all([br, brAgain, gzip, identity].map((r) => r.text()));
    expect(new Set(bodies).size).toBe(1);
  });

  test('when an asset name the page does not name is requested, then the answer is 404, not a GraphQL answer', async () => {
    const response = await fetch(`${baseUrl}/graphql/assets/graphiql.000000000000.js`);

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/problem\+json/);
  });

  test('when a browser opens the URL with the query GraphiQL keeps in it (a reload), then it gets the page, not a GraphQL answer', async () => {
    const response = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: {
        accept: 'text/html,application/xhtml+xml',
        'sec-fetch-dest': 'document',
        'sec-fetch-mode': 'navigate',
      },
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('vary')).toMatch(/Sec-Fetch-Dest/);
    expect(await response.text()).toContain('<title>Candidate Directory GraphQL</title>');
  });

  test('when the pre-filled query is read, then it is valid against the schema and selects the global id of each candidate', () => {
    const document = parse(DEFAULT_QUERY);

    expect(validate(createSchema(), document)).toEqual([]);
    expect(DEFAULT_QUERY).toMatch(/content \{\s+id\s/);
  });

  test('when a GraphQL client sends a GET query, then it reaches the GraphQL server, not the page', async () => {
    const response = await fetch(`${baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'text/html, application/json', 'x-api-key': apiKey, 'apollo-require-preflight': 'true' },
    });

    expect(response.headers.get('content-type')).toMatch(/json/);
    expect(await response.json()).toEqual({ data: { __typename: 'Query' } });
  });

  /**
   * The bytes a page's GET requests take off the network (headers and encoded bodies, as the
   * browser's own network panel counts them; an answer from its cache counts 0) while `load` runs.
   * The GraphQL requests the playground then sends (POST) are not part of the page.
   */
  async function bytesTransferred(page: Page, load: () => Promise<unknown>): Promise<number> {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const gets = new Set<string>();
    const finished = new Map<string, number>();
    cdp.on('Network.requestWillBeSent', (event) => {
      if (event.request.method === 'GET') gets.add(event.requestId);
    });
    cdp.on('Network.loadingFinished', (event) => finished.set(event.requestId, event.encodedDataLength));
    await load();
    await page.getByRole('button', { name: /^Execute query/ }).waitFor();
    await page.waitForLoadState('networkidle');
    await cdp.detach();
    return [...gets].reduce((sum, id) => sum + (finished.get(id) ?? 0), 0);
  }

  testInBrowser(
    'when a browser opens the playground for the first time, then the page transfers under 1 MB; when it reloads it, then under 10 KB, and the playground still runs a query',
    async () => {
      const page = await browser!.context.newPage();
      openPages.push(page);
      page.setDefaultTimeout(STEP_MS);
      const cdp = await browser!.context.newCDPSession(page);
      await cdp.send('Network.clearBrowserCache');
      await cdp.detach();

      const firstVisit = await bytesTransferred(page, () => page.goto(`${baseUrl}/graphql`));
      const secondVisit = await bytesTransferred(page, () => page.reload());

      expect(firstVisit).toBeGreaterThan(100_000);
      expect(firstVisit).toBeLessThan(1_000_000);
      expect(secondVisit).toBeGreaterThan(0);
      expect(secondVisit).toBeLessThan(10_000);
      await enterApiKey(page, apiKey);
      await page.getByRole('button', { name: /^Execute query/ }).click();
      await resultPane(page).getByText(`"totalElements": ${prefilled.total}`).first().waitFor();
    },
    TEST_MS,
  );

  testInBrowser(
    'when an analyst enters the API key and runs the pre-filled nested query, then the result pane shows candidates from the store',
    async () => {
      const record = await openPlayground();
      const { page } = record;
      await enterApiKey(page, apiKey);

      const answered = page.waitForResponse(
        (r) => r.url() === `${baseUrl}/graphql` && /"operationName":"Candidates"/.test(r.request().postData() ?? ''),
        { timeout: STEP_MS },
      );
      await page.getByRole('button', { name: /^Execute query/ }).click();
      const response = await answered;

      expect(response.status()).toBe(200);
      expect(response.request().headers()['x-api-key']).toBe(apiKey);
      await resultPane(page).getByText(`"totalElements": ${prefilled.total}`).first().waitFor();
      await resultPane(page).getByText(`"${prefilled.publicIds[0]}"`).first().waitFor();
      expect(prefilled.publicIds).toContain('bczUudnCS0-YmrNpXmFmKg');
      const body = (await response.json()) as {
        data?: {
          candidates: { content: { id: string; publicId: string; country: unknown; candidateOccupations: unknown }[] };
        };
      };
      expect(body.data?.candidates.content.map((c) => c.publicId)).toEqual(prefilled.publicIds);
      // The pre-filled query shows the global id (Node.id) of each candidate.
      expect(body.data?.candidates.content.map((c) => Buffer.from(c.id, 'base64url').toString())).toEqual(
        prefilled.publicIds.map((publicId) => `Candidate:${publicId}`),
      );
      expectSelfContained(record);
    },
    TEST_MS,
  );

  testInBrowser(
    'when an analyst types a query of their own, then its result is shown',
    async () => {
      const record = await openPlayground();
      const { page } = record;
      await enterApiKey(page, apiKey);
      const publicId = expected.publicIds[1];

      await page.getByRole('region', { name: 'Query Editor' }).locator('.CodeMirror').click();
      await page.keyboard.press('ControlOrMeta+A');
      // Pasted rather than typed key by key: the editor's auto-closing would double the braces.
      await page.keyboard.insertText(
        `query One { candidate(publicId: "${publicId}") { publicId country { isoCode } candidateOccupations { occupation { isco08Code } } } }`,
      );
      // GraphiQL names the tab after the operation once it has read the edit: then it runs `One`.
      await page.getByRole('tab', { name: /^One/ }).waitFor();
      await page.getByRole('button', { name: /^Execute query/ }).click();

      await resultPane(page).getByText(`"publicId": "${publicId}"`).first().waitFor();
      expect(await resultPane(page).innerText()).not.toContain('"errors"');
      expectSelfContained(record);
    },
    TEST_MS,
  );

  testInBrowser(
    'when an analyst opens the docs explorer, then it shows the Candidate type as the schema describes it',
    async () => {
      const record = await openPlayground();
      const { page } = record;
      await enterApiKey(page, apiKey);
      // The schema was first requested with the placeholder key; a person re-fetches it now.
      await refetchSchemaWith(page, apiKey);

      await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
      const docs = page.getByRole('region', { name: 'Documentation Explorer' });
      await docs.getByRole('link', { name: 'Candidate', exact: true }).first().click();

      await docs.locator('.graphiql-doc-explorer-title', { hasText: /^Candidate$/ }).waitFor();
      await docs.getByText(candidateDescriptionStart()).first().waitFor();
      await docs.getByRole('link', { name: 'publicId', exact: true }).waitFor();
      expectSelfContained(record);
    },
    TEST_MS,
  );

  testInBrowser(
    'when an analyst opens the second tab, then it holds the statistics example, and running it shows what the API answers',
    async () => {
      const apiAnswer = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': statisticsKey },
        body: JSON.stringify({ query: STATISTICS_QUERY }),
      });
      const expectedBody = (await apiAnswer.json()) as {
        data?: { candidateStatistics: { total: number | null; epsilonCharged: number } };
      };
      expect(expectedBody.data?.candidateStatistics.total).toEqual(expect.any(Number));
      const record = await openPlayground({ firstVisit: true });
      const { page } = record;

      const tabs = page.getByRole('tablist', { name: 'Select active operation' }).getByRole('tab');
      expect(await tabs.allInnerTexts()).toEqual(['Candidates', 'Statistics']);
      await tabs.nth(1).getByRole('button', { name: 'Statistics' }).click();
      await page
        .getByRole('region', { name: 'Query Editor' })
        .locator('.CodeMirror-code')
        .filter({ visible: true, hasText: 'candidateStatistics' })
        .waitFor();
      await enterApiKey(page, statisticsKey);
      const answered = page.waitForResponse(
        (r) => r.url() === `${baseUrl}/graphql` && /"operationName":"Statistics"/.test(r.request().postData() ?? ''),
        { timeout: STEP_MS },
      );
      await page.getByRole('button', { name: /^Execute query/ }).click();
      const response = await answered;

      expect(response.status()).toBe(200);
      // The same query in the same budget period: the stored answer again, at no cost.
      expect(await response.json()).toEqual({
        data: { candidateStatistics: { ...expectedBody.data!.candidateStatistics, epsilonCharged: 0 } },
      });
      await resultPane(page).getByText(`"total": ${expectedBody.data!.candidateStatistics.total}`).first().waitFor();
      expectSelfContained(record);
    },
    TEST_MS,
  );
});
