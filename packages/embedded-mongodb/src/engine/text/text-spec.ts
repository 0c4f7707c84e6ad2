import { createHash } from 'node:crypto';
import type { Document } from 'bson';
import { CommandError } from '../../errors';
import { isPlainObject, valuesAtPath } from '../path-values';
import { findLanguage, type TextLanguage } from './languages';
import { tokenize } from './tokenizer';

/** The one text index version this store builds (mongod's default since 3.2). */
export const TEXT_INDEX_VERSION = 3;

/** A field weight must lie strictly between 0 and this (mongod's MAX_WORD_WEIGHT). */
const MAX_WORD_WEIGHT = 100_000;

/** The index's key field holding the term, then the one holding its score (what listIndexes shows). */
export const TERM_FIELD = '_fts';
export const SCORE_FIELD = '_ftsx';

const WILDCARD = '$**';

/** Terms longer than this many UTF-8 bytes are keyed by their start and an MD5 of the whole. */
const TERM_KEY_PREFIX_BYTES = 224;

/** What a text index is made of, from its createIndexes specification. */
export interface TextIndexDefinition {
  /** Field weights by path, in the byte order of the paths (as mongod iterates them). */
  readonly weights: readonly (readonly [string, number])[];
  /** `$**`: every string of the document is indexed. */
  readonly wildcard: boolean;
  readonly defaultLanguage: TextLanguage;
  readonly languageOverride: string;
  /** Equality fields before the text key, and fields after it. */
  readonly before: readonly string[];
  readonly after: readonly string[];
}

/** A createIndexes specification of a text index, in the form mongod stores and lists it. */
export interface FixedTextSpec {
  /** The key pattern: `{<before>, _fts: 'text', _ftsx: 1, <after>}`. */
  readonly key: Document;
  /** The options listIndexes echoes (weights, default_language, language_override, textIndexVersion). */
  readonly options: Document;
  readonly definition: TextIndexDefinition;
}

function cannotCreate(message: string): CommandError {
  return new CommandError('CannotCreateIndex', message);
}

/** mongod reads a number option as an int (truncating); anything else counts as 0. */
function numberInt(value: unknown): number {
  if (typeof value === 'number') return Math.trunc(value);
  const converted = (value as { toNumber?: () => number } | null)?.toNumber?.();
  return typeof converted === 'number' ? Math.trunc(converted) : 0;
}

function isNumber(value: unknown): boolean {
  return typeof value === 'number' || (isPlainObjectLike(value) && typeof value.toNumber === 'function');
}

function isPlainObjectLike(value: unknown): value is { toNumber?: unknown; _bsontype?: unknown } {
  return value !== null && typeof value === 'object';
}

function assertNotReserved(field: string): void {
  if (field === TERM_FIELD || field === SCORE_FIELD)
    throw cannotCreate('text index with reserved fields _fts/_ftsx not allowed');
}

/** Whether a key pattern makes a text index (a field whose value is "text", or `_fts`). */
export function isTextKey(key: Document): boolean {
  return Object.entries(key).some(([field, value]) => value === 'text' || field === TERM_FIELD);
}

/**
 * Validates a text index's key pattern and options and puts them in mongod's stored form
 * (FTSSpec::fixSpec): text fields become `_fts`/`_ftsx` in the key and weights of 1 unless
 * given; text fields adjacent, other key fields 1 or -1.
 */
