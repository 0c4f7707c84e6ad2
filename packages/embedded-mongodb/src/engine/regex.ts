import { CommandError } from '../errors';

/**
 * A regular expression of a filter, as mongod takes it: a PCRE pattern with the flags i, m, s,
 * x and u. It runs as a JavaScript RegExp, which shares PCRE's syntax for everything but a few
 * constructs (a pattern JavaScript cannot compile is refused as mongod refuses a bad pattern).
 */
export interface FilterRegex {
  readonly pattern: string;
  /** The BSON flags, sorted (how a stored regular expression is compared with it). */
  readonly flags: string;
  readonly regexp: RegExp;
}

const KNOWN_FLAGS = 'imsxu';

/** PCRE's extended mode: whitespace and `#` comments outside character classes are not part of the pattern. */
function withoutExtendedSpace(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === '#') {
      while (i + 1 < pattern.length && pattern[i + 1] !== '\n') i++;
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

function sortedFlags(flags: string): string {
  return [...flags].sort().join('');
}

/** Compiles a filter's pattern and flags, refusing what mongod refuses. */
export function compileRegex(pattern: string, flags: string): FilterRegex {
  for (const flag of flags) {
    if (!KNOWN_FLAGS.includes(flag)) throw new CommandError('Location51108', `invalid flag in regex options: ${flag}`);
  }
  if (pattern.includes('\0'))
    throw new CommandError('Location51109', 'Regular expression cannot contain an embedded null byte');
  const source = flags.includes('x') ? withoutExtendedSpace(pattern) : pattern;
  const jsFlags =
    (flags.includes('i') ? 'i' : '') + (flags.includes('m') ? 'm' : '') + (flags.includes('s') ? 's' : '');
  try {
    return { pattern, flags: sortedFlags(flags), regexp: new RegExp(source, jsFlags) };
  } catch (error) {
    throw new CommandError('Location51091', `Regular expression is invalid: ${(error as Error).message}`);
  }
}

interface BsonRegExpValue {
  readonly _bsontype: 'BSONRegExp';
  readonly pattern: string;
  readonly options: string;
}

/** A BSON regular expression value (decoded as a RegExp, or kept as a BSONRegExp). */
export function isRegexValue(value: unknown): value is RegExp | BsonRegExpValue {
  return value instanceof RegExp || (value as BsonRegExpValue | null | undefined)?._bsontype === 'BSONRegExp';
}

/**
 * The pattern and BSON flags of a regular expression value. The BSON decoder turns the BSON `s`
 * flag into JavaScript's `g` (and back when encoding), and drops `x` and `u`.
 */
export function regexParts(value: RegExp | BsonRegExpValue): { pattern: string; flags: string } {
  if (!(value instanceof RegExp)) return { pattern: value.pattern, flags: sortedFlags(value.options) };
  let flags = '';
  if (value.ignoreCase) flags += 'i';
  if (value.multiline) flags += 'm';
  if (value.global || value.dotAll) flags += 's';
  return { pattern: value.source, flags: sortedFlags(flags) };
}

/** A filter regex from a regular expression value. */
export function compileRegexValue(value: RegExp | BsonRegExpValue): FilterRegex {
  const { pattern, flags } = regexParts(value);
  return compileRegex(pattern, flags);
}

/** mongod's regex match of one value: strings by the pattern, stored regular expressions by equality. */
export function regexMatches(regex: FilterRegex, value: unknown): boolean {
  if (typeof value === 'string') return regex.regexp.test(value);
  if (!isRegexValue(value)) return false;
  const parts = regexParts(value);
  return parts.pattern === regex.pattern && parts.flags === regex.flags;
}
