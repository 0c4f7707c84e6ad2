import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { API_KEY_PREFIX, generateApiKey, hashApiKey } from '../../src/auth/api-key-format';
import { apiKeyIndexes } from '../../src/auth/api-key-indexes';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService, type ApiKeyRecord } from '../../src/auth/api-key-service';
import { ConflictError, NotFoundError, UnauthenticatedError } from '../../src/errors';
import { ensureIndexes } from '../../src/app/indexes';
import { connectDatabase, type Database } from '../../src/store/mongo';
import { runKeysCli } from '../../src/cli/keys';
import { startStoreUnderTest } from 'embedded-mongodb/test-support';
import { TestClock } from '../support/test-clock';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

let store: Awaited<ReturnType<typeof startStoreUnderTest>>;
let database: Database;
let dbName: string;
/** the service's clock; tests that move it put it back in afterEach */
let now: Date;
let service: ApiKeyService;

beforeAll(async () => {
  store = await startStoreUnderTest();
  // A database of its own, so this file neither sees nor leaves data of other test files.
  dbName = `api_keys_${randomBytes(6).toString('hex')}`;
  database = await connectDatabase(store.uri, dbName);
  await ensureIndexes(database.db, apiKeyIndexes);
  service = new ApiKeyService(createApiKeyRepository(database.db), { now: () => now });
});

beforeEach(() => {
  now = new Date();
});

afterAll(async () => {
  await database?.db.dropDatabase().catch(() => undefined);
  await database?.close();
  await store?.stop();
});

/** Every string anywhere in a value (nested objects and arrays included). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.entries(value).flatMap(([field, v]) => [field, ...stringsIn(v)]);
  }
  return [];
}

/** The forms in which a leaked key could appear: whole, without its prefix, as raw bytes in hex. */
function keyForms(key: string): string[] {
  const body = key.slice(API_KEY_PREFIX.length);
  return [key, body, Buffer.from(body, 'base64url').toString('hex'), Buffer.from(body, 'base64url').toString('base64')];
}

