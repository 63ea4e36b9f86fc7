/**
 * Scale-out, end to end: three shards of a pass@k-shaped grading run, each
 * a separate `evalrun --shard I/3` process running at the same time, merged
 * by `evalrun merge`, give the scorecard one run of the whole gives,
 * candidate by candidate, with the same summary, roll-ups and pass@k. The
 * merge refuses shards of different runs and overlapping shards, marks a
 * merge with a shard missing incomplete, and merges a shard that was killed
 * and resumed.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'evalrun.js');
const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-shard-'));

/** What legitimately differs between a merge and a single run: timings, timestamps, run ids, worker counts, the merge's own record. */
function comparable(card: Scorecard): unknown {
  return JSON.parse(
    JSON.stringify(card, (key, value: unknown) =>
      ['duration_ms', 'started_at', 'finished_at', 'run_id', 'concurrency', 'merge'].includes(key) ? undefined : value,
    ),
  );
}

function readCard(file: string): Scorecard {
  return JSON.parse(readFileSync(file, 'utf8')) as Scorecard;
}

const FUNCTIONS = [
  {
    name: 'add',
    params: ['a', 'b'],
    js: 'return a + b;',
    py: 'return a + b',
    wrongJs: 'return a - b;',
    wrongPy: 'return a - b',
    f: (a: number, b: number) => a + b,
  },
  {
    name: 'mul',
    params: ['a', 'b'],
    js: 'return a * b;',
    py: 'return a * b',
    wrongJs: 'return a + b;',
    wrongPy: 'return a + b',
    f: (a: number, b: number) => a * b,
  },
  {
    name: 'maxof',
    params: ['a', 'b'],
    js: 'return Math.max(a, b);',
    py: 'return max(a, b)',
    wrongJs: 'return a;',
    wrongPy: 'return a',
    f: (a: number, b: number) => Math.max(a, b),
  },
];

/**
 * Problems of uneven size (3 to 14 tests, two of them tagged) and a JSON
 * Lines file per model: a JavaScript model with 6 samples per problem and
 * prompt and a Python model with 3, some wrong, one that throws.
 */
function passAtKSet(): { problems: string; solutions: string } {
  const root = scratch();
  const problems = join(root, 'problems');
  const solutions = join(root, 'solutions');
  mkdirSync(problems);
  mkdirSync(solutions);
  const lines: Record<string, string[]> = { 'js-model': [], 'py-model': [] };
  for (let p = 0; p < 8; p++) {
    const fn = FUNCTIONS[p % FUNCTIONS.length]!;
    const id = `${fn.name}_${p}`;
    const tests = Array.from({ length: 3 + ((p * 5) % 12) }, (_, t) => {
      const a = (t * 7 + p) % 13;
      const b = (t * 3 + 2 * p) % 11;
      return { input: { a, b }, expected_output: [fn.f(a, b)] };
    });
    writeFileSync(
      join(problems, `${id}.json`),
      JSON.stringify({
        identifier: id,
        description: `${fn.name} of two numbers`,
        function_prototype: { function_name: fn.name, parameters: fn.params.map((name) => ({ name, type: 'int' })), return_values: [{ type: 'int' }] },
        prompts: [
          { prompt_id: 'brief', prompt: 'Write it.' },
          { prompt_id: 'detailed', prompt: 'Write it carefully.' },
        ],
        correctness_test_suite: tests,
        tags: p % 3 === 0 ? ['tagged'] : [],
      }),
    );
    for (const prompt of ['brief', 'detailed']) {
      for (let s = 0; s < 6; s++) {
        const body = (s + p) % 3 === 0 ? fn.wrongJs : s === 5 && p === 2 ? 'throw new Error("no");' : fn.js;
        lines['js-model']!.push(JSON.stringify({ problem_id: id, prompt_id: prompt, completion: `function ${fn.name}(a, b) { ${body} }` }));
      }
      if (p < 4) {
        for (let s = 0; s < 3; s++) {
          const body = s === 1 && p % 2 === 0 ? fn.wrongPy : fn.py;
          lines['py-model']!.push(
            JSON.stringify({ problem_id: id, prompt_id: prompt, language: 'python', completion: `def ${fn.name}(a, b):\n    ${body}\n` }),
          );
        }
      }
    }
  }
  for (const [model, list] of Object.entries(lines)) writeFileSync(join(solutions, `${model}.jsonl`), `${list.join('\n')}\n`);
  return { problems, solutions };
}

