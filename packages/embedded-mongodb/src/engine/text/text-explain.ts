import type { Document } from 'bson';
import type { SortSpec } from '../sort';
import { TEXT_INDEX_VERSION } from './text-spec';
import type { TextPlan } from './text-search';

/** What explain needs of the request a text plan answered. */
export interface ExplainedTextRequest {
  readonly sort?: SortSpec;
  readonly skip: number;
  readonly limit: number;
}

/**
 * A text plan as mongod's explain shows it: TEXT_MATCH (the phrases, negations and sensitivity
 * checked on the documents) over TEXT_OR (scores summed, documents fetched, the rest of the
 * filter applied) when the score is wanted, or over FETCH and OR otherwise; under them one
 * IXSCAN per term of the search. SORT, SKIP and LIMIT above, or COUNT for a count.
 */
export function describeTextPlan(plan: TextPlan, request: ExplainedTextRequest, mode: 'find' | 'count'): Document {
  const { index, query } = plan;
  const scans = query.boundsTerms.map(() => ({
    stage: 'IXSCAN',
    keyPattern: index.spec.key,
    indexName: index.name,
    isMultiKey: index.multikey,
    isUnique: false,
    isSparse: false,
    isPartial: index.spec.partialFilterExpression !== undefined,
    indexVersion: 2,
    direction: 'backward',
    indexBounds: {},
  }));
  const filter = Object.keys(plan.rest).length > 0 ? { filter: plan.rest } : {};
  const input: Document = plan.needsScore
    ? { stage: 'TEXT_OR', ...filter, inputStages: scans }
    : { stage: 'FETCH', ...filter, inputStage: scans.length === 1 ? scans[0] : { stage: 'OR', inputStages: scans } };
  let stage: Document = {
    stage: 'TEXT_MATCH',
    indexPrefix: Object.fromEntries(index.spec.text!.before.map((path, i) => [path, plan.prefix[i]])),
    indexName: index.name,
    parsedTextQuery: {
      terms: query.positiveTerms,
      negatedTerms: query.negatedTerms,
      phrases: query.phrases,
      negatedPhrases: query.negatedPhrases,
    },
    textIndexVersion: TEXT_INDEX_VERSION,
    inputStage: input,
  };
  if (mode === 'count') return { stage: 'COUNT', inputStage: stage };
  if (request.sort) {
    const sortPattern: Document = {};
    for (const field of request.sort) sortPattern[field.path] = field.meta ? { $meta: field.meta } : field.direction;
    stage = {
      stage: 'SORT',
      sortPattern,
      ...(request.limit > 0 ? { limitAmount: request.skip + request.limit } : {}),
      inputStage: stage,
    };
  }
  if (request.skip > 0) stage = { stage: 'SKIP', skipAmount: request.skip, inputStage: stage };
  return request.limit > 0 ? { stage: 'LIMIT', limitAmount: request.limit, inputStage: stage } : stage;
}
