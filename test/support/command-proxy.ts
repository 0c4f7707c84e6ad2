import net from 'node:net';
import { decodeOpMsg, OpCode, readHeader } from 'embedded-mongodb';

/**
 * Where a fault strikes the k-th counted command: `before` it reaches the store (the store
 * never sees it), or `after` the store has answered it (it is applied, and committed if it
 * wrote, but the reply never reaches the client).
 */
export type FaultPoint = 'before' | 'after';

/** Where the store listens: a TCP port on 127.0.0.1 (an in-process store), or a Unix socket path (a store child). */
export type StoreAddress = number | string;

export interface FaultPlan {
  /** 1-based number of the command, counted from `arm` (only the commands called `name`, or that `among` accepts, when given) */
  readonly at: number;
  /** strike the `at`-th command of this name (a registration's reads vary with what is cached, its writes do not) */
  readonly name?: string;
  /** strike the `at`-th command this accepts (its writes, say: after a read the store is as it was after the command before) */
  readonly among?: (name: string) => boolean;
  readonly point: FaultPoint;
  /**
   * What the fault does once the proxy holds the command (or its reply): kill a process, say.
   * The connection is dropped after it, either way, and every later message is discarded.
   */
  readonly strike?: () => void | Promise<void>;
  /** After striking, refuse every connection until the next `arm` (the store is down until restarted). */
  readonly thenDown?: boolean;
}

export interface CommandProxy {
  /** A connection string for the service: the proxy's port, directConnection as the store's own. */
  readonly uri: string;
  /** Starts counting commands from zero; with a plan, strikes at its command. */
  arm(plan?: FaultPlan): void;
  /** Names of the commands counted since `arm`, in the order they reached the proxy. */
  readonly counted: readonly string[];
  /** True once the armed fault struck. */
  readonly struck: boolean;
  /** Sends new connections to another store (a restarted one): its TCP port or Unix socket path. */
  retarget(store: StoreAddress): void;
  close(): Promise<void>;
}

/** Commands of connection set-up and monitoring: not steps of a request, never counted. */
const NOT_COUNTED = new Set([
  'hello',
  'isMaster',
  'ismaster',
  'ping',
  'buildInfo',
  'buildinfo',
  'endSessions',
  'killCursors',
]);

/**
 * A TCP proxy between the service and the store (on TCP or a Unix socket) that reads the wire protocol, counts the
 * commands the service sends, and can strike at any one of them: the fault injection of the
 * crash tests. It changes no byte it forwards.
 */
export async function startCommandProxy(store: StoreAddress): Promise<CommandProxy> {
  let target = store;
  let plan: FaultPlan | undefined;
  let counted: string[] = [];
  let struck = false;
  let striking = false;
  const sockets = new Set<net.Socket>();

  const strike = (client: net.Socket, upstream: net.Socket): void => {
    striking = true;
    void Promise.resolve(plan?.strike?.()).finally(() => {
      struck = true;
      client.destroy();
      upstream.destroy();
      if (plan?.thenDown) for (const socket of sockets) socket.destroy();
    });
  };

  const server = net.createServer((client) => {
    if (striking && plan?.thenDown) {
      client.destroy();
      return;
    }
    const upstream = typeof target === 'number' ? net.connect(target, '127.0.0.1') : net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    /** requestId of the command whose reply is to be withheld */
    let withheld: number | undefined;

    frames(client, (message) => {
      if (striking) return;
      const command = commandOf(message);
      if (command !== undefined && !NOT_COUNTED.has(command.name)) {
        counted.push(command.name);
        if (plan && isTarget(plan, command.name, counted)) {
          if (plan.point === 'before') return strike(client, upstream);
          // An unacknowledged write (moreToCome) has no reply to withhold: it strikes once sent.
          if (command.moreToCome) {
            upstream.write(message);
            return strike(client, upstream);
          }
          withheld = readHeader(message).requestId;
        }
      }
      upstream.write(message);
    });
    frames(upstream, (message) => {
      if (striking) return;
      if (withheld !== undefined && readHeader(message).responseTo === withheld) return strike(client, upstream);
      client.write(message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    arm: (next) => {
      plan = next;
      counted = [];
      struck = false;
      striking = false;
    },
    get counted() {
      return counted;
    },
    get struck() {
      return struck;
    },
    retarget: (next) => {
      target = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isTarget(plan: FaultPlan, name: string, counted: readonly string[]): boolean {
  if (plan.among !== undefined) return plan.among(name) && counted.filter(plan.among).length === plan.at;
  if (plan.name === undefined) return counted.length === plan.at;
  return name === plan.name && counted.filter((seen) => seen === plan.name).length === plan.at;
}

/** Calls `onMessage` with each whole wire message arriving on `socket`. */
function frames(socket: net.Socket, onMessage: (message: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readInt32LE(0);
      if (pending.length < length) break;
      onMessage(pending.subarray(0, length));
      pending = pending.subarray(length);
    }
  });
}

function commandOf(message: Buffer): { name: string; moreToCome: boolean } | undefined {
  if (readHeader(message).opCode !== OpCode.Msg) return undefined;
  const { body, moreToCome } = decodeOpMsg(message);
  return { name: Object.keys(body)[0], moreToCome };
}
