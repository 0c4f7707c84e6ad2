/**
 * Reading the product's REST contract (the contract) programmatically: its markdown sections,
 * tables, inline field lists and type notation. Tests compare the GraphQL schema and the
 * OpenAPI document with what is read here, so a field removed or retyped in either place
 * fails a test instead of drifting silently.
 */
import { readFileSync } from 'node:fs';
import { CONTRACT_PATH, sharedFile } from './shared-files';

export const SEED_FILE = sharedFile(CONTRACT_PATH);

/** Product facts the contract leaves anonymous: "the service" is EducationMajor, held in `educationMajor`. */
export const SEED_TYPE_ALIASES: Record<string, string> = { 'the service': 'EducationMajor' };
export const SEED_FIELD_ALIASES: Record<string, string> = { 'the service': 'educationMajor' };

/** Fields accepted only at registration (contract 2.4) and never returned by any read. */
export const IDENTITY_FIELDS = [
  'firstName',
  'lastName',
  'email',
  'phone',
  'dob',
  'professionalNetworkLink',
  'refugeeAgencyNumber',
  'reliefAgencyNumber',
  'messagingAppNumber',
];

/** Key field of each reference type: what a request names an entry by. */
export const REFERENCE_KEYS: Record<string, string> = {
  Country: 'isoCode',
  Language: 'isoCode',
  LanguageLevel: 'level',
  Occupation: 'isco08Code',
  EducationLevel: 'level',
  EducationMajor: 'id',
};

export interface ContractRow {
  name: string;
  /** the type column as written, e.g. `string, required`, `array of enum`, `YNR` */
  type: string;
  /** the third column (notes / allowed values), or '' */
  notes: string;
}

export interface ContractBlock {
  /** text between the `**` of the heading, e.g. `Country`, `Dependant`, `Identity and profile` */
  heading: string;
  /** header cells of the block's table, when it has one */
  header: string[];
  rows: ContractRow[];
  /** `**Status** (enum): A, B.` gives the values */
  enumValues?: string[];
  /** `**CandidateExam**: exam (enum …), …` gives the fields inline */
  inline: boolean;
}

export function readContract(): string {
  return readFileSync(SEED_FILE, 'utf8');
}

