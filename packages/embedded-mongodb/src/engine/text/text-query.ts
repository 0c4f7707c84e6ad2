import type { Document } from 'bson';
import { CommandError } from '../../errors';
import { isPlainObject } from '../path-values';
import { languageOrThrow, type TextLanguage } from './languages';
import { textValues, type TextIndexDefinition } from './text-spec';
import { tokenize } from './tokenizer';
import { foldString } from './unicode';

/** The arguments of a `$text` operator. */
export interface TextParams {
  readonly search: string;
  /** As given; the index's default language when absent. */
  readonly language?: string;
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
}

/** Where in a filter the `$text` is: in the top-level conjunction, or a branch of the top-level `$or`. */
export type TextPlace = { readonly kind: 'and' } | { readonly kind: 'or'; readonly branch: number };

/** The `$text` of a filter and the rest of the filter. */
export interface TextFilter {
  readonly params: TextParams;
  readonly place: TextPlace;
  /** The top-level conjunction without the `$text` clause (`{}` when nothing else). */
  readonly rest: Document;
}

/** BSON type names as mongod's error messages spell them. */
function bsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double';
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType === 'Long') return 'long';
  if (bsonType === 'Double') return 'double';
  if (bsonType === 'Int32') return 'int';
  if (bsonType === 'ObjectId') return 'objectId';
  if (value instanceof Date) return 'date';
  return 'object';
}

/** Reads `{$search, $language, $caseSensitive, $diacriticSensitive}` with mongod's errors. */
export function parseTextParams(raw: unknown): TextParams {
  if (!isPlainObject(raw)) throw new CommandError('BadValue', '$text expects an object');
  const typed = (field: string, type: 'string' | 'bool'): unknown => {
    const value = raw[field];
    if (value === undefined) return undefined;
    if (bsonTypeName(value) !== type) {
      throw new CommandError(
        'TypeMismatch',
        `"${field}" had the wrong type. Expected ${type}, found ${bsonTypeName(value)}`,
      );
    }
    return value;
  };
  const search = typed('$search', 'string');
  if (search === undefined) throw new CommandError('NoSuchKey', 'Missing expected field "$search"');
  const language = typed('$language', 'string') as string | undefined;
  const caseSensitive = typed('$caseSensitive', 'bool') as boolean | undefined;
  const diacriticSensitive = typed('$diacriticSensitive', 'bool') as boolean | undefined;
  const expected = 1 + [language, caseSensitive, diacriticSensitive].filter((value) => value !== undefined).length;
  if (Object.keys(raw).length !== expected) throw new CommandError('BadValue', 'extra fields in $text');
  return {
    search: search as string,
    language,
    caseSensitive: caseSensitive ?? false,
    diacriticSensitive: diacriticSensitive ?? false,
  };
}

/** Whether `$text` occurs anywhere in a filter (a quick test before the careful one). */
export function mentionsText(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(mentionsText);
  if (!isPlainObject(value)) return false;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$text' || mentionsText(inner)) return true;
  }
  return false;
}

interface FoundText {
  readonly raw: unknown;
  readonly underNor: boolean;
  /** The branch of the top-level `$or` it is in, if any. */
  readonly orBranch?: number;
  /** Directly in that branch's conjunction (not deeper under another `$or`). */
  readonly direct: boolean;
}

/** A field's operators: `$text` is not one of them, nor may it hide in an `$elemMatch`. */
function checkFieldOperators(value: unknown): void {
  if (!isPlainObject(value)) return;
  for (const [operator, argument] of Object.entries(value)) {
    if (operator === '$text') throw new CommandError('BadValue', 'unknown operator: $text');
    if (operator === '$elemMatch' && mentionsText(argument))
      throw new CommandError('BadValue', '$text can only be applied to the top-level document');
    if (operator === '$not') checkFieldOperators(argument);
  }
}

