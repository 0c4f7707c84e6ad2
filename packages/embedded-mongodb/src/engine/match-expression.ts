import type { Document } from 'bson';
import { CommandError } from '../errors';
import { hasType, isNumber, parseTypeSet } from './bson-types';
import { isPlainObject } from './path-values';
import { compileRegex, compileRegexValue, isRegexValue, regexMatches, regexParts, type FilterRegex } from './regex';
import { compareValues, toNumber, typeBracketOf } from './value-order';

/**
 * mongod's match expression language: a filter is parsed once, with the server's checks and
 * error codes, into a tree of closures that is then run on every candidate document.
 *
 * How a path reaches values follows mongod's element iterator: an array met before the last part
 * contributes its embedded documents (and, for a numeric part, the element at that position),
 * never the contents of arrays nested in it; an array at the last part contributes each element
 * and then itself. A path that reaches nothing counts as missing, which only null, `$exists:
 * false` and negations match.
 */

/** The value a path does not reach. */
export const MISSING: unique symbol = Symbol('missing');

export interface MatchDetails {
  /** The array position a match was found at: what an update's positional `$` stands for. */
  elemMatchKey?: string;
}

/** A compiled filter. */
export type Matcher = (doc: Document, details?: MatchDetails) => boolean;

export interface MatcherOptions {
  /** Compiles the argument of `$expr` (an aggregation expression) into a test of a document. */
  readonly expr: (argument: unknown) => (doc: Document) => boolean;
}

/**
 * What one operator asks of a single value a path reaches (mongod's matchesSingleElement). An
 * array test is also given the match details, to record the element that matched.
 */
type ValueTest = (value: unknown, details?: MatchDetails) => boolean;

/** The parsed operators of one path, before they are bound to it. */
type Node =
  | { readonly kind: 'test'; readonly test: ValueTest; readonly array: boolean }
  | { readonly kind: 'not'; readonly child: Node }
  | { readonly kind: 'and'; readonly children: readonly Node[] }
  | { readonly kind: 'never' };

/** Where the parser is (mongod's DocumentParseLevel): some operators only apply to whole documents. */
const enum Level {
  PredicateTop,
  DocumentTop,
  SubDocument,
}

/** mongod caps filter paths at the depth documents may nest (its storage depth, 200 less 20). */
const MAX_FILTER_PATH_PARTS = 180;

const TOP_LEVEL_HINT =
  ". If you have a field name that starts with a '$' symbol, consider using $getField or $setField.";
const NOT_HINT = '. If you are trying to negate an entire expression, use $nor.';

const NEVER: Node = { kind: 'never' };

function badValue(message: string): CommandError {
  return new CommandError('BadValue', message);
}

function notSupported(operator: string): CommandError {
  return new CommandError('CommandNotSupported', `${operator} is not supported by the embedded store`);
}

// ----------------------------------------------------------------------------------------------
// Messages quote operands the way mongod prints a BSON element.

function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan.0';
    if (!Number.isFinite(value)) return value > 0 ? 'inf.0' : '-inf.0';
    return String(value);
  }
  if (isNumber(value)) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function describe(name: string, value: unknown): string {
  return `${name}: ${formatValue(value)}`;
}

const TWO_TO_63 = 2 ** 63;

/** mongod's parseIntegerElementToLong: a number that is a 64-bit integer, or FailedToParse. */
function integerOf(value: unknown, name: string): number {
  if (!isNumber(value)) throw new CommandError('FailedToParse', `Expected a number in: ${describe(name, value)}`);
  const number = toNumber(value);
  if (Number.isNaN(number))
    throw new CommandError('FailedToParse', `Expected an integer, but found NaN in: ${describe(name, value)}`);
  if (number >= TWO_TO_63 || number < -TWO_TO_63)
    throw new CommandError('FailedToParse', `Cannot represent as a 64-bit integer: ${describe(name, value)}`);
  if (!Number.isInteger(number))
    throw new CommandError('FailedToParse', `Expected an integer: ${describe(name, value)}`);
  return number;
}

function nonNegativeIntegerOf(value: unknown, name: string): number {
  const number = integerOf(value, name);
  if (number < 0) throw new CommandError('FailedToParse', `Expected a positive number in: ${describe(name, value)}`);
  return number;
}

