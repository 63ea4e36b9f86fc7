/**
 * End-to-end: Python candidates see exactly the declared types, integers
 * are exact both ways, numbers are judged with Python's equality (or
 * strictly with --strict-types), and --python-packages makes a wheel and a
 * package folder importable. The problem files are
 * test/fixtures/python-values; the wheel and the package folder are built
 * here, in a scratch folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { zip } from '../python/wheel.js';
import { runCli, withoutProgress } from './run-cli.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'python-values');
const RUN_MS = 240_000;

/** A folder with a pure-Python wheel and an unpacked package, as --python-packages takes it. */
function buildPackages(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evalrun-e2e-pkgs-'));
  writeFileSync(
    join(dir, 'tinypkg-1.0-py3-none-any.whl'),
    zip({
      'tinypkg/__init__.py': "NAME = 'tinypkg'\n",
      'tinypkg-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n',
      'tinypkg-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    }),
  );
  // Named as Pyodide builds it: unpacked inside the interpreter on first import.
  writeFileSync(join(dir, 'lazypkg-1.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl'), zip({ 'lazypkg/__init__.py': "VALUE = 'lazy'\n" }));
  // A wheel for another platform is left out: it could never load here.
  writeFileSync(join(dir, 'native-1.0-cp314-cp314-manylinux_2_17_x86_64.whl'), zip({ 'native/__init__.py': '' }));
  mkdirSync(join(dir, 'folderpkg'));
  writeFileSync(join(dir, 'folderpkg', '__init__.py'), "def helper():\n    return 'folderpkg'\n");
  return dir;
}

async function run(args: string[]): Promise<{ code: number | null; card: Scorecard; stderr: string }> {
  const out = join(mkdtempSync(join(tmpdir(), 'evalrun-e2e-values-')), 'card.json');
  const r = await runCli([...args, '--out', out]);
  if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
  return { code: r.code, card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard, stderr: r.stderr };
}

function candidate(card: Scorecard, problem: string, model: string): CandidateResult {
  const found = card.candidates.find((c) => c.problem_id === problem && c.model_id === model && c.prompt_id === null);
  if (found === undefined) throw new Error(`no candidate ${model}/${problem}`);
  return found;
}

function statuses(c: CandidateResult): string[] {
  return c.tests.map((t) => t.status);
}

describe('Python values, exact integers, number equality and packages, through the CLI', () => {
  let packages = '';
  beforeAll(() => {
    packages = buildPackages();
  });

  it(
    'self-checks a problem that exercises every rule in one call',
    async () => {
      const { code, card, stderr } = await run(['--problems', join(FIXTURES, 'problems'), '--problem', 'values_all', '--python-packages', packages]);
      expect(withoutProgress(stderr)).toBe('');
      const c = candidate(card, 'values_all', 'optimal_solution');
      expect(c.error).toBeNull();
      expect(statuses(c)).toEqual(['pass']);
      expect(code).toBe(0);
      expect(card.options).toMatchObject({ strict_types: false, equality: { python: 'python', javascript: 'javascript' } });
      // Python's kinds are recorded as tags; the candidate returned 1 for a bool and the int it was
      // given for `Union[float, int]` (written 2, so an int) where 2.0 is expected.
      const test = c.tests[0]!;
      expect(test.actual).toEqual({
        $evalrun: 'tuple',
        items: [
          'tuple list:tuple set:tuple dict:int dict:tuple float int frozenset int any:tuple,set tinypkg folderpkg lazy read-only',
          { $evalrun: 'int', value: '100000000000000000001' },
          { $evalrun: 'set', items: [1, 2] },
          {
            $evalrun: 'dict',
            entries: [
              [1, 'a'],
              [2, 'b'],
            ],
          },
          { $evalrun: 'tuple', items: [1, 2] },
          1,
          2,
        ],
      });
    },
    RUN_MS,
  );

  it(
    'writes integers beyond 2**53 to the scorecard with every digit',
    async () => {
      const out = join(mkdtempSync(join(tmpdir(), 'evalrun-e2e-values-')), 'card.json');
      await runCli(['--problems', join(FIXTURES, 'problems'), '--problem', 'big_next', '--out', out]);
      const text = readFileSync(out, 'utf8');
      expect(text).toContain('"expected":{"$evalrun":"int","value":"100000000000000000001"}');
      expect(text).not.toContain('100000000000000000000');
      expect(text).toContain('-12345678901234567890123');
      expect(text).toContain(String(-12345678901234567890123n * 10n ** 20n + 1n));
    },
    RUN_MS,
  );

  describe('grading submissions', () => {
    let graded: Promise<{ code: number | null; card: Scorecard; stderr: string }>;
    let strict: Promise<{ code: number | null; card: Scorecard; stderr: string }>;
    beforeAll(() => {
      const args = ['--problems', join(FIXTURES, 'problems'), '--solutions', join(FIXTURES, 'solutions')];
      graded = run(args);
      strict = run([...args, '--strict-types', '--model', 'loose_numbers', '--model', 'right']);
    });

    it(
      'passes exact big integers, from Python and from JavaScript (BigInt)',
      async () => {
        const { card } = await graded;
        expect(statuses(candidate(card, 'big_next', 'right'))).toEqual(['pass', 'pass']);
        expect(statuses(candidate(card, 'big_next', 'javascript'))).toEqual(['pass', 'pass']);
      },
      RUN_MS,
    );

    it(
      'fails a big-integer off-by-one and a float for a big integer (hostile pairs)',
      async () => {
        const { card } = await graded;
        expect(statuses(candidate(card, 'big_next', 'off_by_one'))).toEqual(['fail', 'fail']);
        const asFloat = candidate(card, 'big_next', 'as_float');
        expect(statuses(asFloat)).toEqual(['fail', 'fail']);
        expect(asFloat.tests[0]!.error).toContain('expected 100000000000000000001');
      },
      RUN_MS,
    );

    it(
      'reads dict keys by the declared key type: a Python str key is not an int key, a JavaScript property name is',
      async () => {
        const { card } = await graded;
        expect(statuses(candidate(card, 'keyed', 'right'))).toEqual(['pass']);
        expect(statuses(candidate(card, 'keyed', 'str_keys'))).toEqual(['fail']);
        expect(statuses(candidate(card, 'keyed', 'javascript'))).toEqual(['pass']);
      },
      RUN_MS,
    );

    it(
      "judges Python numbers with Python's equality, and strictly with --strict-types",
      async () => {
        const loose = await graded;
        expect(statuses(candidate(loose.card, 'flags', 'loose_numbers'))).toEqual(['pass']);
        expect(statuses(candidate(loose.card, 'flags', 'right'))).toEqual(['pass']);
        const { card } = await strict;
        expect(card.options).toMatchObject({ strict_types: true, equality: { python: 'strict' } });
        const strictLoose = candidate(card, 'flags', 'loose_numbers');
        expect(statuses(strictLoose)).toEqual(['fail']);
        expect(strictLoose.tests[0]!.error).toContain('expected bool');
        expect(statuses(candidate(card, 'flags', 'right'))).toEqual(['pass']);
      },
      RUN_MS,
    );

    it(
      'says how to provide a module that is not available, instead of a traceback',
      async () => {
        const { card } = await graded;
        const c = candidate(card, 'needs_numpy', 'numpy');
        expect(statuses(c)).toEqual(['error']);
        expect(c.tests[0]!.error).toContain("module 'numpy' is not available; add a wheel to --python-packages");
      },
      RUN_MS,
    );

    it(
      'measures a candidate from when it starts running, not from when it was queued',
      async () => {
        const { card } = await graded;
        for (const c of card.candidates) {
          const ran = c.tests.reduce((sum, t) => sum + (t.duration_ms ?? 0), 0);
          expect(c.duration_ms).toBeGreaterThanOrEqual(Math.floor(ran) - c.tests.length);
        }
        const js = candidate(card, 'keyed', 'javascript');
        expect(js.duration_ms).toBeLessThan(500);
      },
      RUN_MS,
    );
  });
});
