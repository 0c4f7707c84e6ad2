import type { CandidateEducationResolvers } from '../generated/resolvers-types';

export const CandidateEducation: CandidateEducationResolvers = {
  country: (item, _args, { reference }) => reference.find('countries', item.countryIsoCode),
  educationMajor: (item, _args, { reference }) => reference.find('educationMajors', item.educationMajorId),
};