export function fixTextSpec(key: Document, spec: Document): FixedTextSpec {
  const weights = new Map<string, number>();
  const fixedKey: Document = {};
  const before: string[] = [];
  const after: string[] = [];
  let textAdded = false;
  let phase: 'before' | 'text' | 'after' = 'before';
  for (const [field, value] of Object.entries(key)) {
    if (field === TERM_FIELD) {
      if (value !== 'text') throw cannotCreate('expecting _fts:"text"');
      fixedKey[TERM_FIELD] = 'text';
      textAdded = true;
      phase = 'text';
      continue;
    }
    if (field === SCORE_FIELD) {
      if (numberInt(value) !== 1) throw cannotCreate('expecting _ftsx:1');
      if (phase !== 'text') throw cannotCreate('expected _ftsx after _fts');
      fixedKey[SCORE_FIELD] = 1;
      phase = 'after';
      continue;
    }
    if (value === 'text') {
      assertNotReserved(field);
      if (phase === 'after') throw cannotCreate("'text' fields in index must all be adjacent");
      if (!textAdded) {
        fixedKey[TERM_FIELD] = 'text';
        fixedKey[SCORE_FIELD] = 1;
        textAdded = true;
      }
      phase = 'text';
      weights.set(field, 1);
      continue;
    }
    const direction = numberInt(value);
    if (typeof value === 'string' || (direction !== 1 && direction !== -1))
      throw cannotCreate('expected value 1 or -1 for non-text key in compound index');
    assertNotReserved(field);
    if (phase === 'text') phase = 'after';
    (phase === 'before' ? before : after).push(field);
    fixedKey[field] = direction;
  }
  if (phase === 'before') throw cannotCreate('expected additional fields in text index key pattern');

  const givenWeights = spec.weights as unknown;
  if (isPlainObject(givenWeights)) {
    for (const [field, weight] of Object.entries(givenWeights)) {
      if (!isNumber(weight)) throw cannotCreate('weight for text index needs numeric type');
      weights.set(field, numberInt(weight));
    }
  } else if (givenWeights === WILDCARD) {
    weights.set(WILDCARD, 1);
  } else if (givenWeights !== undefined) {
    throw cannotCreate("text index option 'weights' must be an object");
  }
  if (weights.size === 0) throw cannotCreate("text index option 'weights' must specify fields or the wildcard");
  const sorted = [...weights.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [field, weight] of sorted) {
    if (weight <= 0 || weight >= MAX_WORD_WEIGHT) {
      throw cannotCreate(
        `text index weight must be in the exclusive interval (0,${MAX_WORD_WEIGHT}) but found: ${weight}`,
      );
    }
    if (field === WILDCARD) continue;
    const parts = field.split('.');
    if (field.length === 0) throw cannotCreate('weight cannot be on an empty field');
    if (parts.some((part) => part.length === 0)) throw cannotCreate('weight cannot have empty path component');
    if (parts.some((part) => part.startsWith('$')))
      throw cannotCreate('weight cannot have path component with $ prefix');
  }

  const defaultLanguage = spec.default_language ?? 'english';
  if (typeof defaultLanguage !== 'string') throw cannotCreate('default_language needs a string type');
  const language = findLanguage(defaultLanguage);
  if (!language) throw cannotCreate('default_language is not valid');
  const languageOverride = spec.language_override ?? 'language';
  if (typeof languageOverride !== 'string') throw cannotCreate('language_override must be a string');
  if (languageOverride.length === 0 || languageOverride.startsWith('$') || languageOverride.includes('.'))
    throw cannotCreate('language_override is not valid');
  const version = spec.textIndexVersion as unknown;
  if (version !== undefined) {
    if (!isNumber(version)) throw cannotCreate("text index option 'textIndexVersion' must be a number");
    if (numberInt(version) === 2) {
      // Version 2 (the ASCII tokenizer of MongoDB 2.6) is not built here: only what mongod builds by default.
      throw cannotCreate(
        'textIndexVersion 2 is not supported by the embedded store (3 is, as mongod builds by default)',
      );
    }
    if (numberInt(version) !== TEXT_INDEX_VERSION) throw cannotCreate(`bad textIndexVersion: ${numberInt(version)}`);
  }

  return {
    key: fixedKey,
    options: {
      weights: Object.fromEntries(sorted),
      default_language: defaultLanguage,
      language_override: languageOverride,
      textIndexVersion: TEXT_INDEX_VERSION,
    },
    definition: {
      weights: sorted.filter(([field]) => field !== WILDCARD),
      wildcard: weights.has(WILDCARD),
      defaultLanguage: language,
      languageOverride,
      before,
      after,
    },
  };
}

