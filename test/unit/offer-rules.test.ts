/**
 * The rules of a job match's and an offer's body have one source, offer-service.ts: the REST
 * body check reads its bounds and coupon pattern. Whatever a body holds, the REST check and the
 * service accept or refuse it together, so neither transport lets through what the other refuses.
 */
import fc from 'fast-check';
import { isInputObjectType } from 'graphql';
import type { ApiKeyRecord } from '../../src/auth/api-key-repository';
import type { CandidateRepository } from '../../src/candidates/candidate-repository';
import type { OfferRepository } from '../../src/candidates/offer-repository';
import {
  MAX_CANDIDATES_PER_OFFER,
  MAX_COUPON_LENGTH,
  MAX_NOTES_LENGTH,
  OfferService,
} from '../../src/candidates/offer-service';
import { publicIdFromUuid } from 'candidate-documents';
import { BadUserInputError } from '../../src/errors';
import { createSchema } from '../../src/graphql/schema';
import { createRequestBodies, parseBody } from '../../src/rest/request-bodies';
import { RestProblem } from '../../src/http/problem';

const bodies = createRequestBodies(createSchema());

/** Every candidate exists and every offer is stored: only the rules can refuse. */
const everyoneExists = {
  findExistingPublicIds: async (ids: readonly string[]) => new Set(ids),
} as unknown as CandidateRepository;
const stored = { insert: async (offer: unknown) => offer } as unknown as OfferRepository;
const service = new OfferService(everyoneExists, stored, { now: () => new Date(0) });
const caller: ApiKeyRecord = {
  id: 'k1',
  name: 'rules',
  prefix: 'k1',
  permissions: ['ADMIN'],
  createdDate: new Date(0),
};

const idOf = (i: number) => publicIdFromUuid(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);

/** 'accepted', or 'refused' for the rule's input error; anything else fails the test. */
function restVerdict(body: 'JobMatch' | 'OfferToAssist', value: unknown): 'accepted' | 'refused' {
  try {
    parseBody(bodies[body], value);
    return 'accepted';
  } catch (error) {
    if (error instanceof RestProblem && error.problemType.status === 400) return 'refused';
    throw error;
  }
}

async function serviceVerdict(run: () => Promise<unknown>): Promise<'accepted' | 'refused'> {
  try {
    await run();
    return 'accepted';
  } catch (error) {
    if (error instanceof BadUserInputError) return 'refused';
    throw error;
  }
}

/** Text around the bounds, with the characters a coupon may not hold (space, controls, non-ASCII). */
const text = (around: number) =>
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: fc.constantFrom('A', '7', '-', ' ', '\t', 'é', '\u200b', '~', '!'), maxLength: 12 }),
    fc.integer({ min: Math.max(0, around - 2), max: around + 2 }).map((length) => 'C'.repeat(length)),
  );

const offerBody = fc.record({
  count: fc.oneof(
    fc.integer({ min: 0, max: 3 }),
    fc.integer({ min: MAX_CANDIDATES_PER_OFFER - 1, max: MAX_CANDIDATES_PER_OFFER + 1 }),
  ),
  coupon: fc.option(text(MAX_COUPON_LENGTH), { nil: undefined }),
  notes: fc.option(
    fc.oneof(
      text(10),
      fc.integer({ min: MAX_NOTES_LENGTH - 1, max: MAX_NOTES_LENGTH + 1 }).map((n) => 'n'.repeat(n)),
    ),
    { nil: undefined },
  ),
});

describe('offer rules: one source for both transports', () => {
  test('when an offer-to-assist body is checked by REST and by the service, then both accept it or both refuse it', async () => {
    await fc.assert(
      fc.asyncProperty(offerBody, async ({ count, coupon, notes }) => {
        const input = {
          candidates: Array.from({ length: count }, (_, i) => ({
            publicId: idOf(i),
            ...(i === 0 && coupon !== undefined ? { couponCode: coupon } : {}),
          })),
          reason: 'OTHER' as const,
          ...(notes !== undefined ? { additionalNotes: notes } : {}),
        };

        const rest = restVerdict('OfferToAssist', input);
        const core = await serviceVerdict(() => service.offerToAssist(caller, input));

        expect({ rest, input: { count, coupon, notesLength: notes?.length } }).toEqual({
          rest: core,
          input: { count, coupon, notesLength: notes?.length },
        });
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  test('when a job match body is checked by REST and by the service, then both accept it or both refuse it', async () => {
    await fc.assert(
      fc.asyncProperty(offerBody, async ({ count, notes }) => {
        const input = {
          candidates: Array.from({ length: count }, (_, i) => ({ publicId: idOf(i) })),
          ...(notes !== undefined ? { additionalNotes: notes } : {}),
        };

        const rest = restVerdict('JobMatch', input);
        const core = await serviceVerdict(() => service.createJobMatch(caller, input));

        expect({ rest, count, notesLength: notes?.length }).toEqual({ rest: core, count, notesLength: notes?.length });
      }),
      { numRuns: 200, seed: 17 },
    );
  });

  test('when a coupon breaks the rule, then REST and the service state the same rule for it', async () => {
    const input = { candidates: [{ publicId: idOf(1), couponCode: 'EDU 2024' }], reason: 'OTHER' as const };

    const rest = (() => {
      try {
        parseBody(bodies.OfferToAssist, input);
      } catch (error) {
        return (error as RestProblem).detail;
      }
      return undefined;
    })();
    const core = await service.offerToAssist(caller, input).catch((error: BadUserInputError) => error.details);

    expect(core).toEqual([
      { parameter: 'candidates[0].couponCode', rule: `1 to ${MAX_COUPON_LENGTH} printable characters without spaces` },
    ]);
    expect(rest).toBe(
      `Invalid body: candidates[0].couponCode must be 1 to ${MAX_COUPON_LENGTH} printable characters without spaces.`,
    );
  });
});

describe('offer rules in the SDL', () => {
  const schema = createSchema();
  const fieldsOf = (name: string) => {
    const type = schema.getType(name);
    if (!isInputObjectType(type)) throw new Error(`${name} is not an input type`);
    return type.getFields();
  };

  test('when the SDL describes the inputs of a job match and an offer, then it states the bounds the service checks', () => {
    for (const input of ['JobMatchInput', 'OfferToAssistInput']) {
      expect(fieldsOf(input).candidates.description).toContain(`1 to ${MAX_CANDIDATES_PER_OFFER}, each once`);
      expect(fieldsOf(input).additionalNotes.description).toContain(`at most ${MAX_NOTES_LENGTH} characters`);
    }
    expect(fieldsOf('CandidateCouponInput').couponCode.description).toContain(
      `1 to ${MAX_COUPON_LENGTH} printable ASCII characters without spaces`,
    );
  });
});
