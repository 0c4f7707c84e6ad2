/**
 * The import (`npm run import`) through its CLI function, over the store under test: a round
 * trip through REST is byte-identical, a second import changes nothing, broken lines are
 * refused one by one, and every import appears in the change feed once, in order.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { READ_EPOCH_COLLECTION } from '../../src/cache/read-epoch';
import { runEraseCli } from '../../src/cli/erase';
import { EXIT, runImportCli, type ImportIo } from '../../src/cli/import';
import { MAX_IMPORT_LINE_BYTES } from '../../src/candidates/import-lines';
import { COLLECTIONS } from '../../src/app/indexes';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { rest } from '../support/rest-client';

/** More than one batch of the import (IMPORT_BATCH_SIZE, 200), with EMPLOYED candidates among them. */
const CANDIDATES = 210;
const SEED = 3;
const PAGE = 100;
/**
 * Three services (one seeded), and every candidate read through REST by page and by id to make
 * the file: hundreds of requests, seconds of work on a quiet machine.
 */
const SETUP_TIMEOUT_MS = 120_000;
/** The import of every candidate, twice, each answer compared byte for byte, and a third import. */
const ROUND_TRIP_TIMEOUT_MS = 120_000;

let source: AppUnderTest;
let target: AppUnderTest;
/** a second store of reference data only, for the tests of refusals and of the feed */
let other: AppUnderTest;
let otherKey: string;
let sourceKey: string;
let targetKey: string;
let dir: string;
/** what the source answered: each page of the full search, then each candidate by id */
const answers = new Map<string, string>();
const exported: string[] = [];

