import type { EmployerEntityResolvers } from '../generated/resolvers-types';

export const EmployerEntity: EmployerEntityResolvers = {
  country: (employer, _args, { reference }) => reference.find('countries', employer.countryIsoCode),
};