async function authenticationError(key: string | undefined): Promise<unknown> {
  return service.authenticate(key).then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** TypeScript's runner, started by node itself (npx would add its own start-up to every run). */
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** The keys CLI as an operator runs it: a process of its own, its exit code and output. */
async function keysCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [TSX, 'src/cli/keys.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, MONGODB_URI: store.uri, MONGODB_DB: dbName },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** The keys CLI's own function in this process: the same exit code and lines, without compiling it in a child. */
async function keysInProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runKeysCli(
    args,
    { out: (line) => out.push(line), err: (line) => err.push(line) },
    { MONGODB_URI: store.uri, MONGODB_DB: dbName },
  );
  return { code, stdout: out.map((line) => `${line}\n`).join(''), stderr: err.map((line) => `${line}\n`).join('') };
}

describe('API keys on the real store', () => {
  test('when a key is created, then it authenticates and yields its record', async () => {
    const { key, record } = await service.createKey({ name: 'partner A', permissions: ['READ_CANDIDATE_DATA'] });

    const authenticated = await service.authenticate(key);

    expect(authenticated).toEqual(record);
    expect(authenticated).not.toHaveProperty('_id');
    expect(authenticated).not.toHaveProperty('keyHash');
  });

  test('when a key is created, then no string of the stored document contains the key', async () => {
    const { key, record } = await service.createKey({ name: 'partner B', permissions: ['ADMIN'], expiresInDays: 7 });

    const stored = await database.db.collection('apiKeys').findOne({ id: record.id });

    expect(stored).not.toBeNull();
    const strings = stringsIn(stored);
    for (const form of keyForms(key)) {
      for (const s of strings) expect(s).not.toContain(form);
    }
    expect(stored!.keyHash).toBe(hashApiKey(key));
    expect(stored!.prefix).toBe(key.slice(0, 10));
    expect(Object.keys(stored!).sort()).toEqual(
      ['_id', 'createdDate', 'expiresAt', 'id', 'keyHash', 'name', 'permissions', 'prefix'].sort(),
    );
  });

  test('when a key is revoked, then the next authentication fails at once', async () => {
    const { key, record } = await service.createKey({ name: 'to revoke', permissions: ['ADMIN'] });
    await service.authenticate(key);

    const revoked = await service.revokeKey(record.id);

    expect(revoked.revokedAt).toEqual(now);
    expect(await authenticationError(key)).toBeInstanceOf(UnauthenticatedError);
  });

  test('when a revoked key is revoked again, then its first revocation time stays', async () => {
    const { record } = await service.createKey({ name: 'twice', permissions: ['ADMIN'] });
    const first = await service.revokeKey(record.id);
    now = new Date(now.getTime() + 60_000);

    const second = await service.revokeKey(record.id);

    expect(second.revokedAt).toEqual(first.revokedAt);
  });

  test('when a key has expired, then authentication fails', async () => {
    const { key, record } = await service.createKey({ name: 'short lived', permissions: ['ADMIN'], expiresInDays: 1 });
    now = new Date(record.expiresAt!.getTime() - 1);
    await service.authenticate(key);

    now = new Date(record.expiresAt!.getTime());

    expect(await authenticationError(key)).toBeInstanceOf(UnauthenticatedError);
  });

  test('when an unknown or missing key is presented, then authentication fails with the same message', async () => {
    const unknown = await authenticationError(generateApiKey());
    const missing = await authenticationError(undefined);

    expect(unknown).toBeInstanceOf(UnauthenticatedError);
    expect(missing).toBeInstanceOf(UnauthenticatedError);
    expect((unknown as Error).message).toBe((missing as Error).message);
  });

  test('when the same fixed value is used for two keys, then the second is a conflict', async () => {
    const value = generateApiKey();
    await service.createKey({ name: 'demo', permissions: ['ADMIN'], value });

    const error = await service
      .createKey({ name: 'demo again', permissions: ['ADMIN'], value })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).not.toContain(hashApiKey(value));
  });

  test('when an unknown id is revoked, then it is not found', async () => {
    await expect(service.revokeKey('key_AAAAAAAAAAAA')).rejects.toBeInstanceOf(NotFoundError);
  });

  test('when keys are listed, then they carry neither a hash nor a key', async () => {
    const created = await service.createKey({ name: 'listed', permissions: ['SUBMIT_JOB_MATCHES'] });

    const records = await service.listKeys();

    const listed = records.find((r) => r.id === created.record.id);
    expect(listed).toEqual(created.record);
    for (const r of records) {
      expect(r).not.toHaveProperty('keyHash');
      expect(r).not.toHaveProperty('_id');
    }
    const strings = stringsIn(records);
    for (const s of strings) {
      expect(s).not.toContain(hashApiKey(created.key));
      for (const form of keyForms(created.key)) expect(s).not.toContain(form);
    }
  });
});

