/**
 * Planning a run of submissions from what the workers read: each solution
 * file's submissions arrive in parts (a long JSON Lines file in several),
 * are kept as columns, numbered and filtered; the plan must be the one the
 * in-process discovery gives, and a part from an attempt that a worker
 * fault cut short must not be planned twice.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProblemSummary } from '../../src/grading/candidate.js';
import { NO_FILTERS } from '../../src/grading/filters.js';
import { planCandidates, type ReadProblems } from '../../src/runner/plan.js';
import { Route } from '../../src/runner/route.js';
import type { RunOptions } from '../../src/runner/run-options.js';
import { SandboxCrashed } from '../../src/sandbox-host/sandbox-errors.js';
import { discoverSubmissions, solutionDiscoveryContext } from '../../src/solutions/discover.js';
import { readSolutionFile } from '../../src/solutions/read-solution-file.js';
import { SUBMISSIONS_PER_MESSAGE, readFromWorker, solutionsLines, type BatchOptions, type ItemMessage, type RunContext } from '../../src/workers/messages.js';
import { BatchFault, type BatchRun } from '../../src/workers/pool.js';

const BATCH: BatchOptions = {
  grade: { limits: { memoryMb: 64, timeoutMs: 1000, seed: 1 }, tolerance: { relative: 1e-9, absolute: 1e-9 }, languages: ['python'] },
  extractCode: true,
  filters: NO_FILTERS,
};

// In the test run's own temporary folder (test/temp-folder.ts), removed when the run ends.
const folder = { path: mkdtempSync(join(tmpdir(), 'evalrun-plan-solutions-')) };

const problem = (id: string): ProblemSummary => ({ id, file: `/p/${id}.json`, tags: [], warnings: [], hasOptimalSolution: true, tests: 3 });
const PROBLEMS = ['p0', 'p1', 'p2', 'p3'].map(problem);

/**
 * A solutions folder: one long JSON Lines file (some lines with sample ids,
 * some bad, some of the invalid problem `bad`, some of a model the run
 * leaves out), a second model's short one, and files of their own.
 */