function nonNegativeIntOf(value: unknown, name: string): number {
  const number = nonNegativeIntegerOf(value, name);
  if (number > 2147483647)
    throw new CommandError('FailedToParse', `Cannot represent ${describe(name, value)} in an int`);
  return number;
}

/** BSON truthiness ($exists): false, zero, null and undefined are false. */
function trueValue(value: unknown): boolean {
  if (value === false || value === null || value === undefined) return false;
  if (isNumber(value)) return toNumber(value) !== 0 || Number.isNaN(toNumber(value));
  return true;
}

// ----------------------------------------------------------------------------------------------
// Paths

/** The position an array part names ("0", "12"; not "01"), or -1. */
function arrayPosition(part: string): number {
  if (part.length === 0 || part.length > 9) return -1;
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  if (part.length > 1 && part.charCodeAt(0) === 48) return -1;
  return Number(part);
}

/** A field of a document; an array (an `$elemMatch` element read as a document) has its positions. */
function fieldOf(container: object, name: string): unknown {
  if (Array.isArray(container)) {
    const position = arrayPosition(name);
    return position >= 0 && position < container.length ? container[position] : MISSING;
  }
  const value = (container as Record<string, unknown>)[name];
  if (value === undefined || typeof value === 'function' || name === '__proto__')
    return Object.hasOwn(container, name) ? value : MISSING;
  return value;
}

/** Refuses a filter path mongod refuses. */
function checkFilterPath(path: string): void {
  let parts = 1;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 46) parts++;
  if (parts > MAX_FILTER_PATH_PARTS) throw new CommandError('Location5729100', 'FieldPath is too long');
}

const NOTHING = 0;
const NO_MATCH = 1;
const MATCH = 2;

/** One operator bound to a path: walks the document as mongod's element iterator does. */
class PathTest {
  private readonly last: number;

  constructor(
    private readonly parts: readonly string[],
    private readonly test: ValueTest,
    /** An array test ($elemMatch, $size) is given arrays whole; other tests get their elements too. */
    private readonly array: boolean,
  ) {
    this.last = parts.length - 1;
  }

  matches(doc: Document, details?: MatchDetails): boolean {
    if (this.last === 0 && !this.array) {
      // One field, the common case: no walk unless it holds an array.
      const value = fieldOf(doc, this.parts[0]);
      if (!Array.isArray(value)) return this.test(value);
    }
    const found = this.fromDocument(doc, 0, -1, details);
    if (found === MATCH) return true;
    return found === NOTHING && this.test(MISSING);
  }

  /** Tests one value; `offset` is the position of the array it was reached through (-1: none). */
  private visit(value: unknown, offset: number, details: MatchDetails | undefined): number {
    const matched = this.array ? this.test(value, offset === -1 ? details : undefined) : this.test(value);
    if (!matched) return NO_MATCH;
    if (details !== undefined && offset !== -1) details.elemMatchKey = String(offset);
    return MATCH;
  }

  private fromDocument(doc: object, start: number, offset: number, details: MatchDetails | undefined): number {
    let container = doc;
    for (let p = start; ; p++) {
      const value = fieldOf(container, this.parts[p]);
      if (Array.isArray(value)) return this.fromArray(value, p + 1, offset, details);
      if (p === this.last) return this.visit(value, offset, details);
      if (!isPlainObject(value)) return this.visit(MISSING, offset, details);
      container = value;
    }
  }

  /** An array reached by the parts before `next`. */
  private fromArray(array: unknown[], next: number, offset: number, details: MatchDetails | undefined): number {
    if (next > this.last) {
      if (this.array) return this.visit(array, offset, details);
      for (let i = 0; i < array.length; i++) {
        if (this.visit(array[i], offset === -1 ? i : offset, details) === MATCH) return MATCH;
      }
      return this.visit(array, offset, details);
    }
    const position = arrayPosition(this.parts[next]);
    let found = NOTHING;
    for (let i = 0; i < array.length; i++) {
      const element = array[i];
      let result = NOTHING;
      if (isPlainObject(element)) result = this.fromDocument(element, next, offset === -1 ? i : offset, details);
      if (result !== MATCH && i === position) {
        // The part names this position: the element itself, not an implicit traversal.
        if (next === this.last) result = Math.max(result, this.visit(element, offset, details));
        else if (isPlainObject(element))
          result = Math.max(result, this.fromDocument(element, next + 1, offset, details));
        else if (Array.isArray(element)) result = Math.max(result, this.fromArray(element, next + 1, offset, details));
      }
      if (result === MATCH) return MATCH;
      if (result > found) found = result;
    }
    return found;
  }
}