/** The text of the section whose heading starts with `heading` (e.g. `### 2.2`), up to the next heading of that level or higher. */
export function sectionOf(contract: string, heading: string): string {
  const lines = contract.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  if (start < 0) throw new Error(`contract has no section ${heading}`);
  const level = heading.split(' ')[0];
  const end = lines.findIndex(
    (line, index) => index > start && /^#{1,6} /.test(line) && line.split(' ')[0].length <= level.length,
  );
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The heading lines of a level (e.g. `###`) under the section starting with `heading` (e.g. `## 4.`). */
export function subheadingsOf(contract: string, heading: string, level: string): string[] {
  return sectionOf(contract, heading)
    .split('\n')
    .filter((line) => line.startsWith(`${level} `));
}

/** `a (t1), b (t2, x)` → rows; parentheses are never nested in the contract. */
export function parseInlineFields(text: string): ContractRow[] {
  const rows: ContractRow[] = [];
  for (const match of text.matchAll(/([A-Za-z_][\w ]*?)\s*\(([^()]*)\)/g)) {
    const rawName = match[1].trim();
    rows.push({ name: SEED_FIELD_ALIASES[rawName] ?? rawName, type: match[2].trim(), notes: '' });
  }
  return rows;
}

export function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** The bold-headed blocks of a section, each with its table rows or inline fields. */
export function blocksOf(section: string): ContractBlock[] {
  const blocks: ContractBlock[] = [];
  let current: ContractBlock | undefined;
  for (const line of section.split('\n')) {
    const heading = /^\*\*(.+?)\*\*(.*)$/.exec(line);
    if (heading) {
      const rest = heading[2].trim();
      current = { heading: heading[1].trim(), header: [], rows: [], inline: false };
      blocks.push(current);
      const enumMatch = /^\(enum\):\s*(.+?)\.?$/.exec(rest);
      if (enumMatch) current.enumValues = enumMatch[1].split(',').map((value) => value.trim());
      else if (rest.startsWith(':')) {
        current.inline = true;
        current.rows = parseInlineFields(rest.slice(1));
      }
      continue;
    }
    if (!current || !line.trim().startsWith('|')) continue;
    const cells = tableCells(line);
    if (cells.every((cell) => /^-+$/.test(cell))) continue;
    if (current.header.length === 0) {
      current.header = cells;
      continue;
    }
    const rawName = cells[0];
    current.rows.push({ name: SEED_FIELD_ALIASES[rawName] ?? rawName, type: cells[1] ?? '', notes: cells[2] ?? '' });
  }
  return blocks;
}

/** The rows of the first table of a section (tables without a bold heading, as in 2.3 and 4.x). */
export function firstTableOf(section: string): ContractRow[] {
  return firstTableWithHeader(section).rows;
}

/** The first table of a section with its header cells and every cell of each row. */
export function firstTableWithHeader(section: string): { header: string[]; rows: ContractRow[]; cells: string[][] } {
  const block = blocksOf(`**table**\n${section}`)[0];
  const cells = section
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .map(tableCells)
    .filter((row) => !row.every((cell) => /^-+$/.test(cell)))
    .slice(1, 1 + block.rows.length);
  return { header: block.header, rows: block.rows, cells };
}

export function contractTypeName(heading: string): string {
  // `Dependant** (anonymised)` style suffixes are already cut off by the heading regex.
  return SEED_TYPE_ALIASES[heading] ?? heading;
}

// ---------------------------------------------------------------------------------------------
// Interpreting contract types

/** What the contract says of one field, in the vocabulary of the GraphQL schema (`Int`, `Long`, `Date`, `PublicId`, …). */
export interface Expectation {
  /** expected named type; undefined when the contract gives only `object` or an enum without a name */
  named?: string;
  list: boolean;
  required: boolean;
  /** for enums: the exact set of values */
  enumValues?: string[];
}

export const SCALARS: Record<string, string> = {
  string: 'String',
  boolean: 'Boolean',
  integer: 'Int',
  'integer int32': 'Int',
  'integer int64': 'Long',
  number: 'Float',
  date: 'Date',
  'date-time': 'DateTime',
};

export function valueList(text: string): string[] | undefined {
  const values = text
    .replace(/\.$/, '')
    .split(',')
    .map((value) => value.trim());
  return values.length > 0 && values.every((value) => /^[A-Z][A-Z0-9_]*$/.test(value)) ? values : undefined;
}

export class ContractTypes {
  readonly yesNo: string[];
  readonly yesNoUnsure: string[];
  constructor(
    private readonly contract: string,
    /** the contract's rows of each named type, for `enum as EducationLevel.educationType` */
    private readonly rowsOf: (typeName: string) => ContractRow[],
  ) {
    this.yesNo = this.notation('YNR');
    this.yesNoUnsure = this.notation('YNUR');
  }

  private notation(code: string): string[] {
    const match = new RegExp('`' + code + '` = enum ([A-Z_, ]+)\\.').exec(this.contract);
    if (!match) throw new Error(`contract notation ${code} not found`);
    return match[1].split(',').map((value) => value.trim());
  }

  /** Values of `**Type.field** values: A, B.` (section 3), for `see section 3`. */
  private stateValues(typeName: string, fieldName: string): string[] {
    const match = new RegExp(`\\*\\*${typeName}\\.${fieldName}\\*\\* values: ([A-Z0-9_, ]+)\\.`).exec(this.contract);
    if (!match) throw new Error(`contract gives no values of ${typeName}.${fieldName}`);
    return match[1].split(',').map((value) => value.trim());
  }

  interpret(typeName: string, row: ContractRow): Expectation {
    const raw = row.type;
    const required = /\brequired\b/.test(raw);
    let text = raw;
    let list = false;
    if (text.startsWith('array of ')) {
      list = true;
      text = text.slice('array of '.length);
    }
    text = text
      .split(';')[0]
      .replace(/\([^()]*\)/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (/base64-uuid/.test(raw) || /base64-uuid/.test(row.notes)) return { named: 'PublicId', list, required };
    if (text === 'YNR') return { named: 'YesNo', list, required, enumValues: this.yesNo };
    if (text === 'YNUR') return { named: 'YesNoUnsure', list, required, enumValues: this.yesNoUnsure };
    if (text.startsWith('enum')) {
      const rest = text.slice('enum'.length).trim();
      const asMatch = /^as (\w+)\.(\w+)$/.exec(rest);
      if (asMatch) {
        const otherRow = this.rowsOf(asMatch[1]).find((r) => r.name === asMatch[2]);
        const other = otherRow && this.interpret(asMatch[1], otherRow);
        if (!other?.enumValues) throw new Error(`contract refers to unknown enum ${rest}`);
        return { list, required, enumValues: other.enumValues };
      }
      const values =
        valueList(rest) ??
        valueList(row.notes) ??
        (/see section 3/.test(row.notes) ? this.stateValues(typeName, row.name) : undefined);
      if (!values) throw new Error(`no enum values for ${typeName}.${row.name}`);
      return { list, required, enumValues: values };
    }
    const base = text.split(',')[0].trim();
    if (base === 'object') return { list, required };
    if (SCALARS[base]) return { named: SCALARS[base], list, required };
    const named = SEED_TYPE_ALIASES[base] ?? base;
    if (!/^[A-Z]\w*$/.test(named)) throw new Error(`unreadable contract type "${raw}" of ${typeName}.${row.name}`);
    return { named, list, required };
  }
}

export interface ContractTypeDefinition {
  typeName: string;
  rows: ContractRow[];
}

export interface ContractTypeDefinitions {
  /** the types of section 2.1 that have fields */
  valueTypes: ContractTypeDefinition[];
  /** the values of the reference Status enum */
  statusValues: string[];
  /** the Candidate's own fields (section 2.2 tables, nested lists excepted) */
  candidateRows: ContractRow[];
  /** the nested item types of section 2.2 (CandidateCertification … JobOpportunity) */
  itemTypes: ContractTypeDefinition[];
  /** the rows of the "Nested lists" table */
  nestedListRows: ContractRow[];
}

/** Section 2.1 and the item types of 2.2: every bold block that names a type. */
export function contractTypeDefinitions(contract: string): ContractTypeDefinitions {
  const shared = blocksOf(sectionOf(contract, '### 2.1'));
  const statusBlock = shared.find((block) => block.heading === 'Status');
  if (!statusBlock?.enumValues) throw new Error('contract section 2.1 gives no Status values');
  const valueTypes = shared
    .filter((block) => block.rows.length > 0)
    .map((block) => ({ typeName: contractTypeName(block.heading), rows: block.rows }));

  // Section 2.2: the Candidate's own tables come first; from the first block that defines a
  // type inline (`**CandidateCertification**: …`) on, every block is one nested type.
  const candidateBlocks = blocksOf(sectionOf(contract, '### 2.2'));
  const firstItem = candidateBlocks.findIndex((block) => block.inline);
  if (firstItem < 0) throw new Error('contract section 2.2 has no nested item types');
  const ownBlocks = candidateBlocks.slice(0, firstItem);
  const nested = ownBlocks.find((block) => block.header[1] === 'Item type');
  if (!nested) throw new Error('contract section 2.2 has no "Nested lists" table');
  return {
    valueTypes,
    statusValues: statusBlock.enumValues,
    candidateRows: ownBlocks.filter((block) => block !== nested).flatMap((block) => block.rows),
    nestedListRows: nested.rows,
    itemTypes: candidateBlocks
      .slice(firstItem)
      .map((block) => ({ typeName: contractTypeName(block.heading), rows: block.rows })),
  };
}

/** A ContractTypes that resolves `enum as Type.field` against the types of sections 2.1 and 2.2. */
export function contractTypesOf(
  contract: string,
  definitions: ContractTypeDefinitions = contractTypeDefinitions(contract),
): ContractTypes {
  return new ContractTypes(
    contract,
    (typeName) =>
      [...definitions.valueTypes, ...definitions.itemTypes].find((definition) => definition.typeName === typeName)
        ?.rows ?? [],
  );
}

// ---------------------------------------------------------------------------------------------
// Section 4 (endpoints) and section 7 (errors)

export interface ContractEndpoint {
  /** e.g. `### 4.2` */
  section: string;
  method: string;
  /** path template as the contract writes it, e.g. `/v1/candidates/{publicId}` */
  path: string;
  operationId: string;
  /** every status the section lists as a response (`- 200: …`, `- 400, 401, 500.`) */
  statuses: number[];
}

/** The endpoints of section 4, from headings like `### 4.1 GET /v1/candidates (operation findCandidates)`. */
export function contractEndpoints(contract: string): ContractEndpoint[] {
  return subheadingsOf(contract, '## 4.', '###').map((heading) => {
    const match = /^### (4\.\d+) (GET|POST|PUT|PATCH|DELETE) (\S+) \(operation (\w+)\)$/.exec(heading.trim());
    if (!match) throw new Error(`unreadable endpoint heading "${heading}"`);
    const section = `### ${match[1]}`;
    const statuses = sectionOf(contract, section)
      .split('\n')
      .map((line) => /^- ((?:\d{3})(?:, \d{3})*)\b/.exec(line))
      .flatMap((statusMatch) => (statusMatch ? statusMatch[1].split(', ').map(Number) : []));
    return { section, method: match[2], path: match[3], operationId: match[4], statuses };
  });
}

/** The rows of section 7's "Status codes per endpoint" table: a status and the endpoint phrases it applies to. */
export function contractErrorStatuses(contract: string): { status: number; meaning: string; endpoints: string[] }[] {
  const section = sectionOf(contract, '## 7.');
  const tableStart = section.indexOf('| Status |');
  if (tableStart < 0) throw new Error('contract section 7 has no status table');
  const { header, cells } = firstTableWithHeader(section.slice(tableStart));
  if (header.join() !== 'Status,Meaning,Endpoints') throw new Error(`unexpected status table header ${header.join()}`);
  return cells.map(([status, meaning, endpoints]) => ({
    status: Number(status),
    meaning,
    endpoints: endpoints.split(',').map((endpoint) => endpoint.trim()),
  }));
}
