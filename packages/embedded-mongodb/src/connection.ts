import type { Socket } from 'node:net';
import { runCommand } from './commands/dispatcher';
import type { StoreRuntime } from './runtime';
import { MessageReader } from './wire/message-reader';
import { decodeOpMsg, encodeOpMsg } from './wire/op-msg';
import { decodeOpQuery, encodeOpReply, QUERY_FAILURE } from './wire/op-query';
import { OpCode, readHeader, WireProtocolError } from './wire/protocol';

/**
 * One client connection. Messages are handled strictly one after another, so replies leave in
 * request order; anything malformed closes this connection and no other.
 */
export class Connection {
  private readonly reader = new MessageReader();
  private queue: Promise<void> = Promise.resolve();
  private nextRequestId = 1;

  constructor(
    private readonly socket: Socket,
    private readonly runtime: StoreRuntime,
    readonly id: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  private receive(chunk: Buffer): void {
    let messages: Buffer[];
    try {
      messages = this.reader.push(chunk);
    } catch (error) {
      this.abort(error);
      return;
    }
    for (const message of messages) {
      this.queue = this.queue.then(() => this.handle(message)).catch((error: unknown) => this.abort(error));
    }
  }

  private async handle(message: Buffer): Promise<void> {
    if (this.socket.destroyed) return;
    const header = readHeader(message);
    switch (header.opCode) {
      case OpCode.Msg: {
        const request = decodeOpMsg(message);
        const reply = await runCommand(request.body, this.runtime, this.id, request.typed);
        if (!request.moreToCome) this.send(encodeOpMsg(this.nextRequestId++, header.requestId, reply));
        return;
      }
      case OpCode.Query: {
        const request = decodeOpQuery(message);
        const [db, collection] = splitNamespace(request.fullCollectionName);
        if (collection !== '$cmd') {
          const error = { $err: 'OP_QUERY is only supported for commands', code: 352, ok: 0 };
          this.send(encodeOpReply(this.nextRequestId++, header.requestId, error, QUERY_FAILURE));
          return;
        }
        const reply = await runCommand({ ...request.query, $db: db }, this.runtime, this.id);
        // OP_REPLY carries a document value; cursor replies are never produced for OP_QUERY.
        const document =
          reply instanceof Uint8Array ? { ok: 0, errmsg: 'cursor commands need OP_MSG', code: 352 } : reply;
        this.send(encodeOpReply(this.nextRequestId++, header.requestId, document));
        return;
      }
      default:
        throw new WireProtocolError(`unsupported opCode ${header.opCode}`);
    }
  }

  private send(data: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  private abort(error: unknown): void {
    if (this.socket.destroyed) return;
    this.runtime.log('warn', 'closing connection after a malformed message', {
      connectionId: this.id,
      error: String(error),
    });
    this.socket.destroy();
  }
}

function splitNamespace(namespace: string): [string, string] {
  const dot = namespace.indexOf('.');
  return dot < 0 ? [namespace, ''] : [namespace.slice(0, dot), namespace.slice(dot + 1)];
}
