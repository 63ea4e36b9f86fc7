/**
 * End-to-end: sympy and mpmath, as this machine's python3 has them
 * installed, given to --python-packages as a package folder (links to the
 * installed folders). sympy 1.14 imports `ctypes` for `sizeof(c_long)`,
 * which the sandbox's data-only ctypes answers; what it still cannot get
 * past is the frame seal (its multipledispatch reads its caller's frame at
 * import, docs/ISOLATION.md), and this test pins that until frames are
 * decided. Skipped, saying why, when python3 has no sympy.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

/** The folder holding sympy/ and mpmath/ for the first python3 that has both, or why there is none. */
function findSympy(): { dir: string } | { reason: string } {
  const snippet = 'import os, sympy, mpmath; print(os.path.dirname(os.path.dirname(sympy.__file__))); print(os.path.dirname(os.path.dirname(mpmath.__file__)))';
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      const [sympyDir, mpmathDir] = execFileSync(python, ['-c', snippet], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n');
      if (sympyDir === undefined || mpmathDir === undefined) continue;
      const dir = mkdtempSync(join(tmpdir(), 'evalrun-sympy-'));
      symlinkSync(join(sympyDir, 'sympy'), join(dir, 'sympy'));
      symlinkSync(join(mpmathDir, 'mpmath'), join(dir, 'mpmath'));
      return { dir };
    } catch {
      // This python3 is missing, or has no sympy: try the next one.
    }
  }
  return { reason: 'neither python3 nor /usr/bin/python3 can import sympy and mpmath (CI installs python3-sympy)' };
}

const found = findSympy();
if ('reason' in found) console.warn(`skipping the sympy end-to-end test: ${found.reason}`);

function problem(id: string, solution: string, expected: string): object {
  return {
    identifier: id,
    description: `A problem whose solution uses a package from --python-packages (${id}).`,
    prompts: [{ prompt_id: 'brief', prompt: 'Compute it.' }],
    function_prototype: { function_name: 'compute', parameters: [], return_values: [{ type: 'str' }] },
    correctness_test_suite: [{ input: {}, expected_output: { result: expected } }],
    optimal_solution: solution,
    tags: ['packages'],
  };
}

describe.skipIf('reason' in found)('sympy and mpmath from --python-packages', () => {
  it(
    'mpmath computes; sympy gets past ctypes and stops at the frame seal',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-sympy-'));
      const problems = join(root, 'problems');
      mkdirSync(problems);
      writeFileSync(join(problems, 'mp_sqrt.json'), JSON.stringify(problem('mp_sqrt', 'import mpmath\n\ndef compute():\n    mpmath.mp.dps = 20\n    return str(mpmath.sqrt(2))\n', '1.4142135623730950488')));
      const sympy = 'from sympy import symbols, simplify, sin, cos\n\ndef compute():\n    x = symbols("x")\n    return str(simplify(sin(x)**2 + cos(x)**2))\n';
      writeFileSync(join(problems, 'sym_simplify.json'), JSON.stringify(problem('sym_simplify', sympy, '1')));
      const out = join(root, 'card.json');
      // Importing sympy costs seconds of interpreter time, all of it inside the candidate's load, which --timeout bounds.
      const r = await runCli(['--problems', problems, '--python-packages', (found as { dir: string }).dir, '--timeout', '60000', '--out', out]);
      if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      const byId = (id: string) => card.candidates.find((c) => c.problem_id === id);
      expect(byId('mp_sqrt')?.tests.map((t) => t.status)).toEqual(['pass']);
      const text = JSON.stringify(byId('sym_simplify'));
      expect(text).toContain('PermissionError: evalrun: sys._getframe is not available to candidates');
      expect(text).not.toContain('ctypes');
    },
    300_000,
  );
});
