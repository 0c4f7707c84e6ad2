import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** scripts/check-links.mjs (`npm run links`, run by .ci/run): local links and #anchors of the docs. */
const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/check-links.mjs');

function checkLinks(cwd: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [SCRIPT], { cwd, encoding: 'utf8' });
  if (run.error) throw run.error;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('link check of README.md and docs/', () => {
  test('when a link names a missing file and another an anchor no heading defines, then it fails naming exactly those two', () => {
    // The fixture also holds good links: files, GitHub slugs of headings with code and
    // punctuation, a repeated heading (-1), an <a id>, an external link, and links inside code.
    const { status, stderr } = checkLinks(path.join(ROOT, 'test/fixtures/links'));

    expect(stderr.trim().split('\n')).toEqual([
      'README.md:7: docs/missing.md: no file docs/missing.md',
      'README.md:7: docs/guide.md#no-such-section: no anchor #no-such-section in docs/guide.md',
      '2 broken link(s) in 2 file(s)',
    ]);
    expect(status).toBe(1);
  });

  test("when the repository's README.md and docs/ are checked, then no link is broken", () => {
    const { status, stdout, stderr } = checkLinks(ROOT);

    expect(stderr).toBe('');
    expect(stdout).toMatch(/none broken/);
    expect(status).toBe(0);
  });
});
