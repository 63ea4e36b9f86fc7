/**
 * The supervisor reads the languages' descriptors and never loads an
 * engine: a run through the library and one through the CLI grade their
 * candidates in workers while their own process never loads isolated-vm's
 * native module (every engine needs it, so no engine was loaded). The
 * check itself is shown to see the module once it is loaded. Uses the
 * built dist/.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from './run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const PROBLEMS = join(ROOT, 'test', 'fixtures', 'cli-pass');

/** Whether this process has isolated-vm's native module loaded. */
const LOADED = 'process.report.getReport().sharedObjects.some((s) => /isolated_vm[^/\\\\]*\\.node$/.test(s))';

describe('the supervisor and the engines', () => {
  it('grades through the library with every descriptor read and no engine loaded', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'evalrun-supervisor-')), 'card.json');
    const script = `
      const { evaluate } = await import(${JSON.stringify(join(ROOT, 'dist', 'src', 'index.js'))});
      const { allLanguages } = await import(${JSON.stringify(join(ROOT, 'dist', 'src', 'engines', 'find-language.js'))});
      const { detectLanguage } = await import(${JSON.stringify(join(ROOT, 'dist', 'src', 'solutions', 'language.js'))});
      const none = { declared: null, fenceLanguage: null };
      const detected = ['def f(a):\\n    return a', 'function f(a: number) { return a }', 'const f = (a) => a;'].map((c) => detectLanguage(c, none));
      const card = await evaluate({ problems: ${JSON.stringify(PROBLEMS)}, concurrency: 1, out: ${JSON.stringify(out)} });
      const before = ${LOADED};
      await import('isolated-vm');
      console.log(JSON.stringify({ languages: allLanguages().map((l) => l.name), detected, passed: card.summary.passed, before, after: ${LOADED} }));
    `;
    const r = await runCommand(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script]);
    expect(r.stderr.replace(/^evalrun: .*\n/gm, '')).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      languages: ['javascript', 'python'],
      detected: ['python', 'typescript', 'javascript'],
      passed: expect.any(Number) as number,
      before: false,
      after: true,
    });
    expect((JSON.parse(r.stdout) as { passed: number }).passed).toBeGreaterThan(0);
  }, 60_000);

  it('grades through the CLI bundle with no engine loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-supervisor-cli-'));
    const check = join(dir, 'check.cjs');
    writeFileSync(check, `process.on('exit', () => require('node:fs').writeSync(2, 'isolated-vm loaded: ' + ${LOADED} + '\\n'));\n`);
    const r = await runCommand(process.execPath, [
      '--require',
      check,
      join(ROOT, 'bin', 'evalrun.js'),
      '--problems',
      PROBLEMS,
      '--concurrency',
      '1',
      '--out',
      join(dir, 'card.json'),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('isolated-vm loaded: false');
  }, 60_000);
});