/** Every `$text` of a filter, refusing those the query language does not allow where they are. */
function findTexts(filter: Document): FoundText[] {
  const found: FoundText[] = [];
  const walk = (node: Document, underNor: boolean, orBranch: number | undefined, direct: boolean, top: boolean) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$text') {
        found.push({ raw: value, underNor, orBranch, direct });
      } else if ((key === '$and' || key === '$or' || key === '$nor') && Array.isArray(value)) {
        value.forEach((clause, i) => {
          if (!isPlainObject(clause)) return;
          if (key === '$and') walk(clause, underNor, orBranch, direct, top);
          else if (key === '$nor') walk(clause, true, orBranch, false, false);
          else if (top && orBranch === undefined) walk(clause, underNor, i, true, false);
          else walk(clause, underNor, orBranch, false, false);
        });
      } else if (!key.startsWith('$')) {
        checkFieldOperators(value);
      }
    }
  };
  walk(filter, false, undefined, true, true);
  return found;
}

/** The top-level conjunction without its `$text` (flattening `$and`s that held it). */
function withoutText(filter: Document): Document {
  const rest: Document = {};
  const clauses: Document[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$text') continue;
    if (key === '$and' && Array.isArray(value) && mentionsText(value)) {
      for (const clause of value as Document[]) {
        const inner = withoutText(clause);
        if (Object.keys(inner).length > 0) clauses.push(inner);
      }
      continue;
    }
    rest[key] = value;
  }
  if (clauses.length === 0) return rest;
  if (Object.keys(rest).length === 0 && clauses.length === 1) return clauses[0];
  return { ...rest, $and: [...((rest.$and as Document[] | undefined) ?? []), ...clauses] };
}

/**
 * The `$text` of a filter, or undefined when it has none. Refuses, with mongod's errors, a
 * `$text` in an `$elemMatch` or as a field operator (parse errors), then two of them or one
 * under `$nor` (the canonical query's rules). `lookup` checks the text index (and parses the
 * search) of each one found, between the two, as mongod parses each `$text` against the index.
 */
export function findTextFilter(filter: Document, lookup: (params: TextParams) => void): TextFilter | undefined {
  if (!mentionsText(filter)) return undefined;
  const found = findTexts(filter);
  if (found.length === 0) return undefined;
  const params = found.map((text) => parseTextParams(text.raw));
  for (const each of params) lookup(each);
  if (found.length > 1) throw new CommandError('BadValue', 'Too many text expressions');
  const [text] = found;
  if (text.underNor) throw new CommandError('BadValue', 'text expression not allowed in nor');
  if (text.orBranch === undefined) return { params: params[0], place: { kind: 'and' }, rest: withoutText(filter) };
  return { params: params[0], place: { kind: 'or', branch: text.direct ? text.orBranch : -1 }, rest: filter };
}

/** A parsed `$search`: what the index is read for, and what the matched documents are checked for. */
export interface TextQuery {
  readonly language: TextLanguage;
  readonly caseSensitive: boolean;
  readonly diacriticSensitive: boolean;
  /** Terms read from the index (case and diacritic folded, stemmed): any of them matches. */
  readonly boundsTerms: readonly string[];
  /** Terms a document must hold one of (as sensitive as asked); what explain lists as `terms`. */
  readonly positiveTerms: readonly string[];
  readonly negatedTerms: readonly string[];
  readonly phrases: readonly string[];
  readonly negatedPhrases: readonly string[];
}

/** Whitespace of the `$search` syntax; `-` and `"` are its operators; anything else is text. */
function charType(char: string): 'space' | 'delimiter' | 'text' {
  if (char === ' ' || char === '\n' || char === '\v' || char === '\f' || char === '\r') return 'space';
  if (char === '-' || char === '"') return 'delimiter';
  return 'text';
}

/**
 * Parses a `$search` string as mongod's FTSQueryImpl: words are ORed; a "quoted phrase" is
 * required (its words also read from the index); a `-` right before a word or phrase (after
 * whitespace or at the start) negates it, until the next whitespace.
 */
