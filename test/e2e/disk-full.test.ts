/**
 * A full disk under the run's output: one line on stderr, exit code 3, no
 * stack trace, the sandbox workers gone, and a run log that `--resume`
 * finishes once there is room again. The disk is a real tmpfs of a few
 * kilobytes, which needs root (mount); without it the test is skipped and
 * says why.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'evalrun-disk-full-'));
const disk = join(scratch, 'disk');
mkdirSync(disk);

function mount(options: string): string | null {
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', disk], { encoding: 'utf8' });
  if (result.error !== undefined) return `mount could not run (${result.error.message})`;
  return result.status === 0 ? null : `mount is not permitted here (${(result.stderr || `status ${result.status}`).trim()})`;
}

// Three pages: the run log's header and plan fit, with a few candidates' lines, but not all 40.
const cannotMount = mount('size=12k,mode=0777');

afterAll(() => {
  if (cannotMount === null) spawnSync('umount', [disk]);
  rmSync(scratch, { recursive: true, force: true });
});

function problemSet(): string {
  const dir = join(scratch, 'problems');
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 40; i++) {
    const id = `p${String(i).padStart(2, '0')}`;
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({
        identifier: id,
        description: 'Double a number, with a description long enough to make every result line a few hundred bytes.',
        function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
        prompts: [],
        correctness_test_suite: [0, 1, 2, 3].map((k) => ({ input: { n: i + k }, expected_output: [2 * (i + k)] })),
        optimal_solution: 'function double(n) {\n  // doubles its argument\n  return 2 * n;\n}',
      }),
    );
  }
  return dir;
}

/** Processes whose environment carries `mark`: the CLI's sandbox workers inherit it. */
function processesWith(mark: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(join('/proc', pid, 'environ'), 'latin1').includes(mark)) found.push(Number(pid));
    } catch {
      // The process ended meanwhile, or is not ours to read.
    }
  }
  return found;
}

async function settled(mark: string): Promise<number[]> {
  for (let i = 0; i < 30 && processesWith(mark).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return processesWith(mark);
}

describe.skipIf(cannotMount !== null)('a full disk under --out', () => {
  it('stops with one line and exit 3; --resume finishes the run once there is room', async () => {
    const problems = problemSet();
    const card = join(disk, 'card.json');
    const log = join(disk, 'card.jsonl');
    const mark = `EVALRUN_DISK_FULL_TEST=${process.pid}`;
    const env = { EVALRUN_DISK_FULL_TEST: String(process.pid) };

    const full = await runCli(['--problems', problems, '--out', card, '--concurrency', '1'], { env });
    expect(full.code).toBe(3);
    const lines = full.stderr.trim().split('\n');
    expect(lines, full.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^evalrun: cannot write the run log .*card\.jsonl: ENOSPC: no space left on device.*; once there is room, finish the run with: evalrun --resume .*card\.jsonl$/,
    );
    expect(full.stderr).not.toMatch(/\n\s+at /);
    expect(await settled(mark)).toEqual([]);
    const kept = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type":"candidate"')).length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(40);

    expect(spawnSync('mount', ['-o', 'remount,size=4m', disk]).status).toBe(0);
    const resumed = await runCli(['--resume', log, '--concurrency', '1'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const scorecard = JSON.parse(readFileSync(card, 'utf8')) as Scorecard;
    expect(scorecard.complete).toBe(true);
    expect(scorecard.summary).toMatchObject({ candidates: 40, tests: 160, passed: 160 });
    expect(await settled(mark)).toEqual([]);
  });
});

describe.skipIf(cannotMount !== null)('room for the run log but not for the scorecard', () => {
  it('exits 3 with one line; --resume writes the scorecard once there is room', async () => {
    const problems = problemSet();
    // Measured on an ordinary disk first: the tmpfs then holds the log and
    // one page more, which the scorecard (several pages) does not fit in.
    const probe = join(scratch, 'probe');
    mkdirSync(probe, { recursive: true });
    const clean = await runCli(['--problems', problems, '--out', join(probe, 'card.json'), '--concurrency', '1']);
    expect(clean.code, clean.stderr).toBe(0);
    const logBytes = statSync(join(probe, 'card.jsonl')).size;
    expect(statSync(join(probe, 'card.json')).size).toBeGreaterThan(3 * 4096);
    const pages = Math.ceil(logBytes / 4096) + 1;
    expect(spawnSync('umount', [disk]).status).toBe(0);
    expect(mount(`size=${pages * 4096},mode=0777`)).toBeNull();

    const card = join(disk, 'card.json');
    const log = join(disk, 'card.jsonl');
    const full = await runCli(['--problems', problems, '--out', card, '--concurrency', '1']);
    expect(full.code).toBe(3);
    const lines = full.stderr.trim().split('\n');
    expect(lines, full.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^evalrun: cannot write the scorecard to .*card\.json: .*ENOSPC.*; every result is in the run log: write the scorecard with evalrun --resume .*card\.jsonl$/,
    );

    rmSync(card, { force: true });
    expect(spawnSync('mount', ['-o', `remount,size=${pages * 4096 * 8}`, disk]).status).toBe(0);
    const resumed = await runCli(['--resume', log, '--concurrency', '1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((JSON.parse(readFileSync(card, 'utf8')) as Scorecard).summary).toMatchObject({ candidates: 40, passed: 160 });
  });
});

describe.skipIf(cannotMount === null)(`a full disk under --out: skipped, ${cannotMount ?? ''}`, () => {
  it('needs a tmpfs mount (root)', () => {
    expect(cannotMount).not.toBeNull();
  });
});
