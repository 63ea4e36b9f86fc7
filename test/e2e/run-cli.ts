import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'evalrun.js');

/** Runs the built CLI as a user would, from the repo root unless told otherwise. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return runCommand(process.execPath, [BIN, ...args], options);
}

/**
 * Stderr without the plain progress lines a run prints every few seconds
 * when it is not on a terminal: a slow (loaded) machine prints some, a fast
 * one none, and tests that expect silence mean silence apart from those.
 */
export function withoutProgress(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => !/^evalrun: \d+\/\d+ candidates /.test(line))
    .join('\n');
}

/** Runs any command to its end, collecting its output; `env` adds to this process's environment. */
export function runCommand(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? join(import.meta.dirname, '..', '..'),
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
