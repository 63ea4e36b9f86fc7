/**
 * Work is never lost: results stream to the run log as candidates finish,
 * `kill -9` keeps every finished candidate, `--resume` grades only what is
 * missing and yields the scorecard an uninterrupted run would have, Ctrl-C
 * writes an incomplete scorecard and exits 130, and two runs over the same
 * input agree apart from timings. A `kill -9` that lands while the workers
 * are in the middle of batches of several candidates, then `--resume`, gives
 * a clean run's scorecard, and no candidate is logged twice.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
  startCli,
  whenAllMidBatch,
  type BatchRunSetup,
} from './batch-helpers.js';
import { runCli } from './run-cli.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'evalrun.js');
const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-resume-'));

/**
 * Twelve problems; every third candidate spins until its 300 ms time limit,
 * so a run with one worker takes a second or two and can be interrupted.
 */
function slowProblemSet(): string {
  const dir = join(scratch(), 'problems');
  mkdirSync(dir);
  for (let i = 0; i < 12; i++) {
    const spins = i % 3 === 0;
    writeFileSync(
      join(dir, `p${String(i).padStart(2, '0')}.json`),
      JSON.stringify({
        identifier: `p${String(i).padStart(2, '0')}`,
        description: 'Double a number.',
        function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
        prompts: [],
        correctness_test_suite: [
          { input: { n: i }, expected_output: [2 * i] },
          { input: { n: -i }, expected_output: [-2 * i] },
        ],
        optimal_solution: spins ? 'function double(n) { for (;;) {} }' : 'function double(n) { return 2 * n; }',
      }),
    );
  }
  return dir;
}

const ARGS = ['--concurrency', '1', '--timeout', '300'];

/** The scorecard without what legitimately changes between runs: timings, timestamps, run ids, file names. */
function comparable(card: Scorecard): unknown {
  return JSON.parse(
    JSON.stringify(card, (key, value: unknown) => (['duration_ms', 'started_at', 'finished_at', 'run_id', 'concurrency'].includes(key) ? undefined : value)),
  );
}

function candidateLines(log: string): number {
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"candidate"')).length;
}

/** Starts the CLI and resolves once its log holds `lines` finished candidates. */
function startAndWaitFor(args: string[], log: string, lines: number) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (candidateLines(log) >= lines) {
        clearInterval(poll);
        resolve();
      }
    }, 20);
    void exited.then(() => {
      clearInterval(poll);
      reject(new Error(`the run ended before ${lines} candidates were logged: ${stderr}`));
    });
  });
  return { child, ready, exited, stderr: () => stderr };
}

