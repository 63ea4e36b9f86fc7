/**
 * End-to-end: a compiled extension module from --python-packages (the
 * WebAssembly side module of test/fixtures/python-ext, in a Pyodide-built
 * wheel and as a bare .so) is imported and called by Python candidates
 * through the CLI, and a candidate's forged copy of it is refused.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { EXTENSION_FIXTURES, extensionPackages } from '../python/wheel.js';
import { runCli, withoutProgress } from './run-cli.js';

const RUN_MS = 240_000;

async function run(args: string[]): Promise<{ code: number | null; card: Scorecard; stderr: string }> {
  const out = join(mkdtempSync(join(tmpdir(), 'evalrun-e2e-ext-')), 'card.json');
  const r = await runCli([...args, '--out', out]);
  if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
  return { code: r.code, card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard, stderr: r.stderr };
}

function candidate(card: Scorecard, model: string): CandidateResult {
  const found = card.candidates.find((c) => c.problem_id === 'ext_add' && c.model_id === model);
  if (found === undefined) throw new Error(`no candidate ${model}`);
  return found;
}

describe('compiled extension modules through the CLI', () => {
  const problems = join(EXTENSION_FIXTURES, 'problems');

  it(
    'self-checks a problem whose solution calls the extension from a wheel',
    async () => {
      const { code, card, stderr } = await run(['--problems', problems, '--python-packages', extensionPackages()]);
      expect(withoutProgress(stderr)).toBe('');
      const c = candidate(card, 'optimal_solution');
      expect(c.error).toBeNull();
      expect(c.tests.map((t) => t.status)).toEqual(['pass', 'pass']);
      expect(code).toBe(0);
    },
    RUN_MS,
  );

  it(
    'passes a submission that imports the extension, and refuses one that forges it',
    async () => {
      const args = ['--problems', problems, '--solutions', join(EXTENSION_FIXTURES, 'solutions'), '--python-packages', extensionPackages()];
      const { card } = await run(args);
      expect(candidate(card, 'native').tests.map((t) => t.status)).toEqual(['pass', 'pass']);
      const forged = candidate(card, 'forged');
      expect(forged.tests.map((t) => t.status)).toEqual(['error', 'error']);
      expect(JSON.stringify(forged)).toContain('evalrun: refused to load WebAssembly code that is not one of the shared libraries (.so) of --python-packages');
    },
    RUN_MS,
  );
});
