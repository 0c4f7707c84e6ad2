import { parentPort, workerData } from 'node:worker_threads';
import { startEmbeddedStore, type EmbeddedStore } from '../store/embedded/index';
import { storeSocket, type StoreSocket } from '../store/store-socket';
import type { SeedStoreReply, SeedStoreRequest, SeedStoreWorkerData } from './seed-store';

function reply(message: SeedStoreReply): void {
  parentPort!.postMessage(message);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The worker thread of startSeedStore: runs the embedded store on the data directory it is
 * given and closes it (journal flushed) when asked to. The thread ends once the store is closed.
 */
async function run(): Promise<void> {
  const { dataDir } = workerData as SeedStoreWorkerData;
  let store: EmbeddedStore;
  let socket: StoreSocket | undefined;
  try {
    // On a socket of this user only, like the service's store: never a TCP port open to every local user.
    socket = storeSocket(dataDir);
    store = await startEmbeddedStore({ dbPath: dataDir, socketPath: socket.path });
  } catch (error) {
    socket?.release();
    reply({ type: 'failed', message: messageOf(error) });
    return;
  }
  parentPort!.once('message', (request: SeedStoreRequest) => {
    if (request.type !== 'close') return;
    store
      .close()
      .finally(() => socket.release())
      .then(
        () => {
          reply({ type: 'closed' });
          parentPort!.close();
        },
        (error: unknown) => {
          reply({ type: 'failed', message: messageOf(error) });
          parentPort!.close();
        },
      );
  });
  reply({ type: 'ready', uri: store.uri });
}

void run();