describe('kill -9, --resume, Ctrl-C', () => {
  const problems = slowProblemSet();
  const reference = (async () => {
    const out = join(scratch(), 'full.json');
    const r = await runCli(['--problems', problems, '--out', out, ...ARGS]);
    if (r.code !== 1) throw new Error(`the reference run should exit 1 (its spinning candidates time out), got ${r.code}: ${r.stderr}`);
    return JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
  })();

  it('after kill -9 the log keeps every finished candidate, and --resume completes the same scorecard', async () => {
    const out = join(scratch(), 'card.json');
    const log = `${out}l`;
    const run = startAndWaitFor(['--problems', problems, '--out', out, ...ARGS], log, 4);
    await run.ready;
    run.child.kill('SIGKILL');
    await run.exited;
    const kept = candidateLines(log);
    expect(kept).toBeGreaterThanOrEqual(4);
    expect(kept).toBeLessThan(12);
    expect(existsSync(out)).toBe(false);

    const resumed = await runCli(['--resume', log, '--concurrency', '1']);
    expect(resumed.code, resumed.stderr).toBe(1);
    // Only the missing candidates were graded: the log gained exactly the rest, each once.
    expect(candidateLines(log)).toBe(12);
    expect(duplicates(loggedKeys(log))).toEqual([]);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.complete).toBe(true);
    expect(comparable(card)).toEqual(comparable(await reference));
  });

  it('Ctrl-C writes the partial scorecard marked incomplete and exits 130; --resume finishes it', async () => {
    const out = join(scratch(), 'card.json');
    const log = `${out}l`;
    const run = startAndWaitFor(['--problems', problems, '--out', out, ...ARGS], log, 3);
    await run.ready;
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toMatch(/--resume/);
    const partial = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(partial.complete).toBe(false);
    expect(partial.candidates.length).toBe(candidateLines(log));
    expect(partial.candidates.length).toBeGreaterThanOrEqual(3);
    expect(partial.candidates.length).toBeLessThan(12);

    // The scorecard's path names the run as well as its log's does (as for evalrun report).
    const resumed = await runCli(['--resume', out]);
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(candidateLines(log)).toBe(12);
    expect(duplicates(loggedKeys(log))).toEqual([]);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(comparable(card)).toEqual(comparable(await reference));
  });

  it('--resume refuses options that the log fixes, and a missing log', async () => {
    const again = await runCli(['--resume', 'no-such-run', '--problems', problems]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--resume takes --problems from the run log/);
    const missing = await runCli(['--resume', join(scratch(), 'nothing.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run log/);
  });
});

describe.each([
  // 120 candidates on 2 workers: batches of 8, each lasting a few times as long as a run's answers
  // may wait in their worker, so that a batch is seen answered in part; the resumed rest, of 4 or 5.
  { mode: 'a self-check', setup: () => doubleSelfCheck(120, 60) },
  { mode: 'a run grading submissions', setup: () => doubleSubmissions(6, 4, 5, 60) },
])('kill -9 of the CLI in the middle of batches, then --resume, in $mode', ({ setup }: { setup: () => BatchRunSetup }) => {
  it("the resumed scorecard equals a clean run's, and no candidate is logged twice across both runs", async () => {
    const s = setup();
    expect(s.candidates).toBe(120);
    const args = [...s.args, '--concurrency', '2', '--timeout', '5000'];
    const cleanOut = join(scratch(), 'clean.json');
    const clean = await runCli([...args, '--out', cleanOut]);
    expect(clean.code, clean.stderr).toBe(s.exitCode);

    const out = join(scratch(), 'card.json');
    const log = `${out}l`;
    const run = startCli([...args, '--out', out]);
    // Both workers are in the middle of a batch (some of its candidates logged, at least two not) when the CLI dies.
    const landed = await whenAllMidBatch(s, log, 2, 30, run, () => run.child.kill('SIGKILL'));
    if (!landed) run.child.kill('SIGKILL');
    await run.exited;
    expect(landed, `no moment with both workers mid-batch: ${run.stderr()}`).toBe(true);
    expect(batchesOf(s.sendOrder(log)!, 2)[0]).toHaveLength(8);
    const kept = loggedKeys(log);
    expect(kept.length).toBeGreaterThanOrEqual(30);
    expect(kept.length).toBeLessThan(100);
    expect(duplicates(kept)).toEqual([]);
    expect(existsSync(out)).toBe(false);
    // The resumed run sends the rest in batches of more than one too.
    expect(batchesOf(Array.from({ length: 120 - kept.length }), 2)[0]!.length).toBeGreaterThan(1);

    const resumed = await runCli(['--resume', log, '--concurrency', '2']);
    expect(resumed.code, resumed.stderr).toBe(s.exitCode);
    const keys = loggedKeys(log);
    expect(duplicates(keys)).toEqual([]);
    expect(keys).toHaveLength(120);
    expect(keys.slice(0, kept.length)).toEqual(kept);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.complete).toBe(true);
    const reference = JSON.parse(readFileSync(cleanOut, 'utf8')) as Scorecard;
    expect(comparable(card)).toEqual(comparable(reference));
    // And the verdicts are the right ones, not just the same ones.
    for (const c of card.candidates) {
      expect(
        c.tests.map((t) => t.status),
        keyOf(c),
      ).toEqual(s.expected(keyOf(c)));
    }
  }, 90_000);
});

describe('determinism', () => {
  it('two runs over the same input give the same scorecard apart from timings and timestamps', async () => {
    const runs: Scorecard[] = [];
    for (let i = 0; i < 2; i++) {
      const out = join(scratch(), 'card.json');
      const r = await runCli(['--problems', 'test/fixtures/grade/problems', '--solutions', 'test/fixtures/grade/solutions', '--out', out]);
      expect(r.code).toBe(0);
      runs.push(JSON.parse(readFileSync(out, 'utf8')) as Scorecard);
    }
    expect(comparable(runs[0]!)).toEqual(comparable(runs[1]!));
  });

  it('Math.random and Date inside the sandbox follow --seed', async () => {
    const dir = join(scratch(), 'problems');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'noise.json'),
      JSON.stringify({
        identifier: 'noise',
        description: 'Returns something random.',
        function_prototype: { function_name: 'noise', parameters: [], return_values: [{ type: 'List[float]' }] },
        prompts: [],
        correctness_test_suite: [{ input: {}, expected_output: [[]] }],
        optimal_solution: 'function noise() { return [Math.random(), Math.random(), Date.now(), new Date().getTime()]; }',
      }),
    );
    const actual = async (seed: string): Promise<unknown> => {
      const out = join(scratch(), 'card.json');
      await runCli(['--problems', dir, '--out', out, '--seed', seed]);
      return (JSON.parse(readFileSync(out, 'utf8')) as Scorecard).candidates[0]!.tests[0]!.actual;
    };
    const a = (await actual('7')) as number[];
    expect(await actual('7')).toEqual(a);
    const b = (await actual('8')) as number[];
    expect(b.slice(0, 2)).not.toEqual(a.slice(0, 2));
    // The clock is frozen, the same for every seed and run.
    expect(a[2]).toBe(a[3]);
    expect(b[2]).toBe(a[2]);
  });
});
