import type { MutationResolvers, QueryResolvers } from '../generated/resolvers-types';

/** The root fields of schema/webhooks.graphql (`extend type Query`); merged into Query in index.ts. */
export const WebhookQuery: QueryResolvers = {
  webhooks: (_parent, _args, { apiKey, services }) => services.webhooks.list(apiKey),
  webhookDeliveries: (_parent, { webhookId, state, first }, { apiKey, services }) =>
    services.webhooks.deliveries(apiKey, webhookId, state ?? undefined, first),
};

/** The mutations of schema/webhooks.graphql (`extend type Mutation`); merged into Mutation in index.ts. */
export const WebhookMutation: MutationResolvers = {
  createWebhook: (_parent, { input }, { apiKey, services }) =>
    services.webhooks.create(apiKey, {
      apiKeyId: input.apiKeyId,
      url: input.url,
      eventTypes: input.eventTypes,
      fromBeginning: input.fromBeginning ?? false,
    }),
  removeWebhook: (_parent, { id }, { apiKey, services }) => services.webhooks.remove(apiKey, id),
  replayWebhookDelivery: (_parent, { webhookId, seq }, { apiKey, services }) =>
    services.webhooks.replay(apiKey, webhookId, seq),
};
