import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';

/** A command or collection name as a span shows it: a plain name; anything else is left out. */
const NAME = /^[A-Za-z0-9_.$-]{1,120}$/;

/** The collection a command names: its first field's value (find, insert, aggregate, ...) or getMore's `collection`. */
function collectionOf(event: CommandStartedEvent): string | undefined {
  const named: unknown = event.commandName === 'getMore' ? event.command.collection : event.command[event.commandName];
  return typeof named === 'string' && NAME.test(named) ? named : undefined;
}

/**
 * A span for every command the driver sends on `client` (it needs `monitorCommands`, which
 * connectDatabase sets), on the embedded store and on MongoDB alike, as a child of the span
 * active where the command was sent (the request's): named `<command> <collection>`, with
 * `db.system.name`, `db.operation.name`, `db.collection.name` and `db.namespace` (the
 * database). The command's filter, documents and pipeline, the reply and the failure's message
 * quote stored or searched values: a span shows none of them, only a failure's code name.
 * With no tracer provider registered (traces off) no span records, and nothing is kept.
 */
export function traceMongoCommands(client: MongoClient): void {
  const tracer = trace.getTracer('candidate-directory/store');
  const open = new Map<number, Span>();
  client.on('commandStarted', (event: CommandStartedEvent) => {
    if (!NAME.test(event.commandName)) return;
    const collection = collectionOf(event);
    const span = tracer.startSpan(
      collection === undefined ? event.commandName : `${event.commandName} ${collection}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': 'mongodb',
          'db.operation.name': event.commandName,
          ...(collection === undefined ? {} : { 'db.collection.name': collection }),
          ...(NAME.test(event.databaseName) ? { 'db.namespace': event.databaseName } : {}),
        },
      },
      context.active(),
    );
    if (span.isRecording()) open.set(event.requestId, span);
  });
  const end = (event: CommandSucceededEvent | CommandFailedEvent, failed: boolean) => {
    const span = open.get(event.requestId);
    if (span === undefined) return;
    open.delete(event.requestId);
    if (failed) {
      const codeName = (event as CommandFailedEvent).failure?.name;
      span.setAttribute('error.type', typeof codeName === 'string' && NAME.test(codeName) ? codeName : 'error');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  client.on('commandSucceeded', (event) => end(event, false));
  client.on('commandFailed', (event) => end(event, true));
}