function all(matchers: readonly Matcher[]): Matcher {
  switch (matchers.length) {
    case 0:
      return () => true;
    case 1:
      return matchers[0];
    case 2: {
      const [first, second] = matchers;
      return (doc, details) => first(doc, details) && second(doc, details);
    }
    default:
      return (doc, details) => {
        for (const matcher of matchers) if (!matcher(doc, details)) return false;
        return true;
      };
  }
}

/** Binds parsed operators to a path. */
function bindPath(path: string, node: Node): Matcher {
  switch (node.kind) {
    case 'test': {
      const leaf = new PathTest(path.split('.'), node.test, node.array);
      return (doc, details) => leaf.matches(doc, details);
    }
    case 'not': {
      const inner = bindPath(path, node.child);
      return (doc) => !inner(doc);
    }
    case 'and':
      return all(node.children.map((child) => bindPath(path, child)));
    case 'never':
      return () => false;
  }
}

/** The same operators applied to one value (the elements `$elemMatch` tests). */
function valueTestOf(node: Node): (value: unknown) => boolean {
  switch (node.kind) {
    case 'test':
      return node.test;
    case 'not': {
      const inner = valueTestOf(node.child);
      return (value) => !inner(value);
    }
    case 'and': {
      const tests = node.children.map(valueTestOf);
      return (value) => tests.every((test) => test(value));
    }
    case 'never':
      return () => false;
  }
}

function and(nodes: Node[]): Node {
  return nodes.length === 1 ? nodes[0] : { kind: 'and', children: nodes };
}

function leaf(test: ValueTest, array = false): Node {
  return { kind: 'test', test, array };
}

// ----------------------------------------------------------------------------------------------
// Value tests

function isNull(value: unknown): boolean {
  return value === null || value === undefined || value === MISSING;
}

const NUMBER_RANK = typeBracketOf(0);
const STRING_RANK = typeBracketOf('');

function bsonTag(value: unknown): string | undefined {
  return (value as { _bsontype?: string } | null | undefined)?._bsontype;
}

/** mongod's equality: same canonical type and equal in its value order; null also matches missing. */
function equalityTest(operand: unknown): ValueTest {
  if (operand === null || operand === undefined) return isNull;
  switch (typeof operand) {
    case 'string':
    case 'boolean':
      return (value) => value === operand;
    case 'number':
      if (Number.isNaN(operand)) return (value) => isNumber(value) && Number.isNaN(toNumber(value));
      return (value) =>
        typeof value === 'number' ? value === operand : isNumber(value) && toNumber(value) === operand;
    default:
      return (value) => value !== MISSING && compareValues(value, operand) === 0;
  }
}

type Comparison = '$lt' | '$lte' | '$gt' | '$gte';

function compares(operator: Comparison, order: number): boolean {
  switch (operator) {
    case '$lt':
      return order < 0;
    case '$lte':
      return order <= 0;
    case '$gt':
      return order > 0;
    case '$gte':
      return order >= 0;
  }
}

/**
 * mongod's ranges are type-bracketed: values of another canonical type never match, except that
 * everything is below MaxKey and above MinKey; NaN only equals NaN.
 */
