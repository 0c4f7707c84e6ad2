import type { CandidateJobExperienceResolvers } from '../generated/resolvers-types';

export const CandidateJobExperience: CandidateJobExperienceResolvers = {
  country: (item, _args, { reference }) => reference.find('countries', item.countryIsoCode),
};
