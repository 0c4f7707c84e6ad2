import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { PersistedQueryStore } from '../persisted-queries/persisted-query-store';

/**
 * Apollo starts the write of a newly registered query without waiting for it. This holds the
 * registering request's answer until the write ended, so that once a client has its answer,
 * sending the hash alone works on every instance.
 */
export function persistedQueryPlugin<C extends BaseContext>(store: PersistedQueryStore): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ metrics }) {
          if (metrics.persistedQueryRegister) await store.settled();
        },
      };
    },
  };
}
