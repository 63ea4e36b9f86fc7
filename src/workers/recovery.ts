/**
 * Work items through the pool, and what happens after a worker fails. A
 * worker answers a batch's items in order, so when it dies or stops
 * answering, the items it answered are done, the next one was running, and
 * the rest had not started:
 *
 * - the rest go again as a batch, costing them nothing;
 * - the running item goes again alone, so that an item that kills workers
 *   can use up only its own attempts. A worker that dies or hangs for a
 *   reason not shown to be the item's (killed from outside, a crash, a hang
 *   of the machinery) costs time, not verdicts: the item goes to a fresh
 *   worker, up to FAULT_RETRIES times;
 * - a candidate whose worker V8 aborted for running out of memory, or that
 *   failed on every attempt, is sent again to run its tests one at a time,
 *   each in a fresh context, the worker's progress cell naming the test it runs: a test
 *   that kills its worker again is the one at fault, and gets `memory` (out
 *   of memory) or an error naming the failure (once it has failed on
 *   FAULT_RETRIES + 1 workers); every other test still gets its real
 *   verdict;
 * - any other item (reading a file) that fails on every attempt is given
 *   up, and the caller says what that means for the run.
 */
import { NO_FILTERS } from '../grading/filters.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import { FAULT_RETRIES } from '../sandbox-host/sandbox-errors.js';
import { ceilingOf } from './ceilings.js';
import { knownTests, type BatchOptions, type ItemMessage, type WorkItem } from './messages.js';
import { BatchFault, type BatchRun } from './pool.js';

/** What recovery needs of the pool (pool.ts): a batch run, or a BatchFault thrown. */
export interface RunsBatches {
  run(run: BatchRun): Promise<void>;
}

/** What the caller of `runItems` says and hears about each item, by its own index. */
export interface ItemHandlers {
  /** Wall-clock ceiling of an item (of each test, when it runs one test at a time), given the tests its worker reports (0: none). */
  ceilingMs(item: WorkItem, tests: number): number;
  /**
   * Each answer; `indexOf(j)`: the caller's index of the j-th item it
   * answers (a graded message answers `count` items; any other, one: j = 0).
   */
  onMessage(message: ItemMessage, indexOf: (j: number) => number): void;
  /** The item to send again after a fault (a self-check that had read its problem is graded as a planned candidate). */
  again?(index: number, item: WorkItem): WorkItem;
  /** An item that is no candidate failed on every attempt: `reason` says how. */
  giveUp(index: number, item: WorkItem, reason: string): void;
}

export interface IndexedItem {
  index: number;
  item: WorkItem;
}

/**
 * The items a call sends, in order, each made when asked for (an array of
 * them is one; a run's plan makes its candidates): `at` must make the same
 * item each time. A batch's items are made for the line that sends
 * them and then let go; only a fault, or the pool's look at the ceiling of
 * the item a worker takes up next (once per answer, not per item), makes
 * one again. A batch in flight keeps its items' places, not their objects,
 * which would otherwise outlive collections of the supervisor's young
 * generation and be copied by each.
 */
export interface ItemSource {
  readonly length: number;
  at(index: number): IndexedItem | undefined;
}

/** Sends items as one batch, and again after faults as above, until each is answered or given up. */
export async function runItems(pool: RunsBatches, options: BatchOptions, items: ItemSource, handlers: ItemHandlers): Promise<void> {
  let rest = items;
  while (rest.length > 0) {
    const sent = rest;
    try {
      await pool.run(batchRun(sent, options, handlers));
      return;
    } catch (e) {
      if (!(e instanceof BatchFault)) throw e;
      // Done but not yet answered (before the running one), or not started (after it): again, as a batch.
      const at = e.running?.item ?? e.answered;
      const running = sent.at(at);
      rest = allBut(sent, e.answered, at);
      if (running !== undefined) await runAlone(pool, options, running, handlers, e);
    }
  }
}

/** The batch of `sent`: its items made once, for its line, and only their indexes kept. */
function batchRun(sent: ItemSource, options: BatchOptions, handlers: ItemHandlers): BatchRun {
  const items: WorkItem[] = [];
  const indexes: number[] = [];
  for (let i = 0; i < sent.length; i++) {
    const entry = itemOf(sent, i);
    items.push(entry.item);
    indexes.push(entry.index);
  }
  return {
    batch: { options, items },
    ceilingMs: (i, tests) => handlers.ceilingMs(itemOf(sent, i).item, tests),
    onMessage: (m) => handlers.onMessage(m, (j) => indexes[m.item + j]!),
  };
}

