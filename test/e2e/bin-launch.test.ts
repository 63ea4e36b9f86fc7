/**
 * End-to-end: `bin/evalrun.js` run as an executable, the way npm's bin link
 * and a shell run it (a plain `#!/usr/bin/env node` script), and through
 * `node` as on systems without shebangs.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCommand, withoutProgress, type CliRun } from './run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'evalrun.js');

function run(command: string, args: readonly string[]): Promise<CliRun> {
  return runCommand(command, args, { cwd: ROOT });
}

describe('bin/evalrun.js as an executable', () => {
  it('starts as an executable and through node alike', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const [command, args] of [
      [BIN, []],
      [process.execPath, [BIN]],
    ] as const) {
      const r = await run(command, [...args, '--version']);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(version);
      expect(r.stderr).toBe('');
    }
  });

  it('is a plain node script that npm can wrap on every platform', () => {
    expect(readFileSync(BIN, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('passes every argument through unchanged, spaces included, and keeps the exit code', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'evalrun-bin-')), 'a folder with spaces');
    cpSync(join(ROOT, 'test', 'fixtures', 'cli-pass'), join(dir, 'problems'), { recursive: true });
    const out = join(dir, 'score card.json');
    const r = await run(BIN, ['--problems', join(dir, 'problems'), '--out', out]);
    expect(withoutProgress(r.stderr)).toBe('');
    expect(r.code).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.summary.passed).toBe(10);

    const missing = await run(BIN, ['--problems', join(dir, 'no such folder')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such folder');
  });
});
