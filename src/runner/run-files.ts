import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import type { ShardSpec } from './shard.js';

/** Where a run's files go: the JSON scorecard and, beside it, the run log. */
export interface RunFiles {
  runId: string;
  log: string;
  scorecard: string;
  /** True when the log is an interrupted run's, to be finished. */
  resume: boolean;
}

/**
 * A run's id: the time it started, spelled so that it is a portable file
 * name. A shard's id names it too, so that shards writing to one shared
 * folder never collide.
 */
export function runIdFor(now: Date, shard: ShardSpec | null = null): string {
  const time = now.toISOString().replace(/:/g, '-');
  return shard === null ? time : `${time}.shard-${shard.index}-of-${shard.count}`;
}

/** `results/<run>.json` and `.jsonl`; with an `out` file, the log sits beside it. */
export function newRunFiles(out: string | null, shard: ShardSpec | null = null, now: Date = new Date()): RunFiles {
  const runId = runIdFor(now, shard);
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

/** The scorecard beside a run log: `x.jsonl` -> `x.json` (the inverse of logBeside). */
export function scorecardBeside(log: string): string {
  return log.endsWith('.jsonl') ? log.slice(0, -1) : `${log}.json`;
}

/** A run's id, from its log's name. */
export function runIdOfLog(log: string): string {
  return basename(log).replace(/\.jsonl$/, '');
}

/**
 * The run log a user means, for `--resume`, `evalrun report`, `diff` and
 * `--baseline` alike: a path to the log, or to the scorecard beside it, or
 * a run id under `results/` (with or without either extension). Throws,
 * naming where it looked, when there is none.
 */
export function locateRunLog(run: string): string {
  if (existsSync(run) && statSync(run).isFile()) {
    if (run.endsWith('.json') && existsSync(logBeside(run))) return logBeside(run);
    return run;
  }
  const base = run.replace(/\.jsonl?$/, '');
  const candidates = [`${base}.jsonl`, join(DEFAULTS.resultsDir, `${base}.jsonl`)];
  const found = candidates.find((file) => existsSync(file));
  if (found === undefined) throw new Error(`${run}: no run log (looked for ${candidates.join(' and ')})`);
  return found;
}
