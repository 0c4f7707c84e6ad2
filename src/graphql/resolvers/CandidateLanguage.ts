import type { CandidateLanguageResolvers } from '../generated/resolvers-types';
import { loadOptional } from './load';

export const CandidateLanguage: CandidateLanguageResolvers = {
  language: (item, _args, { loaders }) => loadOptional(loaders.languages, item.languageIsoCode),
  writtenLevel: (item, _args, { loaders }) => loadOptional(loaders.languageLevels, item.writtenLevel),
  spokenLevel: (item, _args, { loaders }) => loadOptional(loaders.languageLevels, item.spokenLevel),
};
