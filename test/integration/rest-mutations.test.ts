import { hashApiKey } from '../../src/auth/api-key-format';
import type { CandidateDoc, OfferDoc } from 'candidate-documents';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { aSavedList } from '../support/builders';
import { openedIdentity } from '../support/identities';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

const CANDIDATE_COUNT = 300;
const PROBLEMS = 'https://candidate-directory.example/problems/';
const PUBLIC_ID = /^[A-Za-z0-9_-]{22}$/;
const UNKNOWN_A = 'ZZZZZZZZZZZZZZZZZZZZZZ';
const UNKNOWN_B = 'YYYYYYYYYYYYYYYYYYYYYY';

describe('POST /v1/candidates/job-match, /offer-to-assist and /register', () => {
  let service: AppUnderTest;
  let reader: string;
  let matcher: string;
  let provider: string;
  let registrar: string;

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: CANDIDATE_COUNT, seed: 13 });
    reader = await service.key('READ_CANDIDATE_DATA');
    matcher = await service.key('SUBMIT_JOB_MATCHES');
    provider = await service.key('OFFER_CANDIDATE_SERVICES');
    registrar = await service.key('REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA');
  });

  afterAll(async () => {
    await service.stop();
  });

  const candidates = () => service.db.collection<CandidateDoc>(COLLECTIONS.candidates);
  const offers = () => service.db.collection<OfferDoc>(COLLECTIONS.offers);
  const identities = () => service.db.collection(COLLECTIONS.candidateIdentities);
  const someCandidates = async (n: number) =>
    (await candidates().find({}, { limit: n }).toArray()).map((c) => c.publicId);
  const keyIdOf = async (key: string) =>
    (await service.db.collection(COLLECTIONS.apiKeys).findOne({ keyHash: hashApiKey(key) }))!.id as string;
  const post = (path: string, key: string | undefined, body: unknown) =>
    rest(service.url, 'POST', `/v1/candidates/${path}`, { key, body });

  describe('job match', () => {
    test('when existing candidates are named, then 201 {message, jobMatchId} and a JOB_OPPORTUNITY offer is recorded for the calling key', async () => {
      const ids = await someCandidates(2);

      const { status, headers, body } = await post('job-match', matcher, {
        candidates: ids.map((publicId) => ({ publicId })),
        additionalNotes: 'Nurses wanted',
      });

      expect(status).toBe(201);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(body).sort()).toEqual(['jobMatchId', 'message']);
      expect(body.jobMatchId).toMatch(PUBLIC_ID);
      const offer = await offers().findOne({ publicId: body.jobMatchId });
      expect(offer).toMatchObject({
        kind: 'JOB_MATCH',
        reason: 'JOB_OPPORTUNITY',
        additionalNotes: 'Nurses wanted',
        apiKeyId: await keyIdOf(matcher),
      });
      expect(offer!.candidates).toEqual(ids.map((publicId) => ({ publicId })));
    });

    test('when candidates are unknown and the notes are too long, then 400, not 404: input is checked before anything is looked up', async () => {
      const { status, body } = await post('job-match', matcher, {
        candidates: [{ publicId: UNKNOWN_A }],
        additionalNotes: 'n'.repeat(2001),
      });

      expect([status, body.type]).toEqual([400, `${PROBLEMS}invalid-body`]);
      expect(body.detail).toContain('additionalNotes');
    });

    test('when the body names a caller, then it is refused: the caller is the API key', async () => {
      const ids = await someCandidates(1);
      const before = await offers().countDocuments();

      const { status, body } = await post('job-match', matcher, {
        candidates: [{ publicId: ids[0] }],
        apiKeyId: 'key_someoneelse',
      });

      expect(status).toBe(400);
      expect(body.detail).toContain('apiKeyId is not a field of this body');
      expect(await offers().countDocuments()).toBe(before);
    });

    test('when some candidates are unknown, then 404 names each missing id and nothing is recorded', async () => {
      const [known] = await someCandidates(1);
      const before = await offers().countDocuments();

      const { status, body } = await post('job-match', matcher, {
        candidates: [{ publicId: UNKNOWN_A }, { publicId: known }, { publicId: UNKNOWN_B }],
      });

      expect(status).toBe(404);
      expect(body.type).toBe(`${PROBLEMS}not-found`);
      expect(body.detail).toContain(UNKNOWN_A);
      expect(body.detail).toContain(UNKNOWN_B);
      expect(body.detail).not.toContain(known);
      expect(await offers().countDocuments()).toBe(before);
    });

    test.each([
      ['no candidates field', {}, 'candidates is required'],
      ['an empty candidates array', { candidates: [] }, 'candidates must have at least 1 items'],
      [
        '101 candidates',
        { candidates: Array.from({ length: 101 }, () => ({ publicId: UNKNOWN_A })) },
        'candidates must have at most 100 items',
      ],
      ['a malformed public id', { candidates: [{ publicId: 'abc' }] }, 'candidates[0].publicId must be a public id'],
      ['a candidate without publicId', { candidates: [{}] }, 'candidates[0].publicId is required'],
      [
        'a coupon (not part of a job match)',
        { candidates: [{ publicId: UNKNOWN_A, couponCode: 'X' }] },
        'candidates[0].couponCode is not a field',
      ],
      [
        'notes of 2001 characters',
        { candidates: [{ publicId: UNKNOWN_A }], additionalNotes: 'x'.repeat(2001) },
        'additionalNotes must have at most 2000 characters',
      ],
      [
        'notes that are not text',
        { candidates: [{ publicId: UNKNOWN_A }], additionalNotes: 5 },
        'additionalNotes must be a string',
      ],
      ['candidates that are not an array', { candidates: UNKNOWN_A }, 'candidates must be an array'],
      ['an array as the body', [{ publicId: UNKNOWN_A }], 'body must be an object'],
    ])('when the body has %s, then 400 names the field and the rule', async (_case, payload, detail) => {
      const before = await offers().countDocuments();

      const { status, body } = await post('job-match', matcher, payload);

      expect(status).toBe(400);
      expect(body.type).toBe(`${PROBLEMS}invalid-body`);
      expect(body.detail).toContain(detail);
      expect(await offers().countDocuments()).toBe(before);
    });

    test('when a candidate is named twice, then the service refuses it with 400', async () => {
      const [id] = await someCandidates(1);

      const { status, body } = await post('job-match', matcher, { candidates: [{ publicId: id }, { publicId: id }] });

      expect(status).toBe(400);
      expect(body.detail).toContain('candidates[1].publicId must be unique within the request');
    });

    test('when the key lacks SUBMIT_JOB_MATCHES, then 403 comes before the body is checked and nothing is recorded', async () => {
      const ids = await someCandidates(1);
      const before = await offers().countDocuments();

      const valid = await post('job-match', provider, { candidates: [{ publicId: ids[0] }] });
      const invalid = await post('job-match', reader, { nonsense: true });

      expect(valid.status).toBe(403);
      expect(valid.body.detail).toContain('SUBMIT_JOB_MATCHES');
      expect(invalid.status).toBe(403);
      expect(await offers().countDocuments()).toBe(before);
    });

    test('when no key is sent, then the answer is 401', async () => {
      const { status } = await post('job-match', undefined, { candidates: [] });

      expect(status).toBe(401);
    });
  });

  describe('offer to assist', () => {
    test('when existing candidates are named, then 201 {message, offerId} and the offer is recorded with reason and coupons', async () => {
      const [a, b] = await someCandidates(2);

      const { status, body } = await post('offer-to-assist', provider, {
        candidates: [{ publicId: a, couponCode: 'EDU-2024' }, { publicId: b }],
        reason: 'EDUCATION_SERVICE',
        additionalNotes: null,
      });

      expect(status).toBe(201);
      expect(Object.keys(body).sort()).toEqual(['message', 'offerId']);
      const offer = await offers().findOne({ publicId: body.offerId });
      expect(offer).toMatchObject({
        kind: 'OFFER_TO_ASSIST',
        reason: 'EDUCATION_SERVICE',
        apiKeyId: await keyIdOf(provider),
      });
      expect(offer!.candidates).toEqual([{ publicId: a, couponCode: 'EDU-2024' }, { publicId: b }]);
      expect(offer).not.toHaveProperty('additionalNotes');
    });

    test('when some candidates are unknown, then 404 names them and nothing is recorded', async () => {
      const [known] = await someCandidates(1);
      const before = await offers().countDocuments();

      const { status, body } = await post('offer-to-assist', provider, {
        candidates: [{ publicId: known }, { publicId: UNKNOWN_B }],
        reason: 'OTHER',
      });

      expect(status).toBe(404);
      expect(body.detail).toContain(UNKNOWN_B);
      expect(await offers().countDocuments()).toBe(before);
    });

    test.each([
      ['no reason', { candidates: [{ publicId: UNKNOWN_A }] }, 'reason is required'],
      [
        'an unknown reason',
        { candidates: [{ publicId: UNKNOWN_A }], reason: 'CHARITY' },
        'reason must be one of JOB_OPPORTUNITY',
      ],
      [
        'a coupon of 65 characters',
        { candidates: [{ publicId: UNKNOWN_A, couponCode: 'C'.repeat(65) }], reason: 'OTHER' },
        'candidates[0].couponCode must have at most 64',
      ],
      [
        'a coupon with a space',
        { candidates: [{ publicId: UNKNOWN_A, couponCode: 'EDU 2024' }], reason: 'OTHER' },
        'candidates[0].couponCode must be 1 to 64 printable',
      ],
      ['an empty candidates array', { candidates: [], reason: 'OTHER' }, 'candidates must have at least 1 items'],
    ])('when the body has %s, then 400 names the field and the rule', async (_case, payload, detail) => {
      const { status, body } = await post('offer-to-assist', provider, payload);

      expect(status).toBe(400);
      expect(body.detail).toContain(detail);
    });

    test('when the key lacks OFFER_CANDIDATE_SERVICES, then the answer is 403 and nothing is recorded', async () => {
      const ids = await someCandidates(1);
      const before = await offers().countDocuments();

      const { status } = await post('offer-to-assist', matcher, {
        candidates: [{ publicId: ids[0] }],
        reason: 'OTHER',
      });

      expect(status).toBe(403);
      expect(await offers().countDocuments()).toBe(before);
    });
  });

  describe('register', () => {
    const identity = {
      firstName: 'Zuleikha Noor',
      lastName: 'Qarawi',
      email: 'zuleikha.qarawi@example.org',
    };
    const secrets = {
      dob: '1988-02-29',
      phone: '+44 20 7946 0958',
      professionalNetworkLink: 'https://network.example/in/zqarawi',
      refugeeAgencyNumber: 'RA-778-3301',
      reliefAgencyNumber: 'RL-55-0192',
      messagingAppNumber: '+962 79 555 0147',
    };
    const registration = (email: string, extra: Record<string, unknown> = {}) => ({
      registrarId: 'partner-org-42',
      registrationData: {
        identity: { ...identity, email },
        ...secrets,
        country: { isoCode: 'is', name: 'Iceland', status: 'ACTIVE' },
        nationality: { isoCode: 'SY' },
        gender: 'FEMALE',
        candidateOccupations: [
          { occupation: { isco08Code: '2221', name: 'Nursing professionals' }, yearsExperience: 6 },
        ],
        candidateLanguages: [
          { language: { isoCode: 'ar' }, writtenLevel: { level: 6, cefrLevel: 'C2' }, spokenLevel: { level: 5 } },
        ],
        maxEducationLevel: { level: 6, status: 'ACTIVE', educationType: 'BACHELOR' },
        ...extra,
      },
    });
    const identityValues = [identity.firstName, identity.lastName, 'zuleikha', 'qarawi', ...Object.values(secrets)];
    recordSecret(identity.email, ...identityValues, 'not-an-email', '1987-13-45');

    let registered: string;

    beforeAll(async () => {
      const { status, body } = await post('register', registrar, registration(identity.email));
      expect(status).toBe(201);
      registered = body.publicId;
    });

    test('when a candidate registers, then 201 {message, publicId} and the profile is readable at once, PENDING, with the registrarId kept', async () => {
      const read = await rest(service.url, 'GET', `/v1/candidates/${registered}`, { key: reader });

      expect(registered).toMatch(PUBLIC_ID);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({
        publicId: registered,
        status: 'PENDING',
        yearOfBirth: 1988,
        gender: 'FEMALE',
        country: { isoCode: 'IS', name: expect.any(String), status: 'ACTIVE' },
        candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 6 }],
        maxEducationLevel: { level: 6, educationType: 'BACHELOR' },
      });
      expect(await candidates().findOne({ publicId: registered })).toMatchObject({ registrarId: 'partner-org-42' });
    });

    test('when a registration has no occupation, then the candidate is INCOMPLETE', async () => {
      const { status, body } = await post('register', registrar, {
        registrationData: { identity: { email: 'no-occupation@example.org' } },
      });

      const read = await rest(service.url, 'GET', `/v1/candidates/${body.publicId}`, { key: reader });
      expect(status).toBe(201);
      expect(body.message).toContain('INCOMPLETE');
      expect(read.body.status).toBe('INCOMPLETE');
    });

    test('when the same e-mail registers again in another case, then 409 and nothing is written', async () => {
      const before = {
        candidates: await candidates().countDocuments(),
        identities: await identities().countDocuments(),
      };

      const { status, body, text } = await post('register', registrar, registration('  ZULEIKHA.Qarawi@Example.ORG '));

      expect(status).toBe(409);
      expect(body).toMatchObject({ type: `${PROBLEMS}conflict`, title: 'Conflict with existing data', status: 409 });
      expect(text.toLowerCase()).not.toContain('zuleikha');
      expect(await candidates().countDocuments()).toBe(before.candidates);
      expect(await identities().countDocuments()).toBe(before.identities);
    });

    test('when the e-mail is taken and another field is invalid, then 400, not 409: input is checked before anything is looked up', async () => {
      const { status, body } = await post(
        'register',
        registrar,
        registration(identity.email, { country: { isoCode: 'QQ' } }),
      );

      expect([status, body.type]).toEqual([400, `${PROBLEMS}invalid-body`]);
      expect(body.detail).toContain('registrationData.country.isoCode');
    });

    describe('invisible characters and the normal form of e-mails', () => {
      // A key per test: these tests register often, and the suite's registrar has a write budget per minute.
      let writer: string;
      beforeEach(async () => {
        writer = await service.key('REGISTER_CANDIDATES');
      });
      /** Controls (Cc), format characters (Cf: zero-width, bidi controls, soft hyphen, BOM, tags) and line/paragraph separators. */
      const INVISIBLE = [
        '\u0000',
        '\u0007',
        '\u001b',
        '\u007f',
        '\u0085',
        '\t',
        '\n',
        '\u200b',
        '\u200e',
        '\u202e',
        '\u2066',
        '\u2060',
        '\u2028',
        '\u2029',
        '\ufeff',
        '\u00ad',
        '\u{E0041}',
      ];
      /** A character's code point as a test name can show it (most of these print as nothing). */
      const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

      /** A registration with `value` put at `field` (a path below registrationData, or registrarId). */
      const withText = (email: string, field: string, value: string) => {
        const payload = registration(email) as { registrarId?: string; registrationData: Record<string, unknown> };
        const data = payload.registrationData;
        switch (field) {
          case 'registrarId':
            payload.registrarId = value;
            break;
          case 'identity.firstName':
          case 'identity.lastName':
            data.identity = { ...(data.identity as object), [field.split('.')[1]]: value };
            break;
          case 'candidateSkills[0].skill':
            data.candidateSkills = [{ skill: value }];
            break;
          case 'candidateOccupations[0].candidateJobExperiences[0].role':
            data.candidateOccupations = [
              { occupation: { isco08Code: '2221' }, candidateJobExperiences: [{ role: value }] },
            ];
            break;
          default:
            data[field] = value;
        }
        return payload;
      };

      test('when an e-mail is registered, then the address with a control, zero-width, bidi, ignorable or non-ASCII space character is refused (400), and its case, compatibility, quoted and lookalike variants are the same address (409)', async () => {
        expect((await post('register', writer, registration('inv.base@example.org'))).status).toBe(201);
        const before = await identities().countDocuments();

        const refused = [
          'inv.base@example.org\u0000',
          'inv.base@example.org\u200b',
          '\u200binv.base@example.org',
          'inv.b\u00adase@example.org',
          '\u202einv.base@example.org',
          'inv.base@exa\u2060mple.org',
          'inv.base@example.org\ufeff',
          'inv.base@example.org\u3000',
          'inv.base@example.org\u034f',
          'inv\u3164.base@example.org',
        ];
        for (const email of refused) {
          const { status, body, text } = await post('register', writer, registration(email));
          expect([[...email].map(codePoint).join(' '), status, body.type]).toEqual([
            [...email].map(codePoint).join(' '),
            400,
            `${PROBLEMS}invalid-body`,
          ]);
          expect(body.detail).toContain('registrationData.identity.email');
          expect(text).not.toMatch(/inv\.b|base@/);
        }
        for (const email of [
          ' INV.Base@Example.ORG ',
          '\uff49\uff4e\uff56.base@example.org',
          'inv.base\uff20example.org',
          '"inv.base"@example.org',
          'inv.b\u0430se@example.org',
        ]) {
          expect([JSON.stringify(email), (await post('register', writer, registration(email))).status]).toEqual([
            JSON.stringify(email),
            409,
          ]);
        }
        expect(await identities().countDocuments()).toBe(before);
      });

      test.each(INVISIBLE.map((char) => [codePoint(char), char]))(
        'when a name holds %s, then 400 names the field and never the value, and nothing is written',
        async (_shown, char) => {
          const before = {
            candidates: await candidates().countDocuments(),
            identities: await identities().countDocuments(),
          };

          const { status, body, text } = await post(
            'register',
            writer,
            withText('inv.name@example.org', 'identity.firstName', `Qvname${char}Zuleikha`),
          );

          expect([status, body.type]).toEqual([400, `${PROBLEMS}invalid-body`]);
          expect(body.detail).toContain('registrationData.identity.firstName');
          expect(text).not.toMatch(/Qvname|Zuleikha|inv\.name/);
          expect({
            candidates: await candidates().countDocuments(),
            identities: await identities().countDocuments(),
          }).toEqual(before);
        },
      );

      test.each(
        [
          'registrarId',
          'identity.lastName',
          'phone',
          'refugeeAgencyNumber',
          'professionalNetworkLink',
          'city',
          'candidateMessage',
          'candidateSkills[0].skill',
          'candidateOccupations[0].candidateJobExperiences[0].role',
        ].flatMap((field) => ['\u0000', '\u200b', '\u202e'].map((char) => [field, codePoint(char), char])),
      )('when %s holds %s, then 400 names the field and never the value', async (field, _shown, char) => {
        const { status, body, text } = await post(
          'register',
          writer,
          withText('inv.field@example.org', field, `Qvfield${char}text`),
        );

        expect([status, body.type]).toEqual([400, `${PROBLEMS}invalid-body`]);
        expect(body.detail).toContain(field === 'registrarId' ? 'registrarId' : `registrationData.${field}`);
        expect(text).not.toMatch(/Qvfield|inv\.field/);
      });

      test('when the candidate message spans lines and a name joins with ZWNJ, then both are kept as sent; a line break in a name is refused', async () => {
        const message = 'First line\nSecond line\r\n\tIndented, and an Arabic line: \u0645\u0631\u062d\u0628\u0627';
        const payload = withText('inv.multi@example.org', 'candidateMessage', message);
        (payload.registrationData.identity as Record<string, string>).firstName = 'Mohammad\u200cReza';

        const { status, body } = await post('register', writer, payload);
        const broken = await post('register', writer, withText('inv.multi2@example.org', 'city', 'Amman\nJordan'));

        expect(status).toBe(201);
        expect(await candidates().findOne({ publicId: body.publicId })).toMatchObject({
          candidateMessage: message.trim(),
        });
        expect(await openedIdentity(service.db, body.publicId as string)).toMatchObject({
          firstName: 'Mohammad\u200cReza',
        });
        expect([broken.status, broken.body.detail]).toEqual([400, expect.stringContaining('registrationData.city')]);
      });
    });

    test('when identity data was given at registration, then it appears in no search, single or list response', async () => {
      const list = aSavedList({ candidatePublicIds: [registered] });
      await service.db.collection(COLLECTIONS.savedLists).insertOne({ ...list });

      const search = await rest(
        service.url,
        'GET',
        '/v1/candidates?location=IS&nationality=SY&occupation=2221&limit=100',
        { key: reader },
      );
      const single = await rest(service.url, 'GET', `/v1/candidates/${registered}`, { key: reader });
      const byList = await rest(service.url, 'GET', `/v1/candidates/by-list/${list.publicId}`, { key: reader });

      expect(search.body.content.map((c: { publicId: string }) => c.publicId)).toContain(registered);
      expect(byList.body.content.map((c: { publicId: string }) => c.publicId)).toEqual([registered]);
      for (const response of [search, single, byList]) {
        const text = response.text.toLowerCase();
        for (const value of identityValues) expect(text).not.toContain(value.toLowerCase());
        for (const field of ['identity', 'email', 'firstName', 'lastName', 'phone', 'dob', 'registrarId'])
          expect(response.text).not.toContain(`"${field}"`);
      }
    });

    test.each([
      [
        'no e-mail',
        { registrationData: { identity: { firstName: 'A' } } },
        'registrationData.identity.email is required',
      ],
      ['no registrationData', { registrarId: 'x' }, 'registrationData is required'],
      [
        'an unknown field',
        registration('u1@example.org', { favouriteColour: 'blue' }),
        'registrationData.favouriteColour is not a field',
      ],
      [
        'an unknown field in a reference',
        registration('u2@example.org', { country: { isoCode: 'LB', capital: 'Beirut' } }),
        'registrationData.country.capital is not a field',
      ],
      [
        'a reference given as a bare code',
        registration('u3@example.org', { nationality: 'SY' }),
        'registrationData.nationality must be an object',
      ],
      [
        'an unknown gender',
        registration('u4@example.org', { gender: 'F' }),
        'registrationData.gender must be one of MALE, FEMALE, OTHER',
      ],
      [
        'an impossible date',
        registration('u5@example.org', { dob: '1987-13-45' }),
        'registrationData.dob must be a calendar date',
      ],
      [
        'a year as text',
        registration('u6@example.org', { yearOfArrival: '2015' }),
        'registrationData.yearOfArrival must be a number',
      ],
      [
        'a certification without a date',
        registration('u7@example.org', { candidateCertifications: [{ name: 'CPR', institution: 'Red Crescent' }] }),
        'registrationData.candidateCertifications[0].dateCompleted is required',
      ],
    ])(
      'when the registration has %s, then 400 names the field and the rule without quoting values',
      async (_case, payload, detail) => {
        const before = await identities().countDocuments();

        const { status, body, text } = await post('register', registrar, payload);

        expect(status).toBe(400);
        expect(body.type).toBe(`${PROBLEMS}invalid-body`);
        expect(body.detail).toContain(detail);
        for (const value of ['1987-13-45', 'Beirut', 'blue', identity.lastName]) expect(text).not.toContain(value);
        expect(await identities().countDocuments()).toBe(before);
      },
    );

    test.each([
      ['a malformed e-mail', registration('not-an-email'), 'registrationData.identity.email must be an e-mail address'],
      [
        'an unknown country code',
        registration('u8@example.org', { country: { isoCode: 'QQ' } }),
        'registrationData.country.isoCode must be a known ISO 3166-1',
      ],
      [
        'an unknown occupation code',
        registration('u9@example.org', { candidateOccupations: [{ occupation: { isco08Code: '0000' } }] }),
        'registrationData.candidateOccupations[0].occupation.isco08Code must be a known',
      ],
      [
        'an unknown education major',
        registration('u10@example.org', { candidateEducations: [{ educationMajor: { id: 999999 } }] }),
        'registrationData.candidateEducations[0].educationMajor.id must be a known',
      ],
      [
        'a year of arrival out of range',
        registration('u11@example.org', { yearOfArrival: 1066 }),
        'registrationData.yearOfArrival must be an integer from 1900',
      ],
    ])(
      'when the registration has %s, then the service answers 400 naming the field and nothing is written',
      async (_case, payload, detail) => {
        const before = {
          candidates: await candidates().countDocuments(),
          identities: await identities().countDocuments(),
        };

        const { status, body, text } = await post('register', registrar, payload);

        expect(status).toBe(400);
        expect(body.type).toBe(`${PROBLEMS}invalid-body`);
        expect(body.detail).toContain(detail);
        expect(text).not.toContain('not-an-email');
        expect(await candidates().countDocuments()).toBe(before.candidates);
        expect(await identities().countDocuments()).toBe(before.identities);
      },
    );

    test('when a registration gives every kind of reference as an object, then each is accepted by its key', async () => {
      const major = await service.db.collection(COLLECTIONS.educationMajors).findOne({});

      const { status, body } = await post(
        'register',
        registrar,
        registration('all-references@example.org', {
          candidateEducations: [
            {
              educationType: 'MASTERS',
              country: { isoCode: 'SY' },
              educationMajor: { id: major!.id, name: 'ignored', iscedCode: '0000' },
              yearCompleted: 2012,
            },
          ],
          candidateCitizenships: [
            {
              hasPassport: 'VALID_PASSPORT',
              passportExp: '2030-01-31',
              nationality: { isoCode: 'SY', status: 'ACTIVE' },
            },
          ],
          candidateDestinations: [{ country: { isoCode: 'CA' }, interest: 'YES' }],
          candidateExams: [{ exam: 'IELTS_GEN', score: '6.5', year: 2021 }],
          candidateSkills: [{ skill: 'Triage', timePeriod: '5 years' }],
          candidateCertifications: [{ name: 'CPR', institution: 'Red Crescent', dateCompleted: '2020-06-01' }],
        }),
      );

      expect(status).toBe(201);
      const read = await rest(service.url, 'GET', `/v1/candidates/${body.publicId}`, { key: reader });
      expect(read.body.candidateEducations[0]).toMatchObject({
        educationType: 'MASTERS',
        educationMajor: { id: major!.id, iscedCode: major!.iscedCode },
      });
      expect(read.body.candidateLanguages[0]).toMatchObject({
        language: { isoCode: 'ar' },
        writtenLevel: { level: 6 },
        spokenLevel: { level: 5 },
      });
    });

    test('when the key lacks REGISTER_CANDIDATES, then the answer is 403 and nothing is written', async () => {
      const before = await identities().countDocuments();

      const { status } = await post('register', matcher, registration('forbidden@example.org'));

      expect(status).toBe(403);
      expect(await identities().countDocuments()).toBe(before);
    });

    test('when no key is sent, then the answer is 401', async () => {
      const { status } = await post('register', undefined, registration('anonymous@example.org'));

      expect(status).toBe(401);
    });
  });
});
