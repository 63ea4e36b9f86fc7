/**
 * Vitest's global setup: every temporary file or folder the tests make
 * (and the CLI runs they start, which inherit the environment) goes into
 * one folder of this run's own, removed when the run ends, so a test run
 * leaves nothing behind in the machine's temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'evalrun-tests-'));
  // os.tmpdir() reads TMPDIR on every call; the test workers are started after this and inherit it.
  process.env.TMPDIR = folder;
  return () => {
    rmSync(folder, { recursive: true, force: true });
  };
}
