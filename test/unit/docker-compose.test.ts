import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

/**
 * The Compose setup runs MongoDB as a replica set whose health check (docker/mongo-replica-set.js,
 * run by mongosh) initiates it, reports the primary, and adds the members it is told to. No Docker
 * engine runs here: CI checks the Compose files with `docker-compose config` (.ci/run), and this
 * test runs the health check's script against mongosh's shell helpers (`rs`, `db`, `quit`) played
 * by a fake replica set, and holds the files to the same set name and member address.
 */
const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = fs.readFileSync(path.join(ROOT, 'docker/mongo-replica-set.js'), 'utf8');
const COMPOSE = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const THREE = fs.readFileSync(path.join(ROOT, 'docker-compose.three-members.yml'), 'utf8');

class Quit extends Error {
  constructor(readonly code: number) {
    super(`quit(${code})`);
  }
}

interface FakeSet {
  initiated?: { _id: string; members: { _id: number; host: string }[] };
  primary: boolean;
  /** rs.add refuses while this is set (a reconfiguration still being committed) */
  refuseAdd?: boolean;
}

/** Runs the health check against `set`: its exit code, and what it did to the set. */
function healthCheck(set: FakeSet, env: Record<string, string> = {}): { code: number; added: string[] } {
  const added: string[] = [];
  const members = () => [...(set.initiated?.members.map((m) => m.host) ?? []), ...added];
  const rs = {
    status: () => {
      if (!set.initiated) throw new Error('no replset config has been received');
      return { ok: 1 };
    },
    initiate: (config: FakeSet['initiated']) => {
      set.initiated = config;
      return { ok: 1 };
    },
    conf: () => ({ members: members().map((host) => ({ host })) }),
    add: (host: string) => {
      if (set.refuseAdd) throw new Error('reconfig in progress');
      added.push(host);
    },
  };
  const db = { hello: () => ({ isWritablePrimary: set.initiated !== undefined && set.primary }) };
  const quit = (code: number) => {
    throw new Quit(code);
  };
  try {
    vm.runInNewContext(SCRIPT, { rs, db, quit, print: () => undefined, process: { env } });
    return { code: 0, added };
  } catch (error) {
    if (error instanceof Quit) return { code: error.code, added };
    throw error;
  }
}

describe('the replica set of the Compose setup', () => {
  test('when the health check first runs on a new volume, then it initiates rs0 with this member as the service reaches it, and is unhealthy until it is the primary', () => {
    // Arrange
    const set: FakeSet = { primary: false };

    // Act
    const first = healthCheck(set);

    // Assert
    expect(set.initiated).toEqual({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] });
    expect(first.code).toBe(1);
  });

  test('when the set is initiated and this member is the primary, then the check is healthy and initiates nothing again', () => {
    // Arrange
    const set: FakeSet = { initiated: { _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] }, primary: true };
    const before = set.initiated;

    // Act
    const check = healthCheck(set);

    // Assert
    expect(check).toEqual({ code: 0, added: [] });
    expect(set.initiated).toBe(before);
  });

  test('when told to grow the set to three members, then each check adds one missing member until all are in', () => {
    // Arrange
    const set: FakeSet = { initiated: { _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] }, primary: true };
    const env = { REPLICA_SET_ADD: 'mongo2:27017,mongo3:27017' };

    // Act
    const first = healthCheck(set, env);
    set.initiated!.members.push({ _id: 1, host: 'mongo2:27017' });
    const second = healthCheck(set, env);
    set.initiated!.members.push({ _id: 2, host: 'mongo3:27017' });
    const third = healthCheck(set, env);

    // Assert
    expect([first, second, third]).toEqual([
      { code: 0, added: ['mongo2:27017'] },
      { code: 0, added: ['mongo3:27017'] },
      { code: 0, added: [] },
    ]);
  });

  test('when a member cannot be added yet, then the primary stays healthy and the next check tries again', () => {
    // Arrange
    const set: FakeSet = {
      initiated: { _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] },
      primary: true,
      refuseAdd: true,
    };

    // Act
    const check = healthCheck(set, { REPLICA_SET_ADD: 'mongo2:27017' });

    // Assert
    expect(check).toEqual({ code: 0, added: [] });
  });

  test('when the Compose files are read, then mongod, the health check and the service agree on the set name and the first member', () => {
    expect(COMPOSE).toContain("command: ['--replSet', 'rs0', '--bind_ip_all']");
    expect(COMPOSE).toContain('./docker/mongo-replica-set.js:/docker/mongo-replica-set.js:ro');
    expect(COMPOSE).toContain("test: ['CMD', 'mongosh', '--quiet', '--file', '/docker/mongo-replica-set.js']");
    expect(COMPOSE).toContain('MONGODB_URI: mongodb://mongo:27017/?replicaSet=rs0');
    expect(THREE.match(/command: \['--replSet', 'rs0', '--bind_ip_all'\]/g)).toHaveLength(2);
    expect(THREE).toContain('REPLICA_SET_ADD: mongo2:27017,mongo3:27017');
    expect(THREE).toContain('MONGODB_URI: mongodb://mongo:27017,mongo2:27017,mongo3:27017/?replicaSet=rs0');
  });
});
