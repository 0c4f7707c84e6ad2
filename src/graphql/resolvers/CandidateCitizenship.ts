import type { CandidateCitizenshipResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateCitizenship: CandidateCitizenshipResolvers = {
  nationality: (item, _args, { loaders }) => loadOptional(loaders.countries, item.nationalityIsoCode),
};
