import type { DestinationResolvers } from '../generated/resolvers-types';

export const Destination: DestinationResolvers = {
  country: (item, _args, { reference }) => reference.find('countries', item.countryIsoCode),
};
