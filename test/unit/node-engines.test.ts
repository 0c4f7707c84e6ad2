import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * `engines.node` of package.json names the oldest Node the service supports (README, CI): every
 * package that `npm ci` installs from the lock file must accept it, or `npm install` on that Node
 * warns EBADENGINE (a dependency that wants a newer Node). When this fails, pin an older version
 * of the direct dependency, or of a transitive one in `overrides`.
 */
const ROOT = path.resolve(__dirname, '../..');

interface LockEntry {
  version?: string;
  engines?: Record<string, string> | string[];
  hasInstallScript?: boolean;
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as T;
}

/** The packages of the lock file whose `engines.node` does not accept `node`: "path@version wants range". */
function refusing(node: string): string[] {
  const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
  return Object.entries(lock.packages).flatMap(([location, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (range === undefined || semver.satisfies(node, range, { includePrerelease: true })) return [];
    return [`${location || '(root)'}@${entry.version} wants node ${range}`];
  });
}

describe('Node engines of the installed dependencies', () => {
  test("when the lock file's packages are checked against the oldest Node of engines.node, then every one accepts it", () => {
    const { engines } = readJson<{ engines: { node: string } }>('package.json');
    const oldest = semver.minVersion(engines.node);

    expect(oldest?.version).toBeDefined();
    expect(refusing(oldest!.version)).toEqual([]);
  });

  test('when the lock file is checked against the Node running the tests, then every package accepts it', () => {
    expect(refusing(process.versions.node)).toEqual([]);
  });
});

/**
 * npm 11 lists at the end of every install the dependencies whose install scripts package.json's
 * `allowScripts` does not cover (and a later npm will skip them). The four that have one are
 * reviewed: lmdb and msgpackr-extract pick their prebuilt native binary, esbuild checks that its
 * platform's binary is installed, and @apollo/protobufjs makes a folder for its command line. A dependency that brings a new install script
 * must be reviewed and added, or `npm ci` warns again.
 */
describe('install scripts of the installed dependencies', () => {
  test('when the lock file lists packages with an install script, then allowScripts of package.json names each one', () => {
    const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
    const { allowScripts = {} } = readJson<{ allowScripts?: Record<string, boolean> }>('package.json');
    const withScripts = Object.entries(lock.packages)
      .filter(([location, entry]) => location !== '' && entry.hasInstallScript === true)
      .map(([location, entry]) => ({ name: location.slice(location.lastIndexOf('node_modules/') + 13), entry }));
    const allowed = (name: string, version: string | undefined) =>
      allowScripts[name] === true || (version !== undefined && allowScripts[`${name}@${version}`] === true);

    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter(({ name, entry }) => !allowed(name, entry.version)).map(({ name }) => name)).toEqual([]);
  });
});