function itemOf(items: ItemSource, index: number): IndexedItem {
  const entry = items.at(index);
  if (entry === undefined) throw new RangeError(`no item ${index} of ${items.length}`);
  return entry;
}

/** Items [from, length) of `items` but the one at `skip`. */
function allBut(items: ItemSource, from: number, skip: number): ItemSource {
  const before = Math.max(0, Math.min(skip, items.length) - from);
  const after = Math.max(0, items.length - (skip + 1));
  return { length: before + after, at: (i) => (i < 0 || i >= before + after ? undefined : items.at(i < before ? from + i : skip + 1 + (i - before))) };
}

async function runAlone(pool: RunsBatches, options: BatchOptions, entry: IndexedItem, handlers: ItemHandlers, first: BatchFault): Promise<void> {
  let item = handlers.again?.(entry.index, entry.item) ?? entry.item;
  let fault = first.fault;
  // Out of memory is the candidate's doing: straight to one test at a time. An item
  // that is more than a candidate (a self-check before it has read its problem) goes alone first.
  for (let attempt = 1; attempt <= FAULT_RETRIES && !(knownTests(item) !== null && outOfMemory(fault)); attempt++) {
    const failed = await tryAlone(pool, options, item, handlers, (m) => handlers.onMessage(m, () => entry.index));
    if (failed === null) return;
    fault = failed.fault;
    item = handlers.again?.(entry.index, item) ?? item;
  }
  if (item.kind !== 'grade' && item.kind !== 'job') {
    handlers.giveUp(entry.index, item, `${fault.message} (on each of ${FAULT_RETRIES + 1} workers)`);
    return;
  }
  const tests = knownTests(item) ?? 0;
  const settled = new Map<number, Verdict>();
  const faults = new Map<number, number>();
  for (;;) {
    const oneByOne: Array<[number, Verdict]> = [...settled];
    const failed = await tryAlone(pool, options, { ...item, oneByOne }, handlers, (m) => handlers.onMessage(m, () => entry.index));
    if (failed === null) return;
    // A worker that died before its cell named a test held the first one still to run.
    const test = failed.running?.test ?? firstUnsettled(tests, settled);
    if (test === null) {
      handlers.giveUp(entry.index, item, failed.fault.message);
      return;
    }
    const tries = (faults.get(test) ?? 0) + 1;
    faults.set(test, tries);
    const memory = outOfMemory(failed.fault);
    if (!memory && tries <= FAULT_RETRIES) continue;
    const message = tries > 1 ? `${failed.fault.message} (on each of ${tries} workers)` : failed.fault.message;
    settled.set(test, memory ? { status: 'memory', message } : { status: 'error', message, durationMs: null });
  }
}

/** One item as a batch of its own: null once answered, or the fault. */
async function tryAlone(
  pool: RunsBatches,
  options: BatchOptions,
  item: WorkItem,
  handlers: ItemHandlers,
  onMessage: (m: ItemMessage) => void,
): Promise<BatchFault | null> {
  try {
    await pool.run({ batch: { options, items: [item] }, ceilingMs: (_, tests) => handlers.ceilingMs(item, tests), onMessage });
    return null;
  } catch (e) {
    if (e instanceof BatchFault) return e;
    throw e;
  }
}

function outOfMemory(e: Error): boolean {
  return 'outOfMemory' in e && e.outOfMemory === true;
}

function firstUnsettled(tests: number, settled: ReadonlyMap<number, Verdict>): number | null {
  for (let i = 0; i < tests; i++) if (!settled.has(i)) return i;
  return null;
}

/** Options for batches that only carry grade jobs built already, which hold their own. */
export function jobOptions(job: GradeJob): BatchOptions {
  return {
    grade: { limits: job.limits, tolerance: job.tolerance, languages: [job.language] },
    extractCode: false,
    filters: NO_FILTERS,
  };
}

/**
 * One grade job built already, through the same route and recovery as a
 * run's candidates; its reply. The sandbox's own tests grade jobs this way.
 */
export async function gradeWithRecovery(pool: RunsBatches, job: GradeJob): Promise<GradeReply> {
  let reply: GradeReply | null = null;
  let gaveUp: string | null = null;
  const item: WorkItem = { kind: 'job', job };
  await runItems(pool, jobOptions(job), [{ index: 0, item }], {
    ceilingMs: (it) => ceilingOf(it, job.limits),
    onMessage: (m) => {
      if (m.type === 'answered') reply = m.reply;
      else if (m.type === 'failed') throw new Error(`sandbox worker failed: ${m.message}`);
    },
    giveUp: (_, __, reason) => {
      gaveUp = reason;
    },
  });
  if (reply !== null) return reply;
  throw new Error(gaveUp ?? 'the sandbox worker gave no answer');
}
