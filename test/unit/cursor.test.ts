/**
 * The one cursor codec (src/common/cursor.ts) and the two services that use it: a cursor
 * round-trips, cursors given out before this codec existed still decode, and anything else
 * (garbage, a tampered part, a cursor of the other connection) is refused with the service's
 * own input error, as before.
 */
import fc from 'fast-check';
import type { AuditRepository } from '../../src/audit/audit-repository';
import { AuditService } from '../../src/audit/audit-service';
import type { ApiKeyRecord } from '../../src/auth/api-key-repository';
import type { CandidateDoc } from 'candidate-documents';
import { CandidateQueryService } from '../../src/candidates/candidate-query-service';
import type { CandidatePosition, CandidateRepository } from '../../src/candidates/candidate-repository';
import type { SavedListRepository } from '../../src/candidates/saved-list-repository';
import { decodeCursor, encodeCursor } from '../../src/common/cursor';
import { BadUserInputError } from '../../src/errors';

/** A cursor as the services wrote it before the codec: base64url of the JSON array of its parts. */
const legacyCursor = (parts: unknown) => Buffer.from(JSON.stringify(parts)).toString('base64url');

const time = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }).map((ms) => new Date(ms));

describe('cursor codec', () => {
  test('when a cursor of a time and texts is encoded, then it decodes to the same parts', () => {
    fc.assert(
      fc.property(time, fc.string(), fc.string({ unit: 'binary', maxLength: 20 }), (at, id, fingerprint) => {
        const decoded = decodeCursor(encodeCursor([at, id, fingerprint]), ['time', 'text', 'text']);

        expect(decoded).toEqual([at, id, fingerprint]);
      }),
      { seed: 17 },
    );
  });

  test('when a cursor was made before the codec existed, then it decodes as it did (cursors given out stay valid)', () => {
    const cursor = legacyCursor([1_700_000_000_000, 'AAAAAAAAQACAAAAAAAAAAQ', 'fp12ab34']);

    expect(cursor).toBe(encodeCursor([new Date(1_700_000_000_000), 'AAAAAAAAQACAAAAAAAAAAQ', 'fp12ab34']));
    expect(decodeCursor(cursor, ['time', 'text', 'text'])).toEqual([
      new Date(1_700_000_000_000),
      'AAAAAAAAQACAAAAAAAAAAQ',
      'fp12ab34',
    ]);
  });

  test.each([
    ['not base64url of JSON', 'not-a-cursor'],
    ['the empty string', ''],
    ['JSON that is not an array', legacyCursor({ t: 1, id: 'x' })],
    ['one part too few', legacyCursor([1])],
    ['one part too many', legacyCursor([1, 'x', 'y'])],
    ['a time that is a string', legacyCursor(['1', 'x'])],
    ['a time that is not an integer', legacyCursor([1.5, 'x'])],
    ['a time beyond the safe integers', legacyCursor([2 ** 53, 'x'])],
    ['a text that is a number', legacyCursor([1, 7])],
    ['a text that is an operator', legacyCursor([1, { $ne: null }])],
    ['JSON spaced otherwise', Buffer.from('[1, "x"]').toString('base64url')],
    ['a time written with an exponent', Buffer.from('[1e3,"x"]').toString('base64url')],
    ['a text escaped otherwise', Buffer.from('[1,"\\u0078"]').toString('base64url')],
    ['base64 padding', Buffer.from('[1,"x"]').toString('base64')],
    ['base64 instead of base64url', Buffer.from('[1,"x?>"]').toString('base64')],
  ])('when a cursor holds %s, then it does not decode', (_label, cursor) => {
    expect(decodeCursor(cursor, ['time', 'text'])).toBeUndefined();
  });

  test('when any string is decoded, then it is either undefined or exactly the shape asked for', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.jsonValue().map((value) => legacyCursor([value, value])),
        ),
        (cursor) => {
          const decoded = decodeCursor(cursor, ['time', 'text']);

          if (decoded !== undefined) {
            expect(decoded).toHaveLength(2);
            expect(decoded[0]).toBeInstanceOf(Date);
            expect(typeof decoded[1]).toBe('string');
          }
        },
      ),
      { seed: 17 },
    );
  });
});

