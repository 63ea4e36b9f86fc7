import { join } from 'node:path';
import { DEFAULTS } from '../defaults.js';

/** Where a run's files go: the JSON scorecard and, beside it, the run log. */
export interface RunFiles {
  runId: string;
  log: string;
  scorecard: string;
  /** True when the log is an interrupted run's, to be finished. */
  resume: boolean;
}

/** A run's id: the time it started, spelled so that it is a portable file name. */
export function runIdFor(now: Date): string {
  return now.toISOString().replace(/:/g, '-');
}

/** `results/<run>.json` and `.jsonl`; with an `out` file, the log sits beside it. */
export function newRunFiles(out: string | null, now: Date = new Date()): RunFiles {
  const runId = runIdFor(now);
  if (out === null) {
    return {
      runId,
      log: join(DEFAULTS.resultsDir, `${runId}.jsonl`),
      scorecard: join(DEFAULTS.resultsDir, `${runId}.json`),
      resume: false,
    };
  }
  return { runId, log: logBeside(out), scorecard: out, resume: false };
}

/** The run log of the scorecard `file`: `x.json` -> `x.jsonl`, anything else gets `.jsonl` added. */
export function logBeside(scorecard: string): string {
  return scorecard.endsWith('.json') ? `${scorecard}l` : `${scorecard}.jsonl`;
}
