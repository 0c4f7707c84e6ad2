import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** The Debian package's binary: no browser is downloaded by the test suite. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Flags that keep the browser from reaching anywhere on its own (updates, sync, safe
 * browsing lists...), so every request it makes comes from the page under test.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const;

/** Why browser tests cannot run here, or undefined when they can. */
export function chromiumMissingReason(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `${CHROMIUM_PATH} does not exist (install the Debian package "chromium" to run browser tests)`;
}

export interface HeadlessBrowser {
  readonly context: BrowserContext;
  /** Closes the browser and deletes its profile; safe to call twice. */
  close(): Promise<void>;
}

/** Headless Chromium on a fresh, throw-away profile (no storage carried over between runs). */
export async function launchChromium(): Promise<HeadlessBrowser> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [...CHROMIUM_ARGS],
      viewport: { width: 1400, height: 900 },
      timeout: 30_000,
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  let closed = false;
  return {
    context,
    close: async () => {
      if (closed) return;
      closed = true;
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
