/**
 * The SDL against the product's REST contract (the contract): every type, field and enum value of
 * contract section 2 is read from the contract's markdown programmatically, so removing or retyping a
 * field in either place fails here. Also: descriptions everywhere, and no identity data in any
 * output type.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  buildSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import {
  IDENTITY_FIELDS,
  REFERENCE_KEYS,
  firstTableOf,
  parseInlineFields,
  readContract,
  sectionOf,
  contractTypeDefinitions,
  contractTypeName,
  contractTypesOf,
  valueList,
  type Expectation,
} from '../support/contract-tables';
import { describeUnlessMissing, missingShared, CONTRACT_PATH } from '../support/shared-files';

const REPO_ROOT = path.resolve(__dirname, '../..');
const SCHEMA_DIR = path.join(REPO_ROOT, 'schema');

// ---------------------------------------------------------------------------------------------
// Loading

function loadSchema(): GraphQLSchema {
  // Only the files directly in schema/: schema/rest/ holds REST artefacts, not SDL of this schema.
  const files = readdirSync(SCHEMA_DIR, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.graphql'))
    .map((entry) => entry.name)
    .sort();
  const sdl = files.map((file) => readFileSync(path.join(SCHEMA_DIR, file), 'utf8')).join('\n');
  return buildSchema(sdl);
}

// ---------------------------------------------------------------------------------------------
// Checking

/**
 * Fields of the reference types that every entry of the reference data has (its key, name and
 * status; src/reference/reference-data.ts). The contract marks them required on Country only; the
 * schema makes them non-null on every reference type, which answers the same JSON, so that a field
 * of one name has one type across the reference types and `nodes` can select it on all of them.
 */
const ALWAYS_PRESENT_REFERENCE_FIELDS: readonly string[] = [
  'isoCode',
  'isco08Code',
  'level',
  'id',
  'iscedCode',
  'name',
  'status',
];

function unwrap(type: GraphQLOutputType | GraphQLInputType): { nonNull: boolean; list: boolean; itemNonNull: boolean } {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  if (!isListType(inner)) return { nonNull, list: false, itemNonNull: false };
  return { nonNull, list: true, itemNonNull: isNonNullType(inner.ofType) };
}

function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type of the schema`);
  return type;
}

function inputType(schema: GraphQLSchema, name: string): GraphQLInputObjectType {
  const type = schema.getType(name);
  if (!isInputObjectType(type)) throw new Error(`${name} is not an input type of the schema`);
  return type;
}

function enumValuesOf(type: GraphQLNamedType): string[] {
  return (type as GraphQLEnumType)
    .getValues()
    .map((value) => value.name)
    .sort();
}

/** Problems of one output field against the contract; empty when it matches. */
function checkOutputField(
  schema: GraphQLSchema,
  typeName: string,
  fieldName: string,
  expected: Expectation,
  nullability: 'contract' | 'nonNull',
): string[] {
  const field = objectType(schema, typeName).getFields()[fieldName];
  if (!field) return [`${typeName}.${fieldName} is missing`];
  const problems: string[] = [];
  const named = getNamedType(field.type);
  const shape = unwrap(field.type);
  const where = `${typeName}.${fieldName}`;
  if (expected.named && named.name !== expected.named)
    problems.push(`${where} is ${named.name}, contract says ${expected.named}`);
  if (expected.enumValues) {
    if (!isEnumType(named)) problems.push(`${where} is ${named.name}, contract says an enum`);
    else if (enumValuesOf(named).join() !== [...expected.enumValues].sort().join())
      problems.push(
        `${where} (${named.name}) has values ${enumValuesOf(named).join()}, contract says ${expected.enumValues.join()}`,
      );
  }
  if (shape.list !== expected.list) problems.push(`${where} list: ${shape.list}, contract: ${expected.list}`);
  if (shape.list && !shape.itemNonNull) problems.push(`${where} must have non-null items`);
  const mustBeNonNull = nullability === 'nonNull' || expected.required;
  if (shape.nonNull !== mustBeNonNull) problems.push(`${where} non-null: ${shape.nonNull}, expected ${mustBeNonNull}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------

