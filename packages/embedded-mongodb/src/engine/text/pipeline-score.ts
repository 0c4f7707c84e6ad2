import type { Document } from 'bson';
import { CommandError } from '../../errors';
import { isPlainObject } from '../path-values';
import { isTextScoreMeta } from './score-projection';
import { mentionsText } from './text-query';

/**
 * The field that carries each document's text score through the stages after a `$text` match
 * (mingo knows no `$meta`): `{$meta: 'textScore'}` in them reads it, and it is removed at the end.
 */
const SCORE_FIELD = '__embeddedStoreTextScore';

/** Whether stages ask for the text score anywhere (an expression or a sort). */
export function usesTextScore(value: unknown): boolean {
  if (isTextScoreMeta(value)) return true;
  if (Array.isArray(value)) return value.some(usesTextScore);
  return isPlainObject(value) && Object.values(value).some(usesTextScore);
}

/** mongod's refusal of a `$match` with `$text` after the first stage. */
export function assertTextMatchFirst(pipeline: readonly Document[]): void {
  pipeline.forEach((stage, i) => {
    if (i > 0 && isPlainObject(stage) && '$match' in stage && mentionsText(stage.$match))
      throw new CommandError('Location17313', '$match with $text is only allowed as the first pipeline stage');
  });
}

function rewriteValue(value: unknown): unknown {
  if (isTextScoreMeta(value)) return `$${SCORE_FIELD}`;
  if (Array.isArray(value)) return value.map(rewriteValue);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rewriteValue(inner)]));
}

/** Whether a `$project` keeps named fields (so the score field must be kept explicitly). */
function isInclusion(spec: Document): boolean {
  return Object.entries(spec).some(([key, value]) => key !== '_id' && value !== 0 && value !== false);
}

/**
 * The stages with `{$meta: 'textScore'}` reading the score field: in expressions, in `$sort`
 * (highest score first), kept through inclusion projections, and removed after the last stage.
 */
export function readingTextScore(stages: readonly Document[]): Document[] {
  const rewritten = stages.map((stage): Document => {
    const [name] = Object.keys(stage);
    const spec = stage[name] as unknown;
    if (name === '$sort' && isPlainObject(spec)) {
      return {
        $sort: Object.fromEntries(
          Object.entries(spec).map(([key, value]) => (isTextScoreMeta(value) ? [SCORE_FIELD, -1] : [key, value])),
        ),
      };
    }
    if (name === '$project' && isPlainObject(spec) && isInclusion(spec)) {
      return { $project: { ...(rewriteValue(spec) as Document), [SCORE_FIELD]: 1 } };
    }
    return { [name]: rewriteValue(spec) };
  });
  return [...rewritten, { $unset: SCORE_FIELD }];
}

/** The documents with their scores in the score field. */
export function withTextScores(docs: readonly Document[], scores: readonly (number | undefined)[]): Document[] {
  return docs.map((doc, i) => (scores[i] === undefined ? doc : { ...doc, [SCORE_FIELD]: scores[i] }));
}
