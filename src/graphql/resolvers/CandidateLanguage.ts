import type { CandidateLanguageResolvers } from '../generated/resolvers-types';

export const CandidateLanguage: CandidateLanguageResolvers = {
  language: (item, _args, { reference }) => reference.find('languages', item.languageIsoCode),
  writtenLevel: (item, _args, { reference }) => reference.find('languageLevels', item.writtenLevel),
  spokenLevel: (item, _args, { reference }) => reference.find('languageLevels', item.spokenLevel),
};
