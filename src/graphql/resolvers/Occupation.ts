import type { OccupationResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';

export const Occupation: OccupationResolvers = {
  id: (item) => toGlobalId('Occupation', item.isco08Code),
};
