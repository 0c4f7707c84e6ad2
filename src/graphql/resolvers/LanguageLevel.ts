import type { LanguageLevelResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';

export const LanguageLevel: LanguageLevelResolvers = {
  id: (item) => toGlobalId('LanguageLevel', item.level),
};
