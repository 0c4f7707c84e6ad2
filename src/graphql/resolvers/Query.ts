import { candidateFieldsOf } from '../execution/candidate-fields';
import type { QueryResolvers } from '../generated/resolvers-types';
import { loadAll } from '../loaders';
import { auditedCandidate } from './audited';

export const Query: QueryResolvers = {
  // A search reads only the stored fields its selection of candidates needs (candidate-fields.ts).
  candidates: (_parent, args, { apiKey, services, loaders, readEpoch }, info) =>
    services.candidateQueries.search(apiKey, args, candidateFieldsOf(info, ['content']), {
      readEpoch,
      load: (publicIds) => loadAll(loaders.candidates, publicIds),
    }),
  candidatesConnection: (_parent, args, { apiKey, services }, info) =>
    services.candidateQueries.connection(apiKey, args, candidateFieldsOf(info, ['edges', 'node'])),
  candidate: (_parent, { publicId }, { apiKey, services, loaders, audit }) =>
    auditedCandidate(
      audit,
      services.candidateQueries.findCandidate(apiKey, publicId, (id) => loaders.candidates.load(id)),
    ),
  savedList: (_parent, { publicId }, { apiKey, services }) => services.candidateQueries.findSavedList(apiKey, publicId),
  countries: (_parent, _args, { services }) => services.reference.list('countries'),
  languages: (_parent, _args, { services }) => services.reference.list('languages'),
  languageLevels: (_parent, _args, { services }) => services.reference.list('languageLevels'),
  occupations: (_parent, { search, limit }, { services }) => services.reference.searchOccupations(search, limit),
  educationLevels: (_parent, _args, { services }) => services.reference.list('educationLevels'),
  educationMajors: (_parent, _args, { services }) => services.reference.list('educationMajors'),
};