function comparisonTest(operator: Comparison, operand: unknown): ValueTest {
  const rank = typeBracketOf(operand);
  const tag = bsonTag(operand);
  const otherTypes =
    tag === 'MaxKey'
      ? operator === '$lt' || operator === '$lte'
      : tag === 'MinKey'
        ? operator === '$gt' || operator === '$gte'
        : false;
  const inclusive = operator === '$lte' || operator === '$gte';
  if (typeof operand === 'number' && !Number.isNaN(operand)) {
    return (value) => {
      if (typeof value === 'number')
        return !Number.isNaN(value) && compares(operator, value < operand ? -1 : value > operand ? 1 : 0);
      if (!isNumber(value)) return false;
      const number = toNumber(value);
      return !Number.isNaN(number) && compares(operator, number < operand ? -1 : number > operand ? 1 : 0);
    };
  }
  if (typeof operand === 'string') {
    return (value) => {
      if (typeof value === 'string') return compares(operator, value < operand ? -1 : value > operand ? 1 : 0);
      return typeBracketOf(value) === STRING_RANK && compares(operator, compareValues(value, operand));
    };
  }
  const operandNaN = rank === NUMBER_RANK && Number.isNaN(toNumber(operand));
  return (value) => {
    if (typeBracketOf(value) !== rank) return otherTypes;
    if (rank === NUMBER_RANK) {
      const valueNaN = Number.isNaN(toNumber(value));
      if (valueNaN || operandNaN) return inclusive && valueNaN && operandNaN;
    }
    return compares(operator, compareValues(value, operand));
  };
}

function regexTest(regex: FilterRegex): ValueTest {
  return (value) => regexMatches(regex, value);
}

/** `$in`: equal to one of the values, or matched by one of the regular expressions. */
function inTest(operands: readonly unknown[]): ValueTest {
  let matchesNull = false;
  const primitives = new Set<unknown>();
  const others: unknown[] = [];
  const regexes: FilterRegex[] = [];
  for (const operand of operands) {
    if (isExpressionDocument(operand, false)) throw badValue('cannot nest $ under $in');
    if (isRegexValue(operand)) regexes.push(compileRegexValue(operand));
    else if (operand === null || operand === undefined) matchesNull = true;
    else if (typeof operand === 'string' || typeof operand === 'number' || typeof operand === 'boolean')
      primitives.add(operand);
    else others.push(operand);
  }
  return (value) => {
    if (isNull(value)) return matchesNull;
    if (primitives.has(value)) return true;
    if (typeof value !== 'number' && isNumber(value) && primitives.has(toNumber(value))) return true;
    for (const other of others) if (compareValues(value, other) === 0) return true;
    for (const regex of regexes) if (regexMatches(regex, value)) return true;
    return false;
  };
}

const TWO_TO_53 = 2 ** 53;

/** `$mod`: numbers truncated toward zero (within 64-bit integers) whose remainder is `remainder`. */
function modTest(divisor: number, remainder: number): ValueTest {
  const bigDivisor = BigInt(divisor);
  const bigRemainder = BigInt(remainder);
  return (value) => {
    if (!isNumber(value)) return false;
    if (bsonTag(value) === 'Long') return BigInt(String(value)) % bigDivisor === bigRemainder;
    const number = toNumber(value);
    if (!Number.isFinite(number)) return false;
    const truncated = Math.trunc(number);
    if (Math.abs(truncated) < TWO_TO_53 && Math.abs(divisor) < TWO_TO_53) return truncated % divisor === remainder;
    // A value beyond 64-bit integers matches no $mod.
    if (truncated >= TWO_TO_63 || truncated < -TWO_TO_63) return false;
    return BigInt(truncated) % bigDivisor === bigRemainder;
  };
}

/** mongod's tryCoerce of a `$mod` operand to a 64-bit integer (truncating). */
function modOperand(value: unknown, role: 'divisor' | 'remainder'): number {
  const number = toNumber(value);
  const invalid = (reason: string): CommandError =>
    badValue(`malformed mod, ${role} value is invalid :: caused by :: ${reason}`);
  if (!Number.isFinite(number)) throw invalid('Unable to coerce NaN/Inf to integral type');
  const truncated = Math.trunc(number);
  if (truncated >= TWO_TO_63 || truncated < -TWO_TO_63) throw invalid('Out of bounds coercing to integral value');
  return truncated;
}

function parseMod(operand: unknown): Node {
  if (!Array.isArray(operand)) throw badValue('malformed mod, needs to be an array');
  if (operand.length < 1) throw badValue('malformed mod, not enough elements');
  if (!isNumber(operand[0])) throw badValue('malformed mod, divisor not a number');
  if (operand.length < 2) throw badValue('malformed mod, not enough elements');
  if (!isNumber(operand[1])) throw badValue('malformed mod, remainder not a number');
  if (operand.length > 2) throw badValue('malformed mod, too many elements');
  const divisor = modOperand(operand[0], 'divisor');
  const remainder = modOperand(operand[1], 'remainder');
  if (divisor === 0) throw badValue('divisor cannot be 0');
  return leaf(modTest(divisor, remainder));
}

