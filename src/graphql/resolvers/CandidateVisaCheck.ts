import type { CandidateVisaCheckResolvers } from '../generated/resolvers-types';

export const CandidateVisaCheck: CandidateVisaCheckResolvers = {
  country: (item, _args, { reference }) => reference.find('countries', item.countryIsoCode),
};
