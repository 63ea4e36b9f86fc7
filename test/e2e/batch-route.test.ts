/**
 * Grading submissions end to end through the batch route: the workers read
 * the solution files, the supervisor plans, and the candidates go to the
 * workers in batches, those of one problem file together however the
 * solutions were laid out. One worker or three, the scorecard is the same
 * (apart from timings), every candidate gets its own verdicts, and the run
 * log holds each candidate once.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateStatus, Scorecard, TestStatus } from '../../src/report/scorecard.js';
import { batchesOf, comparable, duplicates, keyOf, loggedKeys, plannedKeys, problemOfKey, scratchDir } from './batch-helpers.js';
import { runCli } from './run-cli.js';
import { py } from '../python-source.js';

interface Spec {
  id: string;
  fn: string;
  params: Array<[string, string]>;
  returns: string;
  tests: Array<[Record<string, unknown>, unknown]>;
  right: string;
  wrong: string;
  /** What `wrong` gets on each test. */
  wrongVerdicts: TestStatus[];
  python: string;
}

const SPECS: Spec[] = [
  {
    id: 'add',
    fn: 'add',
    params: [
      ['a', 'int'],
      ['b', 'int'],
    ],
    returns: 'int',
    tests: [
      [{ a: 1, b: 2 }, 3],
      [{ a: -5, b: 5 }, 0],
      [{ a: 10, b: 20 }, 30],
    ],
    right: 'function add(a, b) { return a + b; }',
    wrong: 'function add(a, b) { return a * b; }',
    wrongVerdicts: ['fail', 'fail', 'fail'],
    python: py`
      def add(a, b):
          return a + b
    `,
  },
  {
    id: 'rev',
    fn: 'rev',
    params: [['s', 'str']],
    returns: 'str',
    tests: [
      [{ s: 'abc' }, 'cba'],
      [{ s: '' }, ''],
      [{ s: 'ab' }, 'ba'],
    ],
    right: "const rev = (s) => [...s].reverse().join('');",
    wrong: 'function rev(s) { return s; }',
    wrongVerdicts: ['fail', 'pass', 'fail'],
    python: py`
      def rev(s):
          return s[::-1]
    `,
  },
  {
    id: 'sort_list',
    fn: 'sort_list',
    params: [['xs', 'List[int]']],
    returns: 'List[int]',
    tests: [
      [{ xs: [3, 1, 2] }, [1, 2, 3]],
      [{ xs: [10, 9, -1] }, [-1, 9, 10]],
      [{ xs: [] }, []],
    ],
    right: 'function sort_list(xs) { return [...xs].sort((a, b) => a - b); }',
    // The default sort compares strings: right for one-digit numbers only.
    wrong: 'function sort_list(xs) { return [...xs].sort(); }',
    wrongVerdicts: ['pass', 'fail', 'pass'],
    python: py`
      def sort_list(xs):
          return sorted(xs)
    `,
  },
  {
    id: 'max_of',
    fn: 'max_of',
    params: [['xs', 'List[int]']],
    returns: 'int',
    tests: [
      [{ xs: [1, 5, 2] }, 5],
      [{ xs: [-3, -7] }, -3],
      [{ xs: [4] }, 4],
    ],
    right: 'function max_of(xs) { return Math.max(...xs); }',
    wrong: 'function max_of(xs) { return xs[0]; }',
    wrongVerdicts: ['fail', 'pass', 'pass'],
    python: py`
      def max_of(xs):
          return max(xs)
    `,
  },
  {
    id: 'is_even',
    fn: 'is_even',
    params: [['n', 'int']],
    returns: 'bool',
    tests: [
      [{ n: 2 }, true],
      [{ n: 7 }, false],
      [{ n: 0 }, true],
    ],
    right: 'function is_even(n) { return n % 2 === 0; }',
    wrong: 'function is_even(n) { return n % 2 === 1; }',
    wrongVerdicts: ['fail', 'fail', 'fail'],
    python: py`
      def is_even(n):
          return n % 2 == 0
    `,
  },
];

type Kind = 'right' | 'wrong' | 'throws' | 'load' | 'hang' | 'python';