type BitOperator = '$bitsAllSet' | '$bitsAllClear' | '$bitsAnySet' | '$bitsAnyClear';

/** The bit positions a bit test operand names (positions, a mask, or BinData bytes). */
function bitPositions(operator: BitOperator, operand: unknown, path: string): number[] {
  if (Array.isArray(operand)) {
    return operand.map((position: unknown, index) => {
      try {
        return nonNegativeIntOf(position, String(index));
      } catch (error) {
        throw badValue(`Failed to parse bit position. ${(error as Error).message}`);
      }
    });
  }
  if (isNumber(operand)) {
    let mask = BigInt(nonNegativeIntegerOf(operand, operator));
    const positions: number[] = [];
    for (let bit = 0; mask > 0n; bit++, mask >>= 1n) if (mask & 1n) positions.push(bit);
    return positions;
  }
  if (bsonTag(operand) === 'Binary' || ArrayBuffer.isView(operand)) {
    const bytes = bytesOf(operand);
    const positions: number[] = [];
    for (let i = 0; i < bytes.length * 8; i++) if (bytes[i >> 3] & (1 << (i & 7))) positions.push(i);
    return positions;
  }
  throw badValue(`${path} takes an Array, a number, or a BinData but received: ${describe(operator, operand)}`);
}

function bytesOf(value: unknown): Uint8Array {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return (value as { buffer: Uint8Array }).buffer;
}

/** Whether bit `position` of a value is set: numbers as 64-bit two's complement, BinData little-endian. */
function bitReader(value: unknown): ((position: number) => boolean) | undefined {
  if (isNumber(value)) {
    let integer: bigint;
    if (bsonTag(value) === 'Long') integer = BigInt(String(value));
    else {
      const number = toNumber(value);
      if (!Number.isInteger(number) || number >= TWO_TO_63 || number < -TWO_TO_63) return undefined;
      integer = BigInt(number);
    }
    const negative = integer < 0n;
    const bits = BigInt.asUintN(64, integer);
    return (position) => (position >= 64 ? negative : ((bits >> BigInt(position)) & 1n) === 1n);
  }
  if (bsonTag(value) === 'Binary' || ArrayBuffer.isView(value)) {
    const bytes = bytesOf(value);
    return (position) => position < bytes.length * 8 && (bytes[position >> 3] & (1 << (position & 7))) !== 0;
  }
  return undefined;
}

function bitTest(operator: BitOperator, operand: unknown, path: string): Node {
  const positions = bitPositions(operator, operand, path);
  return leaf((value) => {
    const isSet = bitReader(value);
    if (isSet === undefined) return false;
    switch (operator) {
      case '$bitsAllSet':
        return positions.every(isSet);
      case '$bitsAllClear':
        return positions.every((position) => !isSet(position));
      case '$bitsAnySet':
        return positions.some(isSet);
      case '$bitsAnyClear':
        return positions.some((position) => !isSet(position));
    }
  });
}

// ----------------------------------------------------------------------------------------------
// Parsing (mongod's expression_parser.cpp)

/** A DBRef written as a document: `$ref` and `$id` (or, where incomplete ones count, any of `$ref`, `$id`, `$db`). */
function isDbRefDocument(value: Record<string, unknown>, allowIncomplete: boolean): boolean {
  const hasRef = '$ref' in value;
  const hasId = '$id' in value;
  return allowIncomplete ? hasRef || hasId || '$db' in value : hasRef && hasId;
}

/** `{$op: …}`: a document whose first field is an operator (and which is not a DBRef). */
function isExpressionDocument(value: unknown, allowIncompleteDbRef: boolean): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const first = firstKey(value);
  return first !== undefined && first.startsWith('$') && !isDbRefDocument(value, allowIncompleteDbRef);
}

/** The operators a path accepts (mongod's queryOperatorMap, less its internal ones). */
export const PATH_OPERATORS = new Set([
  '$all',
  '$bitsAllClear',
  '$bitsAllSet',
  '$bitsAnyClear',
  '$bitsAnySet',
  '$elemMatch',
  '$eq',
  '$exists',
  '$geoIntersects',
  '$geoNear',
  '$geoWithin',
  '$gt',
  '$gte',
  '$in',
  '$lt',
  '$lte',
  '$mod',
  '$ne',
  '$near',
  '$nearSphere',
  '$nin',
  '$options',
  '$regex',
  '$size',
  '$type',
  '$within',
]);

