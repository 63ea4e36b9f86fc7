import { combineReporters, type CombinedReporter, type Reporter, type RunOutcome } from '../report/reporter.js';
import type { ProblemReport, ScorecardHead } from '../report/scorecard.js';
import { RunLog, type RunHeader, type ShardLogRecord } from '../runlog/run-log.js';
import { WorkerPool } from '../workers/pool.js';
import type { ProblemSummary } from '../grading/candidate.js';
import { selector } from '../grading/filters.js';
import { gradeAll, type Recorder } from './grade-candidates.js';
import { outcomeOf } from './outcome.js';
import { planCandidates, readProblems, reportProblems, type PlannedRun, type ReadProblems } from './plan.js';
import { Reports } from './reports.js';
import { Route } from './route.js';
import { gradeOptionsOf, recordOptions, type RunControl, type RunOptions } from './run-options.js';
import { checkResumedShard, digestInputs, planShard, shardCard, shardLogRecord } from './shard-plan.js';
import { collectRows, Tally } from './tally.js';
import { ChangedFiles, gradedFromChangedFiles } from './changed-files.js';
import { itemLimits, settleTestLimits } from './test-limits.js';
import { readTestLimitsFile } from './test-limits-file.js';
import type { TestLimitsReport } from '../report/scorecard.js';
import { DEFAULTS } from '../defaults.js';

/**
 * How long a run's answers may wait in their worker (BatchOptions.answerWithinMs):
 * a batch of quick candidates is answered in one write when it ends, and a
 * slow batch a few times a second, so that the supervisor wakes about once
 * per batch rather than as often as the candidates are slow. Progress and
 * the log are that much behind at most, and a worker lost meanwhile costs
 * the answers it had not sent, which are graded again.
 */
const RUN_ANSWER_WITHIN_MS = 250;

/**
 * One run: list the problem files, plan the candidates (self-check or
 * submissions, filtered), send the work through the one route (route.ts:
 * batches of items, each done by a sandbox worker, which reads the files,
 * grades, and writes each candidate's results as record text), append each
 * candidate's records to the run log as they come, and hand the outcome to
 * the reporters. A self-check's workers grade each problem as they read it:
 * the first verdicts come before the last file is read. Other runs first
 * have the workers read the problems (and the solutions), then plan.
 */
export async function runEvaluation(options: RunOptions, control: RunControl, reporters: readonly Reporter[]): Promise<RunOutcome> {
  const reporter = combineReporters(reporters);
  // Takes over the workers the CLI started before parsing its arguments, if any.
  const pool = new WorkerPool({ size: options.concurrency });
  pool.warm();
  const stop = (): void => void pool.close();
  control.signal?.addEventListener('abort', stop, { once: true });
  try {
    return await evaluate(options, control, reporter, pool);
  } finally {
    control.signal?.removeEventListener('abort', stop);
    await pool.close();
  }
}

