import type { CandidateResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';
import { auditedCandidate } from './audited';
import { loadOptional } from './load';

export const Candidate: CandidateResolvers = {
  id: (candidate) => toGlobalId('Candidate', candidate.publicId),
  country: (candidate, _args, { reference }) => reference.find('countries', candidate.countryIsoCode),
  birthCountry: (candidate, _args, { reference }) => reference.find('countries', candidate.birthCountryIsoCode),
  nationality: (candidate, _args, { reference }) => reference.find('countries', candidate.nationalityIsoCode),
  drivingLicenseCountry: (candidate, _args, { reference }) =>
    reference.find('countries', candidate.drivingLicenseCountryIsoCode),
  maxEducationLevel: (candidate, _args, { reference }) =>
    reference.find('educationLevels', candidate.maxEducationLevel),
  partnerEduLevel: (candidate, _args, { reference }) => reference.find('educationLevels', candidate.partnerEduLevel),
  partnerEnglishLevel: (candidate, _args, { reference }) =>
    reference.find('languageLevels', candidate.partnerEnglishLevel),
  partnerOccupation: (candidate, _args, { reference }) =>
    reference.find('occupations', candidate.partnerOccupationIsco08Code),
  partner: (candidate, _args, { loaders, audit }) =>
    auditedCandidate(audit, loadOptional(loaders.candidates, candidate.partnerPublicId)),
};
