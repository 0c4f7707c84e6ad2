import type { FollowedChange } from '../../changes/change-follower';
import type { SubscriptionResolvers } from '../generated/resolvers-types';

export const Subscription: SubscriptionResolvers = {
  candidateChanged: {
    // The key as it is now before each event (the WebSocket transport's liveKey); the request's key elsewhere.
    subscribe: (_parent, args, context) =>
      context.services.candidateChanges.follow(context.liveKey ?? (() => Promise.resolve(context.apiKey)), args),
    resolve: (edge: FollowedChange) => edge,
  },
};