describe('three shards as separate processes, merged, against one run', () => {
  const set = passAtKSet();
  const common = ['--problems', set.problems, '--solutions', set.solutions, '--pass-at', '1,3', '--concurrency', '1'];
  const dir = scratch();
  const single = runCli([...common, '--out', join(dir, 'single.json')]).then((r) => {
    if (r.code !== 0) throw new Error(`the single run failed: ${r.stderr}`);
    return readCard(join(dir, 'single.json'));
  });
  // All three at once, as a scheduler would start them.
  const shards = Promise.all(
    [1, 2, 3].map((i) =>
      runCli([...common, '--shard', `${i}/3`, '--out', join(dir, `shard-${i}.json`)]).then((r) => {
        if (r.code !== 0) throw new Error(`shard ${i} failed: ${r.stderr}`);
        return readCard(join(dir, `shard-${i}.json`));
      }),
    ),
  );

  it('each shard grades a disjoint part, whole (problem, model) groups, balanced by tests', async () => {
    const cards = await shards;
    const whole = await single;
    const ids = cards.flatMap((c) => c.candidates.map((r) => r.source));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(whole.candidates.map((r) => r.source).sort());
    const owner = new Map<string, number>();
    cards.forEach((card, i) => {
      expect(card.shard?.index).toBe(i + 1);
      expect(card.options.shard).toEqual({ index: i + 1, count: 3 });
      for (const r of card.candidates) {
        const group = `${r.problem_id}/${r.model_id}`;
        expect(owner.get(group) ?? i).toBe(i);
        owner.set(group, i);
      }
    });
    const tests = cards.map((c) => c.summary.tests);
    expect(tests.reduce((a, b) => a + b)).toBe(whole.summary.tests);
    // No shard more than the heaviest group (14 tests x 12 samples) above the lightest.
    expect(Math.max(...tests) - Math.min(...tests)).toBeLessThanOrEqual(14 * 12);
    // Each shard read the same input.
    expect(new Set(cards.map((c) => JSON.stringify(c.shard?.inputs))).size).toBe(1);
  });

  it("merging the logs gives the single run's scorecard, candidate by candidate, with its summary and pass@k", async () => {
    await shards;
    const whole = await single;
    const out = join(dir, 'merged.json');
    const r = await runCli(['merge', ...[3, 1, 2].map((i) => join(dir, `shard-${i}.jsonl`)), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/pass@k/);
    const merged = readCard(out);
    expect(merged.complete).toBe(true);
    expect(merged.merge).toEqual({
      count: 3,
      shards: [1, 2, 3].map((index) => ({ index, file: join(dir, `shard-${index}.jsonl`), complete: true })),
      missing: [],
    });
    expect(merged.candidates).toHaveLength(whole.candidates.length);
    merged.candidates.forEach((c, i) =>
      expect(comparable(c as unknown as Scorecard), `candidate ${i}`).toEqual(comparable(whole.candidates[i] as unknown as Scorecard)),
    );
    expect(merged.summary).toEqual(whole.summary);
    expect(merged.pass_at_k).toEqual(whole.pass_at_k);
    expect(merged.pass_at_k.find((row) => row.model_id === 'js-model')?.values['pass@3']).toBeGreaterThan(0);
    expect(comparable(merged)).toEqual(comparable(whole));
    // The merged run log has a single run's shape: a header without a shard, the plan, the candidates, the end.
    const log = readFileSync(`${out}l`, 'utf8').trim().split('\n');
    expect(JSON.parse(log[0]!)).not.toHaveProperty('shard');
    expect(log.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['run', 'plan', ...whole.candidates.map(() => 'candidate'), 'end']);
    // So `evalrun report` renders it as the merge's own scorecard, tags, problems and completeness included.
    const reported = await runCli(['report', `${out}l`, '--format', 'json']);
    expect(reported.code, reported.stderr).toBe(0);
    const fromLog = JSON.parse(reported.stdout) as Scorecard;
    expect(fromLog.complete).toBe(true);
    expect(comparable(fromLog)).toEqual(comparable(whole));
  });

  it('merging the scorecards, or logs and scorecards mixed, gives the same', async () => {
    const whole = await single;
    await shards;
    const out = join(dir, 'merged-cards.json');
    const r = await runCli(['merge', join(dir, 'shard-1.json'), join(dir, 'shard-2.jsonl'), join(dir, 'shard-3.json'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(comparable(readCard(out))).toEqual(comparable(whole));
    // A scorecard rewritten by another tool (here: compact, one line) is read whole.
    const rewritten = join(dir, 'shard-3-compact.json');
    writeFileSync(rewritten, JSON.stringify(readCard(join(dir, 'shard-3.json'))));
    const again = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'shard-2.json'), rewritten, '--out', join(dir, 'merged-compact.json')]);
    expect(again.code, again.stderr).toBe(0);
    expect(comparable(readCard(join(dir, 'merged-compact.json')))).toEqual(comparable(whole));
  });

  it('a missing shard: says which, exits 1, and marks the scorecard incomplete', async () => {
    await shards;
    const out = join(dir, 'partial.json');
    const r = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'shard-3.jsonl'), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/missing shard 2\/3 \(\d+ candidates, \d+ tests not merged\)/);
    const card = readCard(out);
    expect(card.complete).toBe(false);
    expect(card.merge?.missing).toEqual([2]);
    const [one, , three] = await shards;
    expect(card.summary.candidates).toBe(one!.summary.candidates + three!.summary.candidates);
  });

  it('refuses the same shard twice, and shards of another run (other options, other files)', async () => {
    await shards;
    const twice = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'shard-1.json'), join(dir, 'shard-2.jsonl'), '--out', join(dir, 'x.json')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/shards overlap: .*shard-1\.jsonl and .*shard-1\.json are both shard 1\/3/);

    const seeded = await runCli([...common, '--seed', '2', '--shard', '2/3', '--out', join(dir, 'seed2.json')]);
    expect(seeded.code, seeded.stderr).toBe(0);
    const otherOptions = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'seed2.jsonl'), join(dir, 'shard-3.jsonl')]);
    expect(otherOptions.code).toBe(2);
    expect(otherOptions.stderr).toMatch(/seed2\.jsonl is not a shard of the same run as .*shard-1\.jsonl: option seed differs \(2 against 1\)/);

    const edited = join(scratch(), 'solutions');
    cpSync(set.solutions, edited, { recursive: true });
    writeFileSync(join(edited, 'py-model.jsonl'), readFileSync(join(edited, 'py-model.jsonl'), 'utf8').replace('return a + b', 'return b + a'));
    const otherFiles = await runCli([
      '--problems',
      set.problems,
      '--solutions',
      edited,
      '--pass-at',
      '1,3',
      '--concurrency',
      '1',
      '--shard',
      '2/3',
      '--out',
      join(dir, 'edited.json'),
    ]);
    expect(otherFiles.code, otherFiles.stderr).toBe(0);
    const refused = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'edited.jsonl'), join(dir, 'shard-3.jsonl')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/edited\.jsonl is not a shard of the same run .*: it read other input: solutions files differ/);

    const halves = await runCli([...common, '--shard', '2/2', '--out', join(dir, 'half.json')]);
    expect(halves.code, halves.stderr).toBe(0);
    const otherCount = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'half.jsonl')]);
    expect(otherCount.code).toBe(2);
    expect(otherCount.stderr).toMatch(/half\.jsonl is not a shard of the same run as .*shard-1\.jsonl: the shard count differs \(2 against 3\)/);

    const unsharded = await runCli(['merge', join(dir, 'single.jsonl')]);
    expect(unsharded.code).toBe(2);
    expect(unsharded.stderr).toMatch(/no shard record; only runs made with --shard I\/N can be merged/);
  });

  it('shards on another machine, with the folders elsewhere but the same contents, merge', async () => {
    await shards;
    const whole = await single;
    const elsewhere = scratch();
    cpSync(set.problems, join(elsewhere, 'problems'), { recursive: true });
    cpSync(set.solutions, join(elsewhere, 'solutions'), { recursive: true });
    const moved = await runCli(
      ['--problems', 'problems', '--solutions', 'solutions', '--pass-at', '1,3', '--concurrency', '1', '--shard', '2/3', '--out', join(dir, 'moved.json')],
      { cwd: elsewhere },
    );
    expect(moved.code, moved.stderr).toBe(0);
    const out = join(dir, 'merged-moved.json');
    const r = await runCli(['merge', join(dir, 'shard-1.jsonl'), join(dir, 'moved.jsonl'), join(dir, 'shard-3.jsonl'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const merged = readCard(out);
    // The same verdicts; only the sources of shard 2's candidates name the other place.
    const verdicts = (card: Scorecard): unknown =>
      card.candidates.map((c) => [c.problem_id, c.model_id, c.prompt_id, c.sample_id, c.tests.map((t) => t.status)]);
    expect(verdicts(merged)).toEqual(verdicts(whole));
    expect(merged.pass_at_k).toEqual(whole.pass_at_k);
  });
});

describe('--shard auto', () => {
  it("is a usage error, exit 2, without a scheduler's variables", async () => {
    const env = { JOB_COMPLETION_INDEX: '', SLURM_ARRAY_TASK_ID: '' };
    const r = await runCli(['--problems', 'test/fixtures/cli-pass', '--shard', 'auto'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard auto needs JOB_COMPLETION_INDEX with EVALRUN_SHARD_COUNT .* or SLURM_ARRAY_TASK_ID/);
  });

  it('takes the shard from a Kubernetes Indexed Job or a SLURM array', async () => {
    const dir = scratch();
    const k8s = await runCli(['--problems', 'problems', '--shard', 'auto', '--out', join(dir, 'k8s.json')], {
      env: { JOB_COMPLETION_INDEX: '1', EVALRUN_SHARD_COUNT: '3', SLURM_ARRAY_TASK_ID: '' },
    });
    expect(k8s.code, k8s.stderr).toBe(0);
    expect(readCard(join(dir, 'k8s.json')).shard).toMatchObject({ index: 2, count: 3 });
    const slurm = await runCli(['--problems', 'problems', '--shard', 'auto', '--out', join(dir, 'slurm.json')], {
      env: { JOB_COMPLETION_INDEX: '', SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '3', SLURM_ARRAY_TASK_COUNT: '3' },
    });
    expect(slurm.code, slurm.stderr).toBe(0);
    expect(readCard(join(dir, 'slurm.json')).shard).toMatchObject({ index: 3, count: 3 });
  });
});

describe('a self-check in shards', () => {
  it('merges into the single self-check of the shipped problems', async () => {
    const dir = scratch();
    const single = await runCli(['--problems', 'problems', '--out', join(dir, 'single.json')]);
    expect(single.code).toBe(0);
    const parts = await Promise.all(
      [1, 2].map((i) => runCli(['--problems', 'problems', '--shard', `${i}/2`, '--concurrency', '1', '--out', join(dir, `s${i}.json`)])),
    );
    for (const p of parts) expect(p.code, p.stderr).toBe(0);
    const merged = await runCli(['merge', join(dir, 's1.jsonl'), join(dir, 's2.jsonl'), '--out', join(dir, 'merged.json')]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(comparable(readCard(join(dir, 'merged.json')))).toEqual(comparable(readCard(join(dir, 'single.json'))));
  });
});

/** Twelve problems; every third candidate spins until its time limit, so a shard takes long enough to be killed. */
function slowProblemSet(): string {
  const dir = join(scratch(), 'problems');
  mkdirSync(dir);
  for (let i = 0; i < 12; i++) {
    const id = `p${String(i).padStart(2, '0')}`;
    writeFileSync(
      join(dir, `${id}.json`),
      JSON.stringify({
        identifier: id,
        description: 'Double a number.',
        function_prototype: { function_name: 'double', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
        prompts: [],
        correctness_test_suite: [
          { input: { n: i }, expected_output: [2 * i] },
          { input: { n: -i }, expected_output: [-2 * i] },
        ],
        optimal_solution: i % 3 === 0 ? 'function double(n) { for (;;) {} }' : 'function double(n) { return 2 * n; }',
      }),
    );
  }
  return dir;
}

function candidateLines(log: string): number {
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"candidate"')).length;
}

describe('a shard killed and resumed', () => {
  it('merges into the single run', async () => {
    const problems = slowProblemSet();
    const dir = scratch();
    const args = ['--problems', problems, '--concurrency', '1', '--timeout', '300'];
    const single = await runCli([...args, '--out', join(dir, 'single.json')]);
    expect(single.code).toBe(1);
    const first = await runCli([...args, '--shard', '1/2', '--out', join(dir, 's1.json')]);
    expect(first.code).toBe(1);

    const log = join(dir, 's2.jsonl');
    const child = spawn(process.execPath, [BIN, ...args, '--shard', '2/2', '--out', join(dir, 's2.json')], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (candidateLines(log) >= 2) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
      void exited.then(() => {
        clearInterval(poll);
        reject(new Error('shard 2 finished before it could be killed'));
      });
    });
    child.kill('SIGKILL');
    await exited;
    const kept = candidateLines(log);
    expect(kept).toBeLessThan(6);

    // Before it is resumed, a merge says the shard is unfinished.
    const early = await runCli(['merge', join(dir, 's1.jsonl'), log, '--out', join(dir, 'early.json')]);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(new RegExp(`shard 2/2 \\(.*s2\\.jsonl\\) finished ${kept} of its 6 candidates; finish it with evalrun --resume`));
    expect(readCard(join(dir, 'early.json')).complete).toBe(false);

    const resumed = await runCli(['--resume', log]);
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(candidateLines(log)).toBe(6);
    const merged = await runCli(['merge', join(dir, 's1.jsonl'), log, '--out', join(dir, 'merged.json')]);
    // A self-check with failing candidates: the merge exits as the single run did.
    expect(merged.code, merged.stderr).toBe(1);
    expect(comparable(readCard(join(dir, 'merged.json')))).toEqual(comparable(readCard(join(dir, 'single.json'))));
  });

  it('--resume refuses a shard whose input changed since it started', async () => {
    const problems = slowProblemSet();
    const dir = scratch();
    const r = await runCli(['--problems', problems, '--concurrency', '1', '--timeout', '300', '--shard', '1/2', '--out', join(dir, 's1.json')]);
    expect(r.code).toBe(1);
    writeFileSync(join(problems, 'p01.json'), readFileSync(join(problems, 'p01.json'), 'utf8').replace('Double a number.', 'Double it.'));
    const resumed = await runCli(['--resume', join(dir, 's1.jsonl')]);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/shard 1\/2: the problem or solution files are not the ones this shard started with \(problems files differ/);
  });
});
