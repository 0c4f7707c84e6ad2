/**
 * The examples of the OpenAPI document of /v1, as a partner reads them in a documentation portal
 * or a generated client: every request body and every response body has one, each is valid
 * against its own schema (ajv, JSON Schema 2020-12, the validator the contract tests use), a
 * problem's `status` is the status it is shown under, and none carries identity data but the
 * registration request, whose identity is plainly fictional.
 */
import { documentExamples, openApiDocument, validateComponent } from '../support/openapi-validator';
import { findIdentityData } from '../support/builders';

const examples = documentExamples();
const REGISTRATION_REQUEST = 'POST /v1/candidates/register request body application/json';

describe('examples of the OpenAPI document (schema/rest/openapi.json)', () => {
  it('when the request and response bodies are read, then each has an example', () => {
    const bodies = examples.filter((example) => !example.where.startsWith('parameter '));

    const missing = bodies.filter((example) => example.value === undefined).map((example) => example.where);

    expect(bodies.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('when the parameters of the operations are read, then each has an example', () => {
    const document = openApiDocument() as {
      paths: Record<string, Record<string, { parameters?: { $ref?: string; name?: string }[] }>>;
      components: { parameters: Record<string, { examples?: object }> };
    };
    const used = Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => operation.parameters ?? []),
    );

    const missing = used
      .map((parameter) => parameter.$ref?.replace('#/components/parameters/', '') ?? `inline ${parameter.name}`)
      .filter((name) => Object.keys(document.components.parameters[name]?.examples ?? {}).length === 0);

    expect(used.length).toBeGreaterThan(8);
    expect([...new Set(missing)]).toEqual([]);
  });

  it('when each example is validated against its schema, then none has a problem', () => {
    const problems = examples.flatMap((example) => example.problems);

    expect(examples.filter((example) => example.value !== undefined).length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  it('when an example is changed to break its schema, then the validation reports it (the check can fail)', () => {
    const candidate = examples.find(
      (example) => example.where === 'GET /v1/candidates/{publicId} 200 application/json',
    );
    const problem = examples.find(
      (example) => example.where === 'components/responses/Unauthorized application/problem+json',
    );

    expect(validateComponent('Candidate', candidate?.value)).toEqual([]);
    expect(validateComponent('Candidate', { ...(candidate?.value as object), colour: 'blue' })).not.toEqual([]);
    expect(validateComponent('Candidate', { ...(candidate?.value as object), yearOfBirth: '1984' })).not.toEqual([]);
    expect(validateComponent('Problem', { ...(problem?.value as object), status: 200 })).not.toEqual([]);
  });

  it('when a problem example is read, then its status is the status it is shown under', () => {
    const mismatched = examples
      .filter((example) => example.where.includes('problem+json'))
      .filter((example) =>
        example.statuses.some((status) => (example.value as { status?: number } | undefined)?.status !== status),
      )
      .map((example) => `${example.where}: ${JSON.stringify(example.statuses)}`);

    expect(mismatched).toEqual([]);
  });

  it('when the examples are searched for identity data, then only the registration request holds any', () => {
    const found = examples
      .filter((example) => example.where !== REGISTRATION_REQUEST)
      .flatMap((example) => findIdentityData(example.value, example.where));

    expect(found).toEqual([]);
  });

  it('when the registration request example is read, then its identity is fictional: an e-mail domain and a phone range reserved for examples', () => {
    const registration = examples.find((example) => example.where === REGISTRATION_REQUEST)?.value as {
      registrationData: { identity: { email: string }; phone?: string };
    };

    expect(registration.registrationData.identity.email).toMatch(/@example\.(org|com|net)$/);
    // Ofcom keeps 020 7946 0000 to 0999 for drama: a number no one has.
    expect(registration.registrationData.phone).toMatch(/^\+44 20 7946 0\d{3}$/);
    expect(findIdentityData(registration).length).toBeGreaterThan(0);
  });
});
