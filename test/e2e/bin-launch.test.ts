/**
 * End-to-end: `bin/evalrun.js` run as an executable, the way npm's bin link
 * and a shell run it. Its first two lines are read by sh as well as by
 * Node: sh starts Node on the same file without NODE_EXTRA_CA_CERTS, which
 * Node would otherwise parse before any of evalrun's code runs.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'evalrun.js');

/** A path Node cannot load certificates from: it then prints a warning, which shows it tried. */
const MISSING_CERTS = join(tmpdir(), 'evalrun-no-such-dir', 'extra-ca.pem');
const CERT_WARNING = /extra certs/i;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, NODE_EXTRA_CA_CERTS: MISSING_CERTS },
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
