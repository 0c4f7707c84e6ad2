/**
 * The audit trail over the real transports: one event per authenticated request, with the key's
 * id, transport, operation, the candidates returned or affected, the HTTP status and the request
 * id; never a key, an identity value or a request body. ADMIN keys read it through GraphQL
 * (auditEvents), filtered by key and time, newest first, by cursor; other keys are FORBIDDEN.
 *
 * Events are written after the response has gone out, so the tests wait for them to appear.
 */
import type { CommandStartedEvent } from 'mongodb';
import { hashApiKey } from '../../src/auth/api-key-format';
import type { Permission } from '../../src/auth/permissions';
import type { AuditEventDoc } from '../../src/audit/audit-event';
import { AUDIT_COLLECTION } from '../../src/audit/audit-indexes';
import { AuditRepository } from '../../src/audit/audit-repository';
import { AuditEventNotKeptError, AuditService } from '../../src/audit/audit-service';
import { RequestAudit } from '../../src/audit/request-audit';
import { toGlobalId } from '../../src/graphql/global-id';
import { startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { findIdentityData } from '../support/builders';
import { rest } from '../support/rest-client';

let service: AppUnderTest;
/** every API key made in this file: none may appear in any event */
const keys: string[] = [];

beforeAll(async () => {
  service = await startAppUnderTest({ candidates: 40, seed: 5 });
});

afterAll(async () => {
  await service.stop();
});

async function aKey(...permissions: [Permission, ...Permission[]]): Promise<{ key: string; id: string }> {
  const key = await service.key(...permissions);
  keys.push(key);
  const record = await service.db.collection('apiKeys').findOne({ keyHash: hashApiKey(key) });
  return { key, id: String(record!.id) };
}

const events = () => service.db.collection<AuditEventDoc>(AUDIT_COLLECTION);

/** The key's events, oldest first, once there are at least `count` of them. */
async function eventsOf(apiKeyId: string, count: number): Promise<AuditEventDoc[]> {
  for (let round = 0; ; round++) {
    const found = await events()
      .find({ apiKeyId }, { projection: { _id: 0 } })
      .sort({ time: 1 })
      .toArray();
    if (found.length >= count || round >= 100) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface GraphQLAnswer<T = Record<string, any>> {
  status: number;
  body: { data?: T | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function gql<T = Record<string, any>>(
  query: string,
  key: string,
  variables: Record<string, unknown> = {},
  requestId?: string,
): Promise<GraphQLAnswer<T>> {
  const response = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': key,
      ...(requestId ? { 'x-request-id': requestId } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLAnswer<T>['body'] };
}

const EVENT_FIELDS = [
  'apiKeyId',
  'candidatePublicIds',
  'eventId',
  'operation',
  'requestId',
  'rootFields',
  'status',
  'time',
  'transport',
];

/** Identity values of the registrations below, distinctive enough that any occurrence is a leak. */
const IDENTITY = {
  firstName: 'Xanthippe Marisol',
  lastName: 'Oyelaran-Vukovic',
  email: 'xanthippe.oyelaran@example.org',
  dob: '1983-11-27',
  phone: '+962 79 404 8123',
  refugeeAgencyNumber: 'UNHCR-991-44-7710',
  professionalNetworkLink: 'https://network.example/in/xoyelaran',
};
const GRAPHQL_IDENTITY = {
  firstName: 'Ptolemaia',
  lastName: 'Ravndal-Achterberg',
  email: 'ptolemaia.ravndal@example.org',
  dob: '1979-03-08',
};
const NOTES = 'Distinctive note 7f3a: night shifts in Amman';

function registration(identity: Record<string, string>) {
  const { firstName, lastName, email, ...rest } = identity;
  return {
    registrarId: 'audit-partner',
    registrationData: {
      identity: { firstName, lastName, email },
      ...rest,
      country: { isoCode: 'JO' },
      gender: 'FEMALE',
      candidateOccupations: [{ occupation: { isco08Code: '2221' }, yearsExperience: 4 }],
    },
  };
}

describe('events of REST requests', () => {
  test('when a search is answered, then one event names the key, findCandidates, the candidates returned, 200 and the request id, and nothing else', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');

    const answer = await rest(service.url, 'GET', '/v1/candidates?limit=3', {
      key,
      headers: { 'x-request-id': 'audit-search-1' },
    });

    const [event, ...others] = await eventsOf(id, 1);
    expect(answer.status).toBe(200);
    expect(others).toEqual([]);
    expect(Object.keys(event).sort()).toEqual(EVENT_FIELDS);
    expect(event).toMatchObject({
      apiKeyId: id,
      transport: 'REST',
      operation: 'findCandidates',
      rootFields: [],
      candidatePublicIds: answer.body.content.map((c: { publicId: string }) => c.publicId),
      status: 200,
      requestId: 'audit-search-1',
    });
    expect(event.candidatePublicIds).toHaveLength(3);
    expect(event.time).toBeInstanceOf(Date);
  });

  test('when one candidate, an unknown candidate and a saved list are read, then each event has its operation, status and candidates', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');
    const candidate = await service.db.collection('candidates').findOne({});
    const list = await service.db.collection('savedLists').findOne({ 'candidatePublicIds.1': { $exists: true } });

    await rest(service.url, 'GET', `/v1/candidates/${String(candidate!.publicId)}`, { key });
    await rest(service.url, 'GET', '/v1/candidates/AAAAAAAAAAAAAAAAAAAAAA', { key });
    const page = await rest(service.url, 'GET', `/v1/candidates/by-list/${String(list!.publicId)}?limit=5`, { key });

    const [single, unknown, listed] = await eventsOf(id, 3);
    expect(single).toMatchObject({
      operation: 'getCandidateByPublicId',
      status: 200,
      candidatePublicIds: [candidate!.publicId],
    });
    expect(unknown).toMatchObject({ operation: 'getCandidateByPublicId', status: 404, candidatePublicIds: [] });
    expect(listed).toMatchObject({
      operation: 'getCandidatesByPublicListId',
      status: 200,
      candidatePublicIds: page.body.content.map((c: { publicId: string }) => c.publicId),
    });
  });

  test('when a job match and an offer are recorded, then their events name the candidates affected, never the notes', async () => {
    const { key, id } = await aKey('SUBMIT_JOB_MATCHES', 'OFFER_CANDIDATE_SERVICES');
    const ids = (await service.db.collection('candidates').find({}).limit(2).toArray()).map((c) => String(c.publicId));

    const match = await rest(service.url, 'POST', '/v1/candidates/job-match', {
      key,
      body: { candidates: ids.map((publicId) => ({ publicId })), additionalNotes: NOTES },
    });
    const offer = await rest(service.url, 'POST', '/v1/candidates/offer-to-assist', {
      key,
      body: {
        candidates: [{ publicId: ids[1], couponCode: 'COUPON-7F3A' }],
        reason: 'EDUCATION_SERVICE',
        additionalNotes: NOTES,
      },
    });

    const [matchEvent, offerEvent] = await eventsOf(id, 2);
    expect([match.status, offer.status]).toEqual([201, 201]);
    expect(matchEvent).toMatchObject({ operation: 'jobMatch', status: 201, candidatePublicIds: ids });
    expect(offerEvent).toMatchObject({
      operation: 'offerToAssistCandidates',
      status: 201,
      candidatePublicIds: [ids[1]],
    });
    expect(JSON.stringify([matchEvent, offerEvent])).not.toMatch(/7f3a/i);
  });

  test('when a candidate registers, then the event names the new candidate and none of the identity values', async () => {
    const { key, id } = await aKey('REGISTER_CANDIDATES');

    const answer = await rest(service.url, 'POST', '/v1/candidates/register', {
      key,
      body: registration({ firstName: 'A', lastName: 'B', email: 'rest-register@example.org' }),
    });

    const [event] = await eventsOf(id, 1);
    expect(answer.status).toBe(201);
    expect(event).toMatchObject({
      operation: 'registerCandidate',
      status: 201,
      candidatePublicIds: [answer.body.publicId],
    });
  });

  test('when a request is refused for its permission, then the event still names the operation, with status 403', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');

    await rest(service.url, 'POST', '/v1/candidates/register', {
      key,
      body: registration({ ...IDENTITY, email: 'refused@example.org' }),
    });

    expect(await eventsOf(id, 1)).toEqual([
      expect.objectContaining({ operation: 'registerCandidate', status: 403, candidatePublicIds: [] }),
    ]);
  });

  test('when a request has no valid key, then no event is written', async () => {
    const before = await events().countDocuments();
    const { key, id } = await aKey('READ_CANDIDATE_DATA');

    await rest(service.url, 'GET', '/v1/candidates');
    await rest(service.url, 'GET', '/v1/candidates', { key: 'cdk_notAKeyAtAll' });
    await rest(service.url, 'GET', '/v1/candidates?limit=1', { key });
    await eventsOf(id, 1);

    expect(await events().countDocuments()).toBe(before + 1);
  });
});

describe('events of GraphQL requests', () => {
  test('when node and nodes return candidates, then the event has their ids (and none of a candidate the key may not read)', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');
    const { key: otherKey, id: otherId } = await aKey('REGISTER_CANDIDATES');
    const page = await rest(service.url, 'GET', '/v1/candidates?limit=3', { key });
    const [first, second, third] = page.body.content.map((c: { publicId: string }) => c.publicId) as string[];

    await gql('query($a: ID!, $b: [ID!]!) { node(id: $a) { __typename } nodes(ids: $b) { __typename } }', key, {
      a: toGlobalId('Candidate', first),
      b: [toGlobalId('Candidate', second), toGlobalId('Country', 'SY')],
    });
    await gql('query($a: ID!) { node(id: $a) { __typename } }', otherKey, { a: toGlobalId('Candidate', third) });

    const [, event] = await eventsOf(id, 2);
    const [refused] = await eventsOf(otherId, 1);
    expect(event).toMatchObject({ rootFields: ['Query.node', 'Query.nodes'] });
    expect([...event.candidatePublicIds].sort()).toEqual([first, second].sort());
    expect(refused).toMatchObject({ rootFields: ['Query.node'], candidatePublicIds: [] });
  });

  test('when a named query returns candidates without selecting publicId, then the event has the operation, its root fields and their ids', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');
    const expected = await rest(service.url, 'GET', '/v1/candidates?limit=2', { key });

    const answer = await gql(
      'query Browse { candidates(limit: 2) { content { city } totalElements } }',
      key,
      {},
      'audit-gql-1',
    );

    const [, event] = await eventsOf(id, 2);
    expect(answer.status).toBe(200);
    expect(Object.keys(event).sort()).toEqual(EVENT_FIELDS);
    expect(event).toMatchObject({
      transport: 'GRAPHQL',
      operation: 'Browse',
      rootFields: ['Query.candidates'],
      candidatePublicIds: expected.body.content.map((c: { publicId: string }) => c.publicId),
      status: 200,
      requestId: 'audit-gql-1',
    });
  });

  test('when an anonymous query reads a candidate, its partner and a connection, then every candidate carried is named, and none that is not', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');
    const withPartner = await service.db.collection('candidates').findOne({ partnerPublicId: { $exists: true } });
    const first = await service.db
      .collection('candidates')
      .find({ status: { $ne: 'EMPLOYED' } })
      .sort({ createdDate: 1, publicId: 1 })
      .limit(2)
      .toArray();

    const answer = await gql(
      `{ candidate(publicId: "${String(withPartner!.publicId)}") { partner { gender } }
         candidatesConnection(first: 2) { edges { node { gender } } totalCount }
         onlyCount: candidates(limit: 5) { totalElements } }`,
      key,
    );

    const [event] = await eventsOf(id, 1);
    expect(answer.body.errors).toBeUndefined();
    expect(event.operation).toBeUndefined();
    expect(event.rootFields).toEqual(['Query.candidate', 'Query.candidatesConnection', 'Query.candidates']);
    expect([...event.candidatePublicIds].sort()).toEqual(
      [...new Set([withPartner!.publicId, withPartner!.partnerPublicId, ...first.map((c) => c.publicId)])]
        .map(String)
        .sort(),
    );
  });

  test('when a saved list is read through GraphQL, then its candidates on the page are named', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');
    const list = await service.db.collection('savedLists').findOne({ 'candidatePublicIds.2': { $exists: true } });

    await gql(
      `query List { savedList(publicId: "${String(list!.publicId)}") { candidates(limit: 2) { content { gender } } } }`,
      key,
    );

    const [event] = await eventsOf(id, 1);
    expect(event).toMatchObject({ operation: 'List', rootFields: ['Query.savedList'] });
    expect(event.candidatePublicIds).toHaveLength(2);
    expect((list!.candidatePublicIds as string[]).slice(0, 3)).toEqual(
      expect.arrayContaining(event.candidatePublicIds),
    );
  });

  test('when a candidate registers through GraphQL, then the event names the new candidate', async () => {
    const { key, id } = await aKey('REGISTER_CANDIDATES');

    const answer = await gql<{ registerCandidate: { publicId: string } }>(
      'mutation Register($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
      key,
      { input: registration({ firstName: 'C', lastName: 'D', email: 'graphql-register@example.org' }) },
    );

    const [event] = await eventsOf(id, 1);
    expect(answer.body.errors).toBeUndefined();
    expect(event).toMatchObject({
      transport: 'GRAPHQL',
      operation: 'Register',
      rootFields: ['Mutation.registerCandidate'],
      candidatePublicIds: [answer.body.data!.registerCandidate.publicId],
      status: 200,
    });
  });

  test('when one GraphQL request registers two candidates, then each write stored its own event with it, naming its candidate, and the request adds none', async () => {
    const { key, id } = await aKey('REGISTER_CANDIDATES');

    const answer = await gql<{ a: { publicId: string }; b: { publicId: string } }>(
      'mutation Two($a: RegisterCandidateInput!, $b: RegisterCandidateInput!) { a: registerCandidate(input: $a) { publicId } b: registerCandidate(input: $b) { publicId } }',
      key,
      {
        a: registration({ firstName: 'E', lastName: 'F', email: 'graphql-two-a@example.org' }),
        b: registration({ firstName: 'G', lastName: 'H', email: 'graphql-two-b@example.org' }),
      },
    );
    await service.app.flushBookkeeping();

    expect(answer.body.errors).toBeUndefined();
    const stored = await events().find({ apiKeyId: id }).toArray();
    expect(stored.map((event) => event.candidatePublicIds).sort()).toEqual(
      [[answer.body.data!.a.publicId], [answer.body.data!.b.publicId]].sort(),
    );
    expect(stored.map((event) => [event.operation, event.status])).toEqual([
      ['Two', 200],
      ['Two', 200],
    ]);
  });

  test('when a GraphQL request fails validation, then the event has its status and no operation', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');

    const answer = await gql('query Broken { noSuchField }', key);

    expect(answer.status).toBe(400);
    expect(await eventsOf(id, 1)).toEqual([
      expect.objectContaining({ transport: 'GRAPHQL', status: 400, rootFields: [], candidatePublicIds: [] }),
    ]);
  });
});