function codeOf(spec: Spec, kind: Kind): string {
  const args = spec.params.map(([name]) => name).join(', ');
  switch (kind) {
    case 'right':
      return spec.right;
    case 'wrong':
      return spec.wrong;
    case 'throws':
      return `function ${spec.fn}(${args}) { throw new TypeError('no'); }`;
    case 'load':
      return `function ${spec.fn}(${args}) { return (; }`;
    case 'hang':
      // Only `add` hangs, on its third test.
      return 'function add(a, b) { if (a === 10) for (;;) {} return a + b; }';
    case 'python':
      return spec.python;
  }
}

function expectedOf(spec: Spec, kind: Kind): { status: CandidateStatus; tests: TestStatus[] } {
  const all = (s: TestStatus): TestStatus[] => spec.tests.map(() => s);
  const ran = (tests: TestStatus[]) => ({ status: (tests.every((t) => t === 'pass') ? 'passed' : 'failed') as CandidateStatus, tests });
  switch (kind) {
    case 'right':
    case 'python':
      return ran(all('pass'));
    case 'wrong':
      return ran(spec.wrongVerdicts);
    case 'throws':
      return ran(all('error'));
    case 'load':
      return { status: 'load-error', tests: all('error') };
    case 'hang':
      return ran(['pass', 'pass', 'timeout']);
  }
}

/** Writes the problems and a solutions folder that mixes layouts; what each submission must get, by the end of its source. */
function writeRun(root: string): { problems: string; solutions: string; expected: Map<string, { status: CandidateStatus; tests: TestStatus[] }> } {
  const problems = join(root, 'problems');
  const solutions = join(root, 'sols');
  mkdirSync(problems);
  mkdirSync(solutions);
  for (const spec of SPECS) {
    writeFileSync(
      join(problems, `${spec.id}.json`),
      JSON.stringify({
        identifier: spec.id,
        description: `${spec.id}.`,
        function_prototype: {
          function_name: spec.fn,
          parameters: spec.params.map(([name, type]) => ({ name, type })),
          return_values: [{ type: spec.returns }],
        },
        prompts: [
          { prompt_id: 'p', prompt: `Write ${spec.fn}.`, genericize: false, sample_inputs_outputs: [] },
          { prompt_id: 'q', prompt: `Write ${spec.fn}, briefly.`, genericize: false, sample_inputs_outputs: [] },
        ],
        correctness_test_suite: spec.tests.map(([input, out]) => ({ input, expected_output: [out] })),
        optimal_solution: spec.right,
      }),
    );
  }
  const expected = new Map<string, { status: CandidateStatus; tests: TestStatus[] }>();
  const cycle: Kind[] = ['right', 'wrong', 'right', 'throws', 'right', 'right', 'wrong'];
  let n = 0;

  // alpha.jsonl: the lines go round the problems, six times; one line hangs, one does not load.
  const alpha: string[] = [];
  for (let round = 0; round < 6; round++) {
    for (const spec of SPECS) {
      let kind = cycle[n++ % cycle.length]!;
      if (round === 2 && spec.id === 'add') kind = 'hang';
      if (round === 4 && spec.id === 'rev') kind = 'load';
      alpha.push(JSON.stringify({ problem_id: spec.id, prompt_id: 'p', completion: codeOf(spec, kind) }));
      expected.set(`alpha.jsonl:${alpha.length}`, expectedOf(spec, kind));
    }
  }
  writeFileSync(join(solutions, 'alpha.jsonl'), `${alpha.join('\n')}\n`);

  // mixed.jsonl: two models and two prompts in one file, the problems interleaved, fenced model output.
  const mixed: string[] = [];
  for (let round = 0; round < 8; round++) {
    for (const spec of [...SPECS].reverse()) {
      const kind = cycle[n++ % cycle.length]!;
      const completion = round % 2 === 0 ? `Here you go:\n\n\`\`\`js\n${codeOf(spec, kind)}\n\`\`\`\n` : codeOf(spec, kind);
      mixed.push(JSON.stringify({ task_id: spec.id, model: round % 3 === 0 ? 'gamma' : 'beta', prompt_id: round % 2 === 0 ? 'p' : 'q', completion }));
      expected.set(`mixed.jsonl:${mixed.length}`, expectedOf(spec, kind));
    }
  }
  writeFileSync(join(solutions, 'mixed.jsonl'), `${mixed.join('\n')}\n`);

  // delta/<problem>.js, snake/<problem>.py (Python), ref/<problem>/q.json (the reference framework's layout).
  for (const dir of ['delta', 'snake', 'ref']) mkdirSync(join(solutions, dir));
  for (const spec of SPECS) {
    writeFileSync(join(solutions, 'delta', `${spec.id}.js`), codeOf(spec, 'right'));
    expected.set(`delta/${spec.id}.js`, expectedOf(spec, 'right'));
    writeFileSync(join(solutions, 'snake', `${spec.id}.py`), codeOf(spec, 'python'));
    expected.set(`snake/${spec.id}.py`, expectedOf(spec, 'python'));
    mkdirSync(join(solutions, 'ref', spec.id));
    writeFileSync(
      join(solutions, 'ref', spec.id, 'q.json'),
      JSON.stringify({
        problem_identifier: spec.id,
        model_identifier: 'ref',
        prompt_identifier: 'q',
        solution_code: `\`\`\`javascript\n${codeOf(spec, 'wrong')}\n\`\`\``,
      }),
    );
    expected.set(`ref/${spec.id}/q.json`, expectedOf(spec, 'wrong'));
  }
  return { problems, solutions, expected };
}

