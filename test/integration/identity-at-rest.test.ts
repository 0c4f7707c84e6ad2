/**
 * Identity data at rest: a registration's identity values are stored in `candidateIdentities`,
 * sealed under the candidate's key (`candidateIdentityKeys`), and nowhere else, whichever road
 * the registration (or an attempt at one) takes: REST, GraphQL with variables or with the input
 * written in the document, automatic persisted queries, trusted documents, and the import (which
 * refuses identity fields). Every collection of the store is read whole afterwards and searched
 * for every identity value.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { EJSON } from 'bson';
import { createApiKeyRepository } from '../../src/auth/api-key-repository';
import { ApiKeyService } from '../../src/auth/api-key-service';
import { EXIT, runImportCli } from '../../src/cli/import';
import { COLLECTIONS } from '../../src/app/indexes';
import { createApp } from '../../src/app/main';
import { createLogger } from '../../src/logger';
import { operationProblems } from '../../src/graphql/armor';
import { createSchema } from '../../src/graphql/schema';
import { PublishedOperationRepository } from '../../src/operations/published-operation-repository';
import { operationIdOf, PublishedOperationService } from '../../src/operations/published-operation-service';
import { identityCanary, type IdentityCanary } from '../support/arbitraries';
import { graphql, startAppUnderTest, type AppUnderTest } from '../support/app-under-test';
import { openedIdentity } from '../support/identities';
import { recordSecret } from '../support/log-capture';
import { rest } from '../support/rest-client';

const REGISTER = `mutation Register($input: RegisterCandidateInput!) {
  registerCandidate(input: $input) { message publicId }
}`;

/** `value` as a GraphQL input literal (what a client writes when it puts the input in the document). */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([name, field]) => `${name}: ${literal(field)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
}

/** The registration mutation with the whole input written in the document. */
const inline = (canary: IdentityCanary) =>
  `mutation RegisterInline { registerCandidate(input: ${literal(canary.body)}) { message publicId } }`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The identity values of a canary: its identity fields and private data (not its tag, which its registrarId holds too). */
const identityValues = (canary: IdentityCanary) => canary.values.slice(0, 9);

describe('identity data at rest', () => {
  let service: AppUnderTest;
  const canaries = new Map<string, IdentityCanary>();
  const canary = (road: string) => {
    const made = identityCanary(`at${road}rest`);
    for (const value of identityValues(made)) recordSecret(value);
    canaries.set(road, made);
    return made;
  };

  beforeAll(async () => {
    service = await startAppUnderTest({ candidates: 5, seed: 21 });
  });

  afterAll(async () => {
    await service?.stop();
  });

  /** Every document of every collection but `candidateIdentities`, as extended JSON, per collection. */
  async function everythingButIdentities(): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    for (const { name } of await service.db.listCollections({}, { nameOnly: true }).toArray()) {
      if (name === COLLECTIONS.candidateIdentities) continue;
      const documents = await service.db.collection(name).find({}).toArray();
      texts.set(name, EJSON.stringify(documents));
    }
    return texts;
  }

  test('when registrations come by every road, then their identity values are in candidateIdentities, sealed, and in no other collection', async () => {
    const registrar = await service.key('REGISTER_CANDIDATES');
    const keys = new ApiKeyService(createApiKeyRepository(service.db));
    const published = await keys.createKey({
      name: 'identity at rest, published',
      permissions: ['REGISTER_CANDIDATES'],
      operations: 'published',
    });
    recordSecret(published.key);
    const operations = new PublishedOperationService(new PublishedOperationRepository(service.db));
    const validate = operationProblems(service.app.config, createSchema());
    const registered: string[] = [];

    // REST, with an Idempotency-Key (its record keeps the answer).
    const viaRest = canary('rest');
    const restAnswer = await rest(service.url, 'POST', '/v1/candidates/register', {
      key: registrar,
      body: viaRest.body,
      headers: { 'Idempotency-Key': 'identity-at-rest-1' },
    });
    expect(restAnswer.status).toBe(201);
    registered.push(viaRest.email);

    // GraphQL, the input as variables.
    const viaVariables = canary('vars');
    const variablesAnswer = await graphql(service.url, REGISTER, { input: viaVariables.body }, registrar);
    expect(variablesAnswer.body.errors).toBeUndefined();
    registered.push(viaVariables.email);

    // GraphQL, the input written in the document (no persisted query).
    const viaDocument = canary('doc');
    const documentAnswer = await graphql(service.url, inline(viaDocument), {}, registrar);
    expect(documentAnswer.body.errors).toBeUndefined();
    registered.push(viaDocument.email);

    // Automatic persisted query of a mutation, the input in the document: refused, and nothing is
    // kept, neither when sent with its text nor by hash alone afterwards.
    const viaApq = canary('apq');
    const apqText = inline(viaApq);
    const apqExtensions = { persistedQuery: { version: 1, sha256Hash: sha256(apqText) } };
    const apqRegistration = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': registrar },
      body: JSON.stringify({ query: apqText, extensions: apqExtensions }),
    });
    const apqBody = (await apqRegistration.json()) as { errors?: { message: string; extensions: { code: string } }[] };
    const apqByHash = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': registrar },
      body: JSON.stringify({ extensions: apqExtensions }),
    });
    expect(apqRegistration.status).toBe(400);
    expect(apqBody.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(apqBody.errors?.[0]?.message).toMatch(/variables/);
    expect(apqBody.errors?.[0]?.message).toMatch(/trusted documents/);
    expect(((await apqByHash.json()) as typeof apqBody).errors?.[0]?.extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');

    // Trusted documents: a published registration whose input is a variable runs; a manifest
    // with a registration written out in the document is refused whole.
    const viaTrusted = canary('trusted');
    const writtenOut = canary('manifest');
    const manifest = (body: string, name: string) => ({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [{ id: operationIdOf(body), name, type: 'mutation', body }],
    });
    await operations.publish(published.record.id, manifest(REGISTER, 'Register'), validate);
    const trustedAnswer = await fetch(`${service.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': published.key },
      body: JSON.stringify({
        variables: { input: viaTrusted.body },
        extensions: { persistedQuery: { version: 1, sha256Hash: operationIdOf(REGISTER) } },
      }),
    });
    expect(((await trustedAnswer.json()) as { errors?: unknown }).errors).toBeUndefined();
    registered.push(viaTrusted.email);
    await expect(
      operations.publish(published.record.id, manifest(inline(writtenOut), 'RegisterInline'), validate),
    ).rejects.toThrow(/variables/);

    // Import: a line holding identity fields is refused.
    const viaImport = canary('import');
    const line = JSON.stringify({
      publicId: 'AAAAAAAAQACAAAAAAAAAAg',
      ...(viaImport.body.registrationData.identity as object),
      phone: viaImport.body.registrationData.phone,
    });
    const err: string[] = [];
    const imported = await runImportCli(
      [],
      { out: () => undefined, err: (text) => err.push(text) },
      { MONGODB_URI: service.app.config.mongodbUri, MONGODB_DB: service.db.databaseName },
      undefined,
      { stdin: Readable.from([`${line}\n`]), stderr: process.stderr },
    );
    expect(imported).toBe(EXIT.refused);

    const stored = await everythingButIdentities();
    const found = [...canaries.entries()].flatMap(([road, made]) =>
      [...stored.entries()].flatMap(([collection, text]) =>
        identityValues(made)
          .filter((value) => text.toLowerCase().includes(value.toLowerCase()))
          .map((value) => `${road}: ${collection} holds ${value}`),
      ),
    );
    const sealed = await service.db
      .collection<{ candidatePublicId: string }>(COLLECTIONS.candidateIdentities)
      .find({})
      .toArray();
    // What the identities hold once opened with their keys (as an operator's own tool would read them).
    const opened = JSON.stringify(
      await Promise.all(sealed.map(({ candidatePublicId }) => openedIdentity(service.db, candidatePublicId))),
    );
    const identities = EJSON.stringify(sealed);

    expect(stored.size).toBeGreaterThan(10);
    expect(found).toEqual([]);
    for (const email of registered) expect(opened).toContain(email);
    for (const email of registered) expect(identities).not.toContain(email);
    expect(err.join('\n')).not.toContain(viaImport.email);
  });

  test('when the store holds a published operation with a registration written out in its text (published by an earlier release), then the next start retires it and keeps the others', async () => {
    const kept = canary('kept');
    const textOf = inline(kept);
    const operations = service.db.collection('publishedOperations');
    const publishedAt = new Date();
    await operations.insertMany([
      {
        keyId: 'key-of-an-earlier-release',
        operationId: operationIdOf(textOf),
        name: 'RegisterInline',
        type: 'mutation',
        body: textOf,
        publishedAt,
      },
      {
        keyId: 'key-of-an-earlier-release',
        operationId: operationIdOf(REGISTER),
        name: 'Register',
        type: 'mutation',
        body: REGISTER,
        publishedAt,
      },
    ]);

    const restarted = await createApp(service.app.config, createLogger({ ...service.app.config, logLevel: 'silent' }));
    await restarted.stop();
    const left = await operations
      .find({ keyId: 'key-of-an-earlier-release' }, { projection: { _id: 0, name: 1 } })
      .toArray();

    expect(left).toEqual([{ name: 'Register' }]);
  });
});