export function parseTextQuery(params: TextParams, language: TextLanguage): TextQuery {
  const { search } = params;
  let positiveSentence = '';
  let negativeSentence = '';
  const phrases: string[] = [];
  const negatedPhrases: string[] = [];
  let inNegation = false;
  let inPhrase = false;
  let quoteAt = 0;
  let at = 0;
  const skipSpace = (): boolean => {
    const start = at;
    while (at < search.length && charType(search[at]) === 'space') at++;
    return at > start;
  };
  skipSpace();
  let previousSpace = true;
  while (at < search.length) {
    const start = at++;
    const type = charType(search[start]);
    if (type === 'text') while (at < search.length && charType(search[at]) === 'text') at++;
    const token = search.slice(start, at);
    const afterSpace = previousSpace;
    previousSpace = skipSpace();
    if (type === 'text') {
      if (inPhrase && inNegation) continue;
      if (inNegation && afterSpace) inNegation = false;
      if (inNegation) negativeSentence += `${token} `;
      else positiveSentence += `${token} `;
    } else if (token === '-') {
      if (!inPhrase && afterSpace) inNegation = true;
    } else if (inPhrase) {
      const phrase = search.slice(quoteAt + 1, start);
      (inNegation ? negatedPhrases : phrases).push(phrase);
      inPhrase = false;
    } else {
      inPhrase = true;
      if (inNegation && afterSpace) inNegation = false;
      quoteAt = start;
    }
  }
  const insensitive = { filterStopWords: true, caseSensitive: false, diacriticSensitive: false };
  const sensitive = {
    filterStopWords: true,
    caseSensitive: params.caseSensitive,
    diacriticSensitive: params.diacriticSensitive,
  };
  const exact = params.caseSensitive || params.diacriticSensitive;
  const terms = (sentence: string): string[] => tokenize(sentence, language, exact ? sensitive : insensitive);
  const sortedSet = (values: readonly string[]): string[] => [...new Set(values)].sort();
  return {
    language,
    caseSensitive: params.caseSensitive,
    diacriticSensitive: params.diacriticSensitive,
    boundsTerms: sortedSet(tokenize(positiveSentence, language, insensitive)),
    positiveTerms: sortedSet(terms(positiveSentence)),
    negatedTerms: sortedSet(terms(negativeSentence)),
    phrases,
    negatedPhrases,
  };
}

/** The language a `$text` reads with: its `$language`, else the index's default (BadValue when unknown). */
export function queryLanguage(params: TextParams, definition: TextIndexDefinition): TextLanguage {
  return params.language === undefined || params.language === ''
    ? definition.defaultLanguage
    : languageOrThrow(params.language);
}

/**
 * Whether a document the index found for a query's terms matches it (mongod's FTSMatcher): it
 * holds a positive term as sensitive as asked (the index already answered this when the query
 * is neither case nor diacritic sensitive), no negated term, every phrase and no negated phrase.
 */
export function textMatcher(
  query: TextQuery,
  definition: TextIndexDefinition,
  /** The negated terms were already ruled out from the index. */
  negationsChecked = false,
): ((doc: Document) => boolean) | undefined {
  const exact = query.caseSensitive || query.diacriticSensitive;
  const negatedTerms = negationsChecked ? [] : query.negatedTerms;
  if (!exact && negatedTerms.length === 0 && query.phrases.length === 0 && query.negatedPhrases.length === 0)
    return undefined;
  const options = {
    filterStopWords: false,
    caseSensitive: query.caseSensitive,
    diacriticSensitive: query.diacriticSensitive,
  };
  const positive = new Set(query.positiveTerms);
  const negated = new Set(negatedTerms);
  // Each phrase folded once per way of folding (Turkish folds apart).
  const foldedPhrases = new Map<string, string>();
  const holdsTerm = (doc: Document, terms: ReadonlySet<string>): boolean =>
    textValues(doc, definition).some(({ text, language }) =>
      tokenize(text, language, options).some((term) => terms.has(term)),
    );
  const holdsPhrase = (doc: Document, phrase: string): boolean =>
    textValues(doc, definition).some(({ text, language }) => {
      const fold = {
        // Turkish compares case-insensitively whatever is asked (its I and i do not pair up).
        caseSensitive: query.caseSensitive && !language.turkish,
        diacriticSensitive: query.diacriticSensitive,
        turkish: language.turkish,
      };
      const key = `${fold.caseSensitive ? 1 : 0}${fold.turkish ? 1 : 0}${phrase}`;
      let needle = foldedPhrases.get(key);
      if (needle === undefined) {
        needle = foldString(phrase, fold);
        foldedPhrases.set(key, needle);
      }
      return foldString(text, fold).includes(needle);
    });
  return (doc) =>
    (!exact || holdsTerm(doc, positive)) &&
    (negated.size === 0 || !holdsTerm(doc, negated)) &&
    query.phrases.every((phrase) => holdsPhrase(doc, phrase)) &&
    !query.negatedPhrases.some((phrase) => holdsPhrase(doc, phrase));
}
