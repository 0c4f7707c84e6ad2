import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, getNamedType, isEnumType, isObjectType, type GraphQLObjectType } from 'graphql';
import type { JobOpportunityDoc } from 'candidate-documents';
import {
  importShape,
  JobOpportunityIndex,
  readImportLine,
  type ImportFieldShape,
} from '../../src/candidates/import-line';
import { sameDocument } from '../../src/candidates/import-repository';
import type { ReferenceLookup } from '../../src/candidates/registration-service';

const SCHEMA_DIR = path.resolve(__dirname, '../../schema');
/** Object types whose fields come from the store's reference data or job opportunities: read by key, not field by field. */
const REFERENCES = new Set([
  'Country',
  'Language',
  'LanguageLevel',
  'Occupation',
  'EducationLevel',
  'EducationMajor',
  'JobOpportunity',
]);
/** Candidate fields of GraphQL only (not in the contract's Candidate JSON). */
const GRAPHQL_ONLY = new Set(['id', 'partner']);

function candidateType(): GraphQLObjectType {
  const sdl = readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(path.join(SCHEMA_DIR, name), 'utf8'))
    .join('\n');
  const type = buildSchema(sdl).getType('Candidate');
  if (!isObjectType(type)) throw new Error('no Candidate type');
  return type;
}

/** The SDL's shape of an object type, as importShape gives the import's. */
function sdlShape(type: GraphQLObjectType, top: boolean): Record<string, ImportFieldShape> {
  const shape: Record<string, ImportFieldShape> = {};
  for (const field of Object.values(type.getFields())) {
    if (top && GRAPHQL_ONLY.has(field.name)) continue;
    const named = getNamedType(field.type);
    if (isEnumType(named)) shape[field.name] = { enumValues: named.getValues().map((v) => v.name) };
    else if (isObjectType(named) && !REFERENCES.has(named.name)) shape[field.name] = { fields: sdlShape(named, false) };
    else shape[field.name] = {};
  }
  return shape;
}

const COUNTRIES = new Set(['SY', 'JO', 'LB']);
const reference: ReferenceLookup = {
  find: ((collection: string, key: unknown) =>
    collection === 'countries' && COUNTRIES.has(key as string) ? { isoCode: key } : null) as ReferenceLookup['find'],
};
const job: JobOpportunityDoc = {
  publicId: 'job0000000000000000001',
  countryIsoCode: 'JO',
  employerEntity: { countryIsoCode: 'JO', hasHiredInternationally: true },
  publishedDate: new Date('2024-03-01T10:00:00.000Z'),
  stage: 'MOU',
};
const jobs = new JobOpportunityIndex([job]);
const ID = 'candidate0000000000001';

describe('import lines', () => {
  test('when the fields the import accepts are held against the SDL Candidate, then they are the same fields with the same enum values, at every depth', () => {
    expect(importShape()).toEqual(sdlShape(candidateType(), true));
  });

  test('when a reference names its key, then its other fields are ignored and a null field is left out', () => {
    const reading = readImportLine(
      JSON.stringify({
        publicId: ID,
        status: 'ACTIVE',
        country: { isoCode: 'sy', name: 'Anything', status: 'ACTIVE' },
        city: null,
      }),
      reference,
      jobs,
    );

    expect(reading).toEqual({ ok: true, candidate: { publicId: ID, status: 'ACTIVE', countryIsoCode: 'SY' } });
  });

  test('when a visa job check names a job opportunity by all its fields, then it is stored by its publicId, and one that matches none is refused', () => {
    const jobOpp = {
      country: { isoCode: 'JO', name: 'Jordan', status: 'ACTIVE' },
      employerEntity: { country: { isoCode: 'JO', name: 'Jordan', status: 'ACTIVE' }, hasHiredInternationally: true },
      publishedDate: '2024-03-01T10:00:00.000Z',
      stage: 'MOU',
    };
    const line = (opp: object) =>
      JSON.stringify({
        publicId: ID,
        status: 'ACTIVE',
        candidateVisaChecks: [{ candidateVisaJobChecks: [{ jobOpp: opp }] }],
      });

    const found = readImportLine(line(jobOpp), reference, jobs);
    const other = readImportLine(line({ ...jobOpp, stage: 'TRAINING' }), reference, jobs);

    expect(found).toEqual({
      ok: true,
      candidate: {
        publicId: ID,
        status: 'ACTIVE',
        candidateVisaChecks: [{ candidateVisaJobChecks: [{ jobOppPublicId: job.publicId }] }],
      },
    });
    expect(other).toEqual({
      ok: false,
      reason:
        'candidateVisaChecks[0].candidateVisaJobChecks[0].jobOpp: a job opportunity of the directory (matched on all its fields)',
    });
  });

  test('when a line lacks publicId and status or holds more than 50 items in a list, then it is refused naming each', () => {
    const reading = readImportLine(
      JSON.stringify({ candidateSkills: Array(51).fill({ skill: 'x' }) }),
      reference,
      jobs,
    );

    expect(reading).toEqual({
      ok: false,
      reason:
        'candidateSkills: at most 50 items; publicId: required, 22 characters of A-Z, a-z, 0-9, _ or -; status: required, one of ACTIVE, AUTONOMOUS_EMPLOYMENT, DELETED, DRAFT, EMPLOYED, INCOMPLETE, INELIGIBLE, PENDING, UNREACHABLE, WITHDRAWN',
    });
  });

  test('when a certification lacks a field the schema requires, then the line is refused; one left blank is kept blank', () => {
    const line = (certification: object) =>
      JSON.stringify({ publicId: ID, status: 'ACTIVE', candidateCertifications: [certification] });

    const missing = readImportLine(line({ name: 'First aid', dateCompleted: '2020-05-01' }), reference, jobs);
    const blank = readImportLine(
      line({ name: ' ', institution: 'Red Crescent', dateCompleted: '2020-05-01' }),
      reference,
      jobs,
    );

    expect(missing).toEqual({ ok: false, reason: 'candidateCertifications[0].institution: required' });
    expect(blank).toEqual({
      ok: true,
      candidate: {
        publicId: ID,
        status: 'ACTIVE',
        candidateCertifications: [{ name: '', institution: 'Red Crescent', dateCompleted: '2020-05-01' }],
      },
    });
  });

  test('when two stored documents differ only in field order, then they are the same; a date or an array item that differs is not', () => {
    const at = new Date('2024-01-01T00:00:00Z');

    expect(sameDocument({ a: 1, b: { c: at, d: [1, 2] } }, { b: { d: [1, 2], c: new Date(at) }, a: 1 })).toBe(true);
    expect(sameDocument({ a: at }, { a: new Date(at.getTime() + 1) })).toBe(false);
    expect(sameDocument({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameDocument({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
