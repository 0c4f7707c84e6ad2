import type { CandidateResolvers } from '../generated/resolvers-types';
import { auditedCandidate } from './audited';
import { loadOptional } from './load';

export const Candidate: CandidateResolvers = {
  country: (candidate, _args, { loaders }) => loadOptional(loaders.countries, candidate.countryIsoCode),
  birthCountry: (candidate, _args, { loaders }) => loadOptional(loaders.countries, candidate.birthCountryIsoCode),
  nationality: (candidate, _args, { loaders }) => loadOptional(loaders.countries, candidate.nationalityIsoCode),
  drivingLicenseCountry: (candidate, _args, { loaders }) =>
    loadOptional(loaders.countries, candidate.drivingLicenseCountryIsoCode),
  maxEducationLevel: (candidate, _args, { loaders }) => loadOptional(loaders.educationLevels, candidate.maxEducationLevel),
  partnerEduLevel: (candidate, _args, { loaders }) => loadOptional(loaders.educationLevels, candidate.partnerEduLevel),
  partnerEnglishLevel: (candidate, _args, { loaders }) => loadOptional(loaders.languageLevels, candidate.partnerEnglishLevel),
  partnerOccupation: (candidate, _args, { loaders }) =>
    loadOptional(loaders.occupations, candidate.partnerOccupationIsco08Code),
  partner: (candidate, _args, { loaders, audit }) => auditedCandidate(audit, loadOptional(loaders.candidates, candidate.partnerPublicId)),
};
