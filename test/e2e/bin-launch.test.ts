/**
 * End-to-end: `bin/evalrun.js` run as an executable, the way npm's bin link
 * and a shell run it. Its first two lines are read by sh as well as by
 * Node: sh starts Node on the same file without NODE_EXTRA_CA_CERTS, which
 * Node would otherwise parse before any of evalrun's code runs.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCommand, type CliRun } from './run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'evalrun.js');

/** A path Node cannot load certificates from: it then prints a warning, which shows it tried. */
const MISSING_CERTS = join(tmpdir(), 'evalrun-no-such-dir', 'extra-ca.pem');
const CERT_WARNING = /extra certs/i;

function run(command: string, args: readonly string[]): Promise<CliRun> {
  return runCommand(command, args, { cwd: ROOT, env: { NODE_EXTRA_CA_CERTS: MISSING_CERTS } });
}

describe('bin/evalrun.js as an executable', () => {
  it('run by node directly, the CLI loads NODE_EXTRA_CA_CERTS (the check below can fail)', async () => {
    const r = await run(process.execPath, [BIN, '--version']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(CERT_WARNING);
  });

  it('starts the CLI without NODE_EXTRA_CA_CERTS', async () => {
    const r = await run(BIN, ['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
    expect(r.stderr).not.toMatch(CERT_WARNING);
  });

  it('passes every argument through unchanged, spaces included, and keeps the exit code', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'evalrun-bin-')), 'a folder with spaces');
    cpSync(join(ROOT, 'test', 'fixtures', 'cli-pass'), join(dir, 'problems'), { recursive: true });
    const out = join(dir, 'score card.json');
    const r = await run(BIN, ['--problems', join(dir, 'problems'), '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.summary.passed).toBe(10);

    const missing = await run(BIN, ['--problems', join(dir, 'no such folder')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such folder');
  });
});
