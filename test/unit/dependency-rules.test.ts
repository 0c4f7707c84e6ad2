import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/**
 * Runs `npm run depcheck`'s command on `directories` of `cwd`, once, with a JSON report: the
 * rules it reports broken, and the number of errors among them, which is the exit status of the
 * command as CI runs it (depcruise exits with its error count: 10 errors, status 10).
 */
function depcheck(cwd: string, directories = ['src']): { status: number | null; violations: string[] } {
  const args = [...directories, '--config', CONFIG, '--output-type', 'json'];
  const json = spawnSync(DEPCRUISE, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (json.error) throw json.error;
  const report = JSON.parse(json.stdout) as { summary: { violations: Violation[]; error: number } };
  const violations = report.summary.violations.map(
    ({ rule, from, to }) => `${rule.name}: ${from} -> ${to.replace(/^.*node_modules\//, 'node_modules/')}`,
  );
  return { status: report.summary.error, violations: violations.sort() };
}

describe('dependency rules of src/ (npm run depcheck)', () => {
  test('when a lower layer imports a higher one, an area imports the composition root, the product imports a tool, a package imports the service, or two modules import each other through types only, then the check fails naming each import', () => {
    const { status, violations } = depcheck(path.join(ROOT, 'test/fixtures/dependency-rules'), ['src', 'packages']);

    expect(violations).toEqual(
      [
        'apollo-plugins-in-graphql: src/audit/apollo-audit-plugin.ts -> node_modules/@apollo/server/dist/cjs/index.d.ts',
        'areas-do-not-import-the-composition-root: src/candidates/registration-service.ts -> src/app/create-services.ts',
        'areas-do-not-import-the-composition-root: src/rest/rest-router.ts -> src/app/http-app.ts',
        'domain-below-transports: src/audit/apollo-audit-plugin.ts -> src/graphql/context.ts',
        'http-below-transports: src/http/fallbacks.ts -> src/rest/problem.ts',
        // A cycle is reported once, at one of its imports.
        'no-circular: src/audit/audit-indexes.ts -> src/store/indexes.ts',
        'nothing-imports-the-tools: src/http/usage.ts -> src/cli/keys.ts',
        'packages-stand-alone: packages/demo-data/src/index.ts -> src/candidates/registration-service.ts',
        'rest-does-not-import-the-http-app: src/rest/rest-router.ts -> src/app/http-app.ts',
        'store-is-the-bottom-layer: src/store/indexes.ts -> src/audit/audit-indexes.ts',
      ].sort(),
    );
    expect(status).not.toBe(0);
  });

  test("when the service's src/ and the packages/ are checked (as npm run depcheck does), then no rule is broken", () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.depcheck).toBe('depcruise src packages --config .dependency-cruiser.cjs');

    const { status, violations } = depcheck(ROOT, ['src', 'packages']);

    expect(violations).toEqual([]);
    expect(status).toBe(0);
  });
});