describe('what events never hold', () => {
  test('when candidates register with distinctive identity values on both transports, then no event anywhere holds one, nor a key or body text', async () => {
    const registrar = await aKey('REGISTER_CANDIDATES', 'SUBMIT_JOB_MATCHES', 'READ_CANDIDATE_DATA');
    const registered = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar.key,
      body: registration(IDENTITY),
    });
    const duplicate = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar.key,
      body: registration(IDENTITY),
    });
    const viaGraphQL = await gql(
      'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
      registrar.key,
      {
        input: registration(GRAPHQL_IDENTITY),
      },
    );
    const badDob = await gql(
      'mutation($input: RegisterCandidateInput!) { registerCandidate(input: $input) { publicId } }',
      registrar.key,
      {
        input: registration({ ...GRAPHQL_IDENTITY, email: 'ptolemaia.other@example.org', dob: '1979-02-30' }),
      },
    );
    await rest(service.url, 'POST', '/v1/candidates/job-match', {
      key: registrar.key,
      body: { candidates: [{ publicId: registered.body.publicId }], additionalNotes: NOTES },
    });
    await rest(service.url, 'GET', `/v1/candidates/${String(registered.body.publicId)}`, { key: registrar.key });
    expect([
      registered.status,
      duplicate.status,
      viaGraphQL.body.errors,
      badDob.body.errors?.[0].extensions?.code,
    ]).toEqual([201, 409, undefined, 'BAD_USER_INPUT']);
    const own = await eventsOf(registrar.id, 6);

    const all = await events()
      .find({}, { projection: { _id: 0 } })
      .toArray();
    const text = JSON.stringify(all).toLowerCase();

    // A date of birth the schema refuses is refused while coercing variables: HTTP 400.
    expect(own.map((event) => event.status).sort()).toEqual([200, 200, 201, 201, 400, 409]);
    for (const value of [
      ...Object.values(IDENTITY),
      ...Object.values(GRAPHQL_IDENTITY),
      'xanthippe',
      'oyelaran',
      'ptolemaia',
      'ravndal',
    ]) {
      expect(text).not.toContain(value.toLowerCase());
    }
    for (const key of keys) expect(text).not.toContain(key.toLowerCase());
    expect(text).not.toContain('audit-partner');
    expect(text).not.toContain('coupon-7f3a');
    expect(findIdentityData(all)).toEqual([]);
  });
});