describe('grading submissions through the batch route', () => {
  const root = scratchDir();
  const { problems, solutions, expected } = writeRun(root);
  const CANDIDATES = expected.size; // 30 + 40 + 15 = 85
  const run = async (workers: number) => {
    const out = join(root, `card-${workers}.json`);
    const r = await runCli([
      '--problems',
      problems,
      '--solutions',
      solutions,
      '--out',
      out,
      '--concurrency',
      String(workers),
      '--timeout',
      '500',
      '--pass-at',
      '1,2',
    ]);
    return { ...r, card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard, log: `${out}l` };
  };
  const runs = (async () => {
    const one = await run(1);
    const three = await run(3);
    return { one, three };
  })();

  it('gives every candidate its own verdicts, in plan order, each logged once, on 1 worker and on 3', async () => {
    const { one, three } = await runs;
    for (const [workers, r] of [
      [1, one],
      [3, three],
    ] as const) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.card.complete).toBe(true);
      expect(r.card.skipped_submissions).toEqual([]);
      expect(r.card.candidates).toHaveLength(CANDIDATES);
      for (const c of r.card.candidates) {
        const source = [...expected.keys()].find((s) => c.source.endsWith(`/${s}`));
        expect(source, `${c.source} is none of the submissions`).toBeDefined();
        const want = expected.get(source!)!;
        expect({ status: c.status, tests: c.tests.map((t) => t.status) }, `${c.source} on ${workers} worker(s)`).toEqual(want);
      }
      const plan = plannedKeys(r.log);
      expect(r.card.candidates.map(keyOf)).toEqual(plan);
      const keys = loggedKeys(r.log);
      expect(duplicates(keys)).toEqual([]);
      expect([...keys].sort()).toEqual([...plan].sort());
      // The premise: batches of several candidates (11 on one worker, 4 on three).
      expect(batchesOf(plan, workers)[0]!.length).toBe(workers === 1 ? 11 : 4);
    }
    // Every model and layout is there.
    expect(new Set(one.card.candidates.map((c) => c.model_id))).toEqual(new Set(['alpha', 'beta', 'gamma', 'delta', 'snake', 'ref']));
  }, 120_000);

  it('one worker sends the candidates of each problem file together, in the order the files first come in the plan', async () => {
    const { one } = await runs;
    const plan = plannedKeys(one.log);
    const grouped = new Map<string, string[]>();
    for (const key of plan) grouped.set(problemOfKey(key), [...(grouped.get(problemOfKey(key)) ?? []), key]);
    // The JSON Lines files interleave the problems, so the plan's order is not the route's.
    expect([...grouped.values()].flat()).not.toEqual(plan);
    expect(loggedKeys(one.log)).toEqual([...grouped.values()].flat());
  }, 120_000);

  it('gives the same scorecard on 3 workers as on 1, apart from timings', async () => {
    const { one, three } = await runs;
    expect(comparable(three.card)).toEqual(comparable(one.card));
  }, 120_000);
});
