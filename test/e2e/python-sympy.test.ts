/**
 * End-to-end: sympy and mpmath, as this machine's python3 has them
 * installed, given to --python-packages as a package folder (links to the
 * installed folders). sympy 1.14 imports `ctypes` for `sizeof(c_long)`,
 * which the sandbox's data-only ctypes answers, and its multipledispatch
 * reads its caller's frame at import, which candidate frames allow
 * (docs/ISOLATION.md). Skipped, saying why, when python3 has no sympy.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';
import { py } from '../python-source.js';

/** The folder holding sympy/ and mpmath/ for the first python3 that has both, or why there is none. */
function findSympy(): { dir: string } | { reason: string } {
  const snippet = 'import os, sympy, mpmath; print(os.path.dirname(os.path.dirname(sympy.__file__))); print(os.path.dirname(os.path.dirname(mpmath.__file__)))';
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      const [sympyDir, mpmathDir] = execFileSync(python, ['-c', snippet], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .trim()
        .split('\n');
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
  it('imports and computes: simplify, solve, symbols, Rational (and mpmath)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-sympy-'));
    const problems = join(root, 'problems');
    mkdirSync(problems);
    writeFileSync(
      join(problems, 'mp_sqrt.json'),
      JSON.stringify(
        problem(
          'mp_sqrt',
          py`
        import mpmath

        def compute():
            mpmath.mp.dps = 20
            return str(mpmath.sqrt(2))
      `,
          '1.4142135623730950488',
        ),
      ),
    );
    const simplify = py`
      from sympy import symbols, simplify, sin, cos

      def compute():
          x = symbols("x")
          return str(simplify(sin(x)**2 + cos(x)**2))
    `;
    writeFileSync(join(problems, 'sym_simplify.json'), JSON.stringify(problem('sym_simplify', simplify, '1')));
    const solve = py`
      from sympy import symbols, solve

      def compute():
          x = symbols("x")
          return str(sorted(solve(x**2 - 4, x)))
    `;
    writeFileSync(join(problems, 'sym_solve.json'), JSON.stringify(problem('sym_solve', solve, '[-2, 2]')));
    const rational = py`
      from sympy import Rational

      def compute():
          return str(Rational(1, 3) + Rational(1, 6))
    `;
    writeFileSync(join(problems, 'sym_rational.json'), JSON.stringify(problem('sym_rational', rational, '1/2')));
    const out = join(root, 'card.json');
    // Importing sympy costs seconds of interpreter time, all of it inside the candidate's load, which --timeout bounds.
    const r = await runCli(['--problems', problems, '--python-packages', (found as { dir: string }).dir, '--timeout', '60000', '--out', out]);
    if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    const statusOf = (id: string) => {
      const c = card.candidates.find((candidate) => candidate.problem_id === id);
      return [c?.error ?? null, ...(c?.tests.map((t) => (t.status === 'pass' ? 'pass' : `${t.status}: ${t.error ?? ''}`)) ?? [])];
    };
    expect(statusOf('mp_sqrt')).toEqual([null, 'pass']);
    expect(statusOf('sym_simplify')).toEqual([null, 'pass']);
    expect(statusOf('sym_solve')).toEqual([null, 'pass']);
    expect(statusOf('sym_rational')).toEqual([null, 'pass']);
    expect(r.code).toBe(0);
  }, 300_000);

  it('imports from pure wheels too (py3-none-any, read by the zip importer)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-sympy-wheels-'));
    const wheels = join(root, 'wheels');
    mkdirSync(wheels);
    // Wheels made here from the installed packages: a wheel is a zip of the package folders.
    const zip = [
      'import sys, zipfile, pathlib',
      'src, out, name = sys.argv[1], sys.argv[2], sys.argv[3]',
      'base = pathlib.Path(src)',
      'with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:',
      '    for p in sorted((base / name).rglob("*")):',
      '        if p.is_file() and "__pycache__" not in p.parts:',
      '            z.write(p, p.relative_to(base).as_posix())',
    ].join('\n');
    const dir = (found as { dir: string }).dir;
    execFileSync('python3', ['-c', zip, dir, join(wheels, 'sympy-1.14.0-py3-none-any.whl'), 'sympy']);
    execFileSync('python3', ['-c', zip, dir, join(wheels, 'mpmath-1.3.0-py3-none-any.whl'), 'mpmath']);
    const problems = join(root, 'problems');
    mkdirSync(problems);
    const rational = py`
        from sympy import Rational, symbols, solve

        def compute():
            x = symbols("x")
            return str(Rational(1, 3) + Rational(1, 6)) + " " + str(sorted(solve(x**2 - 4, x)))
      `;
    writeFileSync(join(problems, 'sym_wheel.json'), JSON.stringify(problem('sym_wheel', rational, '1/2 [-2, 2]')));
    const out = join(root, 'card.json');
    const r = await runCli(['--problems', problems, '--python-packages', wheels, '--timeout', '60000', '--out', out]);
    if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    const c = card.candidates.find((candidate) => candidate.problem_id === 'sym_wheel');
    expect([c?.error ?? null, ...(c?.tests.map((t) => (t.status === 'pass' ? 'pass' : `${t.status}: ${t.error ?? ''}`)) ?? [])]).toEqual([null, 'pass']);
  }, 300_000);
});
