import { statSync } from 'node:fs';
import { DEFAULTS } from '../defaults.js';
import type { RunOutcome } from '../report/reporter.js';
import { keysOf, RunLog } from '../runlog/run-log.js';
import { outcomeOf } from './outcome.js';
import { locateRunLog } from './run-files.js';
import { collectRows, Tally } from './tally.js';

/** A run read back from its log; `close` releases the log, which the outcome's results read from. */
export interface ReadRun {
  outcome: RunOutcome;
  log: string;
  close(): void;
}

export class RunLogError extends Error {}

/**
 * Reads a run, finished or interrupted, from its log alone: nothing is
 * graded again. A log written before plan lines existed still reads; it
 * then lacks the problem list, the tags and the skipped submissions, and
 * counts as complete only when it has an end line. Candidates come in the
 * order its last plan line gives; a candidate logged that this plan does not
 * name was left out of the run when it was resumed (its file removed), as
 * the resumed run's own scorecard leaves it out. A log without a plan line
 * (a self-check killed while it read the problems) gives its candidates in
 * the order they were logged.
 */
export function readRun(run: string): ReadRun {
  let log: string;
  try {
    log = locateRunLog(run);
  } catch (e) {
    throw new RunLogError(e instanceof Error ? e.message : String(e));
  }
  const collected = collectRows();
  let opened: ReturnType<typeof RunLog.read>;
  try {
    opened = RunLog.read(log, collected.visit);
  } catch (e) {
    throw new RunLogError(e instanceof Error ? e.message : String(e));
  }
  const { header, plan, end, logged } = opened;
  const tally = new Tally(opened.log, collected.rows);
  tally.plan(keysOf(plan?.keys ?? logged));
  const passAtK = Array.isArray(header.options.pass_at_k) ? (header.options.pass_at_k as number[]) : [...DEFAULTS.passAtK];
  const outcome = outcomeOf(tally, {
    header,
    finishedAt: end?.finished_at ?? statSync(log).mtime.toISOString(),
    complete: end?.complete ?? (plan !== null && tally.missing() === 0),
    problems: plan?.problems ?? [],
    tagsByProblem: new Map(Object.entries(plan?.tags ?? {})),
    skipped: plan?.skipped_submissions ?? [],
    passAtK,
  });
  return { outcome, log, close: () => opened.log.close() };
}
