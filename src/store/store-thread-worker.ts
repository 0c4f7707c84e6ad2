import { parentPort, workerData } from 'node:worker_threads';
import { DataDirectoryInUseError } from 'embedded-mongodb';
import { startInProcessStore, type InProcessStore } from './open-store';
import type { StoreThreadReply, StoreThreadRequest, StoreThreadData } from './store-thread';

function reply(message: StoreThreadReply): void {
  parentPort!.postMessage(message);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The worker thread of startStoreThread: runs the embedded store on the data directory it is
 * given and closes it (its engine closed) when asked to. The thread ends once the store is closed.
 */
async function run(): Promise<void> {
  const { dataDir } = workerData as StoreThreadData;
  let store: InProcessStore;
  try {
    store = await startInProcessStore(dataDir);
  } catch (error) {
    // An error does not cross the thread boundary as its class: the one the caller needs is rebuilt there.
    const inUse = error instanceof DataDirectoryInUseError ? { dataDir: error.dataDir, pid: error.pid } : undefined;
    reply({ type: 'failed', message: messageOf(error), ...(inUse ? { inUse } : {}) });
    return;
  }
  parentPort!.once('message', (request: StoreThreadRequest) => {
    if (request.type !== 'close') return;
    store.close().then(
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
  reply({ type: 'ready', uri: store.uri, socketPath: store.socketPath });
}

void run();
