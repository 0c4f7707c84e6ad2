import { tracingRequested } from '../../src/config';
import { queryWithoutValues } from '../../src/observability/tracing';

describe('when traces are exported', () => {
  test.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: 'candidate-directory-eu', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://otel-collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
  ])('when the environment is %j, then traces are on: %s', (env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });
});

describe('a query string in a span', () => {
  test('when a search has filter values, then the span keeps the parameter names and none of the values', () => {
    const shown = queryWithoutValues('location=JO,LB&nationality=SY&occupation=2221&limit=50&location=TR');
    expect(shown).toBe('location=REDACTED&nationality=REDACTED&occupation=REDACTED&limit=REDACTED&location=REDACTED');
  });

  test('when a value is percent-encoded, then it is not shown either', () => {
    expect(queryWithoutValues('q=yasmeen.khattabiyeh%40example.org')).toBe('q=REDACTED');
  });

  test('when a parameter name is not a plain name, then the name is not shown either', () => {
    expect(queryWithoutValues('yasmeen.khattabiyeh%40example.org&limit=5')).toBe('REDACTED=REDACTED&limit=REDACTED');
  });
});
