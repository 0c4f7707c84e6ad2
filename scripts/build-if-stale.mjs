// `npm start`, `npm run keys`, `seed` and `store` run this first (their `pre*` scripts): it runs
// `npm run build` (codegen + tsc, about 20-30 s on 2 cores) only when the build in dist/ is
// missing or older than a source, so a command on a current build starts at once.
//
// The stamp is dist/.build-stamp, made before the build began (a marker renamed into place only
// when the build succeeded), so an edit made while tsc ran counts as newer and the next command
// builds again. A source is newer when its mtime is at or after the stamp's (mtimes of the same
// file system clock; "at" because that clock is coarse). Directories count too: deleting or
// renaming a file changes its directory's mtime, but only that: a directory whose entries the
// build changed only by adding outputs (a workspace package's first dist/) gets its mtime back,
// else the build's own output would make the next command build again. Plain JavaScript with no dependency: it must
// run before anything is compiled, and start in milliseconds.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();

/** What `npm run build` reads, relative to the package root. */
const INPUT_DIRECTORIES = ['src', 'schema', 'packages'];
const INPUT_FILES = /^(?:codegen\.yml|tsconfig[\w.-]*\.json|package(?:-lock)?\.json)$/;
/**
 * Skipped under the input directories: outputs and installs (`generated` holds what codegen
 * writes during the build itself; its sources are schema/ and codegen.yml), and dot-directories.
 */
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage', 'generated']);

const DIST = path.join(root, 'dist');
const STAMP = path.join(DIST, '.build-stamp');
const STARTED = path.join(DIST, '.build-started');

/** The first input at or after `since` (ms), or undefined when none is. */
function newerInput(since) {
  for (const name of fs.readdirSync(root)) {
    if (INPUT_FILES.test(name) && fs.statSync(path.join(root, name)).mtimeMs >= since) return name;
  }
  for (const name of INPUT_DIRECTORIES) {
    const found = newerUnder(path.join(root, name), since);
    if (found !== undefined) return path.relative(root, found);
  }
  return undefined;
}

function newerUnder(directory, since) {
  let stat;
  try {
    stat = fs.statSync(directory);
  } catch {
    return undefined;
  }
  if (stat.mtimeMs >= since) return directory;
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || SKIPPED_DIRECTORIES.has(entry.name)) continue;
      const found = newerUnder(full, since);
      if (found !== undefined) return found;
    } else if (fs.statSync(full).mtimeMs >= since) {
      return full;
    }
  }
  return undefined;
}

/**
 * The mtime and the names of the input entries (skipped ones left out) of every input directory,
 * by path: what `restoreDirectoryTimes` compares after the build.
 */
function directoryListings() {
  const listings = new Map();
  const visit = (directory) => {
    let entries;
    try {
      entries = fs.readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    const kept = entries.filter(
      (e) => !(e.isDirectory() && (e.name.startsWith('.') || SKIPPED_DIRECTORIES.has(e.name))),
    );
    listings.set(directory, {
      mtime: fs.statSync(directory).mtime,
      names: kept
        .map((e) => e.name)
        .sort()
        .join('\n'),
    });
    for (const entry of kept) if (entry.isDirectory()) visit(path.join(directory, entry.name));
  };
  for (const name of INPUT_DIRECTORIES) visit(path.join(root, name));
  return listings;
}

/**
 * Gives its mtime back to every input directory that the build changed only by adding or
 * removing skipped entries (outputs such as a package's dist/): a directory's mtime counts as a
 * change of the sources only for a file deleted, added or renamed, which its names show.
 */
function restoreDirectoryTimes(before) {
  for (const [directory, after] of directoryListings()) {
    const previous = before.get(directory);
    if (previous === undefined || previous.names !== after.names) continue;
    if (after.mtime.getTime() !== previous.mtime.getTime())
      fs.utimesSync(directory, fs.statSync(directory).atime, previous.mtime);
  }
}

/** Why the build must run, or undefined when dist/ is current. */
function staleness() {
  let stamp;
  try {
    stamp = fs.statSync(STAMP).mtimeMs;
  } catch {
    return 'no build yet';
  }
  const newer = newerInput(stamp);
  return newer === undefined ? undefined : `${newer} changed since the last build`;
}

function runBuild() {
  // Under npm, the same npm that runs this script; else the one on PATH.
  const npmCli = process.env.npm_execpath;
  const [command, args] =
    npmCli && /\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli, 'run', 'build']] : ['npm', ['run', 'build']];
  return spawnSync(command, args, { cwd: root, stdio: 'inherit' });
}

const reason = staleness();
if (reason !== undefined) {
  process.stderr.write(`build: ${reason}; running npm run build\n`);
  fs.mkdirSync(DIST, { recursive: true });
  fs.rmSync(STAMP, { force: true });
  fs.writeFileSync(STARTED, `${new Date().toISOString()}\n`);
  const started = fs.statSync(STARTED).mtime;
  const listings = directoryListings();
  const result = runBuild();
  if (result.status !== 0) {
    fs.rmSync(STARTED, { force: true });
    process.stderr.write(
      `build: npm run build failed (${result.error?.message ?? `exit code ${result.status}, signal ${result.signal}`})\n`,
    );
    process.exit(result.status || 1);
  }
  restoreDirectoryTimes(listings);
  if (fs.existsSync(STARTED)) {
    fs.renameSync(STARTED, STAMP);
  } else {
    // The build emptied dist/ (a clean step): the stamp still carries the time the build began.
    fs.mkdirSync(DIST, { recursive: true });
    fs.writeFileSync(STAMP, `${started.toISOString()}\n`);
    fs.utimesSync(STAMP, started, started);
  }
}
