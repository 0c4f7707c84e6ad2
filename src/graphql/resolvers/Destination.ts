import type { DestinationResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const Destination: DestinationResolvers = {
  country: (item, _args, { loaders }) => loadOptional(loaders.countries, item.countryIsoCode),
};