/** The top-level fields a text index reads (undefined for `$**`, which reads every one). */
export function textIndexFields(definition: TextIndexDefinition): string[] | undefined {
  if (definition.wildcard) return undefined;
  return [
    ...definition.weights.map(([path]) => path.split('.')[0]),
    ...definition.before.map((path) => path.split('.')[0]),
    ...definition.after.map((path) => path.split('.')[0]),
    definition.languageOverride,
  ];
}

/** One string a text index reads from a document, with its language and weight. */
export interface TextValue {
  readonly text: string;
  readonly language: TextLanguage;
  readonly weight: number;
}

/** The language a (sub)document names in the override field, else the inherited one. */
function languageOf(
  doc: Record<string, unknown>,
  definition: TextIndexDefinition,
  inherited: TextLanguage,
): TextLanguage {
  const named = doc[definition.languageOverride];
  if (named === undefined) return inherited;
  if (typeof named !== 'string')
    throw new CommandError('Location17261', 'found language override field in document with non-string type');
  const language = findLanguage(named);
  if (!language) throw new CommandError('Location17262', `language override unsupported: ${named}`);
  return language;
}

/** The first weight at or after `path` in byte order (the weights are sorted). */
function lowerBound(weights: TextIndexDefinition['weights'], path: string): number {
  let low = 0;
  let high = weights.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (weights[mid][0] < path) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The strings a text index reads from a document, in document order (mongod's
 * FTSElementIterator): strings at a weighted path (or anywhere, for `$**`), descending into
 * subdocuments on the way to a weighted path and into arrays not nested in arrays; each
 * subdocument may name its own language in the override field.
 */
export function textValues(doc: Document, definition: TextIndexDefinition): TextValue[] {
  if (!definition.wildcard) return weightedValues(doc, definition);
  const out: TextValue[] = [];
  const { weights, wildcard } = definition;
  const visit = (value: unknown, language: TextLanguage, parentPath: string, inArray: boolean): void => {
    const entries: [string, unknown][] = Array.isArray(value)
      ? value.map((element, i) => [String(i), element])
      : Object.entries(value as Record<string, unknown>);
    for (const [name, element] of entries) {
      if (wildcard && name === definition.languageOverride) continue;
      const path = parentPath === '' ? name : inArray ? parentPath : `${parentPath}.${name}`;
      const isObject = isPlainObject(element);
      const at = lowerBound(weights, isObject ? `${path}.` : path);
      const candidate = at < weights.length ? weights[at] : undefined;
      if (!wildcard && (candidate === undefined || !(candidate[0] === path || candidate[0].startsWith(`${path}.`))))
        continue;
      const exact = candidate !== undefined && candidate[0] === path;
      // As mongod: with `$**`, a field takes the weight of the first weighted path at or after it.
      const weight = candidate === undefined ? 1 : candidate[1];
      if (typeof element === 'string') {
        if (exact || wildcard) out.push({ text: element, language, weight });
      } else if (isObject) {
        if (!exact || wildcard) visit(element, languageOf(element, definition, language), path, false);
      } else if (Array.isArray(element)) {
        if (!inArray || wildcard) visit(element, language, path, true);
      }
    }
  };
  visit(doc, languageOf(doc, definition, definition.defaultLanguage), '', false);
  return out;
}

/** The weighted paths as a tree of field names: a node's weight is that of the path ending there. */
interface PathNode {
  weight?: number;
  readonly children: Map<string, PathNode>;
}

const pathTrees = new WeakMap<TextIndexDefinition, PathNode>();

function pathTree(definition: TextIndexDefinition): PathNode {
  let root = pathTrees.get(definition);
  if (!root) {
    root = { children: new Map() };
    for (const [path, weight] of definition.weights) {
      let node = root;
      for (const part of path.split('.')) {
        let child = node.children.get(part);
        if (!child) {
          child = { children: new Map() };
          node.children.set(part, child);
        }
        node = child;
      }
      node.weight = weight;
    }
    pathTrees.set(definition, root);
  }
  return root;
}

/**
 * textValues without `$**`, by the tree of weighted paths: the same strings in the same order
 * (a string where a weighted path ends; subdocuments where one goes on; arrays not in arrays,
 * whose elements stand at the array's path), without building the dotted path of every field.
 */
function weightedValues(doc: Document, definition: TextIndexDefinition): TextValue[] {
  const out: TextValue[] = [];
  const visitElement = (element: unknown, node: PathNode, language: TextLanguage, inArray: boolean): void => {
    if (typeof element === 'string') {
      if (node.weight !== undefined) out.push({ text: element, language, weight: node.weight });
    } else if (Array.isArray(element)) {
      if (!inArray) for (const item of element) visitElement(item, node, language, true);
    } else if (isPlainObject(element) && node.children.size > 0) {
      visitObject(element, node, languageOf(element, definition, language));
    }
  };
  const visitObject = (object: Record<string, unknown>, node: PathNode, language: TextLanguage): void => {
    for (const name in object) {
      const child = node.children.get(name);
      if (child) visitElement(object[name], child, language, false);
    }
  };
  visitObject(doc, pathTree(definition), languageOf(doc, definition, definition.defaultLanguage));
  return out;
}

/** ASCII letters lower-cased (mongod's equalCaseInsensitive compares bytes so). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * The score of each term of a document (FTSSpec::scoreDocument, version 2 and 3): per string,
 * a term met n times among its N non-stop words scores weight × (1 + 1/2 + … + 1/2^(n-1)) ×
 * (0.5 + 0.5 n/N), with 10 % more when the term is the whole string; a term's scores add up
 * across the strings of the document.
 */
export function scoreDocument(doc: Document, definition: TextIndexDefinition): Map<string, number> {
  const scores = new Map<string, number>();
  for (const { text, language, weight } of textValues(doc, definition)) {
    const terms = tokenize(text, language, { filterStopWords: true, caseSensitive: false, diacriticSensitive: false });
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    const textBytes = Buffer.byteLength(text);
    for (const [term, count] of counts) {
      const frequency = 2 - 2 ** (1 - count);
      const coefficient = (0.5 * count) / terms.length + 0.5;
      const whole = textBytes === Buffer.byteLength(term) && asciiLower(text) === asciiLower(term) ? 1.1 : 1;
      scores.set(term, (scores.get(term) ?? 0) + weight * frequency * coefficient * whole);
    }
  }
  return scores;
}

/** The term as an index key holds it: terms over 224 bytes become their first 224 bytes and an MD5. */
export function termKey(term: string): string {
  const bytes = Buffer.from(term, 'utf8');
  if (bytes.length <= TERM_KEY_PREFIX_BYTES) return term;
  return bytes.subarray(0, TERM_KEY_PREFIX_BYTES).toString('utf8') + createHash('md5').update(bytes).digest('hex');
}

/** The value of a non-text field of a text index: one value, never an array (mongod refuses those). */
function extraValue(doc: Document, path: string): unknown {
  const { values, throughArray } = valuesAtPath(doc, path);
  if (throughArray) {
    throw new CommandError(
      'CannotBuildIndexKeys',
      `Field '${path}' of text index contains an array in document: { _id: ${JSON.stringify(doc._id)} }`,
    );
  }
  return values[0];
}

/** The keys a document gives a text index: `[<before values>, term, score, <after values>]` per term. */
export function textIndexKeys(doc: Document, definition: TextIndexDefinition): unknown[][] {
  const before = definition.before.map((path) => extraValue(doc, path));
  const after = definition.after.map((path) => extraValue(doc, path));
  const keys: unknown[][] = [];
  for (const [term, score] of scoreDocument(doc, definition)) keys.push([...before, termKey(term), score, ...after]);
  return keys;
}
