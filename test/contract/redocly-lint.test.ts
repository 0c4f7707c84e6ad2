/**
 * `redocly lint` (its recommended rules) on the OpenAPI document of /v1, as API tooling and
 * documentation portals read it: no error and no warning (an unused component, a missing
 * license or an undocumented operation would each be one).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { OPENAPI_FILE } from '../support/openapi-validator';

const REDOCLY = path.resolve(__dirname, '../../node_modules/@redocly/cli/bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

describe('redocly lint of schema/rest/openapi.json', () => {
  it('when the document is linted with the recommended rules, then there is no error and no warning', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [REDOCLY, 'lint', OPENAPI_FILE, '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const report = JSON.parse(stdout) as LintReport;

    expect(
      report.problems.map(
        (problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
      ),
    ).toEqual([]);
    expect(report.totals).toEqual(expect.objectContaining({ errors: 0, warnings: 0 }));
  });
});
