import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { RequestHandler } from 'express';

/** What the headers editor shows until the analyst puts their own key in. */
export const HEADERS_PLACEHOLDER = JSON.stringify({ 'X-API-Key': '<your key>' }, null, 2);

/**
 * The first query an analyst sees: a nested selection that shows how the graph hangs together,
 * with the global `id` (Node) that `node(id:)` takes and client caches key objects by.
 */
export const DEFAULT_QUERY = `# Put your API key into the Headers tab below, then run this query (Ctrl-Enter).
query Candidates {
  candidates(limit: 5) {
    totalElements
    content {
      id
      publicId
      status
      country {
        isoCode
        name
      }
      candidateOccupations {
        occupation {
          isco08Code
          name
        }
        yearsExperience
      }
    }
  }
}
`;

/**
 * The second tab: aggregate statistics, what an analyst without READ_CANDIDATE_DATA can ask
 * (needs READ_STATISTICS). The question of the analysts: where do Syrian candidates live, by
 * occupation.
 */
export const STATISTICS_QUERY = `# Counts under differential privacy (needs an API key with READ_STATISTICS).
# Every count carries noise; each new query spends epsilon from the key's budget, which renews
# at budgetRenewsAt. Asking the same query again in the period returns the same answer, free.
query Statistics {
  candidateStatistics(filter: { nationality: ["SY"] }, groupBy: [LOCATION]) {
    total
    epsilon
    epsilonCharged
    budgetRemaining
    budgetRenewsAt
    minimumCellSize
    cells {
      count
      values {
        dimension
        code
        label
      }
    }
  }
}
`;

/**
 * The page is one self-contained document (inline script, inline styles, fonts and icons as
 * data: URLs, editor workers from blob: URLs), so the policy lets the browser load nothing
 * from any other origin and talk to nothing but this service. 'unsafe-inline' is the price
 * of the inline bundle; 'unsafe-eval' is not needed and not granted.
 */
export const PLAYGROUND_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `<script src>` or `<link href>` (stylesheet, icon, preload...) pointing at another host. */
const EXTERNAL_RESOURCE = /<(?:script\b[^>]*\bsrc|link\b[^>]*\bhref)\s*=\s*["']?(?:https?:)?\/\//i;

/**
 * The GraphiQL page for `endpoint`. Rendering costs a 9 MB string, so callers render once
 * and keep the result. Throws when the rendered page would load anything from another host,
 * so a renderer upgrade that brings back a CDN fails at start, not in an offline browser.
 */
export function playgroundPage(options: { endpoint: string; title?: string }): string {
  const html = renderGraphiQL({
    endpoint: options.endpoint,
    title: options.title ?? 'Candidate Directory GraphQL',
    defaultQuery: DEFAULT_QUERY,
    // The tabs the page opens with (until the browser has tabs of its own stored).
    defaultTabs: [
      { query: DEFAULT_QUERY, headers: HEADERS_PLACEHOLDER },
      { query: STATISTICS_QUERY, headers: HEADERS_PLACEHOLDER },
    ],
    headers: HEADERS_PLACEHOLDER,
    defaultHeaders: HEADERS_PLACEHOLDER,
    isHeadersEditorEnabled: true,
    defaultEditorToolsVisibility: 'headers',
    // The headers hold an API key: it is not written to the browser's local storage.
    shouldPersistHeaders: false,
    // POST with a JSON body passes Apollo's CSRF prevention whatever headers the analyst sets.
    method: 'POST',
    useGETForQueries: false,
    credentials: 'omit',
    schemaDescription: true,
  });
  const external = EXTERNAL_RESOURCE.exec(html);
  if (external) {
    throw new Error(`the GraphQL playground page would load an external resource: ${external[0]}`);
  }
  return html;
}

/** A browser asking for the page, as opposed to a GraphQL client sending a GET query. */
function wantsPage(accept: string | undefined, query: unknown): boolean {
  const hasQueryParameter = typeof query === 'object' && query !== null && 'query' in query;
  return (accept ?? '').includes('text/html') && !hasQueryParameter;
}

/**
 * Answers a browser's `GET endpoint` with the GraphiQL playground and passes every other
 * request on (`next()`), so GraphQL clients' GET and POST requests still reach the server.
 * Works wherever it is mounted (`app.use(h)`, `app.use(endpoint, h)`, `app.get(endpoint, h)`).
 */
export function servePlayground(endpoint = '/graphql'): RequestHandler {
  const html = Buffer.from(playgroundPage({ endpoint }), 'utf8');
  const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;
  // 9 MB of inline bundle shrink to about a quarter; compressed once, on first demand.
  let gzipped: Buffer | undefined;
  const normalisedEndpoint = endpoint.replace(/\/+$/, '') || '/';

  return (req, res, next) => {
    const path = (req.baseUrl + req.path).replace(/\/+$/, '') || '/';
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== normalisedEndpoint) return next();
    if (!wantsPage(req.headers.accept, req.query)) return next();

    res.set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': PLAYGROUND_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
      // The same URL serves GraphQL results to other clients.
      Vary: 'Accept, Accept-Encoding',
      ETag: etag,
    });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    if (req.acceptsEncodings('gzip', 'identity') === 'gzip') {
      gzipped ??= gzipSync(html);
      res.set('Content-Encoding', 'gzip');
      res.send(gzipped);
      return;
    }
    res.send(html);
  };
}
