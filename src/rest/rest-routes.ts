/** The routes of the router, relative to its mount (also route labels of the logs and metrics, after `/v1`). */
export const REST_ROUTES = {
  search: '/candidates',
  candidate: '/candidates/:publicId',
  byList: '/candidates/by-list/:publicListId',
  jobMatch: '/candidates/job-match',
  offerToAssist: '/candidates/offer-to-assist',
  register: '/candidates/register',
  statistics: '/statistics',
  savedSearchCandidates: '/saved-searches/:savedSearchId/candidates',
  savedLists: '/saved-lists',
} as const;

/** Where the REST router is mounted. */
export const REST_MOUNT = '/v1';