/** Operators that stand for a whole document rather than a path. */
const PATHLESS_OPERATORS = new Set([
  '$alwaysFalse',
  '$alwaysTrue',
  '$and',
  '$comment',
  '$db',
  '$expr',
  '$id',
  '$jsonSchema',
  '$nor',
  '$or',
  '$ref',
  '$sampleRate',
  '$text',
  '$where',
]);

const GEO_NEAR = new Set(['$near', '$nearSphere', '$geoNear']);

function firstKey(value: Record<string, unknown>): string | undefined {
  return Object.keys(value)[0];
}

class Parser {
  constructor(private readonly options: MatcherOptions) {}

  /** A whole filter (or a clause of `$and`/`$or`/`$nor`, or an `$elemMatch` document). */
  parse(filter: Record<string, unknown>, level: Level): Matcher {
    const next = level === Level.PredicateTop ? Level.DocumentTop : level;
    const matchers: Matcher[] = [];
    for (const key of Object.keys(filter)) {
      const value = filter[key];
      if (key.startsWith('$')) {
        const matcher = this.pathless(key, value, level);
        if (matcher) matchers.push(matcher);
        continue;
      }
      checkFilterPath(key);
      if (isExpressionDocument(value, false)) {
        matchers.push(bindPath(key, and(this.parseOperators(key, value, next))));
      } else if (isRegexValue(value)) {
        matchers.push(bindPath(key, leaf(regexTest(compileRegexValue(value)))));
      } else {
        matchers.push(bindPath(key, leaf(equalityTest(value))));
      }
    }
    return all(matchers);
  }

  private clauses(operator: string, value: unknown, level: Level): Matcher[] {
    if (!Array.isArray(value)) throw badValue(`${operator} must be an array`);
    if (value.length === 0) throw badValue('$and/$or/$nor must be a nonempty array');
    return value.map((clause) => {
      if (!isPlainObject(clause)) throw badValue('$or/$and/$nor entries need to be full objects');
      return this.parse(clause, level);
    });
  }

  private pathless(operator: string, value: unknown, level: Level): Matcher | undefined {
    switch (operator) {
      case '$and':
        return all(this.clauses(operator, value, level));
      case '$or': {
        const clauses = this.clauses(operator, value, level);
        // One clause is that clause (mongod simplifies it so), match details included.
        if (clauses.length === 1) return clauses[0];
        return (doc) => clauses.some((clause) => clause(doc));
      }
      case '$nor': {
        const clauses = this.clauses(operator, value, level);
        return (doc) => !clauses.some((clause) => clause(doc));
      }
      case '$comment':
        return undefined;
      case '$expr': {
        if (level === Level.SubDocument) throw badValue('$expr can only be applied to the top-level document');
        const test = this.options.expr(value);
        return (doc) => test(doc);
      }
      case '$where':
        if (level === Level.SubDocument) throw badValue('$where can only be applied to the top-level document');
        throw notSupported('$where (server-side JavaScript)');
      case '$jsonSchema':
        throw notSupported('$jsonSchema');
      case '$text':
        if (level === Level.SubDocument) throw badValue('$text can only be applied to the top-level document');
        throw new CommandError('IndexNotFound', 'text index required for $text query');
      case '$alwaysTrue':
      case '$alwaysFalse': {
        if (integerOf(value, operator) !== 1)
          throw new CommandError('FailedToParse', `${operator} must be an integer value of 1`);
        return operator === '$alwaysTrue' ? () => true : () => false;
      }
      case '$sampleRate': {
        if (level === Level.SubDocument) throw badValue('$sampleRate can only be applied to the top-level document');
        if (!isNumber(value)) throw badValue('argument to $sampleRate must be a numeric type');
        const rate = toNumber(value);
        if (!(rate >= 0 && rate <= 1)) throw badValue('numeric argument to $sampleRate must be in [0, 1]');
        return () => Math.random() < rate;
      }
      case '$ref':
      case '$id':
      case '$db':
        return bindPath(operator, leaf(equalityTest(value)));
      default:
        throw badValue(`unknown top level operator: ${operator}${operator === '$not' ? NOT_HINT : TOP_LEVEL_HINT}`);
    }
  }

