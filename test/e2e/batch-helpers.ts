/**
 * Helpers for the end-to-end tests of batches and faults: starting the CLI
 * in the background, finding its sandbox workers, reading its run log, and
 * telling from the log which batches a worker is in the middle of.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchSize } from '../../src/runner/route.js';
import type { Scorecard, TestStatus } from '../../src/report/scorecard.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'evalrun.js');

export interface Background {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
}

/** Starts the built CLI without waiting for it. */
export function startCli(args: readonly string[]): Background {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

/** Pids of the sandbox workers of the CLI process `pid`. */
export function workerPids(pid: number): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // no children
  }
  return out
    .split('\n')
    .filter((line) => /worker(-process)?\.c?js/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Every record line of a run log, parsed; a torn last line (the run was killed while writing it) is left out. */
export function logRecords(log: string): Array<Record<string, unknown>> {
  if (!existsSync(log)) return [];
  const records: Array<Record<string, unknown>> = [];
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // torn
    }
  }
  return records;
}

/** The keys of the candidate lines of a run log, in the order they were written. */
export function loggedKeys(log: string): string[] {
  return logRecords(log)
    .filter((r) => r.type === 'candidate')
    .map((r) => r.key as string);
}

/** The keys of the plan line(s) of a run log. */
export function plannedKeys(log: string): string[] {
  const plans = logRecords(log).filter((r) => r.type === 'plan');
  return plans.length === 0 ? [] : (plans[plans.length - 1]!.keys as string[]);
}

/** Keys that occur more than once. */
export function duplicates(keys: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const key of keys) (seen.has(key) ? twice : seen).add(key);
  return [...twice];
}

/** The problem id of a candidate key (`[problem, model, prompt, sample, source]`). */
export function problemOfKey(key: string): string {
  return (JSON.parse(key) as unknown[])[0] as string;
}

/** The route's batches of `items` (names of the items in the order they are sent) on `workers` workers. */
export function batchesOf<T>(items: readonly T[], workers: number): T[][] {
  const size = batchSize(items.length, workers);
  const batches: T[][] = [];
  for (let at = 0; at < items.length; at += size) batches.push(items.slice(at, at + size));
  return batches;
}

/**
 * Batches that are in the middle of being answered: some of their items
 * done (`done` says which), and at least `left` not. A worker answers one
 * batch at a time, item by item, so each such batch is a worker's running
 * one, and with `left` >= 2 it cannot finish within a few milliseconds.
 */
export function batchesMidway<T>(batches: readonly T[][], done: (item: T) => boolean, left = 2): number {
  return batches.filter((batch) => {
    const answered = batch.filter(done).length;
    return answered > 0 && batch.length - answered >= left;
  }).length;
}

/** Polls `check` every `everyMs` until it is true; false if `timeoutMs` passed or `stop` settled first. */
export async function waitFor(check: () => boolean, options: { timeoutMs: number; everyMs?: number; stop?: Promise<unknown> }): Promise<boolean> {
  let stopped = false;
  void options.stop?.then(() => (stopped = true));
  const deadline = Date.now() + options.timeoutMs;
  while (!stopped && Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, options.everyMs ?? 25));
  }
  return false;
}

/** The scorecard without what legitimately changes between runs: timings, timestamps, run ids, the concurrency. */
export function comparable(card: Scorecard): unknown {
  return JSON.parse(
    JSON.stringify(card, (key, value: unknown) => (['duration_ms', 'started_at', 'finished_at', 'run_id', 'concurrency'].includes(key) ? undefined : value)),
  );
}

/** A JavaScript busy loop of about `ms` milliseconds of CPU in the sandbox (the sandbox's clock is frozen, so it counts). */
export function spin(ms: number): string {
  return `for (let spin = 0; spin < ${ms * 2_000_000}; spin++) {}`;
}

// ---------------------------------------------------------------------------
// Runs of many small candidates with known verdicts
// ---------------------------------------------------------------------------

/** A problem `double(n) = 2n` with the two tests n = k and n = 1000 + k. */
export function doubleProblem(id: string, k: number, solution: string): string {
  return JSON.stringify({
    identifier: id,
    description: 'Double a number.',
    function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
    prompts: [{ prompt_id: 'p', prompt: 'Double n.', genericize: false, sample_inputs_outputs: [] }],
    correctness_test_suite: [
      { input: { n: k }, expected_output: [2 * k] },
      { input: { n: 1000 + k }, expected_output: [2 * (1000 + k)] },
    ],
    optimal_solution: solution,
  });
}

/** Code for `double`: right; wrong on the second test (fail); throwing on the second test (error). */
export type Kind = 'right' | 'wrong' | 'throws';

/** `double` of that kind, spinning about `ms` per test. */
export function doubleCode(kind: Kind, ms: number): string {
  const body = {
    right: 'return n * 2;',
    wrong: 'return n >= 1000 ? n * 2 + 1 : n * 2;',
    throws: "if (n >= 1000) throw new Error('too big'); return n * 2;",
  }[kind];
  return `function double(n) { ${spin(ms)} ${body} }`;
}

export const VERDICTS: Record<Kind, TestStatus[]> = { right: ['pass', 'pass'], wrong: ['pass', 'fail'], throws: ['pass', 'error'] };

