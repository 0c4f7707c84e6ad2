import {
  API_KEY_PREFIX,
  generateApiKey,
  generateKeyId,
  hashApiKey,
  isWellFormedApiKey,
  shownPrefix,
} from '../../src/auth/api-key-format';
import type { ApiKeyDoc, ApiKeyRecord, ApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService, INVALID_KEY_MESSAGE } from '../../src/auth/api-key-service';
import { hasPermission, PERMISSIONS, type Permission } from '../../src/auth/permissions';
import {
  AppError,
  BadUserInputError,
  ConflictError,
  ForbiddenError,
  isAppError,
  NotFoundError,
  UnauthenticatedError,
} from '../../src/errors';
import { formatKeyTable, parseKeysArgs, runKeysCli, UsageError } from '../../src/cli/keys';

const KEY_SHAPE = /^cdk_[A-Za-z0-9_-]{43}$/;

/** In-memory stand-in for the repository: unit tests exercise the service rules only. */
function fakeRepository() {
  const docs: ApiKeyDoc[] = [];
  const strip = ({ keyHash: _hash, ...record }: ApiKeyDoc): ApiKeyRecord => record;
  const calls = { findByKeyHash: 0 };
  const repository: ApiKeyRepository = {
    insert: async (doc) => {
      if (docs.some((d) => d.id === doc.id || d.keyHash === doc.keyHash)) throw new ConflictError();
      docs.push({ ...doc });
    },
    findByKeyHash: async (keyHash) => {
      calls.findByKeyHash += 1;
      const doc = docs.find((d) => d.keyHash === keyHash);
      return doc ? strip(doc) : null;
    },
    findById: async (id) => {
      const doc = docs.find((d) => d.id === id);
      return doc ? strip(doc) : null;
    },
    list: async () => docs.map(strip),
    revoke: async (id, at) => {
      const doc = docs.find((d) => d.id === id);
      if (!doc) return null;
      doc.revokedAt ??= at;
      return strip(doc);
    },
    setStatisticsBudget: async (id, statisticsBudget) => {
      const doc = docs.find((d) => d.id === id);
      if (!doc) return null;
      doc.statisticsBudget = statisticsBudget;
      return strip(doc);
    },
    update: async (id, changes) => {
      const doc = docs.find((d) => d.id === id);
      if (!doc) return null;
      if (changes.operations !== undefined) doc.operations = changes.operations;
      if (changes.statisticsBudget !== undefined) doc.statisticsBudget = changes.statisticsBudget;
      return strip(doc);
    },
  };
  return { repository, docs, calls };
}

function serviceWithClock(start = new Date('2030-01-01T00:00:00Z')) {
  const clock = { now: start };
  const fake = fakeRepository();
  const service = new ApiKeyService(fake.repository, { now: () => clock.now });
  return { service, clock, ...fake };
}

async function expectUnauthenticated(attempt: Promise<unknown>): Promise<void> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnauthenticatedError);
  expect((error as UnauthenticatedError).message).toBe(INVALID_KEY_MESSAGE);
}

