import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
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

  /** Enters the key the way an analyst does: into the page's key field, then Enter. */
  async function enterApiKey(page: Page, key: string): Promise<void> {
    await page.getByLabel('API key').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(key);
    await page.keyboard.press('Enter');
    await page.locator('#cd-key-status', { hasText: /^Key in use/ }).waitFor();
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
    // Small: the page itself is the pre-filled tabs' text (the employer's question, a statistics
    // count) and the names of the assets; GraphiQL and the views are the assets.
    expect(html.length).toBeLessThan(6_000);
    expect(html).toContain('<title>Candidate Directory GraphQL</title>');
    // No inline script: every script the page runs names a file; the options are a JSON data block.
    expect(html.match(/<script\b[^>]*>\s*<\/script>/g)).toHaveLength(3);
    expect(html.match(/<script\b(?![^>]*\bsrc=)[^>]*>/g)).toEqual(['<script type="application/json" id="cd-options">']);
    const urls = assetUrls(html);
    expect(urls).toHaveLength(6);
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
    'when an analyst opens the page, then nothing is sent until the key is entered, no tab shows an error, and a query run without the key says so unsent',
    async () => {
      const record = await openPlayground({ firstVisit: true });
      const { page } = record;
      await page.waitForLoadState('networkidle');
      const posts = () => record.requests.filter((request) => request.method() === 'POST').length;

      // Act: run the pre-filled query before any key
      await page.getByRole('button', { name: /^Execute query/ }).click();
      await resultPane(page).getByText('Enter your API key').first().waitFor();
      const sentBeforeKey = posts();
      await enterApiKey(page, apiKey);

      // Assert
      expect(sentBeforeKey).toBe(0);
      expect(await resultPane(page).innerText()).not.toContain('UNAUTHENTICATED');
      await page.getByRole('tablist', { name: 'Select active operation' }).getByRole('tab').nth(1).click();
      expect((await resultPane(page).filter({ visible: true }).allInnerTexts()).join('\n')).not.toContain(
        'UNAUTHENTICATED',
      );
      expectSelfContained(record);
    },
    TEST_MS,
  );

  testInBrowser(
    'when an analyst enters the key, then the schema loads by itself and the docs explorer shows the Candidate type as the schema describes it',
    async () => {
      const record = await openPlayground();
      const { page } = record;
      const introspection = page.waitForRequest(
        (r) => r.method() === 'POST' && /IntrospectionQuery/.test(r.postData() ?? ''),
      );
      await enterApiKey(page, apiKey);
      expect((await introspection).headers()['x-api-key']).toBe(apiKey);

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
    'when an analyst enters the key once and runs both tabs, then the second tab, the statistics example, sends the same key and shows what the API answers',
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
      await enterApiKey(page, statisticsKey);

      const tabs = page.getByRole('tablist', { name: 'Select active operation' }).getByRole('tab');
      expect(await tabs.allInnerTexts()).toEqual(['Candidates', 'Statistics']);
      const first = page.waitForResponse((r) => /"operationName":"Candidates"/.test(r.request().postData() ?? ''));
      await page.getByRole('button', { name: /^Execute query/ }).click();
      // The first tab's answer before the second tab runs: while a query runs, GraphiQL's button stops it.
      const firstResponse = await first;
      await tabs.nth(1).getByRole('button', { name: 'Statistics' }).click();
      await page
        .getByRole('region', { name: 'Query Editor' })
        .locator('.CodeMirror-code')
        .filter({ visible: true, hasText: 'candidateStatistics' })
        .waitFor();
      // GraphiQL takes the operation's name from the editor after a debounce (100 ms) and stores the
      // tabs after another (500 ms): an Execute sooner than that can send the new tab's query under
      // the old tab's operation name. Wait until the stored tabs say the Statistics tab is active.
      await page.waitForFunction(() => {
        const stored = JSON.parse(localStorage.getItem('graphiql:tabState') ?? 'null') as {
          activeTabIndex?: number;
          tabs?: { query?: string | null }[];
        } | null;
        return stored?.activeTabIndex === 1 && (stored.tabs?.[1]?.query ?? '').includes('candidateStatistics');
      });
      const answered = page.waitForResponse(
        (r) => r.url() === `${baseUrl}/graphql` && /"operationName":"Statistics"/.test(r.request().postData() ?? ''),
        { timeout: STEP_MS },
      );
      await page.getByRole('button', { name: /^Execute query/ }).click();
      const response = await answered;

      // The first tab's request carried the key too (its answer: FORBIDDEN, as the key reads no candidate).
      expect(firstResponse.request().headers()['x-api-key']).toBe(statisticsKey);
      expect(response.status()).toBe(200);
      expect(response.request().headers()['x-api-key']).toBe(statisticsKey);
      // The same query in the same budget period: the stored answer again, at no cost.
      expect(await response.json()).toEqual({
        data: { candidateStatistics: { ...expectedBody.data!.candidateStatistics, epsilonCharged: 0 } },
      });
      await resultPane(page).getByText(`"total": ${expectedBody.data!.candidateStatistics.total}`).first().waitFor();
      expectSelfContained(record);
    },
    TEST_MS,
  );

  describe('the statistics view', () => {
    /** The answer's numbers, as the GraphQL API gives them. */
    interface Answer {
      total: number;
      totalInterval: { low: number; high: number };
      cells: { values: { code: string; label: string }[]; count: number; interval: { low: number; high: number } }[];
      epsilon: number;
      sensitivity: number;
      answeredAt: string;
    }

    const ANSWER = `query($filter: CandidateFilter, $groupBy: [CandidateDimension!]!, $epsilon: Float) {
      candidateStatistics(filter: $filter, groupBy: $groupBy, epsilon: $epsilon) {
        total totalInterval { low high } cells { values { code label } count interval { low high } }
        epsilon sensitivity answeredAt
      }
    }`;

    async function graphqlAnswer(key: string, variables: Record<string, unknown>): Promise<Answer> {
      const response = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ query: ANSWER, variables }),
      });
      const body = (await response.json()) as { data: { candidateStatistics: Answer } };
      return body.data.candidateStatistics;
    }

    /** Presses Tab until the element with this id has the focus: it is reachable by keyboard. */
    async function tabTo(page: Page, id: string): Promise<void> {
      for (let presses = 0; presses < 40; presses++) {
        if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`#${id} is not reachable with Tab`);
    }

    /** Where screenshots of the view go (outside the repository). */
    const screenshots = path.join(os.tmpdir(), 'candidate-directory-playground');

    testInBrowser(
      'when an analyst asks by keyboard alone for a count by location, then the view previews it, draws a bar and an interval per listed cell, shows the budget left, and downloads exactly the published answer as CSV',
      async () => {
        const record = await openPlayground();
        const { page } = record;
        await page.setViewportSize({ width: 1280, height: 800 });
        const analyst = await service.key('READ_STATISTICS');

        // Act: the key, the view, the question, the preview, the run, the download; keys only
        await tabTo(page, 'cd-key');
        await page.keyboard.type(analyst);
        await page.keyboard.press('Enter');
        await page.locator('#cd-key-status', { hasText: /^Key in use/ }).waitFor();
        await page.keyboard.press('Shift+Tab');
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Statistics');
        await page.keyboard.press('Enter');
        await page.locator('#st-budget-left').waitFor();
        await tabTo(page, 'st-dimension-1');
        await page.keyboard.type('Location');
        await tabTo(page, 'st-epsilon');
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.type('2');
        await page.keyboard.press('Enter');
        await page.locator('#st-preview', { hasText: 'spends ε = 2' }).waitFor();
        const preview = await page.locator('#st-preview').innerText();
        await tabTo(page, 'st-run');
        await page.keyboard.press('Enter');
        await page.locator('#st-result').waitFor();
        mkdirSync(screenshots, { recursive: true });
        const screenshot = await page.screenshot({ path: path.join(screenshots, 'statistics-by-location.png') });
        await tabTo(page, 'st-download');
        const downloading = page.waitForEvent('download');
        await page.keyboard.press('Enter');
        const csv = readFileSync(await (await downloading).path(), 'utf8');

        // Assert: the preview, the drawing against the API's answer, the budget, the CSV
        expect(preview).toContain('within ±3 of the truth');
        const answer = await graphqlAnswer(analyst, { groupBy: ['LOCATION'], epsilon: 2 });
        expect(answer.cells.length).toBeGreaterThan(0);
        const bars = page.locator('#st-result .st-bar');
        const marks = page.locator('#st-result .st-interval');
        expect(await bars.count()).toBe(answer.cells.length);
        expect(await marks.count()).toBe(answer.cells.length);
        expect(
          await page
            .locator('#st-result .st-row')
            .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-codes'))),
        ).toEqual(answer.cells.map((cell) => cell.values[0].code));
        expect(await bars.evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-count'))))).toEqual(
          answer.cells.map((cell) => cell.count),
        );
        expect(
          await marks.evaluateAll((groups) =>
            groups.map((group) => [Number(group.getAttribute('data-low')), Number(group.getAttribute('data-high'))]),
          ),
        ).toEqual(answer.cells.map((cell) => [cell.interval.low, cell.interval.high]));
        // Drawn, not just present: every bar and interval has a size on the screen.
        for (const box of await bars.evaluateAll((rects) => rects.map((rect) => rect.getBoundingClientRect().width)))
          expect(box).toBeGreaterThan(0);
        expect(await page.locator('#st-total').innerText()).toBe(answer.total.toLocaleString('en'));
        const budget = await fetch(`${baseUrl}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': analyst },
          body: JSON.stringify({ query: '{ statisticsBudget { remaining budget } }' }),
        });
        const { remaining, budget: whole } = (
          (await budget.json()) as { data: { statisticsBudget: { remaining: number; budget: number } } }
        ).data.statisticsBudget;
        expect(remaining).toBe(whole - 2);
        await page.locator('#st-budget-left', { hasText: `ε ${remaining} of ${whole} left` }).waitFor();
        // The CSV: exactly the published numbers, byte for byte what GET /v1/statistics gives for the question.
        const rest = await fetch(`${baseUrl}/v1/statistics?groupBy=LOCATION&epsilon=2`, {
          headers: { 'x-api-key': analyst, accept: 'text/csv' },
        });
        expect(csv).toBe(await rest.text());
        const rows = csv
          .trimEnd()
          .split('\r\n')
          .map((line) => line.split(','));
        expect(rows[0]).toEqual([
          'LOCATION',
          'LOCATION_label',
          'count',
          'low',
          'high',
          'epsilon',
          'sensitivity',
          'confidence',
          'query',
          'answeredAt',
        ]);
        expect(rows.slice(1).map((row) => [row[0], Number(row[2]), Number(row[3]), Number(row[4])])).toEqual([
          ['', answer.total, answer.totalInterval.low, answer.totalInterval.high],
          ...answer.cells.map((cell) => [cell.values[0].code, cell.count, cell.interval.low, cell.interval.high]),
        ]);
        for (const row of rows.slice(1))
          expect(row.slice(-5)).toEqual([
            '2',
            '2',
            '0.95',
            '/v1/statistics?groupBy=LOCATION&epsilon=2',
            answer.answeredAt,
          ]);
        // Readable at 1280×800: nothing wider than the window, the chart's text at least 12 px.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
        const labelSize = await page
          .locator('#st-result .st-label')
          .first()
          .evaluate((label) => label.getBoundingClientRect().height);
        expect(labelSize).toBeGreaterThanOrEqual(12);
        expect(screenshot.length).toBeGreaterThan(10_000);
        expectSelfContained(record);
      },
      TEST_MS,
    );

    testInBrowser(
      'when an analyst counts by two dimensions, then the view draws a table with a shaded cell and an interval mark for each listed cell, and the CSV holds both codes of each',
      async () => {
        const record = await openPlayground();
        const { page } = record;
        await page.setViewportSize({ width: 1280, height: 800 });
        const analyst = await service.key('READ_STATISTICS');
        await enterApiKey(page, analyst);
        await page.getByRole('link', { name: 'Statistics' }).click();

        // Act
        await page.getByLabel('First').selectOption('STATUS');
        await page.getByLabel('Then').selectOption('GENDER');
        await page.getByLabel('ε, the privacy cost').fill('4');
        await page.getByRole('button', { name: 'Preview (free)' }).click();
        await page.locator('#st-preview', { hasText: 'spends ε = 4' }).waitFor();
        await page.getByRole('button', { name: 'Run' }).click();
        await page.locator('#st-result .st-cells').waitFor();
        await page.screenshot({ path: path.join(screenshots, 'statistics-by-status-and-gender.png') });
        const downloading = page.waitForEvent('download');
        await page.getByRole('button', { name: 'Download CSV' }).click();
        const csv = readFileSync(await (await downloading).path(), 'utf8');

        // Assert
        const answer = await graphqlAnswer(analyst, { groupBy: ['STATUS', 'GENDER'], epsilon: 4 });
        expect(answer.cells.length).toBeGreaterThan(0);
        const cells = page.locator('#st-result td.st-cell');
        expect(await cells.count()).toBe(answer.cells.length);
        expect(await page.locator('#st-result td.st-cell .st-interval').count()).toBe(answer.cells.length);
        expect((await cells.evaluateAll((tds) => tds.map((td) => td.getAttribute('data-codes')))).sort()).toEqual(
          answer.cells.map((cell) => `${cell.values[0].code}|${cell.values[1].code}`).sort(),
        );
        const shades = await cells.evaluateAll((tds) => tds.map((td) => getComputedStyle(td).backgroundColor));
        for (const shade of shades) expect(shade).toMatch(/^rgba\(/);
        const rows = csv
          .trimEnd()
          .split('\r\n')
          .map((line) => line.split(','));
        expect(rows[0].slice(0, 7)).toEqual([
          'STATUS',
          'GENDER',
          'STATUS_label',
          'GENDER_label',
          'count',
          'low',
          'high',
        ]);
        expect(rows.slice(2).map((row) => [row[0], row[1], Number(row[4])])).toEqual(
          answer.cells.map((cell) => [cell.values[0].code, cell.values[1].code, cell.count]),
        );
        expectSelfContained(record);
      },
      TEST_MS,
    );
  });
});
