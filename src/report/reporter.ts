import type { CandidateResult, Scorecard } from './scorecard.js';

export interface RunStartInfo {
  problems: number;
  invalidProblems: number;
  candidates: number;
}

/**
 * An output format. Each hook is optional; a reporter sees the run start,
 * every candidate as soon as it is graded, and the final scorecard.
 */
export interface Reporter {
  onRunStart?(info: RunStartInfo): void | Promise<void>;
  onCandidateResult?(results: readonly CandidateResult[]): void | Promise<void>;
  onRunEnd?(scorecard: Scorecard): void | Promise<void>;
}

/** Calls every reporter in order; a hook of one finishes before the next starts. */
export interface CombinedReporter {
  onRunStart(info: RunStartInfo): Promise<void>;
  onCandidateResult(results: readonly CandidateResult[]): Promise<void>;
  onRunEnd(scorecard: Scorecard): Promise<void>;
}

export function combineReporters(reporters: readonly Reporter[]): CombinedReporter {
  return {
    async onRunStart(info) {
      for (const r of reporters) await r.onRunStart?.(info);
    },
    async onCandidateResult(results) {
      for (const r of reporters) await r.onCandidateResult?.(results);
    },
    async onRunEnd(scorecard) {
      for (const r of reporters) await r.onRunEnd?.(scorecard);
    },
  };
}
