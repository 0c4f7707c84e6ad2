import { ForbiddenError } from '../../errors';
import type { GraphQLContext } from '../context';
import type { QueryResolvers, ResolversParentTypes } from '../generated/resolvers-types';
import { parseGlobalIds, type GlobalIdTarget, type NodeType } from '../global-id';
import { auditedCandidate } from './audited';

/** An object `node` returns, tagged with its type for `Node.__resolveType` (the documents do not say which type they are). */
export type TaggedNode = ResolversParentTypes['Node'] & { readonly __typename: NodeType };

/** The root fields of schema/node.graphql (`extend type Query`); merged into Query in index.ts. */
export const NodeQuery: QueryResolvers = {
  node: async (_parent, { id }, context) => {
    const [target] = parseGlobalIds([id], 'id');
    return find(target, context);
  },
  nodes: (_parent, { ids }, context) => {
    const targets = parseGlobalIds(ids, 'ids');
    return Promise.all(targets.map((target) => find(target, context)));
  },
};

/**
 * The object a global id names, read through the same service, loader and permission as its
 * typed field (`candidate`, `savedList`, the candidate's job opportunities, the reference
 * lists). A permission the key lacks answers null, as an unknown id does: `node` must not tell
 * which ids exist to a key that may not read them.
 */
async function find(
  { type, key }: GlobalIdTarget,
  { apiKey, services, loaders, reference, audit }: GraphQLContext,
): Promise<TaggedNode | null> {
  const tagged = (value: ResolversParentTypes['Node'] | null): TaggedNode | null =>
    value === null ? null : { ...value, __typename: type };
  switch (type) {
    case 'Candidate':
      return tagged(
        await unlessForbidden(() =>
          auditedCandidate(
            audit,
            services.candidateQueries.findCandidate(apiKey, key, (id) => loaders.candidates.load(id)),
          ),
        ),
      );
    case 'SavedList':
      return tagged(await unlessForbidden(() => services.candidateQueries.findSavedList(apiKey, key)));
    case 'JobOpportunity':
      return tagged(
        await unlessForbidden(() =>
          services.candidateQueries.findJobOpportunity(apiKey, key, (id) => loaders.jobOpportunities.load(id)),
        ),
      );
    case 'Country':
      return tagged(reference.find('countries', key));
    case 'Language':
      return tagged(reference.find('languages', key));
    case 'Occupation':
      return tagged(reference.find('occupations', key));
    case 'LanguageLevel':
      return tagged(reference.find('languageLevels', Number(key)));
    case 'EducationLevel':
      return tagged(reference.find('educationLevels', Number(key)));
  }
}

async function unlessForbidden<T>(read: () => Promise<T | null>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ForbiddenError) return null;
    throw error;
  }
}
