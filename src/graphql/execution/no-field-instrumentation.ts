import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';

/**
 * Apollo installs its cache-control plugin unless told not to. To compute cache hints (which
 * this schema never sets: no @cacheControl anywhere, so every response is uncacheable) it
 * listens to `willResolveField`, and Apollo then wraps every field resolver of the schema,
 * trivial property reads included, in an instrumentation wrapper. That wrapper cost more than
 * the fields themselves (a quarter of the CPU of a deep query), and it turns every field into
 * a resolver call that graphql-jit cannot inline. So the plugin is off, and its one visible
 * effect is kept: `Cache-Control: no-store` on every /graphql response, unless something
 * else set the header.
 */
export function withoutFieldInstrumentation<TContext extends BaseContext>(): ApolloServerPlugin<TContext>[] {
  return [
    ApolloServerPluginCacheControlDisabled(),
    {
      async requestDidStart() {
        return {
          async willSendResponse({ response }) {
            if (!response.http.headers.has('cache-control')) response.http.headers.set('cache-control', 'no-store');
          },
        };
      },
    },
  ];
}
