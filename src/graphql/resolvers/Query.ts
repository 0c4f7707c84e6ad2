import type { QueryResolvers } from '../generated/resolvers-types';

export const Query: QueryResolvers = {
  candidates: (_parent, args, { apiKey, services }) => services.candidateQueries.search(apiKey, args),
  candidatesConnection: (_parent, args, { apiKey, services }) => services.candidateQueries.connection(apiKey, args),
  candidate: (_parent, { publicId }, { apiKey, services, loaders }) =>
    services.candidateQueries.findCandidate(apiKey, publicId, (id) => loaders.candidates.load(id)),
  savedList: (_parent, { publicId }, { apiKey, services }) => services.candidateQueries.findSavedList(apiKey, publicId),
  countries: (_parent, _args, { services }) => services.reference.list('countries'),
  languages: (_parent, _args, { services }) => services.reference.list('languages'),
  languageLevels: (_parent, _args, { services }) => services.reference.list('languageLevels'),
  occupations: (_parent, { search, limit }, { services }) => services.reference.searchOccupations(search, limit),
  educationLevels: (_parent, _args, { services }) => services.reference.list('educationLevels'),
  educationMajors: (_parent, _args, { services }) => services.reference.list('educationMajors'),
};