describe('keys CLI', () => {
  // The one run as a child process: it compiles the CLI and its imports with tsx first, seconds
  // of work of its own on a quiet machine (the others call the same function in this process).
  test('when create runs, then the last stdout line is a key that authenticates with the given permissions', async () => {
    const result = await keysCli([
      'create',
      '--name',
      'cli partner',
      '--permissions',
      'READ_CANDIDATE_DATA,SUBMIT_JOB_MATCHES',
      '--expires',
      '30',
    ]);

    expect(result.code).toBe(0);
    const key = result.stdout.trimEnd().split('\n').at(-1)!;
    expect(key).toMatch(/^cdk_[A-Za-z0-9_-]{43}$/);
    const record: ApiKeyRecord = await service.authenticate(key);
    expect(record).toMatchObject({ name: 'cli partner', permissions: ['READ_CANDIDATE_DATA', 'SUBMIT_JOB_MATCHES'] });
    expect(record.expiresAt!.getTime() - record.createdDate.getTime()).toBe(30 * 24 * 60 * 60 * 1000);
  }, 120_000);

  test('when list and revoke run, then list shows the key without secrets and revoke stops it at once', async () => {
    const { key, record } = await service.createKey({ name: 'cli listed', permissions: ['ADMIN'] });

    const listed = await keysInProcess(['list']);
    const revoked = await keysInProcess(['revoke', record.id]);

    expect(listed.code).toBe(0);
    const line = listed.stdout.split('\n').find((l) => l.startsWith(record.id));
    expect(line).toMatch(
      new RegExp(
        `^${record.id}\\s+cli listed\\s+${record.prefix}\\s+ADMIN\\s+\\S+\\s+never\\s+default\\s+any\\s+active$`,
      ),
    );
    for (const form of [...keyForms(key), hashApiKey(key)]) expect(listed.stdout + listed.stderr).not.toContain(form);
    expect(revoked.code).toBe(0);
    expect(await authenticationError(key)).toBeInstanceOf(UnauthenticatedError);
  });

  test('when revoke gets an unknown id, then it exits with 1 and says so on stderr', async () => {
    const result = await keysInProcess(['revoke', 'key_AAAAAAAAAAAA']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/No API key has this id/);
  });

  test('when create gets an unknown permission, then it prints usage on stderr and exits with 2', async () => {
    const result = await keysInProcess(['create', '--name', 'x', '--permissions', 'READ_EVERYTHING']);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/unknown permission: READ_EVERYTHING/);
    expect(result.stderr).toMatch(/Usage: npm run keys/);
  });
});

describe('keys CLI in process, on a clock the test moves', () => {
  test('when a key made with --expires 1 is listed a day later, then list shows it expired and it no longer authenticates', async () => {
    const clock = new TestClock('2030-05-06T12:00:00.000Z');
    const env = { MONGODB_URI: store.uri, MONGODB_DB: dbName };
    const cli = async (args: string[]) => {
      const out: string[] = [];
      const code = await runKeysCli(args, { out: (line) => out.push(line), err: () => undefined }, env, clock);
      return { code, out: out.join('\n') };
    };
    const created = await cli(['create', '--name', 'one day', '--permissions', 'ADMIN', '--expires', '1']);
    const key = created.out.split('\n').at(-1)!;
    const { id } = await service.authenticate(key);
    const listedLine = async () => (await cli(['list'])).out.split('\n').find((line) => line.startsWith(id));

    clock.advance(24 * 60 * 60 * 1000 - 1);
    const lastMoment = await listedLine();
    clock.advance(1);
    const dayLater = await listedLine();
    now = clock.now();

    expect(created.code).toBe(0);
    expect(lastMoment).toMatch(/2030-05-07T12:00:00.000Z\s+default\s+any\s+active$/);
    expect(dayLater).toMatch(/2030-05-07T12:00:00.000Z\s+default\s+any\s+expired$/);
    expect(await authenticationError(key)).toBeInstanceOf(UnauthenticatedError);
  });

  test('when a key is created with --statistics-budget and updated with update --statistics-budget, then the key carries each budget in turn', async () => {
    const env = { MONGODB_URI: store.uri, MONGODB_DB: dbName };
    const clock = new TestClock('2030-05-06T12:00:00.000Z');
    const cli = async (args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runKeysCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) }, env, clock);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };

    const created = await cli([
      'create',
      '--name',
      'analyst',
      '--permissions',
      'READ_STATISTICS',
      '--statistics-budget',
      '2.5',
    ]);
    const key = created.out.split('\n').at(-1)!;
    const before = await service.authenticate(key);
    const updated = await cli(['update', before.id, '--statistics-budget', '7']);
    const after = await service.authenticate(key);
    const unknown = await cli(['update', 'key_unknownxxxxx', '--statistics-budget', '7']);

    expect([created.code, updated.code]).toEqual([0, 0]);
    expect(before.statisticsBudget).toBe(2.5);
    expect(after.statisticsBudget).toBe(7);
    expect(updated.err).toContain('statistics budget ε 7');
    expect(unknown.code).toBe(1);
  });
});
