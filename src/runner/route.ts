/**
 * The one route every piece of a run's work takes from the plan to a
 * sandbox worker: items (a problem file to read, a candidate to grade, a
 * solution file to read) go in batches, and p-limit bounds the batches in
 * flight at twice the workers, so that each worker runs one and holds the
 * next in its pipe, and the supervisor's memory stays bounded however
 * large the run. Faults are handled per item (workers/recovery.ts). The
 * answers go to the caller's handlers the moment they arrive.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { ceilingOf } from '../workers/ceilings.js';
import type { BatchOptions, RunContext } from '../workers/messages.js';
import { runItems, type ItemHandlers, type ItemSource, type RunsBatches } from '../workers/recovery.js';

/** Batches in flight per worker: the one it runs and the one queued behind it. */
export const BATCHES_PER_WORKER = 2;

/**
 * The most items in one batch of a run: enough that what the supervisor
 * spends per batch (sending it, and waking for its answers) is shared by
 * many candidates; the end of a run is balanced by
 * BATCHES_PER_WORKER_AT_LEAST, not by this.
 */
const MAX_BATCH_ITEMS = 128;

/**
 * The most items in one batch of a grading service request: smaller, since
 * a batch holds its worker until it ends, and requests share the workers.
 */
const MAX_REQUEST_BATCH_ITEMS = 32;

/** Batches each worker should get at least, so that the run's end is not one worker finishing a large batch alone. */
const BATCHES_PER_WORKER_AT_LEAST = 8;

export interface RouteOptions {
  pool: RunsBatches & { readonly size: number; setContext?(context: RunContext): void };
  batch: BatchOptions;
  /**
   * Batches in flight per worker (default BATCHES_PER_WORKER). The grading
   * service holds one: a batch queued in a worker's pipe can no longer be
   * dropped when its client goes away, one still waiting here can.
   */
  batchesPerWorker?: number;
}

export class Route {
  /** The bound on the work in flight: batches sent to workers and not yet answered. */
  readonly limit: LimitFunction;

  constructor(private readonly options: RouteOptions) {
    this.limit = pLimit(Math.max(1, options.pool.size) * (options.batchesPerWorker ?? BATCHES_PER_WORKER));
  }

  /** The options every batch of this route carries unless a call gives its own. */
  get batchOptions(): BatchOptions {
    return this.options.batch;
  }

  /** What every worker keeps for the rest of the run (the problem ids solution files are read against). */
  setContext(context: RunContext): void {
    this.options.pool.setContext?.(context);
  }

  /**
   * Sends every item, in batches of consecutive items; resolves once each
   * is answered or given up. A handler that throws ends the route: the
   * promise rejects with what it threw. `call`: options of this call alone
   * (the grading service sends each request's own), and a signal that
   * drops the batches of this call still waiting for their turn (their
   * items get no answer) while those in flight finish; and `request`: the
   * items are one request among others in flight (the grading service), so
   * they go in as few batches as spread them over the workers, rather than
   * the small batches a whole run's list is cut into to balance its end.
   */
  async send(
    items: ItemSource,
    handlers: Omit<ItemHandlers, 'ceilingMs'> & { ceilingMs?: ItemHandlers['ceilingMs'] },
    call: { batch?: BatchOptions; signal?: AbortSignal; request?: boolean } = {},
  ): Promise<void> {
    const options = call.batch ?? this.options.batch;
    const limits = options.grade.limits;
    const full: ItemHandlers = { ...handlers, ceilingMs: handlers.ceilingMs ?? ((item, tests) => ceilingOf(item, limits, tests, options.grade.measure)) };
    const size = call.request === true ? requestBatchSize(items.length, this.options.pool.size) : batchSize(items.length, this.options.pool.size);
    const sent: Array<Promise<void>> = [];
    let failed: { error: unknown } | null = null;
    for (let at = 0; at < items.length; at += size) {
      const from = at;
      // A batch's items are made when it starts: a run's list of work is not held as objects while it waits, nor a batch's while it runs.
      const length = Math.min(size, items.length - from);
      const batch: ItemSource = { length, at: (k) => (k < 0 || k >= length ? undefined : items.at(from + k)) };
      const done = this.limit(() => (failed === null && call.signal?.aborted !== true ? runItems(this.options.pool, options, batch, full) : undefined));
      // The first failure stops the batches not yet sent; it is thrown once every batch in flight has settled.
      sent.push(done.catch((error: unknown) => void (failed ??= { error })));
    }
    await Promise.all(sent);
    if (failed !== null) throw (failed as { error: unknown }).error;
  }
}

/** Items per batch for a request of `items` to a service with `workers` workers: one batch per worker at most. */
export function requestBatchSize(items: number, workers: number): number {
  return Math.min(MAX_REQUEST_BATCH_ITEMS, Math.max(1, Math.ceil(items / Math.max(1, workers))));
}

/** Items per batch for a run of `items` on `workers` workers. */
export function batchSize(items: number, workers: number): number {
  return Math.min(MAX_BATCH_ITEMS, Math.max(1, Math.ceil(items / (Math.max(1, workers) * BATCHES_PER_WORKER_AT_LEAST))));
}
