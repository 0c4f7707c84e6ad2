import type { DestinationResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const Destination: DestinationResolvers = {
  country: referenceField('countries', 'countryIsoCode'),
};
