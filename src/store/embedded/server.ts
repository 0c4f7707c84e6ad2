import net from 'node:net';
import { Connection } from './connection';
import type { StoreRuntime } from './runtime';

/** The TCP listener: accepts connections and tracks them so close() can end them all. */
export class WireServer {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private nextConnectionId = 1;

  constructor(private readonly runtime: StoreRuntime) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  /** Listens; resolves with the bound port (useful when asked for port 0). */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as net.AddressInfo).port);
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