/** The sections "against contract …" need the contract in ../shared; the other tests of the schema do not. */
const contractMissing = missingShared(CONTRACT_PATH, 'GraphQL schema tests against the contract');
const describeContract = describeUnlessMissing(contractMissing);

describe('GraphQL schema (schema/*.graphql)', () => {
  const schema = loadSchema();
  // Read only when the contract is there: the describes that use them are skipped otherwise.
  let contract!: string;
  let contractTypes!: ReturnType<typeof contractTypesOf>;
  let definitions!: ReturnType<typeof contractTypeDefinitions>;
  if (contractMissing === undefined) {
    contract = readContract();
    definitions = contractTypeDefinitions(contract);
    contractTypes = contractTypesOf(contract, definitions);
  }

  describeContract('against contract section 2.1 (shared value types)', () => {
    it('when the contract lists the reference Status values, then enum Status has exactly them', () => {
      const status = schema.getType('Status');

      expect(isEnumType(status)).toBe(true);
      expect(enumValuesOf(status as GraphQLEnumType)).toEqual([...definitions.statusValues].sort());
    });

    it('when the contract notation defines YNR and YNUR, then YesNo and YesNoUnsure have exactly those values', () => {
      expect(enumValuesOf(schema.getType('YesNo')!)).toEqual([...contractTypes.yesNo].sort());
      expect(enumValuesOf(schema.getType('YesNoUnsure')!)).toEqual([...contractTypes.yesNoUnsure].sort());
    });

    it('when a value type of the contract has a field, then the GraphQL type has it with the same type, values and nullability (the key, name and status every entry has: non-null)', () => {
      const problems: string[] = [];
      for (const { typeName, rows } of definitions.valueTypes) {
        for (const row of rows) {
          const expected = contractTypes.interpret(typeName, row);
          const always = ALWAYS_PRESENT_REFERENCE_FIELDS.includes(row.name);
          problems.push(...checkOutputField(schema, typeName, row.name, expected, always ? 'nonNull' : 'contract'));
        }
      }

      expect(definitions.valueTypes.map((definition) => definition.typeName).sort()).toEqual(
        ['Country', 'EducationLevel', 'EducationMajor', 'Language', 'LanguageLevel', 'Occupation'].sort(),
      );
      expect(problems).toEqual([]);
    });

    it('when an education level is shown, then it also has a name', () => {
      expect(objectType(schema, 'EducationLevel').getFields().name).toBeDefined();
    });
  });

  describeContract('against contract section 2.2 (Candidate)', () => {
    it('when the contract tables list a Candidate field, then Candidate has it with the same type, values and nullability', () => {
      const problems = definitions.candidateRows.flatMap((row) =>
        checkOutputField(schema, 'Candidate', row.name, contractTypes.interpret('Candidate', row), 'contract'),
      );

      // guards the parser itself: the contract's Candidate tables hold 79 fields besides the nested lists
      expect(definitions.candidateRows.length).toBeGreaterThanOrEqual(79);
      expect(definitions.candidateRows.map((row) => row.name)).toEqual(
        expect.arrayContaining(['publicId', 'partnerPublicId', 'ieltsScore', 'candidateMessage']),
      );
      expect(problems).toEqual([]);
    });

    it('when the contract lists a nested list of Candidate, then Candidate has it as a list of the item type (or the single object)', () => {
      const problems = definitions.nestedListRows.flatMap((row) => {
        const single = /single object/.test(row.type);
        const named = contractTypeName(row.type.split('(')[0].trim());
        return checkOutputField(schema, 'Candidate', row.name, { named, list: !single, required: false }, 'contract');
      });

      expect(definitions.nestedListRows.length).toBe(11);
      expect(problems).toEqual([]);
    });

    it('when a nested item type of the contract has a field, then the GraphQL type has it with the same type, values and nullability', () => {
      const problems: string[] = [];
      for (const { typeName, rows } of definitions.itemTypes) {
        for (const row of rows) {
          const expected = contractTypes.interpret(typeName, row);
          problems.push(...checkOutputField(schema, typeName, row.name, expected, 'contract'));
          const inlineObject = /:\s*(.+)$/.exec(row.notes);
          const field = objectType(schema, typeName).getFields()[row.name];
          if (expected.named === undefined && inlineObject && field) {
            // `employerEntity | object | anonymised employer: country (Country), …`
            const objectName = getNamedType(field.type).name;
            for (const inner of parseInlineFields(inlineObject[1])) {
              problems.push(
                ...checkOutputField(
                  schema,
                  objectName,
                  inner.name,
                  contractTypes.interpret(objectName, inner),
                  'contract',
                ),
              );
            }
          }
        }
      }

      expect(definitions.itemTypes.map((definition) => definition.typeName)).toEqual(
        expect.arrayContaining(['CandidateEducation', 'CandidateVisaJobCheck', 'JobOpportunity', 'Dependant']),
      );
      expect(problems).toEqual([]);
    });

    it('when a candidate shows a partner who is a candidate too, then Candidate.partner resolves to a Candidate besides partnerPublicId', () => {
      const fields = objectType(schema, 'Candidate').getFields();

      expect(String(fields.partner.type)).toBe('Candidate');
      expect(String(fields.partnerPublicId.type)).toBe('PublicId');
    });

    it('when a candidate is shown, then only publicId and its global id (Node.id) are non-null', () => {
      const nonNull = Object.values(objectType(schema, 'Candidate').getFields())
        .filter((field) => isNonNullType(field.type))
        .map((field) => field.name);

      expect(nonNull.sort()).toEqual(['id', 'publicId']);
    });
  });

  describeContract('against contract section 2.3 (CandidatePage)', () => {
    it('when the contract lists a CandidatePage field, then CandidatePage has it, non-null', () => {
      const rows = firstTableOf(sectionOf(contract, '### 2.3'));
      const problems = rows.flatMap((row) =>
        checkOutputField(schema, 'CandidatePage', row.name, contractTypes.interpret('CandidatePage', row), 'nonNull'),
      );

      expect(rows.map((row) => row.name)).toEqual(['content', 'totalElements', 'totalPages', 'size', 'number']);
      expect(problems).toEqual([]);
    });
  });

  describeContract('against contract section 2.4 (registration data)', () => {
    const rows = firstTableOf(sectionOf(contract, '### 2.4'));
    const registration = inputType(schema, 'RegistrationDataInput');
    const candidateFields = objectType(schema, 'Candidate').getFields();

    /** The input named type expected for an output named type: ref inputs for reference data, `<Item>Input` for items. */
    function inputNameFor(outputName: string): string {
      if (REFERENCE_KEYS[outputName]) return `${outputName}RefInput`;
      const output = schema.getType(outputName);
      return isObjectType(output) ? `${outputName}Input` : outputName;
    }

    /** Problems of an input type against the output type it mirrors, field by field, recursively. */
    function mirrorProblems(inputName: string, outputName: string): string[] {
      const input = inputType(schema, inputName).getFields();
      const output = objectType(schema, outputName).getFields();
      const problems: string[] = [];
      const names = (fields: object) => Object.keys(fields).sort().join();
      if (names(input) !== names(output))
        problems.push(`${inputName} has ${names(input)}, ${outputName} has ${names(output)}`);
      for (const [name, outputField] of Object.entries(output)) {
        const inputField = input[name];
        if (!inputField) continue;
        const outputNamed = getNamedType(outputField.type).name;
        const inputNamed = getNamedType(inputField.type).name;
        if (inputNamed !== inputNameFor(outputNamed))
          problems.push(`${inputName}.${name} is ${inputNamed}, expected ${inputNameFor(outputNamed)}`);
        if (unwrap(inputField.type).list !== unwrap(outputField.type).list)
          problems.push(`${inputName}.${name} list shape differs`);
        if (inputNamed === `${outputNamed}Input`) problems.push(...mirrorProblems(inputNamed, outputNamed));
      }
      return problems;
    }

    it('when the contract lists a registration field, then RegistrationDataInput has it', () => {
      const contractNames = rows.flatMap((row) => row.name.split(',').map((name) => name.trim()));
      const missing = contractNames.filter((name) => !registration.getFields()[name]);

      expect(contractNames.length).toBeGreaterThan(25);
      expect(missing).toEqual([]);
    });

    it('when the contract gives identity as firstName, lastName and email, then IdentityInput has exactly those, the e-mail required', () => {
      const identityRow = rows.find((row) => row.name === 'identity')!;
      const contractNames = parseInlineFields(identityRow.notes).map((row) => row.name);
      const identityField = registration.getFields().identity;
      const identity = inputType(schema, getNamedType(identityField.type).name).getFields();

      expect(isNonNullType(identityField.type)).toBe(true);
      expect(Object.keys(identity).sort()).toEqual([...contractNames].sort());
      expect(Object.fromEntries(Object.values(identity).map((field) => [field.name, String(field.type)]))).toEqual({
        firstName: 'String',
        lastName: 'String',
        email: 'String!',
      });
    });

    it('when a registration field is "as in 2.2", then its type mirrors the Candidate field (references as ref inputs)', () => {
      const problems: string[] = [];
      for (const row of rows.filter((r) => /same (item shapes|types)/.test(r.notes))) {
        for (const name of row.name.split(',').map((n) => n.trim())) {
          const outputField = candidateFields[name];
          const inputField = registration.getFields()[name];
          if (!outputField || !inputField) {
            problems.push(`${name} missing on Candidate or RegistrationDataInput`);
            continue;
          }
          const outputNamed = getNamedType(outputField.type).name;
          const inputNamed = getNamedType(inputField.type).name;
          if (inputNamed !== inputNameFor(outputNamed))
            problems.push(`RegistrationDataInput.${name} is ${inputNamed}, expected ${inputNameFor(outputNamed)}`);
          if (unwrap(inputField.type).list !== unwrap(outputField.type).list)
            problems.push(`RegistrationDataInput.${name} list shape differs`);
          if (inputNamed === `${outputNamed}Input`) problems.push(...mirrorProblems(inputNamed, outputNamed));
        }
      }

      expect(problems).toEqual([]);
    });

    it('when the contract types a registration field itself (dob, phone, …), then RegistrationDataInput has that type', () => {
      const problems = rows
        .filter((row) => row.type && row.type !== 'object' && row.type !== 'arrays')
        .flatMap((row) => {
          const expected = contractTypes.interpret('RegistrationDataInput', row);
          const actual = getNamedType(registration.getFields()[row.name].type).name;
          return actual === expected.named
            ? []
            : [`RegistrationDataInput.${row.name} is ${actual}, contract says ${expected.named}`];
        });

      expect(problems).toEqual([]);
    });

    it('when reference data is referenced in an input, then the ref input holds exactly its key, typed as on the reference type', () => {
      const problems = Object.entries(REFERENCE_KEYS).flatMap(([typeName, key]) => {
        const ref = inputType(schema, `${typeName}RefInput`).getFields();
        const keyType = getNamedType(objectType(schema, typeName).getFields()[key].type).name;
        const ok = Object.keys(ref).join() === key && String(ref[key].type) === `${keyType}!`;
        return ok ? [] : [`${typeName}RefInput should be { ${key}: ${keyType}! }`];
      });

      expect(problems).toEqual([]);
    });
  });

  describeContract('against contract section 4 (operations)', () => {
    /** `` `a` (string), `b` (string; …) `` on the line starting with `prefix`. */
    function backtickNames(section: string, prefix: string): string[] {
      const line = section.split('\n').find((l) => l.includes(prefix));
      if (!line) throw new Error(`no line with ${prefix}`);
      return [...line.slice(line.indexOf(prefix)).matchAll(/`(\w+)`/g)].map((match) => match[1]);
    }

    const mutations: { section: string; field: string }[] = [
      { section: '### 4.4', field: 'createJobMatch' },
      { section: '### 4.5', field: 'offerToAssist' },
      { section: '### 4.6', field: 'registerCandidate' },
    ];

    it.each(mutations)(
      'when the contract defines $section, then Mutation.$field takes one input with the body fields and returns the 201 fields',
      ({ section, field }) => {
        const text = sectionOf(contract, section);
        const tableRows = firstTableOf(text);
        const bodyNames = tableRows.length > 0 ? tableRows.map((row) => row.name) : backtickNames(text, 'Request body');
        const resultNames = backtickNames(text, '201 body');
        const mutation = objectType(schema, 'Mutation').getFields()[field];

        expect(mutation.args.map((arg) => `${arg.name}: ${String(arg.type)}`)).toEqual([
          expect.stringMatching(/^input: \w+Input!$/),
        ]);
        const input = inputType(schema, getNamedType(mutation.args[0].type).name);
        expect(Object.keys(input.getFields()).sort()).toEqual([...bodyNames].sort());
        const result = objectType(schema, getNamedType(mutation.type).name);
        expect(isNonNullType(mutation.type)).toBe(true);
        expect(Object.keys(result.getFields()).sort()).toEqual([...resultNames].sort());
        for (const name of resultNames) expect(isNonNullType(result.getFields()[name].type)).toBe(true);
      },
    );

    it('when job match and offer to assist name candidates, then each item carries publicId: PublicId! (offer: and an optional couponCode)', () => {
      const itemOf = (inputName: string) =>
        inputType(schema, getNamedType(inputType(schema, inputName).getFields().candidates.type).name).getFields();

      expect(String(inputType(schema, 'JobMatchInput').getFields().candidates.type)).toBe('[CandidateRefInput!]!');
      expect(String(itemOf('JobMatchInput').publicId.type)).toBe('PublicId!');
      expect(String(inputType(schema, 'OfferToAssistInput').getFields().candidates.type)).toBe(
        '[CandidateCouponInput!]!',
      );
      expect(String(itemOf('OfferToAssistInput').publicId.type)).toBe('PublicId!');
      expect(String(itemOf('OfferToAssistInput').couponCode.type)).toBe('String');
    });

    it('when the contract lists the offer reasons, then OfferToAssistInput.reason is a required enum of exactly those', () => {
      const reasonRow = firstTableOf(sectionOf(contract, '### 4.5')).find((row) => row.name === 'reason')!;
      const reason = inputType(schema, 'OfferToAssistInput').getFields().reason;

      expect(String(reason.type)).toBe('OfferReason!');
      expect(enumValuesOf(getNamedType(reason.type))).toEqual([...valueList(reasonRow.notes)!].sort());
    });

    it('when the mutations return record ids, then they are PublicIds', () => {
      expect(String(objectType(schema, 'JobMatchResult').getFields().jobMatchId.type)).toBe('PublicId!');
      expect(String(objectType(schema, 'OfferToAssistResult').getFields().offerId.type)).toBe('PublicId!');
      expect(String(objectType(schema, 'RegisterCandidateResult').getFields().publicId.type)).toBe('PublicId!');
    });
  });

  describe('queries', () => {
    const query = () => objectType(schema, 'Query').getFields();
    const signature = (fieldName: string) =>
      query()[fieldName].args.map(
        (arg) =>
          `${arg.name}: ${String(arg.type)}${arg.defaultValue === undefined ? '' : ` = ${JSON.stringify(arg.defaultValue)}`}`,
      );

    it('when candidates are searched, then the arguments and defaults follow GET /v1/candidates', () => {
      expect(signature('candidates')).toEqual([
        'filter: CandidateFilter',
        'includeEmployed: Boolean = false',
        'page: Int = 0',
        'limit: Int = 10',
        'sort: CandidateOrder = "CREATED"',
        'savedSearch: ID',
      ]);
      expect(String(query().candidates.type)).toBe('CandidatePage!');
      expect(
        Object.entries(inputType(schema, 'CandidateFilter').getFields()).map(
          ([name, field]) => `${name}: ${String(field.type)}`,
        ),
      ).toEqual([
        'location: [String!]',
        'nationality: [String!]',
        'occupation: [String!]',
        'languages: [LanguageRequirement!]',
        'minYearsExperience: Int',
        'maxYearsExperience: Int',
        'minEducationLevel: Int',
        'maxEducationLevel: Int',
        'minAge: Int',
        'maxAge: Int',
        'exams: [ExamRequirement!]',
        'keyword: String',
        'inSavedLists: [ID!]',
        'notInSavedLists: [ID!]',
      ]);
    });

    it('when one candidate or saved list is fetched, then it is by PublicId and nullable', () => {
      expect(signature('candidate')).toEqual(['publicId: PublicId!']);
      expect(String(query().candidate.type)).toBe('Candidate');
      expect(signature('savedList')).toEqual(['publicId: PublicId!']);
      expect(String(query().savedList.type)).toBe('SavedList');
    });

    it('when a saved list is shown, then it pages its candidates like GET /v1/candidates/by-list', () => {
      const fields = objectType(schema, 'SavedList').getFields();

      expect(String(fields.publicId.type)).toBe('PublicId!');
      expect(fields.name).toBeDefined();
      expect(
        fields.candidates.args.map((arg) => `${arg.name}: ${String(arg.type)} = ${String(arg.defaultValue)}`),
      ).toEqual(['page: Int = 0', 'limit: Int = 10']);
      expect(String(fields.candidates.type)).toBe('CandidatePage!');
    });

    it('when candidates are paginated by cursor, then candidatesConnection has the Relay shape', () => {
      expect(signature('candidatesConnection')).toEqual([
        'first: Int = 10',
        'after: String',
        'filter: CandidateFilter',
        'includeEmployed: Boolean = false',
        'sort: CandidateOrder = "CREATED"',
      ]);
      expect(String(query().candidatesConnection.type)).toBe('CandidateConnection!');
      const fieldTypes = (name: string) =>
        Object.entries(objectType(schema, name).getFields()).map(
          ([fieldName, field]) => `${fieldName}: ${String(field.type)}`,
        );
      expect(fieldTypes('CandidateConnection')).toEqual([
        'edges: [CandidateEdge!]!',
        'pageInfo: PageInfo!',
        'totalCount: Int!',
      ]);
      expect(fieldTypes('CandidateEdge')).toEqual(['cursor: String!', 'node: Candidate!']);
      expect(fieldTypes('PageInfo')).toEqual(['hasNextPage: Boolean!', 'endCursor: String']);
    });

    it('when reference data is listed, then every reference type has its list query', () => {
      const lists = [
        'countries',
        'languages',
        'languageLevels',
        'occupations',
        'educationLevels',
        'educationMajors',
      ].map((name) => `${name}: ${String(query()[name]?.type)}`);

      expect(lists).toEqual([
        'countries: [Country!]!',
        'languages: [Language!]!',
        'languageLevels: [LanguageLevel!]!',
        'occupations: [Occupation!]!',
        'educationLevels: [EducationLevel!]!',
        'educationMajors: [EducationMajor!]!',
      ]);
      expect(signature('occupations')).toEqual(['search: String', 'limit: Int']);
    });
  });

  describe('reference types', () => {
    it('when two reference types (or any two Node types) have a field of one name and one named type, then it has the same nullability on both, so a selection over several types merges', () => {
      const reference = ['Country', 'Language', 'LanguageLevel', 'Occupation', 'EducationLevel', 'EducationMajor'];
      const nodeTypes = Object.values(schema.getTypeMap())
        .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
        .map((type) => type.name);
      const typeNames = [...new Set([...reference, ...nodeTypes])];
      const byField = new Map<string, Map<string, string[]>>();
      for (const typeName of typeNames) {
        for (const field of Object.values(objectType(schema, typeName).getFields())) {
          const key = `${field.name}: ${getNamedType(field.type).name}`;
          const spellings = byField.get(key) ?? new Map<string, string[]>();
          spellings.set(field.type.toString(), [...(spellings.get(field.type.toString()) ?? []), typeName]);
          byField.set(key, spellings);
        }
      }
      const mixed = [...byField.entries()]
        .filter(([, spellings]) => spellings.size > 1)
        .map(
          ([key, spellings]) =>
            `${key}: ${[...spellings].map(([type, on]) => `${type} on ${on.join(', ')}`).join('; ')}`,
        );

      expect(typeNames.length).toBeGreaterThan(reference.length);
      expect(mixed).toEqual([]);
    });
  });

  describe('scalars', () => {
    it('when the contract has public ids, dates, date-times and int64, then the custom scalars exist', () => {
      const custom = Object.values(schema.getTypeMap())
        .filter((type) => isScalarType(type) && !isSpecifiedScalarType(type))
        .map((type) => type.name)
        .sort();

      expect(custom).toEqual(['Date', 'DateTime', 'Long', 'PublicId']);
    });
  });

  describe('documentation', () => {
    const ownTypes = Object.values(schema.getTypeMap()).filter(
      (type) => !type.name.startsWith('__') && !(isScalarType(type) && isSpecifiedScalarType(type)),
    );

    it('when a type is defined, then it has a description', () => {
      const undocumented = ownTypes.filter((type) => !type.description?.trim()).map((type) => type.name);

      expect(ownTypes.length).toBeGreaterThan(50);
      expect(undocumented).toEqual([]);
    });

    it('when a field, argument or enum value is defined, then it has a description', () => {
      const undocumented: string[] = [];
      for (const type of ownTypes) {
        if (isObjectType(type)) {
          for (const field of Object.values(type.getFields())) {
            if (!field.description?.trim()) undocumented.push(`${type.name}.${field.name}`);
            for (const arg of field.args)
              if (!arg.description?.trim()) undocumented.push(`${type.name}.${field.name}(${arg.name})`);
          }
        } else if (isInputObjectType(type)) {
          for (const field of Object.values(type.getFields()))
            if (!field.description?.trim()) undocumented.push(`${type.name}.${field.name}`);
        } else if (isEnumType(type)) {
          for (const value of type.getValues())
            if (!value.description?.trim()) undocumented.push(`${type.name}.${value.name}`);
        }
      }

      expect(undocumented).toEqual([]);
    });
  });

  describe('anonymity', () => {
    it('when any output type is shown, then it has no identity field', () => {
      const forbidden = new Set(IDENTITY_FIELDS.map((name) => name.toLowerCase()));
      const leaks = Object.values(schema.getTypeMap())
        .filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'))
        .flatMap((type) => Object.keys(type.getFields()).map((field) => `${type.name}.${field}`))
        .filter((qualified) => forbidden.has(qualified.split('.')[1].toLowerCase()));

      expect(leaks).toEqual([]);
    });

    it('when a candidate registers, then the identity fields are accepted as input', () => {
      const registration = inputType(schema, 'RegistrationDataInput').getFields();
      const identity = inputType(schema, 'IdentityInput').getFields();
      const accepted = IDENTITY_FIELDS.filter((name) => registration[name] || identity[name]);

      expect(accepted).toEqual(IDENTITY_FIELDS);
    });
  });
});
