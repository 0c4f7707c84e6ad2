import { serialize, type Document } from 'bson';
import { decodeTyped } from '../typed-numbers';
import type { EvaluationOptions } from '../mingo-options';
import { isPlainObject } from '../path-values';
import { compileBsonProjection } from '../projection';

/** Whether a value is `{$meta: 'textScore'}`. */
export function isTextScoreMeta(value: unknown): boolean {
  return isPlainObject(value) && value.$meta === 'textScore' && Object.keys(value).length === 1;
}

/** Whether a find projection asks for the text score. */
export function projectsTextScore(projection: unknown): boolean {
  return isPlainObject(projection) && Object.values(projection).some(isTextScoreMeta);
}

/** A stored document and, from a `$text` query, its text score. */
export interface ScoredBson {
  readonly bson: Uint8Array;
  readonly score?: number;
}

/**
 * A find projection holding `{$meta: 'textScore'}` fields: the rest of it applied as any
 * projection (a `$meta` field makes it neither an inclusion nor an exclusion), then the score
 * set in each of those fields, after the document's own fields.
 */
export function compileScoreProjection(
  projection: Document,
  filter: Document,
  options: EvaluationOptions = {},
): (item: ScoredBson) => Uint8Array {
  const scoreFields = Object.keys(projection).filter((field) => isTextScoreMeta(projection[field]));
  const rest = Object.fromEntries(Object.entries(projection).filter(([, value]) => !isTextScoreMeta(value)));
  const base = compileBsonProjection(Object.keys(rest).length > 0 ? rest : undefined, filter, options);
  return ({ bson, score }) => {
    const projected = base(bson);
    if (score === undefined) return projected;
    const doc = decodeTyped(projected);
    for (const field of scoreFields) doc[field] = score;
    return serialize(doc);
  };
}
