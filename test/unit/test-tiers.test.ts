import fs from 'node:fs';
import path from 'node:path';

/** jest.config.js's tiers: every test file must run in exactly one (`npm run test:<tier>`). */
const ROOT = path.resolve(__dirname, '../..');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require('../../jest.config.js') as { projects: { displayName: string; roots: string[] }[] };

function testFilesUnder(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFilesUnder(full);
    return entry.name.endsWith('.test.ts') ? [path.relative(ROOT, full)] : [];
  });
}

describe('test tiers', () => {
  test('when the test files of the repository are listed, then each is under the roots of exactly one tier', () => {
    const tiers = config.projects.map((project) => ({
      name: project.displayName,
      roots: project.roots.map((root) => root.replace('<rootDir>/', '')),
    }));
    const files = [...testFilesUnder(path.join(ROOT, 'test')), ...testFilesUnder(path.join(ROOT, 'packages'))];

    const misplaced = files.flatMap((file) => {
      const owners = tiers.filter((tier) => tier.roots.some((root) => file.startsWith(`${root}/`)));
      return owners.length === 1 ? [] : [`${file}: ${owners.map((o) => o.name).join(', ') || 'no tier'}`];
    });

    expect(tiers.map((tier) => tier.name)).toEqual(['unit', 'integration', 'e2e']);
    expect(files.length).toBeGreaterThan(100);
    expect(misplaced).toEqual([]);
  });

  test('when the npm scripts are read, then each tier has its own and npm test type-checks, then runs every tier', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };

    for (const tier of ['unit', 'integration', 'e2e'])
      expect(scripts[`test:${tier}`]).toBe(`jest --selectProjects ${tier}`);
    expect(scripts.test).toBe('npm run typecheck && jest');
  });
});
