import type { NodeResolvers } from '../generated/resolvers-types';
import type { TaggedNode } from './NodeQuery';

export const Node: NodeResolvers = {
  // Only `node` and `nodes` return a Node as such; they tag what they return.
  __resolveType: (node) => (node as TaggedNode).__typename,
};