describe('API key format', () => {
  test('when a key is generated, then it is the prefix and 43 base64url characters', () => {
    const key = generateApiKey();

    expect(key).toMatch(KEY_SHAPE);
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
  });

  test('when the body of a key is decoded, then it is 32 bytes (256 bits)', () => {
    const key = generateApiKey();

    const bytes = Buffer.from(key.slice(API_KEY_PREFIX.length), 'base64url');

    expect(bytes).toHaveLength(32);
    expect(bytes.toString('base64url')).toBe(key.slice(API_KEY_PREFIX.length));
  });

  test('when many keys are generated, then no two are equal', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey);

    expect(new Set(keys).size).toBe(keys.length);
  });

  test('when a key is hashed, then the hash is 64 hex chars, differs from the key and does not contain it', () => {
    const key = generateApiKey();

    const hash = hashApiKey(key);

    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toBe(key);
    expect(hash).not.toContain(key.slice(API_KEY_PREFIX.length));
    expect(hashApiKey(key)).toBe(hash);
    expect(hashApiKey(generateApiKey())).not.toBe(hash);
  });

  test('when the shown prefix is taken, then it is the key prefix and 6 more characters', () => {
    const key = generateApiKey();

    expect(shownPrefix(key)).toBe(key.slice(0, 10));
    expect(shownPrefix(key).startsWith(API_KEY_PREFIX)).toBe(true);
  });

  test('when a key id is generated, then it is key_ and 12 base64url characters', () => {
    expect(generateKeyId()).toMatch(/^key_[A-Za-z0-9_-]{12}$/);
  });

  test('when a generated key is checked, then it is well formed', () => {
    expect(isWellFormedApiKey(generateApiKey())).toBe(true);
  });

  test.each([
    ['undefined', undefined],
    ['empty', ''],
    ['a number', 42],
    ['the wrong prefix', 'xyz_' + 'A'.repeat(43)],
    ['no prefix', 'A'.repeat(43)],
    ['a body one char short', 'cdk_' + 'A'.repeat(42)],
    ['a body one char long', 'cdk_' + 'A'.repeat(44)],
    ['base64 padding', 'cdk_' + 'A'.repeat(42) + '='],
    ['standard base64 characters', 'cdk_' + '+/' + 'A'.repeat(41)],
    ['stray bits in the last character', 'cdk_' + 'A'.repeat(42) + 'B'],
    ['surrounding whitespace', ` ${'cdk_' + 'A'.repeat(43)}`],
  ])('when a value has %s, then it is not a well-formed key', (_label, value) => {
    expect(isWellFormedApiKey(value)).toBe(false);
  });
});

describe('permissions', () => {
  test('when a key holds the permission, then it has it', () => {
    expect(hasPermission(['READ_CANDIDATE_DATA'], 'READ_CANDIDATE_DATA')).toBe(true);
  });

  test('when a key holds other permissions only, then it does not have it', () => {
    expect(hasPermission(['READ_CANDIDATE_DATA', 'SUBMIT_JOB_MATCHES'], 'REGISTER_CANDIDATES')).toBe(false);
    expect(hasPermission([], 'READ_CANDIDATE_DATA')).toBe(false);
  });

  test.each(PERMISSIONS.map((p) => [p]))('when a key holds ADMIN, then it has %s', (permission) => {
    expect(hasPermission(['ADMIN'], permission)).toBe(true);
  });

  test('when a key lacks the permission, then requirePermission throws a 403 FORBIDDEN naming it', () => {
    const { service } = serviceWithClock();

    const attempt = () => service.requirePermission({ permissions: ['READ_CANDIDATE_DATA'] }, 'SUBMIT_JOB_MATCHES');

    expect(attempt).toThrow(ForbiddenError);
    expect(attempt).toThrow(/SUBMIT_JOB_MATCHES/);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    }
  });

  test('when a key holds the permission or ADMIN, then requirePermission passes', () => {
    const { service } = serviceWithClock();

    expect(() =>
      service.requirePermission({ permissions: ['OFFER_CANDIDATE_SERVICES'] }, 'OFFER_CANDIDATE_SERVICES'),
    ).not.toThrow();
    expect(() => service.requirePermission({ permissions: ['ADMIN'] }, 'REGISTER_CANDIDATES')).not.toThrow();
  });
});

