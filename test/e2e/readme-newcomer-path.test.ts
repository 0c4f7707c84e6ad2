import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const ROOT = path.resolve(__dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** Where the README's commands send requests: the address the quick start prints. */
const README_ORIGIN = 'http://127.0.0.1:8080';

/** The `sh` code blocks of the README section headed `heading`, continuation lines joined. */
function commandsUnder(heading: string): string[] {
  const section = new RegExp(`^#+ ${heading}\\n([\\s\\S]*?)(?=^#+ )`, 'm').exec(README)?.[1];
  if (section === undefined) throw new Error(`README has no section "${heading}"`);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks
    .join('')
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('export '));
}

/** A command line split as sh splits it: single and double quotes, `$KEY` expanded in double quotes and bare words. */
function words(line: string, key: string): string[] {
  const out: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    if (match[1] !== undefined) out.push(match[1]);
    else out.push((match[2] ?? match[3]).replace(/\\(.)/g, '$1').replaceAll('$KEY', key));
  }
  return out;
}

/** What curl would send for `args` (-H, -d and the URL), sent to the running service instead. */
async function curl(args: string[], service: ServiceProcess): Promise<Response> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-H') {
      const [name, ...value] = args[++i].split(':');
      headers[name.trim().toLowerCase()] = value.join(':').trim();
    } else if (args[i] === '-d') body = args[++i];
    else url = args[i];
  }
  if (url === undefined || !url.startsWith(README_ORIGIN))
    throw new Error(`curl without a URL of the quick start: ${args.join(' ')}`);
  return fetch(service.url + url.slice(README_ORIGIN.length), {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

/**
 * The newcomer's path, as the README writes it: the commands of its quick start, taken from the
 * README itself and run against `npm start` on a fresh data directory (a printed key, the first
 * REST call, the first GraphQL query, then a partner's key made with the keys tool while the
 * service runs, which the service accepts at once). A README whose commands stop working fails here.
 */
describe('the README quick start, followed', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-'));
  let service: ServiceProcess;

  beforeAll(async () => {
    service = await startServiceProcess({ DATA_DIR: dataDir, DEMO_CANDIDATES: '300', LOG_LEVEL: 'info' }, 90_000);
  }, 120_000);

  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('when the first REST call is made with the printed key, then it answers a page of candidates', async () => {
    const [command] = commandsUnder('Your first REST call');
    const args = words(command, service.key!);

    const response = await curl(args.slice(1), service);
    const page = (await response.json()) as { content: unknown[]; totalElements: number };

    expect(args[0]).toBe('curl');
    expect(response.status).toBe(200);
    expect(page.totalElements).toBeGreaterThan(0);
    expect(page.content.length).toBeGreaterThan(0);
  });

  test('when the first GraphQL query is sent with the printed key, then it answers data without errors', async () => {
    const [command] = commandsUnder('Your first GraphQL query');
    const args = words(command, service.key!);

    const response = await curl(args.slice(1), service);
    const body = (await response.json()) as { data?: { candidates: { content: unknown[] } }; errors?: unknown };

    expect(response.status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data?.candidates.content.length).toBeGreaterThan(0);
  });

  test('when a partner key is made with the keys command of the README while the service runs, then the service accepts it', async () => {
    const [command] = commandsUnder('Your first API key for a partner');
    const args = words(command, '');
    const toolArgs = args.slice(args.indexOf('--') + 1);

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/cli/keys.ts', ...toolArgs],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'error' },
      },
    );
    const key = stdout.trim().split('\n').at(-1)!;
    const [rest] = commandsUnder('Your first REST call');
    const response = await curl(words(rest, key).slice(1), service);

    expect(args.slice(0, 3)).toEqual(['npm', 'run', 'keys']);
    expect(response.status).toBe(200);
  }, 60_000);
});
