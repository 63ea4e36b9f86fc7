/**
 * Recursion that passes through C code recurses on the worker's native
 * stack: a `functools.cache`d function, `sum` or `max` over a generator, a
 * class's `__init__`. CPython takes each of these thousands of levels deep;
 * the sandbox must too, for every sample alike, whatever ran before it in
 * the worker (a sample that overflowed included).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

const DEPTHS = [1000, 3000, 5000];

const PATTERNS: Record<string, string> = {
  cache: 'from functools import cache\n@cache\ndef f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\n',
  lru_cache_two_arguments:
    'from functools import lru_cache\ndef f(n):\n    @lru_cache(maxsize=None)\n    def g(i, j):\n        return 0 if i == 0 else 1 + g(i - 1, j)\n    return g(n, 0)\n',
  sum_of_generator: 'def f(n):\n    return 0 if n == 0 else 1 + sum(f(k) for k in [n - 1])\n',
  max_of_map: 'def f(n):\n    return 0 if n == 0 else 1 + max(map(f, [n - 1]))\n',
  constructor:
    'class Node:\n    def __init__(self, n):\n        self.child = Node(n - 1) if n > 0 else None\n        self.depth = 0 if n == 0 else self.child.depth + 1\ndef f(n):\n    return Node(n).depth\n',
};

// Recursion with no end: it overflows whatever the stack, and must cost only itself.
const RUNAWAY = 'def f(n):\n    return 1 + sum(f(k) for k in [n + 1])\n';

describe('recursion through C code', () => {
  const root = mkdtempSync(join(tmpdir(), 'evalrun-recursion-'));
  const problems = join(root, 'problems');
  const solutions = join(root, 'solutions');
  mkdirSync(problems);
  mkdirSync(solutions);
  writeFileSync(
    join(problems, 'depth.json'),
    JSON.stringify({
      identifier: 'depth',
      description: 'The depth of a recursion n levels deep.',
      function_prototype: { function_name: 'f', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
      correctness_test_suite: DEPTHS.map((n) => ({ input: { n }, expected_output: [n] })),
      prompts: [],
    }),
  );
  const raised = 'import sys\nsys.setrecursionlimit(100000)\n';
  const lines = Object.entries(PATTERNS).flatMap(([model, body], i) => [
    { task_id: 'depth', model, completion: raised + body },
    ...(i === 1 ? [{ task_id: 'depth', model: 'runaway', completion: raised + RUNAWAY }] : []),
    { task_id: 'depth', model, completion: raised + body },
  ]);
  writeFileSync(join(solutions, 'samples.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const out = join(root, 'card.json');
  const run = runCli(['--problems', problems, '--solutions', solutions, '--out', out, '--concurrency', '1', '--timeout', '20000']).then(
    () => JSON.parse(readFileSync(out, 'utf8')) as Scorecard,
  );

  it.each(Object.keys(PATTERNS))('goes as deep as CPython through %s, in every sample', async (model) => {
    const card = await run;
    const samples = card.candidates.filter((c) => c.model_id === model);
    expect(samples).toHaveLength(2);
    for (const sample of samples) expect(sample.tests.map((t) => t.status)).toEqual(DEPTHS.map(() => 'pass'));
  });

  it('ends a recursion with no end as a RecursionError of its own tests', async () => {
    const runaway = (await run).candidates.find((c) => c.model_id === 'runaway');
    for (const test of runaway?.tests ?? []) {
      expect(test.status).toBe('error');
      expect(test.error).toMatch(/^RecursionError/);
    }
    expect(runaway?.tests).toHaveLength(DEPTHS.length);
  });
});

describe('recursion through C code, deep and long', () => {
  // Deep enough, and run long enough, that V8 compiles Pyodide's hot
  // functions again with its optimizing compiler during the first sample:
  // that code's frames are larger, and it is shared by every later sample.
  // Where the recursion stops must not depend on it: CPython's own check of
  // its C stack ends it, with a RecursionError the candidate can catch.
  const depths = [2000, 4000, 7000, 12000, 20000, 1_000_000];
  const beyond = depths.length - 1;

  function writeSet(root: string, samples: readonly { model: string; code: string }[]): void {
    mkdirSync(join(root, 'problems'));
    mkdirSync(join(root, 'solutions'));
    writeFileSync(
      join(root, 'problems', 'steps.json'),
      JSON.stringify({
        identifier: 'steps',
        description: 'Steps of a memoized recursion.',
        function_prototype: { function_name: 'steps', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
        correctness_test_suite: depths.map((n) => ({ input: { n }, expected_output: [n] })),
        prompts: [],
      }),
    );
    const lines = samples.map(({ model, code }) => JSON.stringify({ task_id: 'steps', model, completion: code }));
    writeFileSync(join(root, 'solutions', 'samples.jsonl'), lines.join('\n') + '\n');
  }

  async function grade(samples: readonly { model: string; code: string }[]): Promise<Scorecard> {
    const root = mkdtempSync(join(tmpdir(), 'evalrun-recursion-deep-'));
    writeSet(root, samples);
    const out = join(root, 'card.json');
    await runCli(['--problems', join(root, 'problems'), '--solutions', join(root, 'solutions'), '--out', out, '--concurrency', '1', '--timeout', '20000']);
    return JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
  }

  const memoized =
    'import sys\nfrom functools import cache\nsys.setrecursionlimit(10**7)\ndef steps(n):\n    @cache\n    def dp(i):\n        return 0 if i == 0 else dp(i - 1) + 1\n    return dp(n)\n';

  it("reaches the same depth in every sample a worker runs, and ends beyond it with CPython's RecursionError", async () => {
    const card = await grade(Array.from({ length: 6 }, () => ({ model: 'memoized', code: memoized })));
    expect(card.candidates).toHaveLength(6);
    for (const candidate of card.candidates) {
      const tests = candidate.tests;
      expect(tests.slice(0, beyond).map((t) => t.status)).toEqual(depths.slice(0, beyond).map(() => 'pass'));
      expect(tests[beyond]?.status).toBe('error');
      // CPython's own check, not the native stack's overflow (which would drop the interpreter).
      expect(tests[beyond]?.error).toMatch(/^RecursionError: Stack overflow/);
    }
  });

  it('frees a chain built in a loop, 400,000 links long, as CPython does', async () => {
    // Freeing a chain recurses in C on the native stack alone, unmeasured by CPython.
    const chain = 'def steps(n):\n    path = None\n    for i in range(min(n, 400_000)):\n        path = (i, path)\n    return n\n';
    const card = await grade([{ model: 'chain', code: chain }]);
    expect(card.candidates[0]?.tests.map((t) => t.status)).toEqual(depths.map(() => 'pass'));
  });

  it('lets a candidate catch the RecursionError and go on in the same interpreter', async () => {
    const caught = (body: string): string =>
      `import sys\nsys.setrecursionlimit(10**7)\n${body}\ndef steps(n):\n    try:\n        return deep(n)\n    except RecursionError:\n        return n\n`;
    const card = await grade([
      { model: 'memoized', code: caught('from functools import cache\n@cache\ndef deep(i):\n    return 0 if i == 0 else deep(i - 1) + 1') },
      {
        model: 'nested-lists',
        code: caught('def deep(n):\n    x, y = [], []\n    for _ in range(n):\n        x, y = [x], [y]\n    return n if x == y else -1'),
      },
      { model: 'generator', code: caught('def deep(n):\n    return 0 if n == 0 else 1 + sum(deep(k) for k in [n - 1])') },
    ]);
    for (const candidate of card.candidates) {
      expect([candidate.model_id, candidate.tests.map((t) => t.status)]).toEqual([candidate.model_id, depths.map(() => 'pass')]);
    }
  });
});
