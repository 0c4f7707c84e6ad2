import type { EmployerEntityResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const EmployerEntity: EmployerEntityResolvers = {
  country: (employer, _args, { loaders }) => loadOptional(loaders.countries, employer.countryIsoCode),
};
