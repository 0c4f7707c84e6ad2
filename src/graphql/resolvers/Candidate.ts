import type { CandidateResolvers } from '../generated/resolvers-types';
import { toGlobalId } from '../global-id';
import { auditedCandidate } from './audited';
import { referenceField } from './field-source';
import { loadOptional } from './load';

export const Candidate: CandidateResolvers = {
  id: (candidate) => toGlobalId('Candidate', candidate.publicId),
  country: referenceField('countries', 'countryIsoCode'),
  birthCountry: referenceField('countries', 'birthCountryIsoCode'),
  nationality: referenceField('countries', 'nationalityIsoCode'),
  drivingLicenseCountry: referenceField('countries', 'drivingLicenseCountryIsoCode'),
  maxEducationLevel: referenceField('educationLevels', 'maxEducationLevel'),
  partnerEduLevel: referenceField('educationLevels', 'partnerEduLevel'),
  partnerEnglishLevel: referenceField('languageLevels', 'partnerEnglishLevel'),
  partnerOccupation: referenceField('occupations', 'partnerOccupationIsco08Code'),
  partner: (candidate, _args, { loaders, audit }) =>
    auditedCandidate(audit, loadOptional(loaders.candidates, candidate.partnerPublicId)),
};
