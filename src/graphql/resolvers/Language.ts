import type { LanguageResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';

export const Language: LanguageResolvers = {
  id: (item) => toGlobalId('Language', item.isoCode),
};
