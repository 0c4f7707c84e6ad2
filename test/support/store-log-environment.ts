import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import { STORE_LOG_VARIABLE } from './store-log-variable';

/**
 * The jest environment of every suite (jest.config.js): node's, with the log of the embedded
 * store children a test file starts (their stderr, JSON lines) kept in a file of its own
 * (store-log-setup.ts routes them there) instead of jest's output. The lines written while a test ran are
 * printed after it only when it failed (and all lines since the last test when a hook failed),
 * so a passing run shows no store log at all.
 */
export default class StoreLogEnvironment extends TestEnvironment {
  private readonly logFile = path.join(os.tmpdir(), `store-children-${randomUUID()}.log`);
  /** bytes of the log already accounted for (shown, or written before the running test began) */
  private shown = 0;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.global.process.env[STORE_LOG_VARIABLE] = this.logFile;
  }

  override async teardown(): Promise<void> {
    fs.rmSync(this.logFile, { force: true });
    await super.teardown();
  }

  async handleTestEvent(event: Circus.Event): Promise<void> {
    if (event.name === 'test_start') {
      this.shown = this.size();
    } else if (event.name === 'test_done' && event.test.errors.length > 0) {
      this.print(`the test "${event.test.name}" failed`);
    } else if (event.name === 'hook_failure') {
      this.print(`a ${event.hook.type} hook failed`);
    }
  }

  private size(): number {
    try {
      return fs.statSync(this.logFile).size;
    } catch {
      return 0;
    }
  }

  /** Writes the lines not shown yet to stderr, headed by why. */
  private print(why: string): void {
    const end = this.size();
    if (end <= this.shown) return;
    const buffer = Buffer.alloc(end - this.shown);
    const fd = fs.openSync(this.logFile, 'r');
    try {
      fs.readSync(fd, buffer, 0, buffer.length, this.shown);
    } finally {
      fs.closeSync(fd);
    }
    this.shown = end;
    process.stderr.write(
      `\n--- embedded store log while ${why} ---\n${buffer.toString('utf8')}--- end of store log ---\n`,
    );
  }
}
