import type { EducationLevelResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';

export const EducationLevel: EducationLevelResolvers = {
  id: (item) => toGlobalId('EducationLevel', item.level),
};