async function evaluate(options: RunOptions, control: RunControl, reporter: CombinedReporter, pool: WorkerPool): Promise<RunOutcome> {
  const select = selector(options.filters);
  const mode: ScorecardHead['mode'] = options.solutionsDir === null ? 'self-check' : 'grade';
  const interrupted = (): boolean => control.signal?.aborted === true;
  // A resumed run is reported as started when its first part was; this part's start dates what it logs.
  const partStartedAt = new Date().toISOString();
  let startedAt = partStartedAt;
  let runHead = { run_id: control.runId, options: recordOptions(options) };
  // A new run's log is created with its first result, or once the run is
  // planned: a run that cannot start (a missing folder) leaves none behind.
  const opened: { tally: Tally | null } = { tally: null };
  // The candidates a self-check graded as it reads expects: one per problem file listed.
  let expected = 0;
  let shardRecord: ShardLogRecord | undefined;
  const openNewLog = (): Tally => {
    if (opened.tally !== null) return opened.tally;
    const header: RunHeader = { type: 'run', run_id: control.runId, started_at: startedAt, mode, options: recordOptions(options) };
    if (shardRecord !== undefined) header.shard = shardRecord;
    opened.tally = new Tally(RunLog.create(control.logFile, header));
    opened.tally.expect(expected);
    return opened.tally;
  };
  const reports = new Reports(reporter);
  const route = new Route({
    pool,
    batch: { grade: gradeOptionsOf(options), extractCode: options.extractCode, filters: options.filters, answerWithinMs: RUN_ANSWER_WITHIN_MS },
  });
  const record: Recorder = {
    candidate(key, rows, records, rank) {
      if (interrupted()) return;
      openNewLog().record(key, rows, records, rank);
      reports.graded(
        rows.reduce((n, row) => n + row.total, 0),
        rows.reduce((n, row) => n + row.passed, 0),
        () => rows,
      );
    },
    graded(message, keyOf, rankOf) {
      if (interrupted()) return;
      openNewLog().recordGraded(message, keyOf, rankOf, (tests, passed, rows) => reports.graded(tests, passed, rows));
    },
  };
  // A shard knows its candidates only once every problem is read; a resumed run once its log is read.
  const streaming = options.solutionsDir === null && !control.resume && !options.shard;

  let loaded: ReadProblems;
  let selected: ProblemSummary[];
  let planned: PlannedRun;
  let problemReports: ProblemReport[];
  /** A shard's part of the run, and the problems of the whole run's plan (its own part is smaller). */
  let sharded: { record: ShardLogRecord; ranks: number[]; wholePlan: Set<string> } | null = null;
  let loggedLimits: ReadonlyMap<string, TestLimitsReport> = new Map();
  /** A resumed run's logged candidates whose files changed since they were graded, by rank (changed-files.ts). */
  let outdated: ((rank: number) => boolean) | null = null;
  const changedFiles = new ChangedFiles([options.problemsDir, ...(options.solutionsDir === null ? [] : [options.solutionsDir])]);
  /** A resumed run's logged limits whose problem changed since they were measured: measured again (testLimitsOf). */
  let staleLimits: (problem: ProblemSummary) => boolean = () => false;
  try {
    loaded = await readProblems(
      options.problemsDir,
      route,
      streaming
        ? {
            record,
            interrupted,
            listed: (files) => {
              expected = files;
              reports.startEstimated({ mode, problems: files, invalidProblems: 0, candidates: files, resumed: 0, logFile: control.logFile });
            },
          }
        : null,
    );
    selected = loaded.problems.filter((p) => select.problem(p.id, p.tags));
    planned = await planCandidates(options, loaded, selected, select.model, route);
    problemReports = reportProblems(selected, loaded.invalid, options.filters);
    if (options.shard) {
      const all = planned.candidates;
      const wholePlan = new Set(Array.from({ length: all.length }, (_, rank) => all.problemId(rank)));
      const plan = planShard(all, options.shard, await digestInputs(options.solutionsDir, loaded.walked(), planned.walked), selected);
      sharded = { record: shardLogRecord(plan, problemReports, planned.skipped), ranks: plan.ranks, wholePlan };
      planned = { ...planned, candidates: plan.specs };
    }
    if (control.resume) {
      const collected = collectRows();
      const gradedIn = new Map<string, number>();
      const reopened = RunLog.resume(control.logFile, (key, results, partStarted) => {
        collected.visit(key, results);
        gradedIn.set(key, partStarted);
      });
      // A shard's log records a digest of its files, and it refuses to resume over changed ones (below).
      if (sharded === null) {
        const { plannedFiles, limitsLoggedIn } = reopened;
        outdated = gradedFromChangedFiles(planned.candidates, gradedIn, plannedFiles, changedFiles);
        staleLimits = (p) => {
          const before = plannedFiles?.get(p.id);
          return (before !== undefined && before !== p.file) || changedFiles.since(p.file, limitsLoggedIn.get(p.id) ?? NaN);
        };
      }
      opened.tally = new Tally(reopened.log, collected.rows);
      startedAt = reopened.header.started_at;
      // The run is the one the log began: its id and options, as `evalrun report` reads them from the log.
      runHead = { run_id: reopened.header.run_id, options: reopened.header.options };
      loggedLimits = reopened.limits;
      if (loggedLimits.size > 0) {
        const byId = new Map(selected.map((p) => [p.id, p]));
        loggedLimits = new Map([...loggedLimits].filter(([id]) => !(byId.has(id) && staleLimits(byId.get(id)!))));
      }
      if (sharded !== null) checkResumedShard(reopened.header, sharded.record);
    } else {
      shardRecord = sharded?.record;
      openNewLog();
    }
  } catch (e) {
    opened.tally?.log.close();
    throw e;
  }
  const tally = openNewLog();
  const invalidCount = problemReports.filter((p) => !p.valid).length;
  const { candidates, skipped } = planned;

  try {
    // A self-check graded as it read the problems recorded each one by its place in the listing.
    tally.plan(candidates, streaming ? planned.listed : null, outdated);
    if (changedFiles.found.size > 0) control.warn?.(changedWarning(changedFiles.found));
    // Graded as its file was read, or not yet graded: to do in this run (their ranks); in the log from an interrupted one: resumed.
    const todo: number[] = [];
    if (!streaming) for (let rank = 0; rank < candidates.length; rank++) if (!tally.isLogged(rank)) todo.push(rank);
    tally.expect(todo.length);
    // A shard settles the limits of the whole run's problems, so that its log can give them to the other shards (--test-limits).
    const needed = sharded !== null ? sharded.wholePlan : new Set(todo.map((rank) => candidates.problemId(rank)));
    const limits = await testLimitsOf(options, control, route, selected, needed, loggedLimits, (id, l) => tally.log.noteLimits(id, l), interrupted);
    if (limits.size > 0)
      problemReports = problemReports.map((p) => (p.problem_id !== null && limits.has(p.problem_id) ? { ...p, test_limits: limits.get(p.problem_id)! } : p));
    // Tags of the problems that have any: the plan line's, and the roll-ups' (a problem not there has none).
    const tagged = new Map<string, readonly string[]>();
    for (const p of selected) if (p.tags.length > 0) tagged.set(p.id, p.tags);
    tally.log.notePlan({ keys: candidates, problems: problemReports, tags: tagged, skipped_submissions: skipped, part_started_at: partStartedAt });
    reports.plan({
      mode,
      problems: problemReports.length,
      invalidProblems: invalidCount,
      candidates: streaming ? candidates.length : todo.length,
      resumed: streaming ? 0 : candidates.length - todo.length,
      logFile: control.logFile,
    });
    await gradeAll(route, { candidates, ranks: todo }, record, interrupted, (candidate) => itemLimits(limits, candidate));
    await reports.idle();
    // The workers have nothing left to do: they wind down while the
    // scorecards are written instead of after (runEvaluation awaits it).
    void pool.close();

    const end = { finished_at: new Date().toISOString(), complete: tally.missing() === 0 && loaded.unread === 0 };
    tally.log.noteEnd(end);
    // On disk before any scorecard is written: a scorecard that cannot be written is then all that is missing.
    tally.log.flush();
    const outcome = outcomeOf(tally, {
      header: { mode, run_id: runHead.run_id, started_at: startedAt, options: runHead.options },
      finishedAt: end.finished_at,
      complete: end.complete,
      problems: problemReports,
      tagsByProblem: tagged,
      skipped,
      passAtK: options.passAtK,
      shard: sharded === null ? null : shardCard(sharded.record, sharded.ranks, (i) => tally.isLogged(i)),
    });
    await reporter.onRunEnd(outcome);
    return outcome;
  } finally {
    tally.log.close();
  }
}

