/**
 * Sandbox workers load problems and grade whole candidates; the supervisor
 * only routes. When a worker dies in the middle of a candidate (here: killed
 * from outside, as the kernel's OOM killer would), that candidate is graded
 * again from the supervisor and every other candidate keeps its result: the
 * run completes with nothing lost.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'evalrun.js');

function problem(id: string, solution: string, tests: Array<[number, number]>): string {
  return JSON.stringify({
    identifier: id,
    description: `${id} doubles a number`,
    prompts: [{ prompt_id: 'p', prompt: 'Double n.', genericize: false, sample_inputs_outputs: [] }],
    function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
    correctness_test_suite: tests.map(([n, out]) => ({ input: { n }, expected_output: [out] })),
    optimal_solution: solution,
  });
}

/** Pids of the sandbox workers of the CLI process `pid`. */
function workerPids(pid: number): number[] {
  let out: string;
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' });
  } catch {
    return []; // no children yet
  }
  return out
    .split('\n')
    .filter((line) => /worker(-process)?\.c?js/.test(line))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe('a sandbox worker dies in the middle of a candidate', () => {
  it('the candidate is graded again from the supervisor and the run loses nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-worker-death-'));
    const problems = join(dir, 'problems');
    execFileSync('mkdir', ['-p', problems]);
    // The slow problem spins for a few seconds on its second test, well
    // within the time limit: long enough to be killed in the middle of it.
    const slow = 'function double(n) { if (n === 2) { let i = 0; while (i < 4e9) i++; } return n * 2; }';
    writeFileSync(
      join(problems, 'a-slow.json'),
      problem('slow', slow, [
        [1, 2],
        [2, 4],
        [3, 6],
      ]),
    );
    for (let i = 0; i < 6; i++) {
      writeFileSync(
        join(problems, `b-quick-${i}.json`),
        problem(`quick_${i}`, 'const double = (n) => n * 2;', [
          [i, 2 * i],
          [i + 1, 2 * i + 2],
        ]),
      );
    }
    const out = join(dir, 'card.json');
    const child = spawn(process.execPath, [BIN, '--problems', problems, '--out', out, '--timeout', '20000', '--concurrency', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

    // Kill the worker once, while it spins in the slow candidate: the only
    // long stretch of the run.
    const killed = await spinningWorker(child.pid!);
    if (killed !== null) process.kill(killed, 'SIGKILL');
    const code = await exited;
    expect(killed, 'the worker was never seen spinning').not.toBeNull();
    expect(code, stderr).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    expect(card.complete).toBe(true);
    expect(card.candidates.map((c) => c.problem_id).sort()).toEqual(['quick_0', 'quick_1', 'quick_2', 'quick_3', 'quick_4', 'quick_5', 'slow']);
    for (const c of card.candidates)
      expect(
        c.tests.map((t) => t.status),
        c.problem_id,
      ).toEqual(c.tests.map(() => 'pass'));
    expect(card.summary).toMatchObject({ tests: 15, passed: 15 });
  }, 60_000);
});

/**
 * The first worker of the CLI process `pid` seen past a second of CPU (past
 * its start-up, a worker whose CPU keeps climbing is in a candidate's spin),
 * or null when none is within 20 s.
 */
async function spinningWorker(pid: number): Promise<number | null> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const [worker] = workerPids(pid);
    const cpu = worker === undefined ? '' : execFileSync('ps', ['-o', 'time=', '-p', String(worker)], { encoding: 'utf8' }).trim();
    if (worker !== undefined && cpu !== '' && cpuSeconds(cpu) >= 1) return worker;
  }
  return null;
}

function cpuSeconds(time: string): number {
  // ps prints [[dd-]hh:]mm:ss
  return time.split(/[-:]/).reduce((total, part) => total * 60 + Number(part), 0);
}

describe('the run is killed while a candidate holds its worker', () => {
  it('the worker ends too, though its thread is held where it cannot notice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-supervisor-death-'));
    const problems = join(dir, 'problems');
    execFileSync('mkdir', ['-p', problems]);
    // What this top-level code throws is read outside the isolate's time limit, and the read never ends.
    const holding = 'throw { get message() { for (;;) {} }, get name() { for (;;) {} } };\nfunction double(n) { return n * 2; }';
    writeFileSync(join(problems, 'held.json'), problem('held', holding, [[1, 2]]));
    const child = spawn(process.execPath, [BIN, '--problems', problems, '--out', join(dir, 'card.json'), '--concurrency', '1'], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const held = await spinningWorker(child.pid!);
    expect(held, 'no worker was seen held').not.toBeNull();
    const workers = workerPids(child.pid!);
    child.kill('SIGKILL');
    await exited;
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const gone = Date.now() + 5_000;
    while (workers.some(alive) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    const left = workers.filter(alive);
    for (const pid of left) process.kill(pid, 'SIGKILL');
    expect(left).toEqual([]);
  }, 60_000);
});
