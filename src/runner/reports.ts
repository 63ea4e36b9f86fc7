import type { CombinedReporter, RunStartInfo } from '../report/reporter.js';
import type { CandidateRow } from '../report/rows.js';

/**
 * Tells the reporters of each graded candidate, in the order they finish
 * and one at a time. A self-check starts them once the problem files are
 * listed, with one candidate per file at most, and settles the count once
 * every file is read (`onPlan`); any other run starts them once it is
 * planned, and grades only candidates of its plan. A reporter's failure
 * ends the run once grading stops.
 */
export class Reports {
  private started = false;
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(private readonly reporter: CombinedReporter) {}

  /**
   * Candidates not yet told, told together, one step of the chain for all
   * that came meanwhile: each one's tests and passed tests, two numbers a
   * candidate, and its rows only when a reporter hears rows.
   */
  private queuedCounts: number[] = [];
  private queuedRows: Array<() => readonly CandidateRow[]> = [];

  /** A candidate graded, counted (`tests` ran, `passed` passed); `rows` gives its rows, made only when a reporter hears them. */
  graded(tests: number, passed: number, rows: () => readonly CandidateRow[]): void {
    if (!this.started) return;
    this.queuedCounts.push(tests, passed);
    if (this.reporter.hearsRows) this.queuedRows.push(rows);
    if (this.queuedCounts.length === 2) this.tellQueued();
  }

  /** The one step of the chain for the candidates queued from now on: kept out of `graded`, which runs per candidate. */
  private tellQueued(): void {
    this.tell(() => this.drain());
  }

  private async drain(): Promise<void> {
    const counts = this.queuedCounts.splice(0);
    const rows = this.queuedRows.splice(0);
    for (let i = 0; i < counts.length / 2; i++) {
      this.reporter.onCandidateCounted(counts[2 * i]!, counts[2 * i + 1]!);
      if (!this.reporter.hearsRows) continue;
      const told = this.reporter.onCandidateResult(rows[i]!());
      if (told !== undefined) await told;
    }
  }

  /** Starts the reporters before the plan is known: `info.candidates` is an upper bound. */
  startEstimated(info: RunStartInfo): void {
    this.started = true;
    this.tell(() => this.reporter.onRunStart({ ...info, estimated: true }));
  }

  /** The plan is known: starts the reporters, or settles the count of those started on an estimate. */
  plan(info: RunStartInfo): void {
    const estimated = this.started;
    this.started = true;
    this.tell(() => (estimated ? this.reporter.onPlan(info) : this.reporter.onRunStart(info)));
  }

  /** Resolves once the reporters have heard everything so far; throws what the first one that failed threw. */
  async idle(): Promise<void> {
    await this.chain;
    if (this.failure !== null) throw this.failure.error;
  }

  private tell(hook: () => Promise<void>): void {
    this.chain = this.chain.then(() => (this.failure === null ? hook() : undefined)).catch((error: unknown) => void (this.failure ??= { error }));
  }
}
