// The playground page's own script (served by src/graphql/playground.ts, run after the GraphiQL
// bundle): the API key field, the views (GraphQL and Statistics), and GraphiQL started with a
// fetcher that sends the key. The key is entered once, kept in this page's memory only (never
// in storage: a reload asks again), and serves every GraphiQL tab and every view; nothing is
// sent to the service before it is there.
(function () {
  'use strict';

  const options = JSON.parse(document.getElementById('cd-options').textContent);
  const form = document.getElementById('cd-key-form');
  const input = document.getElementById('cd-key');
  const status = document.getElementById('cd-key-status');

  /** The accepted key, or null. */
  let apiKey = null;
  const keyListeners = [];
  const keyWaiters = [];

  /** The message of a result without data, or of a failed request. */
  const NO_KEY = 'Enter your API key in the field at the top of the page first: nothing was sent.';

  /** One POST of a GraphQL request with `key`; resolves with the GraphQL result, never rejects. */
  async function post(body, key) {
    let response;
    try {
      response = await fetch(options.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          'x-api-key': key,
        },
        body: JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      return { errors: [{ message: 'The service cannot be reached.' }] };
    }
    const text = await response.text();
    try {
      return JSON.parse(text);
    } catch {
      return { errors: [{ message: `The service answered ${response.status} without a GraphQL result.` }] };
    }
  }

  /** A GraphQL request of a view, with the page's key (a result with an error without one). */
  function request(query, variables) {
    if (apiKey === null) return Promise.resolve({ errors: [{ message: NO_KEY, extensions: { code: 'NO_KEY' } }] });
    return post({ query, variables }, apiKey);
  }

  /** Calls `listener` with the key now if there is one, and each time a key is accepted. */
  function onKey(listener) {
    keyListeners.push(listener);
    if (apiKey !== null) listener(apiKey);
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (key === '') {
      status.textContent = 'Enter an API key.';
      return;
    }
    status.textContent = 'Checking the key…';
    const result = await post({ query: 'query KeyCheck { __typename }' }, key);
    if (result.data && result.data.__typename) {
      apiKey = key;
      status.textContent = 'Key in use for every tab and view (until the page is closed or reloaded).';
      form.classList.add('cd-key-accepted');
      for (const resolve of keyWaiters.splice(0)) resolve(key);
      for (const listener of keyListeners) listener(key);
      return;
    }
    const error = (result.errors && result.errors[0]) || {};
    status.textContent =
      error.extensions && error.extensions.code === 'UNAUTHENTICATED'
        ? 'The service does not know this key (mistyped, revoked or expired).'
        : error.message || 'The key could not be checked.';
  });

  /**
   * GraphiQL's fetcher. Its schema request (introspection, sent as the page opens) waits for the
   * key instead of failing without one; a query run before the key is answered here, unsent.
   */
  function fetcher(params) {
    if (apiKey !== null) return post(params, apiKey);
    if (params.operationName !== 'IntrospectionQuery') return Promise.resolve({ errors: [{ message: NO_KEY }] });
    return new Promise((resolve) => keyWaiters.push(resolve)).then((key) => post(params, key));
  }

  // The views: the hash names the one shown (#graphql, the default, or #statistics).
  const views = Array.from(document.querySelectorAll('.cd-view'));
  const links = Array.from(document.querySelectorAll('.cd-views a'));
  const viewListeners = [];
  function showView() {
    const wanted = location.hash.slice(1);
    const name = views.some((view) => view.dataset.view === wanted) ? wanted : 'graphql';
    for (const view of views) view.hidden = view.dataset.view !== name;
    for (const link of links) {
      if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    // The editors measure themselves when they are shown again.
    if (name === 'graphql') window.dispatchEvent(new Event('resize'));
    for (const listener of viewListeners) listener(name);
  }
  window.addEventListener('hashchange', showView);

  /** What the views share: the key and its requests, and which view is shown. */
  window.candidateDirectory = {
    options,
    request,
    onKey,
    hasKey: () => apiKey !== null,
    focusKey: () => input.focus(),
    onView: (listener) => viewListeners.push(listener),
  };

  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), { ...options.graphiql, fetcher });
  // After the statistics view's script has registered (it runs next).
  window.addEventListener('DOMContentLoaded', showView);
})();
