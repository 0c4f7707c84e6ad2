import type { CandidateLanguageResolvers } from '../generated/resolvers-types';
import { referenceField } from './field-source';

export const CandidateLanguage: CandidateLanguageResolvers = {
  language: referenceField('languages', 'languageIsoCode'),
  writtenLevel: referenceField('languageLevels', 'writtenLevel'),
  spokenLevel: referenceField('languageLevels', 'spokenLevel'),
};
