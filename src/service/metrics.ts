/**
 * The service's Prometheus metrics (`GET /metrics`), in a registry of its
 * own: candidates graded by status, the queue's depth, how long candidates
 * took from admission to result, workers lost and replaced, and calls
 * refused; plus the process's own metrics (memory, CPU, event-loop lag).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CandidateStatus } from '../report/scorecard.js';
import type { GraderObserver } from './grader-options.js';

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly graded: Counter<'status'>;
  private readonly latency: Histogram;
  private readonly restarts: Counter;
  private readonly refused: Counter<'reason'>;
  /** Read when scraped: the grader exists only after the metrics do (it reports to them). */
  private queueDepth: () => number = () => 0;

  constructor() {
    const registers = [this.registry];
    this.graded = new Counter({ name: 'evalrun_candidates_graded_total', help: 'Candidates graded, by status', labelNames: ['status'], registers });
    this.latency = new Histogram({
      name: 'evalrun_candidate_latency_seconds',
      help: 'Time from a call being admitted to each of its candidates being graded',
      // From a warm small candidate to one that uses several seconds of test time.
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.restarts = new Counter({
      name: 'evalrun_worker_restarts_total',
      help: 'Sandbox workers lost (crashed, killed, or stuck past their ceiling) and replaced',
      registers,
    });
    this.refused = new Counter({
      name: 'evalrun_requests_refused_total',
      help: 'Grading requests refused before anything ran, by reason',
      labelNames: ['reason'],
      registers,
    });
    const depth = (): number => this.queueDepth();
    new Gauge({
      name: 'evalrun_queue_depth',
      help: 'Candidates admitted and not yet graded',
      registers,
      collect() {
        this.set(depth());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'evalrun_' });
    for (const status of ['passed', 'failed', 'load-error', 'unsupported', 'no-tests'] satisfies CandidateStatus[]) this.graded.inc({ status }, 0);
  }

  /** What the grader reports to. */
  observer(): GraderObserver {
    return {
      graded: (status, seconds) => {
        this.graded.inc({ status });
        this.latency.observe(seconds);
      },
      workerLost: () => this.restarts.inc(),
    };
  }

  watchQueue(depth: () => number): void {
    this.queueDepth = depth;
  }

  refusedCall(reason: string): void {
    this.refused.inc({ reason });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
