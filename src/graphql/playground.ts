import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import * as graphiql from '@graphql-yoga/render-graphiql/graphiql';
import type { Request, RequestHandler } from 'express';
import type { GraphiQLOptions } from 'graphql-yoga';
import { DIMENSIONS } from '../statistics/dimensions';

/**
 * The first query an analyst sees: an employer's question answered in one request (the one the
 * docs work through), as a nested selection that shows how the graph hangs together, with the
 * global `id` (Node) that `node(id:)` takes and client caches key objects by.
 */
export const DEFAULT_QUERY = `# Enter your API key at the top of the page, then run this query (Ctrl-Enter).
query Candidates {
  # Nurses in Jordan or Lebanon who speak English at B2 or better, with at least three years as
  # a nurse, under 45 this year, with IELTS General Training 6.5 or more.
  candidates(
    filter: {
      location: ["JO", "LB"]
      occupation: ["2221"]
      languages: [{ language: "en", minSpokenLevel: B2 }]
      minYearsExperience: 3
      maxAge: 44
      exams: [{ exam: IELTS_GEN, minScore: 6.5 }]
    }
    limit: 5
  ) {
    totalElements
    content {
      id
      publicId
      yearOfBirth
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
      candidateLanguages {
        language {
          isoCode
        }
        spokenLevel {
          cefrLevel
        }
      }
      candidateExams {
        exam
        score
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
export const STATISTICS_QUERY = `# Counts under differential privacy (needs an API key with READ_STATISTICS); the Statistics
# view at the top of the page asks them with a form and draws the answer.
# Every count carries noise and its 95 % interval; each new query spends epsilon from the key's
# budget, which renews at budgetRenewsAt (candidateStatisticsPreview says what a query would
# cost, for free). Asking the same query again in the period returns the same answer, free.
query Statistics {
  candidateStatistics(filter: { nationality: ["SY"] }, groupBy: [LOCATION]) {
    total
    totalInterval {
      low
      high
    }
    epsilon
    sensitivity
    epsilonCharged
    budgetRemaining
    budgetRenewsAt
    minimumCellSize
    cells {
      count
      interval {
        low
        high
      }
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
 * The page is a small HTML shell and static assets of this service (the GraphiQL bundle, its
 * stylesheet with fonts and icons as data: URLs, its icon, and the playground's own script and
 * stylesheet: the API key field, the views, the statistics view), so the policy lets the browser
 * load nothing from any other origin, run no inline script, and talk to nothing but this
 * service. 'unsafe-inline' styles are the price of the editor's inline style attributes;
 * 'unsafe-eval' is not needed and not granted. The CSV download is a blob: URL the page makes.
 */
export const PLAYGROUND_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the assets are served, below the endpoint: `/graphql/assets/<name>.<hash>.<ext>`. */
export const PLAYGROUND_ASSETS_DIRECTORY = 'assets';

/** A year: the longest lifetime HTTP caches honour. An asset's URL changes with its content. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** `url(http...)`, `<script src>` or `<link href>` pointing at another host. */
const EXTERNAL_RESOURCE =
  /<(?:script\b[^>]*\bsrc|link\b[^>]*\bhref)\s*=\s*["']?(?:https?:)?\/\/|url\(\s*["']?(?:https?:)?\/\//i;

/** What the page's scripts start with (the JSON block of the shell, read by playground.js). */
export interface PlaygroundOptions {
  /** where GraphQL requests go */
  endpoint: string;
  /** the statistics dimensions, in the schema's order (CandidateDimension) */
  dimensions: readonly string[];
  /** the options GraphiQL starts with (what the analyst sees first); its fetcher is the page's */
  graphiql: GraphiQLOptions;
}

/**
 * The options of the page. The API key is not a header of GraphiQL's tabs: the page asks for it
 * once (its key field) and sends it with every request of every tab and view, so the headers
 * editor is off, and no tab sends anything before the key is there.
 */
export function playgroundOptions(endpoint: string): PlaygroundOptions {
  return {
    endpoint,
    dimensions: DIMENSIONS,
    graphiql: {
      title: 'Candidate Directory GraphQL',
      defaultQuery: DEFAULT_QUERY,
      // The tabs the page opens with (until the browser has tabs of its own stored).
      defaultTabs: [{ query: DEFAULT_QUERY }, { query: STATISTICS_QUERY }],
      isHeadersEditorEnabled: false,
      defaultEditorToolsVisibility: false,
      // Nothing of a key is ever written to the browser's storage.
      shouldPersistHeaders: false,
      schemaDescription: true,
    },
  };
}

/** One static file of the playground, with its encodings made once. */
interface Asset {
  readonly contentType: string;
  readonly etag: string;
  readonly identity: Buffer;
  /** brotli and gzip, made on first demand (brotli's best quality takes seconds on the bundle) */
  compressed?: Promise<{ br: Buffer; gzip: Buffer }>;
}

export interface PlaygroundAssets {
  /** the HTML shell served at the endpoint (revalidated with its ETag) */
  readonly page: Asset;
  /** by file name (`graphiql.<hash>.js`...): served at `<endpoint>/assets/<name>`, immutable */
  readonly files: ReadonlyMap<string, Asset>;
}

function asset(contentType: string, content: string | Buffer): Asset {
  const identity = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return { contentType, identity, etag: `"${hashOf(identity, 27)}"` };
}

function hashOf(content: Buffer, length: number): string {
  return createHash('sha256').update(content).digest('base64url').slice(0, length);
}

/** `name.ext` as `name.<hash of content>.ext`. */
function hashedName(name: string, content: Buffer): string {
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${hashOf(content, 12).replace(/[-_]/g, '0')}${name.slice(dot)}`;
}

function dataUrlBytes(url: string): Buffer {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) throw new Error('the GraphiQL favicon is not a data: URL');
  return url.slice(0, comma).endsWith(';base64')
    ? Buffer.from(url.slice(comma + 1), 'base64')
    : Buffer.from(decodeURIComponent(url.slice(comma + 1)));
}

/** The playground's own script and stylesheets, beside this file (copied beside its build by `npm run build`). */
const OWN_ASSETS_DIRECTORY = path.join(__dirname, 'playground');
const OWN_ASSETS = [
  ['playground.css', 'text/css; charset=utf-8'],
  ['playground.js', 'text/javascript; charset=utf-8'],
  ['statistics-view.js', 'text/javascript; charset=utf-8'],
] as const;

/**
 * The playground of `endpoint` as a shell and its assets, content-hashed. Made from the GraphiQL
 * build of @graphql-yoga/render-graphiql (one bundle, no CDN) and the playground's own files.
 * Throws when the shell or a stylesheet would load anything from another host, so a renderer
 * upgrade that brings back a CDN fails at start, not in an offline browser.
 */
export function playgroundAssets(endpoint: string): PlaygroundAssets {
  const base = `${endpoint.replace(/\/+$/, '')}/${PLAYGROUND_ASSETS_DIRECTORY}`;
  const options = playgroundOptions(endpoint);
  const sources: [string, string, Buffer][] = [
    ['graphiql.js', 'text/javascript; charset=utf-8', Buffer.from(graphiql.js, 'utf8')],
    ['graphiql.css', 'text/css; charset=utf-8', Buffer.from(graphiql.css, 'utf8')],
    ['favicon.ico', 'image/x-icon', dataUrlBytes(graphiql.favicon)],
    ...OWN_ASSETS.map(([name, contentType]): [string, string, Buffer] => [
      name,
      contentType,
      readFileSync(path.join(OWN_ASSETS_DIRECTORY, name)),
    ]),
  ];
  const files = new Map<string, Asset>();
  const urls: Record<string, string> = {};
  for (const [name, contentType, content] of sources) {
    const hashed = hashedName(name, content);
    files.set(hashed, asset(contentType, content));
    urls[name] = `${base}/${hashed}`;
  }
  const title = escapeHtml(options.graphiql.title ?? '');
  // A JSON data block: never run, so the policy's script-src does not apply; `<` escaped so that
  // nothing in it can close the element.
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="icon" href="${urls['favicon.ico']}" />
    <link rel="stylesheet" href="${urls['graphiql.css']}" />
    <link rel="stylesheet" href="${urls['playground.css']}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <header class="cd-bar">
      <span class="cd-title">Candidate Directory</span>
      <nav class="cd-views" aria-label="Views">
        <a href="#graphql" data-view="graphql">GraphQL</a>
        <a href="#statistics" data-view="statistics">Statistics</a>
      </nav>
      <form class="cd-key" id="cd-key-form" autocomplete="off">
        <label for="cd-key">API key</label>
        <input id="cd-key" name="key" type="password" spellcheck="false" autocomplete="off" />
        <button type="submit">Use key</button>
        <output id="cd-key-status" for="cd-key" aria-live="polite">Nothing is sent before you enter a key.</output>
      </form>
    </header>
    <main class="cd-main">
      <div id="root" class="cd-view" data-view="graphql"></div>
      <section id="cd-statistics" class="cd-view" data-view="statistics" aria-label="Statistics" hidden></section>
    </main>
    <script type="application/json" id="cd-options">${json}</script>
    <script src="${urls['graphiql.js']}"></script>
    <script src="${urls['playground.js']}"></script>
    <script src="${urls['statistics-view.js']}"></script>
  </body>
</html>
`;
  for (const [name, text] of [
    ['the page', html],
    ['the GraphiQL stylesheet', graphiql.css],
    ['the playground stylesheet', files.get(urls['playground.css'].slice(base.length + 1))!.identity.toString('utf8')],
  ]) {
    const external = EXTERNAL_RESOURCE.exec(text);
    if (external) throw new Error(`the GraphQL playground: ${name} would load an external resource: ${external[0]}`);
  }
  return { page: asset('text/html; charset=utf-8', html), files };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Brotli at its best quality and gzip, off the event loop; once per asset. */
function compressedOf(file: Asset): Promise<{ br: Buffer; gzip: Buffer }> {
  file.compressed ??= Promise.all([
    brotli(file.identity, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: file.identity.length,
      },
    }),
    gzipped(file.identity, { level: 9 }),
  ]).then(([br, gzip]) => ({ br, gzip }));
  return file.compressed;
}

/** Sends `file` in the encoding the request prefers (brotli, gzip, or none), 304 when the client's copy is current. */
async function sendAsset(req: Request, res: Parameters<RequestHandler>[1], file: Asset): Promise<void> {
  res.set({ 'Content-Type': file.contentType, 'X-Content-Type-Options': 'nosniff', ETag: file.etag });
  res.append('Vary', 'Accept-Encoding');
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  // Brotli whenever the client takes it (smaller than gzip), whatever order it lists them in.
  const encoding = req.acceptsEncodings('br') === 'br' ? 'br' : req.acceptsEncodings('gzip', 'identity');
  if (encoding === 'br' || encoding === 'gzip') {
    const compressed = await compressedOf(file);
    res.set('Content-Encoding', encoding);
    res.send(encoding === 'br' ? compressed.br : compressed.gzip);
    return;
  }
  res.send(file.identity);
}

/** Assets by endpoint, made once per process (every instance of a test run shares them). */
const assetsByEndpoint = new Map<string, PlaygroundAssets>();

/**
 * A browser asking for the page, as opposed to a GraphQL client sending a GET query: it accepts
 * HTML and either opens the URL as a document (address bar, reload: GraphiQL keeps the query
 * it shows in the URL's `query` parameter) or sends no query.
 */
function wantsPage(req: Request): boolean {
  if (!(req.headers.accept ?? '').includes('text/html')) return false;
  if (req.headers['sec-fetch-dest'] === 'document') return true;
  const query: unknown = req.query;
  return !(typeof query === 'object' && query !== null && 'query' in query);
}

/**
 * Answers a browser's `GET endpoint` with the GraphiQL playground's shell (no-cache, ETag) and
 * `GET endpoint/assets/<name>` with its assets (immutable), brotli or gzip compressed once per
 * process; passes every other request on (`next()`), so GraphQL clients' GET and POST requests
 * still reach the server, and an unknown asset the not-found handler. Works wherever it is
 * mounted (`app.use(h)`, `app.use(endpoint, h)`, `app.get(endpoint, h)`).
 */
export function servePlayground(endpoint = '/graphql'): RequestHandler {
  const normalisedEndpoint = endpoint.replace(/\/+$/, '') || '/';
  const assetsPrefix = `${normalisedEndpoint === '/' ? '' : normalisedEndpoint}/${PLAYGROUND_ASSETS_DIRECTORY}/`;
  const assets = (): PlaygroundAssets => {
    let made = assetsByEndpoint.get(normalisedEndpoint);
    if (made === undefined) {
      made = playgroundAssets(endpoint);
      assetsByEndpoint.set(normalisedEndpoint, made);
    }
    return made;
  };
  // Made now, so that a bundle that would load from another host stops the start.
  assets();

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.baseUrl + req.path;
    if (path.startsWith(assetsPrefix)) {
      const file = assets().files.get(path.slice(assetsPrefix.length));
      if (file === undefined) return next();
      res.set({ 'Cache-Control': IMMUTABLE, 'Cross-Origin-Resource-Policy': 'same-origin' });
      sendAsset(req, res, file).catch(next);
      return;
    }
    if ((path.replace(/\/+$/, '') || '/') !== normalisedEndpoint || !wantsPage(req)) {
      return next();
    }
    res.set({
      'Content-Security-Policy': PLAYGROUND_CONTENT_SECURITY_POLICY,
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-cache',
    });
    // The same URL serves GraphQL results to other clients.
    res.append('Vary', 'Accept, Sec-Fetch-Dest');
    // The browser asks for the assets next: their compression starts now (once).
    for (const file of assets().files.values()) compressedOf(file).catch(() => undefined);
    sendAsset(req, res, assets().page).catch(next);
  };
}