  /** `{path: {$op: …, $op: …}}`: each operator, all to hold. */
  private parseOperators(path: string, operators: Record<string, unknown>, level: Level): Node[] {
    const first = firstKey(operators);
    if (first !== undefined && GEO_NEAR.has(first)) throw notSupported(first);
    const nodes: Node[] = [];
    for (const operator of Object.keys(operators)) {
      const node = this.parseOperator(operators, path, operator, operators[operator], level);
      if (node) nodes.push(node);
    }
    return nodes;
  }

  private parseOperator(
    context: Record<string, unknown>,
    path: string,
    operator: string,
    operand: unknown,
    level: Level,
  ): Node | undefined {
    if (operator === '$not') return this.parseNot(path, operand, level);
    if (!PATH_OPERATORS.has(operator)) {
      if (operator === '$where') throw badValue('$where cannot be applied to a field');
      throw badValue(`unknown operator: ${operator}`);
    }
    switch (operator) {
      case '$eq':
        return leaf(equalityTest(operand));
      case '$ne':
        if (isRegexValue(operand)) throw badValue("Can't have regex as arg to $ne.");
        return { kind: 'not', child: leaf(equalityTest(operand)) };
      case '$lt':
      case '$lte':
      case '$gt':
      case '$gte':
        if (isRegexValue(operand)) throw badValue(`Can't have RegEx as arg to predicate over field '${path}'.`);
        return leaf(comparisonTest(operator, operand));
      case '$in':
        if (!Array.isArray(operand)) throw badValue('$in needs an array');
        return leaf(inTest(operand));
      case '$nin':
        if (!Array.isArray(operand)) throw badValue('$nin needs an array');
        return { kind: 'not', child: leaf(inTest(operand)) };
      case '$size': {
        let size: number;
        try {
          size = nonNegativeIntOf(operand, '$size');
        } catch (error) {
          throw badValue(`Failed to parse $size. ${(error as Error).message}`);
        }
        return leaf((value) => Array.isArray(value) && value.length === size, true);
      }
      case '$exists': {
        const exists = leaf((value) => value !== MISSING);
        return trueValue(operand) ? exists : { kind: 'not', child: exists };
      }
      case '$type': {
        const types = parseTypeSet(operand, path);
        return leaf((value) => value !== MISSING && hasType(types, value));
      }
      case '$mod':
        return parseMod(operand);
      case '$options':
        if ('$regex' in context) return undefined;
        throw badValue('$options needs a $regex');
      case '$regex':
        return leaf(regexTest(parseRegexDocument(context)));
      case '$elemMatch':
        return this.parseElemMatch(operand);
      case '$all':
        return this.parseAll(operand);
      case '$bitsAllSet':
      case '$bitsAllClear':
      case '$bitsAnySet':
      case '$bitsAnyClear':
        return bitTest(operator, operand, path);
      case '$near':
      case '$nearSphere':
      case '$geoNear':
        throw badValue(`near must be first in: ${formatValue(context)}`);
      default:
        // $geoWithin, $geoIntersects, $within: the store has no geometry.
        throw notSupported(operator);
    }
  }

  private parseNot(path: string, operand: unknown, level: Level): Node {
    if (isRegexValue(operand)) return { kind: 'not', child: leaf(regexTest(compileRegexValue(operand))) };
    if (!isPlainObject(operand)) throw badValue('$not needs a regex or a document');
    if (Object.keys(operand).length === 0) throw badValue('$not cannot be empty');
    return { kind: 'not', child: and(this.parseOperators(path, operand, level)) };
  }

