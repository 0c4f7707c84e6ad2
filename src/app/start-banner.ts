import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger';
import type { DemoBootstrap } from './demo-bootstrap';

/** The file in DATA_DIR that receives the demo key when stdout is not a terminal. */
export const DEMO_KEY_FILE = 'demo-api-key.txt';

/** Where the banner goes: process.stdout in `npm start`. */
export interface BannerOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * For the person who ran `npm start`: where to go, and the demo key this start created. The key
 * is printed only to a terminal. When stdout is not one (a container, a pipe, a log collector)
 * it is the stream of the JSON logs, so the key goes to DATA_DIR/demo-api-key.txt (mode 0600)
 * instead and only that file's path is logged.
 */
export function showStartBanner(
  url: string,
  demo: DemoBootstrap | undefined,
  options: { output: BannerOutput; dataDir: string; logger: Logger },
): void {
  const lines = [
    '',
    `Candidate Directory is running at ${url}`,
    `  GraphQL playground: ${url}/graphql`,
    `  REST API:           ${url}/v1/candidates (OpenAPI: ${url}/openapi.json)`,
  ];
  if (demo?.createdKey && options.output.isTTY) {
    lines.push(`  Demo API key (shown only now): ${demo.createdKey}`);
  } else if (demo?.createdKey) {
    const file = writeDemoKeyFile(options.dataDir, demo.createdKey);
    options.logger.info(
      { file },
      'demo API key written to a file readable only by this user (stdout is not a terminal)',
    );
    lines.push(`  Demo API key: written to ${file} (stdout is not a terminal)`);
  } else if (demo) {
    lines.push(
      `  Demo API key: printed (or written to ${DEMO_KEY_FILE} in DATA_DIR) at the first start, or DEMO_API_KEY; \`npm run keys -- create\` makes another.`,
    );
  }
  options.output.write(`${lines.join('\n')}\n\n`);
}

/** Writes `key` to DATA_DIR/demo-api-key.txt, mode 0600 even when the file already existed; returns the file's path. */
export function writeDemoKeyFile(dataDir: string, key: string): string {
  const file = path.join(dataDir, DEMO_KEY_FILE);
  // Opened with mode 0600 and truncated, then set to 0600: `mode` applies only to a file this call creates.
  const fd = fs.openSync(file, 'w', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, `${key}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
