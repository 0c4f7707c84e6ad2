import type { Db } from 'mongodb';
import { createApiKeyRepository } from './auth/api-key-repository';
import { ApiKeyService } from './auth/api-key-service';
import { CandidateQueryService } from './candidates/candidate-query-service';
import { CandidateRepository } from './candidates/candidate-repository';
import { CandidateIdentityRepository } from './candidates/candidate-identity-repository';
import { JobOpportunityRepository } from './candidates/job-opportunity-repository';
import { OfferRepository } from './candidates/offer-repository';
import { OfferService } from './candidates/offer-service';
import { RegistrationService } from './candidates/registration-service';
import { SavedListRepository } from './candidates/saved-list-repository';
import { ReferenceRepository } from './reference/reference-repository';
import { ReferenceService } from './reference/reference-service';

/** The repositories, built once per process over the one database handle. */
export interface Repositories {
  readonly candidates: CandidateRepository;
  readonly jobOpportunities: JobOpportunityRepository;
  readonly reference: ReferenceRepository;
}

/** The core: every rule of the product. Both transports call these and nothing else. */
export interface Services {
  readonly repositories: Repositories;
  readonly apiKeys: ApiKeyService;
  readonly candidateQueries: CandidateQueryService;
  readonly offers: OfferService;
  readonly registration: RegistrationService;
  readonly reference: ReferenceService;
}

export function createServices(db: Db): Services {
  const candidates = new CandidateRepository(db);
  const reference = new ReferenceRepository(db);
  return {
    repositories: { candidates, reference, jobOpportunities: new JobOpportunityRepository(db) },
    apiKeys: new ApiKeyService(createApiKeyRepository(db)),
    candidateQueries: new CandidateQueryService(candidates, new SavedListRepository(db)),
    offers: new OfferService(candidates, new OfferRepository(db)),
    registration: new RegistrationService(candidates, new CandidateIdentityRepository(db), reference),
    reference: new ReferenceService(reference),
  };
}
