/**
 * Worker faults in the middle of a batch, through the real CLI. The
 * supervisor sends each worker batches of several candidates; a worker
 * answers them one by one. When it dies mid-batch, the answered candidates
 * stand, the running one goes again alone, and the rest go again as a batch:
 * every candidate gets its own verdict, and the run log holds each once.
 *
 * - A worker killed from outside (as the kernel's OOM killer would), in a
 *   self-check and in a run that grades submissions.
 * - A candidate that brings its own worker down (V8 aborts the process on
 *   out-of-memory) among good candidates of its batch, submitted or an
 *   optimal solution in a self-check.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import {
  batchesOf,
  doubleSelfCheck,
  doubleSubmissions,
  duplicates,
  keyOf,
  loggedKeys,
  plannedKeys,
  startCli,
  whenAllMidBatch,
  workerPids,
} from './batch-helpers.js';
import { runCli } from './run-cli.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-batch-faults-'));

const WORKERS = 2;
// Each candidate spins twice this (two tests): a batch of 13 lasts a few times as long as a run's
// answers may wait in their worker, so that a batch is seen answered in part.
const SPIN_MS = 40;

describe.each([
  // 200 self-check items, 200 grade items: batches of 13 on 2 workers.
  { mode: 'a self-check', setup: () => doubleSelfCheck(200, SPIN_MS) },
  { mode: 'a run grading submissions', setup: () => doubleSubmissions(10, 4, 5, SPIN_MS) },
])('a worker killed from outside in the middle of a batch, in $mode', ({ setup }) => {
  it('the run completes, every candidate gets its own verdicts, and the log holds each key once', async () => {
    const s = setup();
    expect(s.candidates).toBe(200);
    const out = join(scratch(), 'card.json');
    const log = `${out}l`;
    const run = startCli([...s.args, '--out', out, '--concurrency', String(WORKERS), '--timeout', '5000']);

    // Kill a worker twice, each time while both workers are in the middle of
    // a batch (some of its candidates logged, at least two not): whichever
    // worker is killed, it dies mid-batch.
    const killed: number[] = [];
    try {
      for (const after of [30, 110]) {
        const landed = await whenAllMidBatch(
          s,
          log,
          WORKERS,
          after,
          run,
          (pid) => {
            if (pid === undefined) return false;
            process.kill(pid, 'SIGKILL');
            killed.push(pid);
            return true;
          },
          () => workerPids(run.child.pid!).find((p) => !killed.includes(p)),
        );
        expect(landed, `no moment with both workers mid-batch after ${after} candidates: ${run.stderr()}`).toBe(true);
      }
      // The premise: batches of several candidates.
      expect(batchesOf(s.sendOrder(log)!, WORKERS)[0]).toHaveLength(13);
    } catch (e) {
      // A failed look leaves no run behind.
      run.child.kill('SIGKILL');
      throw e;
    }
    const code = await run.exited;
    expect(code, run.stderr()).toBe(s.exitCode);
    expect(killed).toHaveLength(2);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.complete).toBe(true);
    expect(card.candidates).toHaveLength(s.candidates);
    for (const c of card.candidates) {
      const key = keyOf(c);
      expect(
        c.tests.map((t) => t.status),
        `${key}: ${JSON.stringify(c.tests.map((t) => t.error))}`,
      ).toEqual(s.expected(key));
      for (const t of c.tests) expect(t.error ?? '').not.toMatch(/sandbox|died|killed|worker/i);
    }
    const keys = loggedKeys(log);
    expect(duplicates(keys)).toEqual([]);
    expect(keys).toHaveLength(s.candidates);
  }, 90_000);
});

/** A problem `add(a, b)` with three tests; the second has a === 2. */
function addProblem(id: string, solution: string): string {
  return JSON.stringify({
    identifier: id,
    description: 'Add two numbers.',
    function_prototype: {
      function_name: 'add',
      parameters: [
        { name: 'a', type: 'int' },
        { name: 'b', type: 'int' },
      ],
      return_values: [{ type: 'int' }],
    },
    prompts: [{ prompt_id: 'p', prompt: 'Add a and b.', genericize: false, sample_inputs_outputs: [] }],
    correctness_test_suite: [
      { input: { a: 1, b: 2 }, expected_output: [3] },
      { input: { a: 2, b: 2 }, expected_output: [4] },
      { input: { a: 3, b: 4 }, expected_output: [7] },
    ],
    optimal_solution: solution,
  });
}

