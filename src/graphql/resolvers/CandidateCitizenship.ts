import type { CandidateCitizenshipResolvers } from '../generated/resolvers-types';

export const CandidateCitizenship: CandidateCitizenshipResolvers = {
  nationality: (item, _args, { reference }) => reference.find('countries', item.nationalityIsoCode),
};
