import type { EmployerEntityResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const EmployerEntity: EmployerEntityResolvers = {
  country: referenceField('countries', 'countryIsoCode'),
};
