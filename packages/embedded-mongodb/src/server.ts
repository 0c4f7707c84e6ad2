import fs from 'node:fs';
import net from 'node:net';
import { Connection } from './connection';
import type { StoreRuntime } from './runtime';

/** The listener (TCP or Unix domain socket): accepts connections and tracks them so close() can end them all. */
export class WireServer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private nextConnectionId = 1;

  constructor(private readonly runtime: StoreRuntime) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** Listens on TCP; resolves with the bound port (useful when asked for port 0). */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as net.AddressInfo).port);
      });
    });
  }

  /**
   * Listens on a Unix domain socket at `socketPath`, mode 0600: only this user may connect. A
   * socket file left there by a store that was killed is removed first (the caller holds the
   * data directory's lock, or owns the socket's directory); any other kind of file is not.
   */
  listenOnSocket(socketPath: string): Promise<void> {
    if (fs.lstatSync(socketPath, { throwIfNoEntry: false })?.isSocket()) fs.unlinkSync(socketPath);
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ path: socketPath, readableAll: false, writableAll: false }, () => {
        this.server.off('error', reject);
        try {
          // The mode the file was created with follows the umask: set it, whatever the umask.
          fs.chmodSync(socketPath, 0o600);
          resolve();
        } catch (error) {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- chmodSync throws Errors only
          reject(error);
        }
      });
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private accept(socket: net.Socket): void {
    const { connections } = this.runtime;
    this.sockets.add(socket);
    connections.current++;
    connections.totalCreated++;
    // Resets and half-closed peers are routine for a server; the socket just goes away.
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.sockets.delete(socket);
      connections.current--;
    });
    new Connection(socket, this.runtime, this.nextConnectionId++);
  }
}
