import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { REPO } from './service';

export interface Machine {
  cpus: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
  kernel: string;
}

export function machine(): Machine {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) cpuModel = match[1].trim();
  } catch {
    // os.cpus() then.
  }
  let cpus = os.cpus().length;
  try {
    cpus = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || cpus;
  } catch {
    // os.cpus() then.
  }
  return {
    cpus,
    cpuModel,
    ramGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
  };
}

export interface Commit {
  short: string;
  /** files changed in the working tree, as `git status --short` lists them */
  dirtyFiles: string[];
}

export function commit(): Commit {
  const git = (...args: string[]): string => {
    try {
      // trimEnd: the first column of `status --short` may be a space.
      return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trimEnd();
    } catch {
      return '';
    }
  };
  const status = git('status', '--short');
  return {
    short: git('rev-parse', '--short', 'HEAD') || 'unknown',
    dirtyFiles: status === '' ? [] : status.split('\n'),
  };
}