function envOf(app: AppUnderTest): Record<string, string> {
  return { MONGODB_URI: app.app.config.mongodbUri, MONGODB_DB: app.db.databaseName };
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

function stdinOf(text: string): ImportIo {
  return { stdin: Readable.from([text]), stderr: process.stderr };
}

const pagePath = (page: number) => `/v1/candidates?includeEmployed=true&limit=${PAGE}&page=${page}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-test-'));
  source = await startAppUnderTest({ candidates: CANDIDATES, seed: SEED });
  // What `npm run seed -- --candidates 0` writes: reference data and job opportunities, no candidate.
  target = await startAppUnderTest({ candidates: 0, seed: SEED });
  other = await startAppUnderTest({ candidates: 0, seed: SEED });
  otherKey = await other.key('READ_CANDIDATE_DATA', 'REGISTER_CANDIDATES');
  sourceKey = await source.key('READ_CANDIDATE_DATA');
  targetKey = await target.key('READ_CANDIDATE_DATA', 'REGISTER_CANDIDATES');
  const publicIds: string[] = [];
  for (let page = 0; page * PAGE < CANDIDATES; page++) {
    const { status, text, body } = await rest(source.url, 'GET', pagePath(page), { key: sourceKey });
    expect(status).toBe(200);
    answers.set(pagePath(page), text);
    publicIds.push(...(body.content as { publicId: string }[]).map((c) => c.publicId));
  }
  expect(publicIds).toHaveLength(CANDIDATES);
  for (const publicId of publicIds) {
    const { status, text } = await rest(source.url, 'GET', `/v1/candidates/${publicId}`, { key: sourceKey });
    expect(status).toBe(200);
    answers.set(`/v1/candidates/${publicId}`, text);
    exported.push(text);
  }
  // The data set holds EMPLOYED candidates, which only includeEmployed lists.
  expect(exported.some((text) => (JSON.parse(text) as { status: string }).status === 'EMPLOYED')).toBe(true);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all([source?.stop(), target?.stop(), other?.stop()]);
  await rm(dir, { recursive: true, force: true });
});

async function changeEvents(app = target): Promise<{ kind: string; publicId: string }[]> {
  return app.db
    .collection<{ kind: string; publicId: string }>(COLLECTIONS.changeEvents)
    .find({ kind: { $exists: true } }, { projection: { _id: 0, kind: 1, publicId: 1 } })
    .sort({ _id: 1 })
    .toArray();
}

async function readEpoch(): Promise<unknown> {
  return (await target.db.collection(READ_EPOCH_COLLECTION).findOne({}))?.value;
}

describe('npm run import', () => {
  test(
    'when every candidate paged out of REST is imported into a store of reference data only, then every REST answer is byte-identical, and a second import (or one into the store it came from) changes nothing',
    async () => {
      const file = join(dir, 'candidates.ndjson');
      await writeFile(file, `${exported.join('\n')}\n`);
      // A read cached before the import must not outlive it.
      expect((await rest(target.url, 'GET', pagePath(0), { key: targetKey })).body.totalElements).toBe(0);

      const first = capture();
      const code = await runImportCli([file], first.output, envOf(target));

      expect(first.err).toEqual([]);
      expect(code).toBe(EXIT.imported);
      expect(first.out[0]).toMatch(
        new RegExp(`^Imported: ${CANDIDATES} inserted, 0 updated, 0 unchanged, 0 refused in \\d+\\.\\d s\\.$`),
      );
      for (const [path, expected] of answers) {
        const { status, text } = await rest(target.url, 'GET', path, { key: targetKey });
        expect([path, status]).toEqual([path, 200]);
        expect([path, text]).toEqual([path, expected]);
      }
      const events = await changeEvents();
      expect(events).toEqual(exported.map((text) => ({ kind: 'IMPORTED', publicId: JSON.parse(text).publicId })));

      const epoch = await readEpoch();
      const second = capture();
      expect(await runImportCli([file], second.output, envOf(target))).toBe(EXIT.imported);

      expect(second.out[0]).toMatch(new RegExp(`^Imported: 0 inserted, 0 updated, ${CANDIDATES} unchanged, 0 refused`));
      expect(await changeEvents()).toHaveLength(events.length);
      expect(await readEpoch()).toEqual(epoch);
      // Into the store it came from: what the seed stored is what the import would store.
      const back = capture();
      expect(await runImportCli([file], back.output, envOf(source))).toBe(EXIT.imported);
      expect(back.out[0]).toMatch(new RegExp(`^Imported: 0 inserted, 0 updated, ${CANDIDATES} unchanged, 0 refused`));
    },
    ROUND_TRIP_TIMEOUT_MS,
  );

  test('when a file has broken lines, then each is refused with its line number and a reason that repeats no value, and the good lines are imported', async () => {
    const sample = JSON.parse(exported[0]) as Record<string, unknown>;
    const withId = (publicId: string, changes: Record<string, unknown> = {}) =>
      JSON.stringify({ ...sample, publicId, ...changes });
    const lines = [
      /* 1 */ withId('newCandidate0000000001'),
      /* 2 */ '{"publicId": "newCandidate0000000002", "status": ',
      /* 3 */ withId('newCandidate0000000003', { country: { isoCode: 'QQ', name: 'Nowhere', status: 'ACTIVE' } }),
      /* 4 */ withId('newCandidate0000000004', { status: 'HIRED' }),
      /* 5 */ withId('newCandidate0000000005', { city: 'x'.repeat(201) }),
      /* 6 */ withId('not-a-public-id'),
      /* 7 */ withId('newCandidate0000000007', { firstName: 'Amina', email: 'amina@example.org' }),
      /* 8 */ '',
      /* 9 */ withId(sample.publicId as string, { yearOfArrival: 2019 === sample.yearOfArrival ? 2020 : 2019 }),
      /* 10 */ exported[1],
      /* 11 */ withId('newCandidate0000000011', { availDate: '2024-02-30', candidateSkills: 'many' }),
      /* 12 */ '[1, 2]',
      /* 13 */ withId('newCandidate0000000013', { partner: { publicId: 'x' } }),
      /* 14 */ withId('newCandidate0000000014', { candidateMessage: 'see\u202Ethis' }),
      // The candidate of line 1 again, changed: compared with what line 1 wrote.
      /* 15 */ withId('newCandidate0000000001', { city: 'Irbid' }),
    ];
    // Two candidates already there: one the file changes, one it repeats.
    await writeFile(join(dir, 'two.ndjson'), `${exported[0]}\n${exported[1]}\n`);
    expect(await runImportCli([join(dir, 'two.ndjson')], capture().output, envOf(other))).toBe(EXIT.imported);
    const { out, err, output } = capture();
    const before = await changeEvents(other);

    const code = await runImportCli(['-'], output, envOf(other), undefined, stdinOf(`${lines.join('\n')}\n`));

    expect(code).toBe(EXIT.refused);
    expect(out[0]).toMatch(/^Imported: 1 inserted, 2 updated, 1 unchanged, 10 refused \(1 blank line skipped\)/);
    expect(err).toEqual([
      'line 2: refused: not valid JSON',
      'line 3: refused: country.isoCode: a known ISO 3166-1 alpha-2 country code',
      expect.stringMatching(/^line 4: refused: status: one of ACTIVE, AUTONOMOUS_EMPLOYMENT, /),
      'line 5: refused: city: at most 200 characters',
      'line 6: refused: publicId: 22 characters of A-Z, a-z, 0-9, _ or -',
      'line 7: refused: holds identity data (firstName, email): the import takes the anonymised candidate only',
      'line 11: refused: availDate: an ISO 8601 calendar date (YYYY-MM-DD); candidateSkills: an array',
      'line 12: refused: not a JSON object (one candidate per line)',
      'line 13: refused: partner: not a field of the Candidate',
      expect.stringMatching(/^line 14: refused: candidateMessage: free of /),
    ]);
    for (const value of ['Amina', 'amina@example.org', 'HIRED', 'QQ', 'Nowhere', 'not-a-public-id', '2024-02-30']) {
      expect(err.join('\n')).not.toContain(value);
    }
    expect(await changeEvents(other)).toEqual([
      ...before,
      { kind: 'IMPORTED', publicId: 'newCandidate0000000001' },
      { kind: 'UPDATED', publicId: sample.publicId },
      { kind: 'UPDATED', publicId: 'newCandidate0000000001' },
    ]);
    const updated = await rest(other.url, 'GET', `/v1/candidates/${sample.publicId as string}`, { key: otherKey });
    expect(updated.body.yearOfArrival).toBe(JSON.parse(lines[8]).yearOfArrival);
  });

  test('when a line is not valid UTF-8, then it is refused by its number without its bytes, and the lines around it are imported', async () => {
    const sample = JSON.parse(exported[20]) as Record<string, unknown>;
    const lineOf = (publicId: string) => Buffer.from(JSON.stringify({ ...sample, publicId }));
    const broken = Buffer.concat([
      Buffer.from(JSON.stringify({ ...sample, publicId: 'bytesCandidate00000002', city: 'CITY' }).split('CITY')[0]),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(JSON.stringify({ ...sample, city: 'CITY' }).split('CITY')[1]),
    ]);
    const input = Buffer.concat([
      lineOf('bytesCandidate00000001'),
      Buffer.from('\n'),
      broken,
      Buffer.from('\n'),
      lineOf('bytesCandidate00000003'),
      Buffer.from('\n'),
    ]);
    const { out, err, output } = capture();

    const code = await runImportCli(['-'], output, envOf(other), undefined, {
      stdin: Readable.from([input]),
      stderr: process.stderr,
    });

    expect(code).toBe(EXIT.refused);
    expect(err).toEqual(['line 2: refused: not valid UTF-8']);
    expect(out[0]).toMatch(/^Imported: 2 inserted, 0 updated, 0 unchanged, 1 refused/);
    expect((await rest(other.url, 'GET', '/v1/candidates/bytesCandidate00000002', { key: otherKey })).status).toBe(404);
    expect((await rest(other.url, 'GET', '/v1/candidates/bytesCandidate00000003', { key: otherKey })).status).toBe(200);
  });

  test('when the file starts with a UTF-8 byte order mark, then the mark is skipped and the first line is imported', async () => {
    const sample = JSON.parse(exported[21]) as Record<string, unknown>;
    const file = join(dir, 'with-bom.ndjson');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(`${JSON.stringify({ ...sample, publicId: 'bomCandidate0000000001' })}\r\n`),
        Buffer.from(`${JSON.stringify({ ...sample, publicId: 'bomCandidate0000000002' })}\r\n`),
      ]),
    );
    const { out, err, output } = capture();

    const code = await runImportCli([file], output, envOf(other));

    expect(err).toEqual([]);
    expect(code).toBe(EXIT.imported);
    expect(out[0]).toMatch(/^Imported: 2 inserted, 0 updated, 0 unchanged, 0 refused/);
  });

  test('when a line is longer than the maximum line length, then it is refused by its number, and the lines around it are imported', async () => {
    const sample = JSON.parse(exported[22]) as Record<string, unknown>;
    const long = JSON.stringify({
      ...sample,
      publicId: 'longCandidate000000002',
      candidateMessage: 'm'.repeat(MAX_IMPORT_LINE_BYTES),
    });
    const lines = [
      JSON.stringify({ ...sample, publicId: 'longCandidate000000001' }),
      long,
      JSON.stringify({ ...sample, publicId: 'longCandidate000000003' }),
    ];
    const { out, err, output } = capture();

    const code = await runImportCli(['-'], output, envOf(other), undefined, stdinOf(`${lines.join('\n')}\n`));

    expect(code).toBe(EXIT.refused);
    expect(err).toEqual([`line 2: refused: longer than the maximum line length (${MAX_IMPORT_LINE_BYTES} bytes)`]);
    expect(out[0]).toMatch(/^Imported: 2 inserted, 0 updated, 0 unchanged, 1 refused/);
  });

  test('when the named file does not exist, then the import exits 2 (bad arguments) naming it, before opening the store', async () => {
    const missing = join(dir, 'no-such-file.ndjson');
    const { err, output } = capture();

    const code = await runImportCli([missing], output, { MONGODB_URI: 'mongodb://127.0.0.1:1/never-opened' });

    expect(code).toBe(EXIT.usage);
    expect(err.join('\n')).toContain(missing);
  });

  test('when candidates are imported, registered, erased and imported again, then the change feed shows each change once, in order, and an erased candidate is not imported again', async () => {
    const ids = ['feedCandidate000000001', 'feedCandidate000000002', 'feedCandidate000000003'];
    const lineOf = (i: number, changes: Record<string, unknown> = {}) =>
      JSON.stringify({ ...(JSON.parse(exported[10 + i]) as Record<string, unknown>), publicId: ids[i], ...changes });
    const start = await feedAfter(null);
    const cursor = start.at(-1)?.cursor ?? null;
    expect(
      await runImportCli(['-'], capture().output, envOf(other), undefined, stdinOf(`${lineOf(0)}\n${lineOf(1)}\n`)),
    ).toBe(EXIT.imported);
    const registered = await rest(other.url, 'POST', '/v1/candidates/register', {
      key: otherKey,
      body: { registrationData: { identity: { email: 'import-feed@example.org' } } },
    });
    expect(registered.status).toBe(201);
    expect(await runEraseCli([ids[0]], capture().output, envOf(other))).toBe(0);
    const { err, output } = capture();

    const code = await runImportCli(
      ['-'],
      output,
      envOf(other),
      undefined,
      stdinOf(`${lineOf(0)}\n${lineOf(1, { city: 'Elsewhere' })}\n${lineOf(2)}\n`),
    );

    expect(code).toBe(EXIT.refused);
    expect(err).toEqual([
      'line 1: refused: this candidate was erased from the directory: erase it in the system of record too (it is not imported again)',
    ]);
    expect((await feedAfter(cursor)).map(({ kind, publicId }) => ({ kind, publicId }))).toEqual([
      { kind: 'IMPORTED', publicId: ids[0] },
      { kind: 'IMPORTED', publicId: ids[1] },
      { kind: 'REGISTERED', publicId: registered.body.publicId },
      { kind: 'ERASED', publicId: ids[0] },
      { kind: 'UPDATED', publicId: ids[1] },
      { kind: 'IMPORTED', publicId: ids[2] },
    ]);
    expect((await rest(other.url, 'GET', `/v1/candidates/${ids[0]}`, { key: otherKey })).status).toBe(404);
    expect((await rest(other.url, 'GET', `/v1/candidates/${ids[1]}`, { key: otherKey })).body.city).toBe('Elsewhere');
  });
});

/** Every change of the feed of `other` after `after`, page by page. */
async function feedAfter(after: string | null): Promise<{ kind: string; publicId: string; cursor: string }[]> {
  const feed: { kind: string; publicId: string; cursor: string }[] = [];
  for (;;) {
    const page = await graphql<FeedPage>(other.url, FEED, { after, first: 100 }, otherKey);
    expect(page.body.errors).toBeUndefined();
    const { edges, pageInfo } = page.body.data!.candidateChanges;
    feed.push(...edges.map(({ cursor, node }) => ({ kind: node.kind, publicId: node.publicId, cursor })));
    if (!pageInfo.hasNextPage) return feed;
    after = pageInfo.endCursor;
  }
}

interface FeedPage {
  candidateChanges: {
    edges: { cursor: string; node: { kind: string; publicId: string } }[];
    pageInfo: { endCursor: string | null; hasNextPage: boolean };
  };
}

const FEED = `query Feed($after: String, $first: Int) {
  candidateChanges(after: $after, first: $first) {
    edges { cursor node { kind publicId } }
    pageInfo { endCursor hasNextPage }
  }
}`;