/**
 * The limits per test of the problems in `needed` and of those the log
 * already names (none without --timeout-factor or --test-limits). The
 * --test-limits file is read only for problems the log does not name: a
 * resumed run keeps what its first part recorded.
 */
async function testLimitsOf(
  options: RunOptions,
  control: RunControl,
  route: Route,
  problems: readonly ProblemSummary[],
  needed: ReadonlySet<string>,
  logged: ReadonlyMap<string, TestLimitsReport>,
  note: (problemId: string, limits: TestLimitsReport) => void,
  interrupted: () => boolean,
): Promise<Map<string, TestLimitsReport>> {
  if (options.timeoutFactor === undefined && options.testLimitsFile === undefined) return new Map(logged);
  const missing = [...needed].some((id) => !logged.has(id));
  const file = options.testLimitsFile;
  const given = missing && file !== undefined ? readTestLimitsFile(file) : new Map<string, TestLimitsReport>();
  return settleTestLimits(
    route,
    route.batchOptions,
    problems,
    needed,
    {
      timeoutMs: options.timeoutMs,
      ...(options.timeoutFactor === undefined ? {} : { factor: options.timeoutFactor }),
      floorMs: options.timeoutFloorMs ?? DEFAULTS.timeoutFloorMs,
    },
    { logged, given, ...(file === undefined ? {} : { givenFrom: file }) },
    { note, warn: (line) => control.warn?.(line), interrupted },
  );
}

/** The warning of a resumed run that grades candidates again: the files that changed, a few by name. */
function changedWarning(files: ReadonlySet<string>): string {
  const named = [...files].slice(0, CHANGED_FILES_NAMED);
  const more = files.size - named.length;
  return (
    `graded again, as these changed after their candidates were graded: ${named.join(', ')}` +
    (more > 0 ? ` and ${more} more file${more === 1 ? '' : 's'}` : '')
  );
}

const CHANGED_FILES_NAMED = 5;
