/**
 * End-to-end: Python's time.sleep through the built CLI, as a user runs it.
 * A short sleep passes, a sleep past --timeout is `timeout` (never `error`),
 * and invalid arguments raise what CPython raises, inside the candidate.
 * The problem files are written here, in a scratch folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli, withoutProgress } from './run-cli.js';

const RUN_MS = 180_000;
const T = 3000;

function problem(identifier: string, code: string, tests: Array<[number, string]>): object {
  return {
    identifier,
    description: 'time.sleep in a Python optimal solution.',
    function_prototype: {
      function_name: 'nap',
      parameters: [{ name: 's', type: 'float' }],
      return_values: [{ type: 'str' }],
    },
    prompts: [],
    correctness_test_suite: tests.map(([s, expected]) => ({ input: { s }, expected_output: [expected] })),
    optimal_solution: code,
  };
}

const NAP = 'import time\n\ndef nap(s):\n    time.sleep(s)\n    return "awake"\n';
const CHECKED = [
  'import time',
  '',
  'def nap(s):',
  '    try:',
  '        time.sleep(s)',
  '    except ValueError as e:',
  '        return str(e)',
  '    return "awake"',
].join('\n');

function find(card: Scorecard, id: string): CandidateResult {
  const found = card.candidates.find((c) => c.problem_id === id);
  if (found === undefined) throw new Error(`no candidate ${id}`);
  return found;
}

describe('time.sleep through the CLI', () => {
  it(
    'a short sleep passes, a sleep past the limit is a timeout on its first run, a negative one raises ValueError',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'evalrun-e2e-sleep-'));
      const problems = join(dir, 'problems');
      const files: Record<string, object> = {
        'nap.json': problem('py_nap', NAP, [
          [0.05, 'awake'],
          [0, 'awake'],
        ]),
        'oversleep.json': problem('py_oversleep', NAP, [
          [3600, 'awake'],
          [0.01, 'awake'],
        ]),
        'negative.json': problem('py_negative', CHECKED, [[-1, 'sleep length must be non-negative']]),
      };
      mkdirSync(problems);
      for (const [name, body] of Object.entries(files)) writeFileSync(join(problems, name), JSON.stringify(body));
      const out = join(dir, 'card.json');
      const r = await runCli(['--problems', problems, '--out', out, '--timeout', String(T), '--concurrency', '2']);
      if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      expect(withoutProgress(r.stderr)).toBe('');
      expect(find(card, 'py_nap').tests.map((t) => t.status)).toEqual(['pass', 'pass']);
      expect(find(card, 'py_negative').tests.map((t) => t.status)).toEqual(['pass']);
      const oversleep = find(card, 'py_oversleep');
      expect(oversleep.tests.map((t) => t.status)).toEqual(['timeout', 'pass']);
      expect(oversleep.tests[0]!.error).toBe(`exceeded the time limit of ${T} ms`);
      // Run again as for a busy machine, the sleep would last through the limit
      // and then a stretched clock of four times the limit: five limits in all,
      // where one run takes one limit and a new interpreter for the next test.
      expect(oversleep.duration_ms).toBeLessThan(5 * T);
    },
    RUN_MS,
  );
});