describe('API key service rules', () => {
  test('when a key is created without a policy and then updated to published and back, then it reads any, published, any', async () => {
    const { service, docs } = serviceWithClock();
    const { record } = await service.createKey({ name: 'partner', permissions: ['READ_CANDIDATE_DATA'] });

    const published = await service.updateKey(record.id, { operations: 'published' });
    const any = await service.updateKey(record.id, { operations: 'any' });

    expect([record.operations ?? 'any', published.operations, any.operations ?? 'any']).toEqual([
      'any',
      'published',
      'any',
    ]);
    expect(docs).toHaveLength(1);
  });

  test('when a key is created or updated with an unknown policy, then BAD_USER_INPUT, and an unknown id is NOT_FOUND', async () => {
    const { service } = serviceWithClock();
    const { record } = await service.createKey({ name: 'partner', permissions: ['READ_CANDIDATE_DATA'] });

    await expect(
      service.createKey({ name: 'p', permissions: ['READ_CANDIDATE_DATA'], operations: 'some' }),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await expect(service.updateKey(record.id, { operations: 'some' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await expect(service.updateKey('key_unknown', { operations: 'any' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  test('when a key is created, then the key is returned once and only its hash is stored', async () => {
    const { service, docs } = serviceWithClock();

    const { key, record } = await service.createKey({ name: ' partner A ', permissions: ['READ_CANDIDATE_DATA'] });

    expect(key).toMatch(KEY_SHAPE);
    expect(record).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'partner A',
      prefix: key.slice(0, 10),
      permissions: ['READ_CANDIDATE_DATA'],
      createdDate: new Date('2030-01-01T00:00:00Z'),
    });
    expect(record).not.toHaveProperty('keyHash');
    expect(docs).toHaveLength(1);
    expect(docs[0].keyHash).toBe(hashApiKey(key));
    expect(JSON.stringify(docs[0])).not.toContain(key.slice(API_KEY_PREFIX.length));
  });

  test('when expiresInDays is given, then expiresAt is that many days after creation', async () => {
    const { service } = serviceWithClock();

    const { record } = await service.createKey({ name: 'n', permissions: ['ADMIN'], expiresInDays: 30 });

    expect(record.expiresAt).toEqual(new Date('2030-01-31T00:00:00Z'));
  });

  test('when permissions repeat, then each is stored once', async () => {
    const { service } = serviceWithClock();

    const { record } = await service.createKey({ name: 'n', permissions: ['ADMIN', 'ADMIN', 'READ_CANDIDATE_DATA'] });

    expect(record.permissions).toEqual(['ADMIN', 'READ_CANDIDATE_DATA']);
  });

  test.each([
    ['an empty name', { name: '  ', permissions: ['ADMIN'] }, 'name'],
    ['a name with a control character', { name: 'a\nb', permissions: ['ADMIN'] }, 'name'],
    ['a too long name', { name: 'x'.repeat(101), permissions: ['ADMIN'] }, 'name'],
    ['no permissions', { name: 'n', permissions: [] }, 'permissions'],
    ['an unknown permission', { name: 'n', permissions: ['READ_EVERYTHING'] }, 'permissions'],
    ['zero days', { name: 'n', permissions: ['ADMIN'], expiresInDays: 0 }, 'expiresInDays'],
    ['fractional days', { name: 'n', permissions: ['ADMIN'], expiresInDays: 1.5 }, 'expiresInDays'],
    ['a malformed fixed value', { name: 'n', permissions: ['ADMIN'], value: 'cdk_short' }, 'value'],
  ])('when createKey gets %s, then it throws BAD_USER_INPUT naming the parameter', async (_label, input, parameter) => {
    const { service, docs } = serviceWithClock();

    const error = await service.createKey(input).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BadUserInputError);
    expect((error as BadUserInputError).details).toEqual([expect.objectContaining({ parameter })]);
    expect(docs).toHaveLength(0);
  });

  test('when a well-formed fixed value is given, then that value is the key', async () => {
    const { service } = serviceWithClock();
    const value = generateApiKey();

    const { key } = await service.createKey({ name: 'demo', permissions: ['ADMIN'], value });

    expect(key).toBe(value);
    await expect(service.authenticate(value)).resolves.toMatchObject({ name: 'demo' });
  });

  test('when no key or a malformed key is presented, then authentication fails without a lookup', async () => {
    const { service, calls } = serviceWithClock();

    await expectUnauthenticated(service.authenticate(undefined));
    await expectUnauthenticated(service.authenticate(''));
    await expectUnauthenticated(service.authenticate('Bearer abc'));
    expect(calls.findByKeyHash).toBe(0);
  });

  test('when unknown, revoked and expired keys are presented, then every failure looks the same', async () => {
    const { service, clock } = serviceWithClock();
    const revoked = await service.createKey({ name: 'r', permissions: ['ADMIN'] });
    await service.revokeKey(revoked.record.id);
    const expiring = await service.createKey({ name: 'e', permissions: ['ADMIN'], expiresInDays: 1 });
    clock.now = new Date(expiring.record.expiresAt!.getTime());

    await expectUnauthenticated(service.authenticate(generateApiKey()));
    await expectUnauthenticated(service.authenticate(revoked.key));
    await expectUnauthenticated(service.authenticate(expiring.key));
  });

  test('when an expiring key is presented before its expiry, then it authenticates', async () => {
    const { service, clock } = serviceWithClock();
    const { key, record } = await service.createKey({ name: 'e', permissions: ['ADMIN'], expiresInDays: 1 });
    clock.now = new Date(record.expiresAt!.getTime() - 1);

    await expect(service.authenticate(key)).resolves.toEqual(record);
  });

  test('when an unknown id is revoked, then NOT_FOUND is thrown', async () => {
    const { service } = serviceWithClock();

    await expect(service.revokeKey('key_doesnotexist')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('error model', () => {
  test.each([
    ['BadUserInputError', new BadUserInputError('bad'), 'BAD_USER_INPUT', 400],
    ['UnauthenticatedError', new UnauthenticatedError(), 'UNAUTHENTICATED', 401],
    ['ForbiddenError', new ForbiddenError(), 'FORBIDDEN', 403],
    ['NotFoundError', new NotFoundError(), 'NOT_FOUND', 404],
    ['ConflictError', new ConflictError(), 'CONFLICT', 409],
  ])('when a %s is made, then it is an AppError with its code and status', (_name, error, code, status) => {
    expect(isAppError(error)).toBe(true);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code, status });
  });

  test('when a plain error or a non-error is checked, then it is not an AppError', () => {
    expect(isAppError(new Error('x'))).toBe(false);
    expect(isAppError({ code: 'NOT_FOUND', status: 404 })).toBe(false);
    expect(isAppError(undefined)).toBe(false);
  });

  test('when one issue is given to BadUserInputError, then details is a list of it', () => {
    expect(new BadUserInputError('bad', { parameter: 'limit', rule: 'max' }).details).toEqual([
      { parameter: 'limit', rule: 'max' },
    ]);
    expect(new BadUserInputError('bad').details).toBeUndefined();
  });
});

describe('keys CLI arguments', () => {
  test('when create has a name and permissions, then they are parsed', () => {
    expect(
      parseKeysArgs(['create', '--name', 'partner A', '--permissions', 'READ_CANDIDATE_DATA, SUBMIT_JOB_MATCHES']),
    ).toEqual({
      command: 'create',
      name: 'partner A',
      permissions: ['READ_CANDIDATE_DATA', 'SUBMIT_JOB_MATCHES'],
    });
  });

  test('when create has --expires and = syntax, then the days are parsed', () => {
    expect(parseKeysArgs(['create', '--name=n', '--permissions=ADMIN', '--expires', '90'])).toEqual({
      command: 'create',
      name: 'n',
      permissions: ['ADMIN'],
      expiresInDays: 90,
    });
  });

  test('when create has --operations, then the policy is parsed', () => {
    expect(parseKeysArgs(['create', '--name', 'n', '--permissions', 'ADMIN', '--operations', 'published'])).toEqual({
      command: 'create',
      name: 'n',
      permissions: ['ADMIN'],
      operations: 'published',
    });
  });

  test('when update has a key id and --operations, then the change is parsed', () => {
    expect(parseKeysArgs(['update', 'key_abc', '--operations', 'any'])).toEqual({
      command: 'update',
      id: 'key_abc',
      changes: { operations: 'any' },
    });
  });

  test.each([
    ['update without a change', ['update', 'key_abc']],
    ['update without a key id', ['update', '--operations', 'any']],
    ['an unknown operation policy', ['update', 'key_abc', '--operations', 'some']],
    [
      'create with an unknown operation policy',
      ['create', '--name', 'n', '--permissions', 'ADMIN', '--operations', 'x'],
    ],
  ])('when %s is given, then it is a usage error', (_label, argv) => {
    expect(() => parseKeysArgs(argv)).toThrow(UsageError);
  });

  test('when list or revoke are given, then they are parsed', () => {
    expect(parseKeysArgs(['list'])).toEqual({ command: 'list' });
    expect(parseKeysArgs(['revoke', 'key_abc'])).toEqual({ command: 'revoke', id: 'key_abc' });
    expect(parseKeysArgs(['update', 'key_abc', '--statistics-budget', '2.5'])).toEqual({
      command: 'update',
      id: 'key_abc',
      changes: { statisticsBudget: 2.5 },
    });
    expect(parseKeysArgs(['create', '--name=n', '--permissions=READ_STATISTICS', '--statistics-budget', '0'])).toEqual({
      command: 'create',
      name: 'n',
      permissions: ['READ_STATISTICS'],
      statisticsBudget: 0,
    });
    for (const bad of [
      ['update', 'key_abc'],
      ['update', 'key_abc', '--statistics-budget', '-1'],
      ['update', 'key_abc', '--statistics-budget', '0.0001'],
      ['create', '--name=n', '--permissions=ADMIN', '--statistics-budget', 'lots'],
    ])
      expect(() => parseKeysArgs(bad)).toThrow(UsageError);
    expect(parseKeysArgs(['--help'])).toEqual({ command: 'help' });
  });

  test.each([
    ['no command', []],
    ['an unknown command', ['rotate']],
    ['create without a name', ['create', '--permissions', 'ADMIN']],
    ['create with a blank name', ['create', '--name', ' ', '--permissions', 'ADMIN']],
    ['create without permissions', ['create', '--name', 'n']],
    ['an empty permission list', ['create', '--name', 'n', '--permissions', ',']],
    ['an unknown permission', ['create', '--name', 'n', '--permissions', 'ADMIN,READ_ALL']],
    ['a lower-case permission', ['create', '--name', 'n', '--permissions', 'admin']],
    ['zero days', ['create', '--name', 'n', '--permissions', 'ADMIN', '--expires', '0']],
    ['negative days', ['create', '--name', 'n', '--permissions', 'ADMIN', '--expires', '-3']],
    ['fractional days', ['create', '--name', 'n', '--permissions', 'ADMIN', '--expires', '1.5']],
    ['non-numeric days', ['create', '--name', 'n', '--permissions', 'ADMIN', '--expires', 'soon']],
    ['too many days', ['create', '--name', 'n', '--permissions', 'ADMIN', '--expires', '3651']],
    ['an unknown option', ['create', '--nmae', 'n', '--permissions', 'ADMIN']],
    ['a stray argument', ['create', 'extra', '--name', 'n', '--permissions', 'ADMIN']],
    ['list with an argument', ['list', 'all']],
    ['revoke without an id', ['revoke']],
    ['revoke with two ids', ['revoke', 'key_a', 'key_b']],
  ])('when the command line has %s, then it is a usage error', (_label, argv) => {
    expect(() => parseKeysArgs(argv)).toThrow(UsageError);
  });

  test('when the command line is wrong, then the CLI prints usage on stderr and exits with 2 before opening a store', async () => {
    const out: string[] = [];
    const err: string[] = [];

    const code = await runKeysCli(
      ['create', '--name', 'n', '--permissions', 'READ_ALL'],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      // An unreachable store: reaching it would fail the test with exit code 1, not 2.
      { MONGODB_URI: 'mongodb://127.0.0.1:1' },
    );

    expect(code).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('\n')).toMatch(/unknown permission: READ_ALL/);
    expect(err.join('\n')).toMatch(/Usage: npm run keys/);
  });

  test('when keys are listed, then the table shows id, name, prefix, permissions, dates, rate limit and state', () => {
    const now = new Date('2030-06-01T00:00:00Z');
    const base = {
      prefix: 'cdk_abcdef',
      permissions: ['ADMIN'] as Permission[],
      createdDate: new Date('2030-01-01T00:00:00Z'),
    };

    const table = formatKeyTable(
      [
        { ...base, id: 'key_active000000', name: 'active one' },
        { ...base, id: 'key_expired00000', name: 'old', expiresAt: new Date('2030-02-01T00:00:00Z') },
        { ...base, id: 'key_revoked00000', name: 'gone', revokedAt: new Date('2030-03-01T00:00:00Z') },
        { ...base, id: 'key_partner00000', name: 'partner app', operations: 'published' },
      ],
      now,
    );

    const lines = table.split('\n');
    expect(lines[0]).toMatch(
      /^ID\s+NAME\s+PREFIX\s+PERMISSIONS\s+CREATED\s+EXPIRES\s+RATE_LIMIT\s+OPERATIONS\s+STATE$/,
    );
    expect(lines[1]).toMatch(
      /key_active000000\s+active one\s+cdk_abcdef\s+ADMIN\s+2030-01-01T00:00:00.000Z\s+never\s+default\s+any\s+active$/,
    );
    expect(lines[2]).toMatch(/2030-02-01T00:00:00.000Z\s+default\s+any\s+expired$/);
    expect(lines[3]).toMatch(/revoked 2030-03-01T00:00:00.000Z$/);
    expect(lines[4]).toMatch(/^key_partner00000\s+partner app\s.*\sdefault\s+published\s+active$/);
  });
});
