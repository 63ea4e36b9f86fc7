/**
 * The route from the plan to the workers, with a pool that answers from
 * here: p-limit bounds the batches in flight at BATCHES_PER_WORKER per
 * worker, every item is answered once, and after a worker fault mid-batch
 * only the unanswered items go again: the running one alone (so that it
 * uses up only its own attempts), the rest as a batch.
 */
import { describe, expect, it } from 'vitest';
import type { Candidate } from '../../src/grading/candidate.js';
import { NO_FILTERS } from '../../src/grading/filters.js';
import { batchSize, BATCHES_PER_WORKER, requestBatchSize, Route } from '../../src/runner/route.js';
import { SandboxCrashed } from '../../src/sandbox-host/sandbox-errors.js';
import { GradedAnswers, readFromWorker, type BatchOptions, type ItemMessage, type WorkItem } from '../../src/workers/messages.js';
import { BatchFault, type BatchRun } from '../../src/workers/pool.js';
import { FAULT_RETRIES } from '../../src/workers/pool.js';

const OPTIONS: BatchOptions = {
  grade: { limits: { memoryMb: 64, timeoutMs: 1000, seed: 1 }, tolerance: { relative: 1e-9, absolute: 1e-9 }, languages: ['javascript'] },
  extractCode: true,
  filters: NO_FILTERS,
};

function candidate(i: number, tests = 2): Candidate {
  return {
    problemId: `p${i}`,
    file: `/p/p${i}.json`,
    modelId: 'm',
    promptId: null,
    sampleId: String(i),
    source: `s${i}`,
    tests,
    submission: null,
    extract: false,
  };
}

function graded(m: { batch: number; item: number }, passed: boolean): ItemMessage {
  const row = {
    problem_id: 'p',
    model_id: 'm',
    prompt_id: null,
    sample_id: null,
    language: 'javascript',
    status: passed ? 'passed' : 'failed',
    error: null,
    entry_point: 'f',
    passed: passed ? 1 : 0,
    total: 1,
    duration_ms: 0,
    counts: { fail: passed ? 0 : 1, error: 0, timeout: 0, memory: 0, skipped: 0 },
    ran: true,
  } as const;
  const answers = new GradedAnswers(m.batch, m.item);
  answers.add([row], ['{}']);
  const { line, payload } = answers.frame();
  return readFromWorker(JSON.parse(line), payload) as ItemMessage;
}

/**
 * A pool of `size` workers that answers every item after a few turns of the
 * event loop, counting the batches it holds at once. `crash(item)` says
 * whether a worker dies on that item instead of answering it.
 */
class FakePool {
  inFlight = 0;
  most = 0;
  batches: WorkItem[][] = [];
  constructor(
    readonly size: number,
    private readonly crash: (item: WorkItem) => SandboxCrashed | null = () => null,
  ) {}

  async run(run: BatchRun): Promise<void> {
    this.batches.push(run.batch.items);
    this.inFlight++;
    this.most = Math.max(this.most, this.inFlight);
    try {
      for (let i = 0; i < run.batch.items.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
        const item = run.batch.items[i]!;
        const fault = this.crash(item);
        if (fault !== null) throw new BatchFault(i, { item: i, test: null }, fault);
        run.onMessage(graded({ batch: 1, item: i }, true));
      }
    } finally {
      this.inFlight--;
    }
  }
}

const gradeItems = (n: number) => Array.from({ length: n }, (_, index) => ({ index, item: { kind: 'grade', candidate: candidate(index) } satisfies WorkItem }));

