/** Largest JSON body accepted, on /graphql and /v1 alike; a registration is a few KB. */
export const JSON_BODY_LIMIT = '100kb';