describe('the ADMIN query auditEvents', () => {
  const QUERY = `query Trail($apiKeyId: String, $from: DateTime, $to: DateTime, $first: Int, $after: String) {
    auditEvents(apiKeyId: $apiKeyId, from: $from, to: $to, first: $first, after: $after) {
      edges { cursor node { id time apiKeyId transport operation rootFields candidatePublicIds status requestId } }
      pageInfo { hasNextPage endCursor }
    }
  }`;
  type Trail = {
    auditEvents: {
      edges: {
        cursor: string;
        node: {
          id: string;
          time: string;
          apiKeyId: string;
          operation: string | null;
          status: number;
          requestId: string | null;
        };
      }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };
  let admin: string;
  let subject: { key: string; id: string };
  let other: { key: string; id: string };
  let subjectEvents: AuditEventDoc[];

  beforeAll(async () => {
    admin = (await aKey('ADMIN')).key;
    subject = await aKey('READ_CANDIDATE_DATA');
    other = await aKey('READ_CANDIDATE_DATA');
    for (let i = 0; i < 5; i++) {
      await rest(service.url, 'GET', `/v1/candidates?limit=1&page=${i}`, {
        key: subject.key,
        headers: { 'x-request-id': `trail-${i}` },
      });
      await rest(service.url, 'GET', '/v1/candidates?limit=1', { key: other.key });
    }
    subjectEvents = await eventsOf(subject.id, 5);
    await eventsOf(other.id, 5);
  });

  test('when an ADMIN asks for one key, then only its events come, newest first, with every field', async () => {
    const { body } = await gql<Trail>(QUERY, admin, { apiKeyId: subject.id });

    const nodes = body.data!.auditEvents.edges.map((edge) => edge.node);
    expect(body.errors).toBeUndefined();
    expect(nodes.map((node) => node.requestId)).toEqual(['trail-4', 'trail-3', 'trail-2', 'trail-1', 'trail-0']);
    expect(
      nodes.every((node) => node.apiKeyId === subject.id && node.status === 200 && node.operation === 'findCandidates'),
    ).toBe(true);
    expect(nodes[0]).toMatchObject({
      id: subjectEvents[4].eventId,
      time: subjectEvents[4].time.toISOString(),
      transport: 'REST',
      rootFields: [],
    });
    expect(body.data!.auditEvents.pageInfo).toEqual({
      hasNextPage: false,
      endCursor: body.data!.auditEvents.edges[4].cursor,
    });
  });

  test('when an ADMIN pages with first and after, then the pages follow each other without overlap', async () => {
    const first = await gql<Trail>(QUERY, admin, { apiKeyId: subject.id, first: 2 });
    const second = await gql<Trail>(QUERY, admin, {
      apiKeyId: subject.id,
      first: 2,
      after: first.body.data!.auditEvents.pageInfo.endCursor,
    });
    const third = await gql<Trail>(QUERY, admin, {
      apiKeyId: subject.id,
      first: 2,
      after: second.body.data!.auditEvents.pageInfo.endCursor,
    });

    const ids = (answer: GraphQLAnswer<Trail>) =>
      answer.body.data!.auditEvents.edges.map((edge) => edge.node.requestId);
    expect([ids(first), ids(second), ids(third)]).toEqual([
      ['trail-4', 'trail-3'],
      ['trail-2', 'trail-1'],
      ['trail-0'],
    ]);
    expect([first, second, third].map((answer) => answer.body.data!.auditEvents.pageInfo.hasNextPage)).toEqual([
      true,
      true,
      false,
    ]);
  });

  test('when an ADMIN gives from and to, then only events from (inclusive) to (exclusive) come', async () => {
    const from = subjectEvents[1].time.toISOString();
    const to = subjectEvents[3].time.toISOString();

    const { body } = await gql<Trail>(QUERY, admin, { apiKeyId: subject.id, from, to });

    const times = body.data!.auditEvents.edges.map((edge) => edge.node.time);
    expect(times.length).toBeGreaterThanOrEqual(1);
    expect(times.every((time) => time >= from && time < to)).toBe(true);
    expect(times).toContain(from);
    expect(times).not.toContain(to);
  });

  test('when no key is given, then events of every key come', async () => {
    const { body } = await gql<Trail>(QUERY, admin, { first: 200 });

    const keyIds = new Set(body.data!.auditEvents.edges.map((edge) => edge.node.apiKeyId));
    expect(keyIds.has(subject.id) && keyIds.has(other.id)).toBe(true);
  });

  test('when a key without ADMIN asks, then the answer is FORBIDDEN with no data', async () => {
    const { body } = await gql<Trail>(QUERY, subject.key, { apiKeyId: subject.id });

    expect(body.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    expect(body.data).toBeNull();
  });

  test.each([
    ['first 0', { first: 0 }],
    ['first 201', { first: 201 }],
    ['a made-up cursor', { after: 'not-a-cursor' }],
  ])('when an ADMIN gives %s, then the answer is BAD_USER_INPUT', async (_label, variables) => {
    const { body } = await gql<Trail>(QUERY, admin, variables);

    expect(body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
  });
});

describe('writing events', () => {
  test('when the store refuses every write, then the failure is reported once, nothing is thrown, and drain settles after its rounds, reporting the event as not kept', async () => {
    const failures: unknown[] = [];
    const failing = { insertMany: () => Promise.reject(new Error('store down')) } as unknown as AuditRepository;
    const audit = new AuditService(failing, undefined, { retryDelayMs: 1, drainAttempts: 2 });

    expect(() =>
      audit.record(new RequestAudit('key_x', 'REST', 'r-1'), 200, (error) => failures.push(error)),
    ).not.toThrow();
    await audit.drain();

    expect(failures).toEqual([new Error('store down'), expect.any(AuditEventNotKeptError)]);
  });

  test('when many requests are answered at once, then every event is written exactly once, by unordered batch inserts', async () => {
    const { key, id } = await aKey('READ_CANDIDATE_DATA');
    const inserts: { ordered: unknown; ofKey: number }[] = [];
    const listener = (event: CommandStartedEvent) => {
      if (event.commandName === 'insert' && event.command.insert === AUDIT_COLLECTION) {
        inserts.push({
          ordered: event.command.ordered,
          ofKey: (event.command.documents as AuditEventDoc[]).filter((doc) => doc.apiKeyId === id).length,
        });
      }
    };
    service.app.database.client.on('commandStarted', listener);
    let written: AuditEventDoc[];
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          rest(service.url, 'GET', '/v1/candidates?limit=1', { key, headers: { 'x-request-id': `burst-${i}` } }),
        ),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      written = await eventsOf(id, 20);
    } finally {
      service.app.database.client.off('commandStarted', listener);
    }

    expect(written.map((event) => event.requestId).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `burst-${i}`).sort(),
    );
    expect(new Set(written.map((event) => event.eventId)).size).toBe(20);
    expect(inserts.every((insert) => insert.ordered === false)).toBe(true);
    expect(inserts.reduce((sum, insert) => sum + insert.ofKey, 0)).toBe(20);
  });

  test('when the repository writes a batch, then every event is stored as given, and the events it was given are left unchanged', async () => {
    const repository = new AuditRepository(service.db);
    const batch = ['batch-0', 'batch-1', 'batch-2'].map((requestId, i) =>
      new RequestAudit('key_repositoryBatch', 'REST', requestId).toEvent(200, new Date(i)),
    );
    const given = structuredClone(batch);

    await repository.insertMany(batch);

    expect(batch).toEqual(given);
    const stored = await events().find({ apiKeyId: 'key_repositoryBatch' }).sort({ time: 1 }).toArray();
    expect(stored.map(({ _id, ...event }) => event)).toEqual(given);
    // The event id is the _id: unique without an index of its own.
    expect(stored.map((event) => event._id as unknown)).toEqual(given.map((event) => event.eventId));
  });

  test('when some events of a batch are stored already (a batch written again), then the others are written and the batch counts as written', async () => {
    const repository = new AuditRepository(service.db);
    const stored = new RequestAudit('key_repositoryPartial', 'REST', 'partial-stored').toEvent(200, new Date(10));
    await repository.insertMany([stored]);
    const batch = [
      new RequestAudit('key_repositoryPartial', 'REST', 'partial-0').toEvent(200, new Date(11)),
      { ...stored, requestId: 'partial-duplicate' },
      new RequestAudit('key_repositoryPartial', 'REST', 'partial-2').toEvent(200, new Date(12)),
    ];

    const failure = await repository.insertMany(batch).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toBeUndefined();
    const written = await events().find({ apiKeyId: 'key_repositoryPartial' }).sort({ time: 1 }).toArray();
    expect(written.map((event) => event.requestId)).toEqual(['partial-stored', 'partial-0', 'partial-2']);
  });

  test('when a request audit is given values that are not names or public ids, then it keeps none of them', () => {
    const audit = new RequestAudit('key_x', 'GRAPHQL', 'not a plain token!');

    audit.describeOperation('query Leak { x }', ['Query.candidates', 'Query.candidates { city }']);
    audit.addCandidates(['anqOhLMzRR6ENxcJTfvFfw', 'someone@example.org', 42, null]);
    const event = audit.toEvent(200, new Date(0));

    expect(event).toEqual({
      eventId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      time: new Date(0),
      apiKeyId: 'key_x',
      transport: 'GRAPHQL',
      rootFields: ['Query.candidates'],
      candidatePublicIds: ['anqOhLMzRR6ENxcJTfvFfw'],
      status: 200,
    });
  });
});