describe('Route', () => {
  it('sends a request of the grading service as one batch per worker at most, each smaller than a run batch may be', async () => {
    expect(requestBatchSize(8, 2)).toBe(4);
    expect(requestBatchSize(8, 64)).toBe(1);
    expect(requestBatchSize(1000, 2)).toBe(32);
    expect(batchSize(1_000_000, 2)).toBeGreaterThan(requestBatchSize(1_000_000, 2));
    const pool = new FakePool(2);
    const route = new Route({ pool, batch: OPTIONS });
    await route.send(gradeItems(8), { onMessage: () => undefined, giveUp: () => undefined }, { request: true });
    expect(pool.batches.map((b) => b.length)).toEqual([4, 4]);
  });

  it('never has more than BATCHES_PER_WORKER batches per worker in flight, and answers every item once', async () => {
    for (const size of [1, 2, 3, 8]) {
      const pool = new FakePool(size);
      const route = new Route({ pool, batch: OPTIONS });
      const answered = new Map<number, number>();
      await route.send(gradeItems(500), {
        onMessage: (_, indexOf) => void answered.set(indexOf(0), (answered.get(indexOf(0)) ?? 0) + 1),
        giveUp: () => {
          throw new Error('nothing is given up');
        },
      });
      expect(pool.most).toBeLessThanOrEqual(size * BATCHES_PER_WORKER);
      expect(pool.most).toBeGreaterThan(0);
      expect(answered.size).toBe(500);
      expect([...answered.values()].every((n) => n === 1)).toBe(true);
      expect(route.limit.concurrency).toBe(size * BATCHES_PER_WORKER);
    }
  });

  it('sizes batches so that every worker gets several, and no batch is empty or huge', () => {
    expect(batchSize(1, 64)).toBe(1);
    expect(batchSize(100, 2)).toBeLessThanOrEqual(100 / 2);
    expect(batchSize(1_000_000, 2)).toBe(128);
    expect(batchSize(1_000_000, 64)).toBe(128);
    expect(batchSize(4000, 64)).toBeLessThan(4000 / 64);
  });

  it('after a fault mid-batch, sends the running item again alone and the rest as a batch, none answered twice', async () => {
    let killsLeft = 1;
    // Batches of 3 (40 items, 2 workers): the worker dies once on candidate 4, in the middle of its batch (say, killed from outside).
    expect(batchSize(40, 2)).toBe(3);
    const pool = new FakePool(2, (item) => {
      if (item.kind === 'grade' && item.candidate.problemId === 'p4' && killsLeft > 0) {
        killsLeft--;
        return new SandboxCrashed('killed by SIGKILL');
      }
      return null;
    });
    const route = new Route({ pool, batch: OPTIONS });
    const answered: number[] = [];
    await route.send(gradeItems(40), { onMessage: (_, indexOf) => void answered.push(indexOf(0)), giveUp: () => undefined });
    expect([...answered].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const ids = (b: WorkItem[]) => b.map((item) => (item.kind === 'grade' ? item.candidate.problemId : '?'));
    const sent = pool.batches.map(ids);
    // The batch [p3, p4, p5]: p3 was answered and not sent again; p4 went alone; p5, not started, went again without it.
    expect(sent).toContainEqual(['p3', 'p4', 'p5']);
    expect(sent).toContainEqual(['p4']);
    expect(sent).toContainEqual(['p5']);
    const counts = new Map<string, number>();
    for (const id of sent.flat()) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(counts.get('p3')).toBe(1);
    expect(counts.get('p4')).toBe(2);
    expect(counts.get('p5')).toBe(2);
    expect([...counts.entries()].filter(([id]) => !['p4', 'p5'].includes(id)).every(([, n]) => n === 1)).toBe(true);
  });

  it('makes each item once, for the line that sends its batch, and again only when a fault sends it again', async () => {
    let killsLeft = 1;
    const pool = new FakePool(2, (item) => {
      if (item.kind === 'grade' && item.candidate.problemId === 'p4' && killsLeft > 0) {
        killsLeft--;
        return new SandboxCrashed('killed by SIGKILL');
      }
      return null;
    });
    // A list that makes a new item each time it is asked, as a run's plan does, and counts the asking.
    const made = new Map<number, number>();
    const items = {
      length: 40,
      at: (index: number) => {
        made.set(index, (made.get(index) ?? 0) + 1);
        return { index, item: { kind: 'grade', candidate: candidate(index) } satisfies WorkItem };
      },
    };
    const answered: number[] = [];
    await new Route({ pool, batch: OPTIONS }).send(items, { onMessage: (_, indexOf) => void answered.push(indexOf(0)), giveUp: () => undefined });
    expect([...answered].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // Batches of 3: [3, 4, 5] failed on 4 after 3 was answered; 4 went again alone and 5 in a batch of its own.
    expect(made.get(4)).toBe(2);
    expect(made.get(5)).toBe(2);
    expect([...made].filter(([index]) => index !== 4 && index !== 5).every(([, n]) => n === 1)).toBe(true);
    expect(made.size).toBe(40);
  });

  it("takes the running item from the worker's progress cell: the items it had done but not answered go again as a batch, not alone", async () => {
    let crashed = false;
    const batches: string[][] = [];
    const answered: number[] = [];
    // A worker that answers a batch only at its end, and dies on p5 the first time, its cell naming item 1 ([p4, p5, p6, p7]).
    const pool = {
      size: 2,
      async run(run: BatchRun): Promise<void> {
        const ids = run.batch.items.map((item) => (item.kind === 'grade' ? item.candidate.problemId : '?'));
        batches.push(ids);
        await new Promise((resolve) => setTimeout(resolve, 1));
        const at = ids.indexOf('p5');
        if (at >= 0 && !crashed) {
          crashed = true;
          throw new BatchFault(0, { item: at, test: null }, new SandboxCrashed('killed by SIGKILL'));
        }
        ids.forEach((_, i) => run.onMessage(graded({ batch: 1, item: i }, true)));
      },
    };
    const route = new Route({ pool, batch: OPTIONS });
    await route.send(gradeItems(64), { onMessage: (_, indexOf) => void answered.push(indexOf(0)), giveUp: () => undefined });
    expect([...answered].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    expect(batches).toContainEqual(['p4', 'p5', 'p6', 'p7']);
    expect(batches).toContainEqual(['p5']);
    // p4 was done but not answered when the worker died: it goes again with p6 and p7, not alone.
    expect(batches).toContainEqual(['p4', 'p6', 'p7']);
    expect(batches.filter((b) => b.length === 1)).toEqual([['p5']]);
  });

  it('a candidate that kills every worker uses up only its own attempts, then runs one test at a time', async () => {
    // Batches of 4 (64 items, 2 workers): p5 is in the middle of [p4 .. p7].
    expect(batchSize(64, 2)).toBe(4);
    const pool = new FakePool(2, (item) =>
      item.kind === 'grade' && item.candidate.problemId === 'p5' && item.oneByOne === undefined ? new SandboxCrashed('killed by SIGSEGV') : null,
    );
    const route = new Route({ pool, batch: OPTIONS });
    const answered: number[] = [];
    await route.send(gradeItems(64), { onMessage: (_, indexOf) => void answered.push(indexOf(0)), giveUp: () => undefined });
    expect([...answered].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    const p5 = pool.batches.filter((b) => b.some((item) => item.kind === 'grade' && item.candidate.problemId === 'p5'));
    // In its batch, then alone on FAULT_RETRIES more workers, then one test at a time.
    expect(p5).toHaveLength(1 + FAULT_RETRIES + 1);
    expect(p5.slice(1).every((b) => b.length === 1)).toBe(true);
    expect(p5.at(-1)![0]).toMatchObject({ kind: 'grade', oneByOne: [] });
    // No batch-mate was sent alone: p6 and p7 went on together.
    expect(pool.batches.filter((b) => b.length === 1 && !(b[0]!.kind === 'grade' && b[0]!.candidate.problemId === 'p5'))).toEqual([]);
    expect(pool.batches.map((b) => b.map((item) => (item.kind === 'grade' ? item.candidate.problemId : '?')))).toContainEqual(['p6', 'p7']);
  });

  it('stops sending batches once a handler throws, and throws what it threw', async () => {
    const pool = new FakePool(2);
    const route = new Route({ pool, batch: OPTIONS });
    let heard = 0;
    await expect(
      route.send(gradeItems(400), {
        onMessage: () => {
          heard++;
          if (heard === 3) throw new Error('disk full');
        },
        giveUp: () => undefined,
      }),
    ).rejects.toThrow('disk full');
    expect(pool.batches.length).toBeLessThan(40);
  });
});