const admin = {
  id: 'k1',
  name: 'admin',
  prefix: 'k1',
  permissions: ['ADMIN'],
  createdDate: new Date(0),
} as ApiKeyRecord;

async function inputError(run: () => Promise<unknown>): Promise<{ message: string; details: unknown }> {
  const error: unknown = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof BadUserInputError)) throw new Error(`expected a BadUserInputError, got ${String(error)}`);
  return { message: error.message, details: error.details };
}

describe('cursors of auditEvents', () => {
  const asked: unknown[] = [];
  const repository = {
    find: async (query: unknown) => {
      asked.push(query);
      return [];
    },
  } as unknown as AuditRepository;
  const audit = new AuditService(repository);

  test('when an audit cursor round-trips, then the repository is asked for the position it names', async () => {
    const at = new Date(1_700_000_000_123);

    await audit.list(admin, { after: encodeCursor([at, 'event-7']) });

    expect(asked.at(-1)).toMatchObject({ after: { time: at, eventId: 'event-7' } });
  });

  test.each([
    ['garbage', 'not-a-cursor'],
    ['a tampered time', legacyCursor(['1700000000123', 'event-7'])],
    ['a cursor of candidatesConnection', legacyCursor([1_700_000_000_123, 'AAAAAAAAQACAAAAAAAAAAQ', 'fp12ab34'])],
  ])('when auditEvents is given %s, then the answer is its input error, as before', async (_label, after) => {
    expect(await inputError(() => audit.list(admin, { after }))).toEqual({
      message: 'Invalid input: after must be a cursor of auditEvents.',
      details: [{ parameter: 'after', rule: 'a cursor from auditEvents' }],
    });
  });
});

describe('cursors of candidatesConnection', () => {
  const positions: (CandidatePosition | null)[] = [];
  const node = { publicId: 'AAAAAAAAQACAAAAAAAAAAQ', createdDate: new Date(1_700_000_000_000) } as CandidateDoc;
  const repository = {
    searchAfter: async (_filter: unknown, after: CandidatePosition | null) => {
      positions.push(after);
      return [node, node];
    },
    count: async () => 2,
  } as unknown as CandidateRepository;
  const queries = new CandidateQueryService(repository, {} as SavedListRepository);

  test('when the end cursor of a page is given back with the same filter, then the next page starts at its candidate', async () => {
    const page = await queries.connection(admin, { first: 1, filter: { location: ['JO'] } });

    await queries.connection(admin, { first: 1, filter: { location: ['jo'] }, after: page.pageInfo.endCursor });

    expect(positions.at(-1)).toEqual({ createdDate: node.createdDate, publicId: node.publicId });
  });

  test.each([
    ['garbage', () => 'not-a-cursor'],
    [
      'a cursor of another filter',
      async () => (await queries.connection(admin, { first: 1, filter: { location: ['SY'] } })).pageInfo.endCursor!,
    ],
    ['a tampered fingerprint', () => legacyCursor([1_700_000_000_000, 'AAAAAAAAQACAAAAAAAAAAQ', 'tampered'])],
    ['a cursor of auditEvents', () => legacyCursor([1_700_000_000_000, 'event-7'])],
  ])(
    'when candidatesConnection is given %s, then the answer is its input error, as before',
    async (_label, cursorOf) => {
      const after = await cursorOf();

      expect(
        await inputError(() => queries.connection(admin, { first: 1, filter: { location: ['JO'] }, after })),
      ).toEqual({
        message: 'Invalid input: after must be a cursor of this connection with the same filter.',
        details: [{ parameter: 'after', rule: 'a cursor from this connection' }],
      });
    },
  );
});
