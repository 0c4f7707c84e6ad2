import type { CountryResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';

export const Country: CountryResolvers = {
  id: (item) => toGlobalId('Country', item.isoCode),
};