// From the hostile catalogue (test/sandbox/hostile.test.ts, "growing Map"),
// on the second test only: V8 aborts the whole worker process when the
// isolate runs out of memory this way, rather than throwing in the isolate.
const KILLER = 'function add(a, b) { if (a === 2) { const m = new Map(); for (let i = 0; ; i++) m.set(i, { i }); } return a + b; }';
const good = (i: number): string =>
  [
    'function add(a, b) { return a + b; }',
    'const add = (a, b) => b + a;',
    'function add(x, y) { let s = x; for (let i = 0; i < y; i++) s++; return s; }',
    'function add(a, b) { return [a, b].reduce((s, v) => s + v, 0); }',
  ][i % 4]!;
const GOOD = 60;
/** The killer's place among the 61 candidates: the third of the fifth batch of 8. */
const KILLER_AT = 34;

interface KillerRun {
  args: string[];
  isKiller(source: string): boolean;
  exitCode: number;
}

/** 60 good submissions and the killer for one problem, in one JSON Lines file (samples 0 to 60, in line order). */
function killerSubmissions(): KillerRun {
  const root = scratch();
  const problems = join(root, 'problems');
  const solutions = join(root, 'sols');
  mkdirSync(problems);
  mkdirSync(solutions);
  writeFileSync(join(problems, 'add.json'), addProblem('add', 'function add(a, b) { return a + b; }'));
  const lines: string[] = [];
  for (let i = 0; i < GOOD + 1; i++) lines.push(JSON.stringify({ problem_id: 'add', model: 'm', completion: i === KILLER_AT ? KILLER : good(i) }));
  writeFileSync(join(solutions, 'm.jsonl'), `${lines.join('\n')}\n`);
  return { args: ['--problems', problems, '--solutions', solutions], isKiller: (source) => source.endsWith(`m.jsonl:${KILLER_AT + 1}`), exitCode: 0 };
}

/** 61 problems whose optimal solutions are good, but for one: a self-check reads the killer's problem, then its worker dies grading it. */
function killerSelfCheck(): KillerRun {
  const problems = join(scratch(), 'problems');
  mkdirSync(problems);
  const name = (i: number): string => `a${String(i).padStart(2, '0')}`;
  for (let i = 0; i < GOOD + 1; i++) writeFileSync(join(problems, `${name(i)}.json`), addProblem(name(i), i === KILLER_AT ? KILLER : good(i)));
  // A self-check's source is its problem file; a failing test makes it exit 1.
  return { args: ['--problems', problems], isKiller: (source) => source.endsWith(`/${name(KILLER_AT)}.json#optimal_solution`), exitCode: 1 };
}

describe.each([
  { mode: 'a submissions folder', setup: killerSubmissions },
  { mode: 'a self-check', setup: killerSelfCheck },
])('a candidate that brings its worker down, among good candidates of its batch, in $mode', ({ setup }) => {
  it('only it is blamed: the others pass with no error, it gets memory on its one test, and each is logged once', async () => {
    const k = setup();
    const out = join(scratch(), 'card.json');
    const log = `${out}l`;
    const r = await runCli([...k.args, '--out', out, '--concurrency', '1', '--memory', '64']);
    expect(r.code, r.stderr).toBe(k.exitCode);

    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.complete).toBe(true);
    expect(card.candidates).toHaveLength(GOOD + 1);
    // The premise: the killer sits in the middle of a batch of 8, in the order of the plan (a self-check's, of its files).
    const plan = plannedKeys(log);
    expect(plan).toEqual(card.candidates.map(keyOf));
    const batch = batchesOf(plan, 1).find((b) => b.some((key) => k.isKiller((JSON.parse(key) as string[])[4]!)))!;
    expect(batch).toHaveLength(8);
    const at = batch.findIndex((key) => k.isKiller((JSON.parse(key) as string[])[4]!));
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(batch.length - 1);

    const killers = card.candidates.filter((c) => k.isKiller(c.source));
    expect(killers).toHaveLength(1);
    for (const c of card.candidates) {
      if (k.isKiller(c.source)) {
        expect(c.tests.map((t) => t.status)).toEqual(['pass', 'memory', 'pass']);
        // The worker really died: V8 aborted it (not the isolate's own memory limit, which throws inside it).
        expect(c.tests[1]!.error).toMatch(/sandbox process died.*out of memory/);
        expect(c.tests[0]!.error).toBeNull();
        expect(c.tests[2]!.error).toBeNull();
      } else {
        expect(c.status, c.source).toBe('passed');
        expect(
          c.tests.map((t) => [t.status, t.error]),
          c.source,
        ).toEqual([
          ['pass', null],
          ['pass', null],
          ['pass', null],
        ]);
      }
    }
    expect(card.summary).toMatchObject({ tests: 3 * (GOOD + 1), passed: 3 * (GOOD + 1) - 1, memory_exceeded: 1, errored: 0, failed: 0 });
    const keys = loggedKeys(log);
    expect(duplicates(keys)).toEqual([]);
    expect(keys).toHaveLength(GOOD + 1);
  }, 90_000);
});
