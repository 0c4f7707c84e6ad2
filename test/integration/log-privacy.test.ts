import { randomBytes } from 'node:crypto';
import { Collection, MongoServerError, type Document } from 'mongodb';
import { COLLECTIONS } from '../../src/app/indexes';
import { startAppUnderTest, graphql, type AppUnderTest } from '../support/app-under-test';
import { fullSelection } from '../support/full-selection';
import { LogCapture, recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

/**
 * The proof that logs hold no identity data and no API key: candidates register over both
 * transports with distinctive identity values, every error path that could echo an input is
 * provoked (conflict, invalid e-mail and date of birth, unknown reference codes, malformed
 * JSON, a wrong key, a driver error quoting the values, a lost database connection), everything
 * is read back, and then every line the service logged at level trace is searched for every one
 * of those values.
 */

interface Person {
  firstName: string;
  lastName: string;
  email: string;
  dob: string;
  phone: string;
  professionalNetworkLink: string;
  refugeeAgencyNumber: string;
  reliefAgencyNumber: string;
  messagingAppNumber: string;
}

const REGISTER =
  'mutation Register($input: RegisterCandidateInput!) { registerCandidate(input: $input) { message publicId } }';

/**
 * What MongoDB answers when a $jsonSchema validator (an operator's addition) refuses a document:
 * the refused values are quoted in `errInfo`. The driver builds its error from that reply, as here.
 */
function validationFailure(document: Document): MongoServerError {
  const propertiesNotSatisfied = Object.entries(document).map(([propertyName, consideredValue]) => ({
    propertyName,
    details: [{ operatorName: 'bsonType', reason: 'type did not match', consideredValue }],
  }));
  return new MongoServerError({
    ok: 0,
    code: 121,
    codeName: 'DocumentValidationFailure',
    errmsg: 'Document failed validation',
    errInfo: {
      details: {
        operatorName: '$jsonSchema',
        schemaRulesNotSatisfied: [{ operatorName: 'properties', propertiesNotSatisfied }],
      },
    },
  });
}

describe('log privacy', () => {
  const capture = new LogCapture();
  /** every value no log line may hold, with a label to report instead of the value */
  const secrets: { label: string; value: string }[] = [];
  const secret = (label: string, value: string): string => {
    secrets.push({ label, value });
    recordSecret(value);
    return value;
  };
  const person = (label: string, values: Person): Person => {
    for (const [field, value] of Object.entries(values)) secret(`${label} ${field}`, value);
    return values;
  };

  const overRest = person('REST candidate', {
    firstName: 'Yasmeen Rahaf',
    lastName: 'Khattabiyeh',
    email: 'yasmeen.khattabiyeh@example.org',
    dob: '1979-11-03',
    phone: '+962 77 314 1592',
    professionalNetworkLink: 'https://network.example/in/ykhattabiyeh',
    refugeeAgencyNumber: 'UNHCR-981-44217',
    reliefAgencyNumber: 'RELIEF-3371-0058',
    messagingAppNumber: '+962 79 271 8281',
  });
  const overGraphQL = person('GraphQL candidate', {
    firstName: 'Tariq Samer',
    lastName: 'Mahfouzani',
    email: 'tariq.mahfouzani@example.org',
    dob: '1983-06-21',
    phone: '+961 3 845 126',
    professionalNetworkLink: 'https://network.example/in/tmahfouzani',
    refugeeAgencyNumber: 'UNHCR-552-90813',
    reliefAgencyNumber: 'RELIEF-7719-2204',
    messagingAppNumber: '+961 71 906 533',
  });
  const duringOutage = person('outage candidate', {
    firstName: 'Nour Elhuda',
    lastName: 'Barakzai',
    email: 'nour.barakzai@example.org',
    dob: '1995-01-30',
    phone: '+962 78 660 4410',
    professionalNetworkLink: 'https://network.example/in/nbarakzai',
    refugeeAgencyNumber: 'UNHCR-113-65029',
    reliefAgencyNumber: 'RELIEF-5804-7731',
    messagingAppNumber: '+962 79 880 2316',
  });
  const invalidEmail = secret('invalid e-mail', 'yasmeen.khattabiyeh(at)example.org');
  const invalidDob = secret('invalid date of birth', '1979-13-41');
  const impossibleDob = secret('impossible date of birth', '1983-02-30');
  // Well-formed, but no key of the service: a caller's mistyped or stolen key must not be logged either.
  const unknownKey = secret('unknown API key', `cdk_${randomBytes(32).toString('base64url')}`);

  const registration = (
    { firstName, lastName, email, ...contact }: Person,
    overrides: Record<string, unknown> = {},
  ) => ({
    registrarId: 'privacy-test-org',
    registrationData: {
      identity: { firstName, lastName, email },
      ...contact,
      country: { isoCode: 'JO' },
      nationality: { isoCode: 'SY' },
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 4 }],
      ...overrides,
    },
  });

  let service: AppUnderTest;
  let failing: AppUnderTest;
  /** what each step was answered: its HTTP status, and for GraphQL the first error code */
  const outcomes: Record<string, string | number> = {};

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 20, captureLogs: capture });
    failing = await startAppUnderTest({ captureLogs: capture });
    const registrar = secret('registrar key', await service.key('REGISTER_CANDIDATES', 'READ_CANDIDATE_DATA'));
    const failingKey = secret('key of the failing app', await failing.key('REGISTER_CANDIDATES'));

    const post = async (step: string, key: string, body: unknown) => {
      const response = await rest(service.url, 'POST', '/v1/candidates/register', { key, body });
      outcomes[step] = response.status;
      return response;
    };
    const mutate = async (step: string, variables: Record<string, unknown>, key = registrar, query = REGISTER) => {
      const response = await graphql<{ registerCandidate: { publicId: string } }>(service.url, query, variables, key);
      outcomes[step] = `${response.status} ${response.body.errors?.[0]?.extensions?.code ?? 'ok'}`;
      return response;
    };

    // REST: a registration, then every way of getting it wrong.
    const registered = await post('REST register', registrar, registration(overRest));
    await post(
      'REST same e-mail in another case',
      registrar,
      registration({ ...overRest, email: `  ${overRest.email.toUpperCase()} ` }),
    );
    await post('REST invalid e-mail', registrar, registration({ ...overRest, email: invalidEmail }));
    await post(
      'REST invalid date of birth',
      registrar,
      registration({ ...overRest, email: 'rest-dob@example.org', dob: invalidDob }),
    );
    await post(
      'REST unknown reference codes',
      registrar,
      registration(
        { ...overRest, email: 'rest-codes@example.org' },
        { country: { isoCode: 'QQ' }, candidateOccupations: [{ occupation: { isco08Code: '0000' } }] },
      ),
    );
    const malformed = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      headers: { 'content-type': 'application/json' },
      rawBody: JSON.stringify(registration(overRest)).slice(0, -40),
    });
    outcomes['REST malformed JSON'] = malformed.status;
    await post('REST unknown key', unknownKey, registration(overRest));

    // GraphQL: a registration, then every way of getting it wrong.
    const created = await mutate('GraphQL register', { input: registration(overGraphQL) });
    await mutate('GraphQL same e-mail in another case', {
      input: registration({ ...overGraphQL, email: ` ${overGraphQL.email.toUpperCase()}` }),
    });
    await mutate('GraphQL invalid e-mail', { input: registration({ ...overGraphQL, email: invalidEmail }) });
    await mutate('GraphQL impossible date of birth', {
      input: registration({ ...overGraphQL, email: 'gql-dob@example.org', dob: impossibleDob }),
    });
    await mutate('GraphQL unknown reference codes', {
      input: registration(
        { ...overGraphQL, email: 'gql-codes@example.org' },
        { nationality: { isoCode: 'QQ' }, candidateOccupations: [{ occupation: { isco08Code: '0000' } }] },
      ),
    });
    // Values written into the document itself, where graphql-js quotes literals in its validation messages.
    await mutate(
      'GraphQL literal of the wrong type',
      {},
      registrar,
      `mutation { registerCandidate(input: { registrationData: { identity: { email: "${overGraphQL.email}", lastName: "${overGraphQL.lastName}" }, dob: "${impossibleDob}", yearOfArrival: "${overGraphQL.refugeeAgencyNumber}" } }) { publicId } }`,
    );
    const malformedGraphQL = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': registrar },
      body: JSON.stringify({ query: REGISTER, variables: { input: registration(overGraphQL) } }).slice(0, -25),
    });
    outcomes['GraphQL malformed JSON'] = malformedGraphQL.status;
    await mutate('GraphQL unknown key', { input: registration(overGraphQL) }, unknownKey);

    // Everything read back, over both transports.
    const restId = registered.body.publicId as string;
    const graphqlId = created.body.data!.registerCandidate.publicId;
    outcomes['REST read'] = (await rest(service.url, 'GET', `/v1/candidates/${restId}`, { key: registrar })).status;
    outcomes['REST search'] = (
      await rest(service.url, 'GET', '/v1/candidates?location=JO&occupation=2221&limit=100', { key: registrar })
    ).status;
    const read = await graphql(
      service.url,
      `query Read($id: PublicId!) { candidate(publicId: $id) { ${fullSelection('Candidate')} } }`,
      { id: graphqlId },
      registrar,
    );
    outcomes['GraphQL read'] = `${read.status} ${read.body.errors?.[0]?.extensions?.code ?? 'ok'}`;

    // Unexpected failures of the second app's database: a driver error quoting the identity, then a lost connection.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(this) below
    const insertOne = Collection.prototype.insertOne;
    const refuseIdentities = jest.spyOn(Collection.prototype, 'insertOne').mockImplementation(function (
      this: Collection,
      document,
      options,
    ) {
      if (this.dbName === failing.db.databaseName && this.collectionName === COLLECTIONS.candidateIdentities) {
        return Promise.reject(validationFailure(document as Document));
      }
      return insertOne.call(this, document, options) as never;
    });
    try {
      const restRefused = await fetch(`${failing.url}/v1/candidates/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': failingKey },
        body: JSON.stringify(registration(duringOutage)),
      });
      outcomes['REST driver error'] = restRefused.status;
      const graphqlRefused = await graphql(failing.url, REGISTER, { input: registration(duringOutage) }, failingKey);
      outcomes['GraphQL driver error'] =
        `${graphqlRefused.status} ${graphqlRefused.body.errors?.[0]?.extensions?.code ?? 'ok'}`;
    } finally {
      refuseIdentities.mockRestore();
    }
    await failing.app.database.close();
    const restFailure = await fetch(`${failing.url}/v1/candidates/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': failingKey },
      body: JSON.stringify(registration(duringOutage)),
    });
    outcomes['REST database gone'] = restFailure.status >= 500 ? '5xx' : restFailure.status;
    const graphqlFailure = await graphql(failing.url, REGISTER, { input: registration(duringOutage) }, failingKey);
    outcomes['GraphQL database gone'] = graphqlFailure.status >= 500 ? '5xx' : graphqlFailure.status;
  });

  afterAll(async () => {
    await service?.stop();
    await failing?.stop();
  });

  test('when the traffic ran, then each registration succeeded and each error path was answered as such', () => {
    expect(outcomes).toEqual({
      'REST register': 201,
      'REST same e-mail in another case': 409,
      'REST invalid e-mail': 400,
      'REST invalid date of birth': 400,
      'REST unknown reference codes': 400,
      'REST malformed JSON': 400,
      'REST unknown key': 401,
      'GraphQL register': '200 ok',
      'GraphQL same e-mail in another case': '200 CONFLICT',
      'GraphQL invalid e-mail': '200 BAD_USER_INPUT',
      'GraphQL impossible date of birth': '400 BAD_USER_INPUT',
      'GraphQL unknown reference codes': '200 BAD_USER_INPUT',
      'GraphQL literal of the wrong type': '400 GRAPHQL_VALIDATION_FAILED',
      'GraphQL malformed JSON': 400,
      'GraphQL unknown key': '401 UNAUTHENTICATED',
      'REST read': 200,
      'REST search': 200,
      'GraphQL read': '200 ok',
      'REST driver error': 500,
      'GraphQL driver error': '200 INTERNAL_SERVER_ERROR',
      'REST database gone': '5xx',
      'GraphQL database gone': '5xx',
    });
  });

  test('when the traffic ran, then the service logged it at level trace: a line per request, and the driver errors with their fields', () => {
    const records = capture.records();
    const requests = records.filter((record) => record.msg === 'request');
    const driverErrors = records.filter(
      (record) => (record.err as { type?: unknown } | undefined)?.type === 'MongoServerError',
    );

    expect(requests.length).toBeGreaterThanOrEqual(Object.keys(outcomes).length);
    expect(requests.filter((record) => Number(record.status) >= 500).length).toBeGreaterThanOrEqual(3);
    expect(driverErrors).toHaveLength(2);
    for (const { err } of driverErrors)
      expect(err).toMatchObject({ code: 121, errInfo: '[redacted]', errorResponse: '[redacted]' });
  });

  test('when every log line is searched for every identity value and API key (case-insensitively), then none is found', () => {
    const lines = capture.lines();
    const found = lines.flatMap((line, i) =>
      secrets
        .filter(({ value }) => line.toLowerCase().includes(value.toLowerCase()))
        .map(({ label }) => `line ${i + 1} holds the ${label}`),
    );

    expect(lines.length).toBeGreaterThan(0);
    expect(found).toEqual([]);
  });
});