function solutionsFolder(): string {
  const dir = join(folder.path, 'solutions');
  mkdirSync(join(dir, 'm1'), { recursive: true });
  mkdirSync(join(dir, 'm2'), { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < 2 * SUBMISSIONS_PER_MESSAGE + 37; i++) {
    if (i % 501 === 7) {
      lines.push('{not json');
      continue;
    }
    const record: Record<string, unknown> = { problem_id: i % 97 === 3 ? 'bad' : `p${i % 4}`, completion: `def f(x):\n    return x + ${i}\n` };
    if (i % 13 === 0) record.sample_id = i % 26 === 0 ? String((i / 13) % 5) : `s${i}`;
    if (i % 11 === 0) record.prompt = 'brief';
    if (i % 89 === 5) record.model = 'left-out';
    lines.push(JSON.stringify(record));
  }
  writeFileSync(join(dir, 'm1', 'samples.jsonl'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'm2', 'few.jsonl'), `${JSON.stringify({ task_id: 'p1', code: 'def f(x): return x' })}\n`);
  writeFileSync(join(dir, 'm2', 'p2.py'), 'def f(x):\n    return x\n');
  writeFileSync(join(dir, 'm2', 'unknown.py'), 'def f(x):\n    return x\n');
  return dir;
}

/**
 * A pool that reads each solution file here, as a worker would, and answers
 * with its parts; `cut(file, attempt)` says after how many parts the
 * worker of that attempt dies instead (null: it answers them all).
 */
class ReadingPool {
  readonly size = 2;
  private context: RunContext | null = null;
  private batchId = 0;
  readonly attempts = new Map<string, number>();
  constructor(private readonly cut: (file: string, attempt: number) => number | null) {}

  setContext(context: RunContext): void {
    this.context = context;
  }

  async run(run: BatchRun): Promise<void> {
    const batch = ++this.batchId;
    const context = this.context!;
    const ctx = solutionDiscoveryContext(join(folder.path, 'solutions'), new Set(context.knownProblemIds));
    for (const [i, item] of run.batch.items.entries()) {
      if (item.kind !== 'read-solutions') throw new Error(`a ${item.kind} item`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const attempt = (this.attempts.get(item.file.source) ?? 0) + 1;
      this.attempts.set(item.file.source, attempt);
      const lines = solutionsLines(batch, i, readSolutionFile(item.file, ctx));
      const cutAfter = this.cut(item.file.source, attempt);
      for (const [n, line] of lines.entries()) {
        if (cutAfter !== null && n === cutAfter) throw new BatchFault(i, { item: i, test: null }, new SandboxCrashed('killed by SIGKILL', false));
        run.onMessage(readFromWorker(JSON.parse(line)) as ItemMessage);
      }
    }
  }
}

const options = (solutionsDir: string): RunOptions => ({
  problemsDir: '/p',
  solutionsDir,
  filters: NO_FILTERS,
  concurrency: 2,
  memoryMb: 64,
  timeoutMs: 1000,
  tolerance: { relative: 1e-9, absolute: 1e-9 },
  seed: 1,
  languages: new Set(['python']),
  passAtK: [1],
  extractCode: true,
});

const loaded: ReadProblems = {
  problems: PROBLEMS,
  invalid: [{ file: '/p/bad.json', id: 'bad', errors: ['/p/bad.json: $.tests: expected an array'] }],
  walked: () => [],
  unread: 0,
  listed: () => [],
};

async function plan(dir: string, pool: ReadingPool) {
  const planned = await planCandidates(options(dir), loaded, PROBLEMS, (model) => model !== 'left-out', new Route({ pool, batch: BATCH }));
  const candidates = Array.from({ length: planned.candidates.length }, (_, rank) => planned.candidates.at(rank));
  const keys = Array.from({ length: planned.candidates.length }, (_, rank) => planned.candidates.key(rank));
  return { candidates, keys, skipped: planned.skipped };
}

describe('a run of submissions planned from the parts the workers send', () => {
  const dir = solutionsFolder();

  it('plans what discovery in one process finds: the same candidates, numbered samples, keys and skipped solutions, in walk order', async () => {
    const pool = new ReadingPool(() => null);
    const { candidates, keys, skipped } = await plan(dir, pool);
    const whole = await discoverSubmissions(dir, new Set(['p0', 'p1', 'p2', 'p3', 'bad']));
    const expected = whole.submissions.filter((s) => s.problemId !== 'bad' && s.modelId !== 'left-out');
    expect(candidates.map((c) => [c.problemId, c.modelId, c.promptId, c.sampleId, c.source, c.submission?.text])).toStrictEqual(
      expected.map((s) => [s.problemId, s.modelId, s.promptId, s.sampleId, s.source, s.text]),
    );
    expect(new Set(keys).size).toBe(keys.length);
    // Samples without an id step around the ids given; several hundred of each kind are planned.
    expect(candidates.filter((c) => c.sampleId === null).length).toBe(2);
    expect(candidates.filter((c) => /^s\d+$/.test(c.sampleId ?? '')).length).toBeGreaterThan(100);
    expect(skipped).toStrictEqual([
      ...whole.skipped,
      ...whole.submissions.filter((s) => s.problemId === 'bad').map((s) => ({ source: s.source, reason: 'problem "bad" is invalid (/p/bad.json)' })),
    ]);
    expect(skipped.some((s) => /unknown\.py/.test(s.source))).toBe(true);
    expect(skipped.filter((s) => /not json|invalid JSON|JSON/i.test(s.reason)).length).toBeGreaterThan(0);
  });

  it('drops the parts of a file whose worker died before its last and plans each submission once', async () => {
    const whole = await plan(dir, new ReadingPool(() => null));
    // The long file's first attempt dies after one part, its second after two; the third reads it all.
    const pool = new ReadingPool((file, attempt) => (file.endsWith('samples.jsonl') && attempt < 3 ? attempt : null));
    const cut = await plan(dir, pool);
    expect(pool.attempts.get(join(dir, 'm1', 'samples.jsonl'))).toBe(3);
    expect(cut.keys).toStrictEqual(whole.keys);
    expect(cut.candidates).toStrictEqual(whole.candidates);
    expect(cut.skipped).toStrictEqual(whole.skipped);
  });
});