/** The kind of the i-th candidate of a run: mostly right, some wrong, a few throwing. */
export const kindOf = (i: number): Kind => (i % 7 === 3 ? 'wrong' : i % 11 === 5 ? 'throws' : 'right');

/** A run of candidates with known verdicts, and how to follow its route. */
export interface BatchRunSetup {
  args: string[];
  candidates: number;
  /** Expected verdicts of a candidate, by its key. */
  expected(key: string): TestStatus[];
  /** The keys' items in the order the route sends them (null until the log says). */
  sendOrder(log: string): string[] | null;
  /** The route's item a key belongs to (a self-check's item is its problem file, named by its id). */
  itemOf(key: string): string;
  /** The CLI's exit code when the run completes. */
  exitCode: number;
}

export const scratchDir = (): string => mkdtempSync(join(tmpdir(), 'evalrun-batches-'));

/** A self-check of `count` problems `p000`, `p001`, ...: one self-check item per file, in the order of the files. */
export function doubleSelfCheck(count: number, spinMs: number): BatchRunSetup {
  const problems = join(scratchDir(), 'problems');
  mkdirSync(problems);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `p${String(i).padStart(3, '0')}`;
    ids.push(id);
    writeFileSync(join(problems, `${id}.json`), doubleProblem(id, i, doubleCode(kindOf(i), spinMs)));
  }
  return {
    args: ['--problems', problems],
    candidates: count,
    expected: (key) => VERDICTS[kindOf(Number(problemOfKey(key).slice(1)))],
    sendOrder: () => ids,
    itemOf: problemOfKey,
    // Some optimal solutions fail their tests.
    exitCode: 1,
  };
}

/**
 * Submissions for `problems` problems `d0`, `d1`, ...: `models` models,
 * each a JSON Lines file of `samples` rounds whose lines go round the
 * problems. The route sends the candidates of one problem file together,
 * in the order the files first come in the plan.
 */
export function doubleSubmissions(problemCount: number, models: number, samples: number, spinMs: number): BatchRunSetup {
  const root = scratchDir();
  const problems = join(root, 'problems');
  const solutions = join(root, 'sols');
  mkdirSync(problems);
  mkdirSync(solutions);
  for (let p = 0; p < problemCount; p++) writeFileSync(join(problems, `d${p}.json`), doubleProblem(`d${p}`, p, 'function double(n) { return n * 2; }'));
  const kinds = new Map<string, Kind>();
  let n = 0;
  for (let m = 0; m < models; m++) {
    const lines: string[] = [];
    for (let s = 0; s < samples; s++) {
      for (let p = 0; p < problemCount; p++) {
        const kind = kindOf(n++);
        lines.push(JSON.stringify({ problem_id: `d${p}`, model: `m${m}`, completion: doubleCode(kind, spinMs) }));
        kinds.set(`m${m}.jsonl:${lines.length}`, kind);
      }
    }
    writeFileSync(join(solutions, `m${m}.jsonl`), `${lines.join('\n')}\n`);
  }
  const kindOfKey = (key: string): Kind => {
    const source = (JSON.parse(key) as string[])[4]!;
    const kind = kinds.get(source.replace(/^.*\//, ''));
    if (kind === undefined) throw new Error(`no submission at ${source}`);
    return kind;
  };
  return {
    args: ['--problems', problems, '--solutions', solutions],
    candidates: n,
    expected: (key) => VERDICTS[kindOfKey(key)],
    sendOrder: (log) => {
      const plan = plannedKeys(log);
      if (plan.length === 0) return null;
      const byProblem = new Map<string, string[]>();
      for (const key of plan) {
        const group = byProblem.get(problemOfKey(key)) ?? [];
        group.push(key);
        byProblem.set(problemOfKey(key), group);
      }
      return [...byProblem.values()].flat();
    },
    itemOf: (key) => key,
    // Grading submissions exits 0 whatever the scores.
    exitCode: 0,
  };
}

/** The key of a candidate in the scorecard, as the run log spells it. */
export function keyOf(c: { problem_id: string; model_id: string; prompt_id: string | null; sample_id: string | null; source: string }): string {
  return JSON.stringify([c.problem_id, c.model_id, c.prompt_id, c.sample_id, c.source]);
}

/**
 * Resolves true once every one of `workers` workers is in the middle of a
 * batch (see batchesMidway) and the log holds at least `after` candidates,
 * having called `act` at that moment; false if the run ended or time ran out.
 * `prepare` runs before each look at the log (what it returns goes to
 * `act`), so that `act` itself is quick: the batch is mid-way when it runs.
 */
export async function whenAllMidBatch<T>(
  setup: BatchRunSetup,
  log: string,
  workers: number,
  after: number,
  run: Background,
  act: (prepared: T | undefined) => boolean,
  prepare?: () => T,
): Promise<boolean> {
  let order: string[] | null = null;
  return waitFor(
    () => {
      order ??= setup.sendOrder(log);
      if (order === null) return false;
      const prepared = prepare?.();
      const logged = loggedKeys(log);
      if (logged.length < after) return false;
      const done = new Set(logged.map((key) => setup.itemOf(key)));
      if (batchesMidway(batchesOf(order, workers), (item) => done.has(item)) < workers) return false;
      return act(prepared);
    },
    { timeoutMs: 40_000, everyMs: 10, stop: run.exited },
  );
}
