import net from 'node:net';
import { MongoClient, MongoServerError } from 'mongodb';
import { BSON } from 'bson';
import { startStoreUnderTest, type StoreUnderTest } from './support/store-under-test';

interface Exchange {
  /** The server closed the connection (rather than this side giving up waiting). */
  readonly closedByServer: boolean;
  readonly received: Buffer;
}

/**
 * Sends raw bytes on a fresh connection. Resolves when the server closes it, when a whole
 * reply has arrived (if `untilReply`), or after a few seconds of silence.
 */
function exchange(uri: string, bytes: Buffer, untilReply = false): Promise<Exchange> {
  // The embedded store under test listens on a Unix domain socket (%2F-encoded in the URI); a real MongoDB on host:port.
  const host = decodeURIComponent(/^mongodb:\/\/([^/?]+)/.exec(uri)![1]);
  const { hostname, port } = new URL(`http://${host.endsWith('.sock') ? 'localhost' : host}`);
  return new Promise((resolve, reject) => {
    const socket = host.endsWith('.sock') ? net.connect(host) : net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    const finish = (closedByServer: boolean): void => {
      clearTimeout(timer);
      socket.removeAllListeners('close');
      socket.destroy();
      resolve({ closedByServer, received });
    };
    const timer = setTimeout(() => finish(false), 5_000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (untilReply && received.length >= 4 && received.length >= received.readInt32LE(0)) finish(false);
    });
    socket.on('error', reject);
    socket.on('close', () => finish(true));
    socket.on('connect', () => socket.write(bytes));
  });
}

function header(length: number, opCode: number): Buffer {
  const buffer = Buffer.alloc(16);
  buffer.writeInt32LE(length, 0);
  buffer.writeInt32LE(7, 4);
  buffer.writeInt32LE(0, 8);
  buffer.writeInt32LE(opCode, 12);
  return buffer;
}

describe('embedded store wire protocol robustness', () => {
  let store: StoreUnderTest;
  let client: MongoClient;

  beforeAll(async () => {
    store = await startStoreUnderTest();
    client = await MongoClient.connect(store.uri);
    await client
      .db('wire')
      .collection<{ _id: number; name: string }>('things')
      .insertOne({ _id: 1, name: 'still here' });
  });

  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  it.each([
    ['plain text', Buffer.from('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')],
    ['an oversized length', header(0x7fffffff, 2013)],
    ['a negative length', header(-5, 2013)],
    ['an unknown opCode', Buffer.concat([header(21, 9999), Buffer.alloc(5)])],
    [
      'an OP_MSG whose body is not BSON',
      Buffer.concat([
        header(16 + 4 + 1 + 8, 2013),
        Buffer.alloc(4),
        Buffer.from([0]),
        Buffer.from([50, 0, 0, 0, 1, 2, 3, 4]),
      ]),
    ],
  ])(
    'when a client sends %s, then only that connection is closed and other clients keep working',
    async (_label, bytes) => {
      // Act
      const outcome = await exchange(store.uri, bytes);

      // Assert
      expect(outcome.closedByServer).toBe(true);
      expect(await client.db('wire').command({ ping: 1 })).toMatchObject({ ok: 1 });
      expect(await client.db('wire').collection<{ _id: number; name: string }>('things').findOne({ _id: 1 })).toEqual({
        _id: 1,
        name: 'still here',
      });
    },
  );

  it('when a legacy OP_QUERY isMaster arrives, then it is answered with an OP_REPLY', async () => {
    // Arrange
    const query = BSON.serialize({ isMaster: 1 });
    const namespace = Buffer.from('admin.$cmd\0');
    const body = Buffer.concat([Buffer.alloc(4), namespace, Buffer.from([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]), query]);
    const message = Buffer.concat([header(16 + body.length, 2004), body]);

    // Act
    const { received } = await exchange(store.uri, message, true);

    // Assert
    expect(received.readInt32LE(12)).toBe(1);
    const reply = BSON.deserialize(received.subarray(36));
    expect(reply).toMatchObject({ ismaster: true, maxWireVersion: 21, ok: 1 });
  });

  it('when an unknown command is sent, then it answers ok: 0 with code 59 CommandNotFound', async () => {
    // Act
    const error = await client
      .db('wire')
      .command({ definitelyNotACommand: 1 })
      .catch((e: unknown) => e);

    // Assert
    expect(error).toBeInstanceOf(MongoServerError);
    expect(error).toMatchObject({ code: 59, codeName: 'CommandNotFound' });
  });
});