  private parseElemMatch(operand: unknown): Node {
    if (!isPlainObject(operand)) throw badValue('$elemMatch needs an Object');
    const first = firstKey(operand);
    if (isExpressionDocument(operand, true) && first !== undefined && !PATHLESS_OPERATORS.has(first)) {
      // {$elemMatch: {$gt: 1, $lt: 5}}: operators that one element must meet together.
      const test = valueTestOf(and(this.parseOperators('', operand, Level.SubDocument)));
      return leaf((value, details) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) {
          if (!test(value[i])) continue;
          if (details) details.elemMatchKey = String(i);
          return true;
        }
        return false;
      }, true);
    }
    // {$elemMatch: {x: 1, y: 2}}: a query that one element (a document, or an array read as one) must match.
    const sub = this.parse(operand, Level.SubDocument);
    return leaf((value, details) => {
      if (!Array.isArray(value)) return false;
      for (let i = 0; i < value.length; i++) {
        const element = value[i];
        if (!isPlainObject(element) && !Array.isArray(element)) continue;
        if (!sub(element as Document)) continue;
        if (details) details.elemMatchKey = String(i);
        return true;
      }
      return false;
    }, true);
  }

  private parseAll(operand: unknown): Node {
    if (!Array.isArray(operand)) throw badValue('$all needs an array');
    const first: unknown = operand[0];
    if (isPlainObject(first) && firstKey(first) === '$elemMatch') {
      return and(
        operand.map((element) => {
          if (!isPlainObject(element) || firstKey(element) !== '$elemMatch')
            throw badValue('$all/$elemMatch has to be consistent');
          return this.parseElemMatch(element.$elemMatch);
        }),
      );
    }
    const nodes = operand.map((element: unknown) => {
      if (isRegexValue(element)) return leaf(regexTest(compileRegexValue(element)));
      if (isPlainObject(element)) {
        const key = firstKey(element);
        if (key !== undefined && (PATH_OPERATORS.has(key) || key === '$not'))
          throw badValue('no $ expressions in $all');
      }
      return leaf(equalityTest(element));
    });
    return nodes.length === 0 ? NEVER : and(nodes);
  }
}

/** `{$regex: …, $options: …}`: the pattern and its flags, given in either or split between both. */
function parseRegexDocument(operators: Record<string, unknown>): FilterRegex {
  let pattern = '';
  let flags = '';
  for (const [key, value] of Object.entries(operators)) {
    if (key === '$regex') {
      if (typeof value === 'string') pattern = value;
      else if (isRegexValue(value)) {
        const parts = regexParts(value);
        pattern = parts.pattern;
        if (parts.flags !== '') {
          if (flags !== '') throw new CommandError('Location51074', 'options set in both $regex and $options');
          flags = parts.flags;
        }
      } else throw badValue('$regex has to be a string');
    } else if (key === '$options') {
      if (typeof value !== 'string') throw badValue('$options has to be a string');
      if (flags !== '') throw new CommandError('Location51075', 'options set in both $regex and $options');
      flags = value;
    }
  }
  return compileRegex(pattern, flags);
}

/** Parses and compiles a filter, refusing what mongod refuses with its codes and messages. */
export function compileMatcher(filter: Document, options: MatcherOptions): Matcher {
  if (!isPlainObject(filter)) throw badValue('the filter must be a document');
  return new Parser(options).parse(filter, Level.PredicateTop);
}

/** The paths and values an upsert's new document takes from its filter (mongod's equality extraction). */
export function filterEqualities(filter: Document): Array<[path: string, value: unknown]> {
  const out: Array<[string, unknown]> = [];
  const visit = (conditions: Record<string, unknown>): void => {
    for (const [key, value] of Object.entries(conditions)) {
      if (key === '$and' && Array.isArray(value)) {
        for (const clause of value) if (isPlainObject(clause)) visit(clause);
      } else if (key === '$or' && Array.isArray(value) && value.length === 1 && isPlainObject(value[0])) {
        visit(value[0]);
      } else if (key.startsWith('$')) {
        continue;
      } else if (isExpressionDocument(value, false)) {
        for (const [operator, operand] of Object.entries(value)) {
          if (operator === '$eq') out.push([key, operand]);
          else if (operator === '$in' && Array.isArray(operand) && operand.length === 1 && !isRegexValue(operand[0]))
            out.push([key, operand[0]]);
          else if (operator === '$all' && Array.isArray(operand))
            for (const element of operand) {
              if (isRegexValue(element) || isExpressionDocument(element, false)) continue;
              out.push([key, element]);
            }
        }
      } else if (!isRegexValue(value)) {
        out.push([key, value]);
      }
    }
  };
  visit(filter);
  return out;
}
