import { ObjectId, type Document } from 'bson';
import { MAX_MESSAGE_BYTES } from '../wire/protocol';
import { SESSION_TIMEOUT_MINUTES } from '../transactions';
import { STORAGE_ENGINE_NAME } from '../engine/catalog';
import type { CommandContext, CommandHandler } from './context';

/** What the store claims to be: a MongoDB 7.0, primary of a one-member replica set (or a standalone). */
export const SERVER_VERSION = '7.0.0';
/** The replica set name the store reports when it runs transactions. */
export const REPLICA_SET_NAME = 'embedded';
/** A one-member set never holds an election: its election id is constant. */
const ELECTION_ID = new ObjectId('7fffffff0000000000000001');
const MAX_WIRE_VERSION = 21;
const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
const MAX_WRITE_BATCH_SIZE = 100_000;
/**
 * Advertised so drivers treat the store as session-capable (as a real 7.0 is): they then attach
 * `lsid` to commands, which key transactions and retryable writes. `topologyVersion` is
 * deliberately not advertised, which keeps drivers on plain polling heartbeats instead of the
 * streaming (awaitable) hello protocol.
 */
const LOGICAL_SESSION_TIMEOUT_MINUTES = SESSION_TIMEOUT_MINUTES;

/**
 * The fields a primary of a replica set adds to hello. Drivers take the server for an RSPrimary:
 * they then run multi-document transactions and retryable writes on it, which the store supports
 * (transactions.ts). With directConnection=true (the store's URI) the driver
 * talks to this one server whatever `hosts` says.
 */
function replicaSetFields(context: CommandContext): Document {
  const me = context.runtime.address;
  return {
    setName: REPLICA_SET_NAME,
    setVersion: 1,
    hosts: [me],
    primary: me,
    me,
    secondary: false,
    electionId: ELECTION_ID,
  };
}

function helloReply(context: CommandContext, legacy: boolean, command: Document): Document {
  return {
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    ...(context.runtime.transactions ? replicaSetFields(context) : {}),
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
  storageEngines: [STORAGE_ENGINE_NAME],
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
