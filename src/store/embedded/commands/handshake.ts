import type { Document } from 'bson';
import { MAX_MESSAGE_BYTES } from '../wire/protocol';
import type { CommandContext, CommandHandler } from './context';

/** What the store claims to be: a standalone MongoDB 7.0. */
export const SERVER_VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;
const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
const MAX_WRITE_BATCH_SIZE = 100_000;
/**
 * Advertised so drivers treat the store as session-capable (as a real 7.0 standalone is): they
 * then attach `lsid` to commands, which the store accepts and ignores. `topologyVersion` is
 * deliberately not advertised, which keeps drivers on plain polling heartbeats instead of the
 * streaming (awaitable) hello protocol.
 */
const LOGICAL_SESSION_TIMEOUT_MINUTES = 30;

function helloReply(context: CommandContext, legacy: boolean, command: Document): Document {
  return {
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    ...(command.helloOk === true ? { helloOk: true } : {}),
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_BYTES,
    maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES,
    connectionId: context.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

const hello: CommandHandler = (command, context) => helloReply(context, false, command);
const isMaster: CommandHandler = (command, context) => helloReply(context, true, command);

const buildInfo: CommandHandler = () => ({
  version: SERVER_VERSION,
  gitVersion: 'embedded',
  versionArray: [7, 0, 0, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ['embedded'],
  javascriptEngine: 'none',
  modules: [],
  ok: 1,
});

export const handshakeCommands: Record<string, CommandHandler> = {
  hello,
  isMaster,
  ismaster: isMaster,
  ping: () => ({ ok: 1 }),
  buildInfo,
  buildinfo: buildInfo,
};
