import type { WebhookDeliveryResolvers } from '../generated/resolvers-types';

/** A delivery document keeps its event whole; the kind and candidate are read from it. */
export const WebhookDelivery: WebhookDeliveryResolvers = {
  kind: (delivery) => delivery.event.kind,
  publicId: (delivery) => delivery.event.publicId,
};
