import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * scripts/build-if-stale.mjs, the `pre*` script of `npm start`, `keys`, `seed` and `store`, run
 * on a small project of its own whose `npm run build` only counts its runs. Whether it built is
 * read from that count and from dist/.build-stamp, never from how long it took; mtimes are set
 * explicitly (utimes) relative to the stamp.
 */

const SCRIPT = path.resolve(__dirname, '../../scripts/build-if-stale.mjs');

let project: string;

beforeEach(() => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'build-if-stale-'));
  write('package.json', JSON.stringify({ name: 'fixture', private: true, scripts: { build: 'node build.js' } }));
  // Counts its runs; fails while a file named FAIL exists; writes a workspace package's dist/ as
  // the real build does (its first run creates the directory); adds a source while ADD exists
  // (an edit made while the build runs).
  write(
    'build.js',
    "const fs = require('fs');\n" +
      "if (fs.existsSync('FAIL')) process.exit(3);\n" +
      "fs.mkdirSync('dist', { recursive: true });\n" +
      "fs.mkdirSync('packages/store/dist', { recursive: true });\n" +
      "fs.writeFileSync('packages/store/dist/index.js', 'exports.c = 3;\\n');\n" +
      "if (fs.existsSync('ADD')) fs.writeFileSync('src/area/added.ts', 'export const d = 4;\\n');\n" +
      "fs.appendFileSync('dist/builds.log', 'built\\n');\n",
  );
  write('tsconfig.json', '{}');
  write('src/main.ts', 'export const a = 1;\n');
  write('src/area/part.ts', 'export const b = 2;\n');
  write('src/graphql/generated/types.ts', '// generated\n');
  write('packages/store/src/index.ts', 'export const c = 3;\n');
  write('packages/store/package.json', '{}');
  write('schema/main.graphql', 'type Query { a: Int }\n');
  write('test/main.test.ts', '// a test\n');
  // Everything the project holds is a minute old: older than any stamp made from now on.
  const past = new Date(Date.now() - 60_000);
  for (const file of walk(project)) fs.utimesSync(file, past, past);
});

afterEach(() => {
  fs.rmSync(project, { recursive: true, force: true });
});

function write(relative: string, content: string): void {
  const file = path.join(project, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function walk(directory: string): string[] {
  const entries = fs.readdirSync(directory, { withFileTypes: true });
  return [
    directory,
    ...entries.flatMap((e) => (e.isDirectory() ? walk(path.join(directory, e.name)) : [path.join(directory, e.name)])),
  ];
}

function run(): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [SCRIPT], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stderr: result.stderr };
}

function builds(): number {
  const log = path.join(project, 'dist', 'builds.log');
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
}

/** Sets a path's mtime to the stamp's plus `seconds`. */
function touchAfterStamp(relative: string, seconds: number): void {
  const stamp = fs.statSync(path.join(project, 'dist', '.build-stamp')).mtimeMs;
  const time = new Date(stamp + seconds * 1000);
  fs.utimesSync(path.join(project, relative), time, time);
}

describe('build-if-stale: the build check before npm start / keys / seed / store', () => {
  test('when there is no build yet, then it builds and leaves a stamp; when nothing changed since, then it does not build again', () => {
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('no build yet');
    expect(builds()).toBe(1);
    expect(fs.existsSync(path.join(project, 'dist', '.build-stamp'))).toBe(true);
    expect(fs.existsSync(path.join(project, 'dist', '.build-started'))).toBe(false);

    const second = run();
    expect(second.status).toBe(0);
    expect(second.stderr).toBe('');
    expect(builds()).toBe(1);
  });

  test.each([['src/area/part.ts'], ['schema/main.graphql'], ['tsconfig.json'], ['package.json']])(
    'when %s is newer than the stamp, then it builds again, once',
    (source) => {
      run();
      touchAfterStamp(source, 5);

      const rebuilt = run();
      expect(rebuilt.status).toBe(0);
      expect(rebuilt.stderr).toContain(`${source} changed since the last build`);
      expect(builds()).toBe(2);

      touchAfterStamp(source, -5);
      run();
      expect(builds()).toBe(2);
    },
  );

  test('when a source file is deleted after the build, then it builds again (its directory changed)', () => {
    run();
    fs.rmSync(path.join(project, 'src', 'area', 'part.ts'));

    const rebuilt = run();
    expect(rebuilt.stderr).toContain(path.join('src', 'area'));
    expect(builds()).toBe(2);
  });

  test("when the first build creates a workspace package's dist/, then the next run does not build (the package's directory changed only by its output)", () => {
    expect(fs.existsSync(path.join(project, 'packages', 'store', 'dist'))).toBe(false);
    run();
    expect(fs.existsSync(path.join(project, 'packages', 'store', 'dist', 'index.js'))).toBe(true);

    const second = run();
    expect(second.stderr).toBe('');
    expect(builds()).toBe(1);
  });

  test('when a source file is added while the build runs, then the next run builds again', () => {
    write('ADD', '');
    run();
    fs.rmSync(path.join(project, 'ADD'));

    const rebuilt = run();
    expect(rebuilt.stderr).toContain('changed since the last build');
    expect(builds()).toBe(2);
  });

  test('when only codegen output (a generated directory) or a test changed, then it does not build', () => {
    run();
    touchAfterStamp('src/graphql/generated/types.ts', 5);
    touchAfterStamp('src/graphql/generated', 5);
    touchAfterStamp('test/main.test.ts', 5);

    expect(run().status).toBe(0);
    expect(builds()).toBe(1);
  });

  test('when the build fails, then it exits non-zero without a stamp, and the next run builds again', () => {
    write('FAIL', '');
    const failed = run();
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('npm run build failed');
    expect(fs.existsSync(path.join(project, 'dist', '.build-stamp'))).toBe(false);
    expect(fs.existsSync(path.join(project, 'dist', '.build-started'))).toBe(false);

    fs.rmSync(path.join(project, 'FAIL'));
    expect(run().status).toBe(0);
    expect(builds()).toBe(1);
    expect(fs.existsSync(path.join(project, 'dist', '.build-stamp'))).toBe(true);
  });

  test('when dist/ was removed, then it builds again', () => {
    run();
    fs.rmSync(path.join(project, 'dist'), { recursive: true });

    expect(run().stderr).toContain('no build yet');
    expect(builds()).toBe(1);
  });
});

describe('the npm scripts that run the built service and its tools', () => {
  test('when npm start, keys, seed or store run, then their pre-script is the build check, not a full build', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of ['start', 'keys', 'seed', 'store']) {
      expect(scripts[name]).toMatch(/^node /);
      expect(scripts[`pre${name}`]).toBe('node scripts/build-if-stale.mjs');
    }
  });
});
