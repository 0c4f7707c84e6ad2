import type { Document } from 'bson';
import { CommandError } from '../errors';
import { SERVER_VERSION } from './handshake';
import type { CommandHandler } from './context';

const MEGABYTE = 1024 * 1024;

const serverStatus: CommandHandler = (_command, { runtime }) => {
  const uptimeMillis = Date.now() - runtime.startedAt;
  const memory = process.memoryUsage();
  return {
    host: runtime.address,
    version: SERVER_VERSION,
    process: 'mongod',
    pid: process.pid,
    uptime: Math.floor(uptimeMillis / 1000),
    uptimeMillis,
    localTime: new Date(),
    connections: {
      current: runtime.connections.current,
      available: 1000,
      totalCreated: runtime.connections.totalCreated,
    },
    mem: { bits: 64, resident: Math.round(memory.rss / MEGABYTE), virtual: Math.round(memory.rss / MEGABYTE) },
    metrics: { cursor: { open: { total: runtime.cursors.size } } },
    transactions: { currentActive: runtime.transactions?.active ?? 0 },
    storageEngine: {
      name: runtime.dbPath ? 'embedded-journal' : 'embedded-memory',
      persistent: runtime.dbPath !== undefined,
    },
    ok: 1,
  };
};

const getParameter: CommandHandler = (command) => {
  const reply: Document = { ok: 1 };
  if (command.featureCompatibilityVersion !== undefined || command.getParameter === '*') {
    reply.featureCompatibilityVersion = { version: '7.0' };
  }
  return reply;
};

const getCmdLineOpts: CommandHandler = (_command, { runtime }) => ({
  argv: ['embedded-store'],
  parsed: {
    net: { bindIp: runtime.host, port: runtime.port },
    ...(runtime.dbPath ? { storage: { dbPath: runtime.dbPath } } : {}),
  },
  ok: 1,
});

const connectionStatus: CommandHandler = () => ({
  authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] },
  ok: 1,
});

/** Sessions are accepted (drivers send lsid); the only server state they have is in `runtime.transactions`. */
const acknowledge: CommandHandler = () => ({ ok: 1 });

const endSessions: CommandHandler = (command, { runtime }) => {
  if (Array.isArray(command.endSessions)) runtime.transactions?.endSessions(command.endSessions);
  return { ok: 1 };
};

/**
 * Reached only on a standalone store (the dispatcher hands these to `runtime.transactions`
 * otherwise): what a real standalone answers, transactions need a replica set.
 */
const noTransactions: CommandHandler = () => {
  throw new CommandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
};

export const serverInfoCommands: Record<string, CommandHandler> = {
  serverStatus,
  getParameter,
  getCmdLineOpts,
  connectionStatus,
  endSessions,
  killAllSessions: acknowledge,
  killSessions: acknowledge,
  refreshSessions: acknowledge,
  abortTransaction: noTransactions,
  commitTransaction: noTransactions,
};
