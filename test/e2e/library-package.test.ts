/**
 * End-to-end: evalrun as a library, installed the way a user installs it.
 * The package is packed with `npm pack` (the build has already run) and
 * installed into a temporary project; a TypeScript file there imports
 * `evaluate` and `loadProblems` from 'evalrun', is type-checked with strict
 * settings, and run. The temporary project starts from a copy of this
 * checkout's node_modules so that the install needs no network and does not
 * compile isolated-vm again.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCommand } from './run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/**
 * The checkout's TypeScript and Node types: the install prunes the
 * project's copy of our dev dependencies, as a user's project would not have them.
 */
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TSC_FLAGS = [
  '--target',
  'es2022',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--typeRoots',
  join(ROOT, 'node_modules', '@types'),
  '--types',
  'node',
  'use.mts',
];

const USER_CODE = `
import { evaluate, loadProblems, type Scorecard } from 'evalrun';

const loaded = await loadProblems('problems');
const names: string[] = loaded.problems.map((p) => p.id);
const card: Scorecard = await evaluate({ problems: 'problems', out: 'out/card.json', concurrency: 1, strictTypes: false, passAtK: [1] });
console.log(JSON.stringify({ names, invalid: loaded.invalid.length, summary: card.summary, candidates: card.candidates.length, mode: card.mode }));
`;

describe('the packed package, imported as a library', () => {
  let project = '';

  beforeAll(async () => {
    const work = mkdtempSync(join(tmpdir(), 'evalrun-lib-'));
    const packed = await runCommand(NPM, ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: ROOT });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();

    project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-evalrun', version: '1.0.0', private: true, type: 'module' }));
    cpSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    const installed = await runCommand(NPM, ['install', '--offline', '--no-audit', '--no-fund', join(work, tarball!)], { cwd: project });
    expect(installed.code, installed.stderr).toBe(0);
    cpSync(join(ROOT, 'test', 'fixtures', 'cli-pass'), join(project, 'problems'), { recursive: true });
    writeFileSync(join(project, 'use.mts'), USER_CODE);
  }, 240_000);

  it('ships what a user needs and nothing from the test suite', () => {
    const pkg = join(project, 'node_modules', 'evalrun');
    for (const file of ['bin/evalrun.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/bundle/cli.cjs', 'dist/bundle/worker.cjs', 'sandbox/harness.js']) {
      expect(existsSync(join(pkg, file)), file).toBe(true);
    }
    expect(existsSync(join(pkg, 'test'))).toBe(false);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
  });

  it('type-checks user code against the published types', async () => {
    const checked = await runCommand(process.execPath, [TSC, '--noEmit', '--strict', ...TSC_FLAGS], { cwd: project });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  }, 60_000);

  it('evaluate() grades and resolves to the scorecard the JSON reporter writes', async () => {
    // Node 20 runs the .mts file once its types are stripped; tsc does that here.
    const built = await runCommand(process.execPath, [TSC, ...TSC_FLAGS], { cwd: project });
    expect(built.code, built.stdout).toBe(0);
    const run = await runCommand(process.execPath, ['use.mjs'], { cwd: project });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { names: string[]; invalid: number; summary: Scorecard['summary']; candidates: number; mode: string };
    expect(printed.names.sort()).toEqual(['add', 'divmod_pair', 'mean']);
    expect(printed.invalid).toBe(0);
    expect(printed.mode).toBe('self-check');

    const written = JSON.parse(readFileSync(join(project, 'out', 'card.json'), 'utf8')) as Scorecard;
    expect(printed.summary).toEqual(written.summary);
    expect(printed.candidates).toBe(written.candidates.length);
    expect(written.summary.passed).toBe(written.summary.tests);
    expect(written.summary.tests).toBeGreaterThan(0);
    expect(existsSync(join(project, 'out', 'card.jsonl'))).toBe(true);
  }, 60_000);
});
