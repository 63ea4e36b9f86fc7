import { isInvalidProblemFile, listProblemFiles, splitAndRejectDuplicates } from '../problems/find-files.js';
import { loadProblemLazily } from '../problems/load-lazily.js';
import type { InvalidProblemFile, PreparedProblem } from '../problems/prepared.js';
import type { CandidateRow } from '../report/rows.js';
import { combineReporters, type CombinedReporter, type Reporter, type RunOutcome } from '../report/reporter.js';
import type { ProblemReport, ScorecardHead, SkippedSubmissionReport } from '../report/scorecard.js';
import { RunLog, type RunHeader, type ShardLogRecord } from '../runlog/run-log.js';
import { WorkerPool } from '../sandbox-host/pool.js';
import { allLanguages, equalityOf } from '../engines/find-language.js';
import type { Language } from '../engines/languages.js';
import { discoverSubmissions } from '../solutions/discover.js';
import type { Tolerance } from '../values/compare.js';
import {
  candidateKey,
  selfCheckPlans,
  submissionPlan,
  summarizeProblem,
  type Candidate,
  type ProblemSummary,
} from '../grading/candidate.js';
import type { GradeOptions } from '../grading/grade.js';
import { selector, type Filters } from './filters.js';
import { pathInside, type WalkedFile } from './input-digest.js';
import { outcomeOf } from './outcome.js';
import { IN_FLIGHT_TESTS, Schedule } from './schedule.js';
import type { ShardSpec } from './shard.js';
import { checkResumedShard, digestInputs, planShard, shardCard, shardLogRecord } from './shard-plan.js';
import { collectRows, Tally } from './tally.js';

export interface RunOptions {
  problemsDir: string;
  /** Null for a self-check of each problem's optimal_solution. */
  solutionsDir: string | null;
  filters: Filters;
  concurrency: number;
  memoryMb: number;
  timeoutMs: number;
  tolerance: Tolerance;
  seed: number;
  languages: ReadonlySet<Language>;
  /** The k values of pass@k. */
  passAtK: readonly number[];
  /** Unwrap Markdown fences and drop prose around submitted code (default true). */
  extractCode: boolean;
  /** Grade only this part of the candidates (`--shard I/N`); null or absent: all of them. */
  shard?: ShardSpec | null;
  /** --strict-types: bool, int and float distinct for Python candidates. */
  strictTypes?: boolean;
  /** --python-packages: folders of wheels or packages Python candidates may import. */
  pythonPackages?: readonly string[];
}

/** Where a run keeps its log, and how it can be stopped. */
export interface RunControl {
  runId: string;
  /** `results/<run>.jsonl`; created, or reopened when resuming. */
  logFile: string;
  resume: boolean;
  /** Aborting stops grading; finished candidates are kept and the outcome is marked incomplete. */
  signal?: AbortSignal;
}

/** The run's options as recorded in its log and scorecard; `optionsFromRecord` reads them back. */
export function recordOptions(options: RunOptions): Record<string, unknown> {
  return {
    problems: options.problemsDir,
    solutions: options.solutionsDir,
    filters: { problem: options.filters.problems, tag: options.filters.tags, model: options.filters.models },
    concurrency: options.concurrency,
    memory_mb: options.memoryMb,
    timeout_ms: options.timeoutMs,
    float_tolerance: options.tolerance,
    seed: options.seed,
    languages: [...options.languages].sort(),
    pass_at_k: [...options.passAtK],
    extract_code: options.extractCode,
    ...(options.shard ? { shard: { index: options.shard.index, count: options.shard.count } } : {}),
    strict_types: options.strictTypes === true,
    python_packages: [...(options.pythonPackages ?? [])],
    // How numbers were judged, per language (see docs/VALUES.md).
    equality: Object.fromEntries(allLanguages().map((l) => [l.name, equalityOf(l, options.strictTypes === true)])),
  };
}

export function optionsFromRecord(record: Record<string, unknown>): RunOptions {
  const filters = (record.filters ?? {}) as { problem?: string[]; tag?: string[]; model?: string[] };
  return {
    problemsDir: String(record.problems),
    solutionsDir: typeof record.solutions === 'string' ? record.solutions : null,
    filters: { problems: filters.problem ?? [], tags: filters.tag ?? [], models: filters.model ?? [] },
    concurrency: Number(record.concurrency),
    memoryMb: Number(record.memory_mb),
    timeoutMs: Number(record.timeout_ms),
    tolerance: record.float_tolerance as Tolerance,
    seed: Number(record.seed),
    languages: new Set(record.languages as Language[]),
    passAtK: record.pass_at_k as number[],
    extractCode: record.extract_code !== false,
    shard: (record.shard as ShardSpec | undefined) ?? null,
    strictTypes: record.strict_types === true,
    pythonPackages: Array.isArray(record.python_packages) ? (record.python_packages as string[]) : [],
  };
}

/**
 * One run: read the problems, plan the candidates (self-check or
 * submissions, filtered), send each through the one grading route
 * (schedule.ts: a job per candidate, graded by a sandbox worker), append
 * each result to the run log, and hand the outcome to the reporters. A
 * self-check's candidates are known as each problem file is read, so the
 * plan adds them to the schedule then: the first verdicts come before the
 * last file is read.
 */
export async function runEvaluation(
  options: RunOptions,
  control: RunControl,
  reporters: readonly Reporter[],
): Promise<RunOutcome> {
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

async function evaluate(
  options: RunOptions,
  control: RunControl,
  reporter: CombinedReporter,
  pool: WorkerPool,
): Promise<RunOutcome> {
  const select = selector(options.filters);
  const mode: ScorecardHead['mode'] = options.solutionsDir === null ? 'self-check' : 'grade';
  let startedAt = new Date().toISOString();
  // A new run's log is created with its first result, or once the run is
  // planned: a run that cannot start (a missing folder) leaves none behind.
  const opened: { tally: Tally | null } = { tally: null };
  let shardRecord: ShardLogRecord | undefined;
  const openNewLog = (): Tally => {
    if (opened.tally !== null) return opened.tally;
    const header: RunHeader = { type: 'run', run_id: control.runId, started_at: startedAt, mode, options: recordOptions(options) };
    if (shardRecord !== undefined) header.shard = shardRecord;
    opened.tally = new Tally(RunLog.create(control.logFile, header));
    return opened.tally;
  };
  const reports = new Reports(reporter);
  const schedule = new Schedule({
    pool,
    grade: gradeOptionsOf(options),
    interrupted: () => control.signal?.aborted === true,
    record: (candidate, results) => {
      const key = candidateKey(candidate);
      reports.graded(key, openNewLog().record(key, results));
    },
  });
  reports.onFailure = (e) => schedule.fail(e);
  // A shard knows its candidates only once every problem is read; a resumed run once its log is read.
  const streaming = options.solutionsDir === null && !control.resume && !options.shard;

  let loaded: ReadProblems;
  let selected: ProblemSummary[];
  let planned: PlannedRun;
  let problemReports: ProblemReport[];
  let sharded: { record: ShardLogRecord; ranks: number[] } | null = null;
  try {
    loaded = await readProblems(
      options.problemsDir,
      streaming
        ? async (problem, summary) => {
            if (!select.problem(summary.id, summary.tags)) return;
            for (const candidate of selfCheckPlans([summary])) {
              schedule.add(candidate, problem);
              await schedule.room();
            }
          }
        : null,
    );
    selected = loaded.problems.filter((p) => select.problem(p.id, p.tags));
    planned = await planCandidates(options, loaded, selected, select.model);
    problemReports = reportProblems(selected, loaded.invalid, options.filters);
    if (options.shard) {
      const plan = planShard(planned.candidates, options.shard, await digestInputs(options.solutionsDir, loaded.walked, planned.walked), selected);
      sharded = { record: shardLogRecord(plan, problemReports, planned.skipped), ranks: plan.ranks };
      planned = { ...planned, candidates: plan.specs };
    }
    schedule.check();
    if (control.resume) {
      const collected = collectRows();
      const reopened = RunLog.resume(control.logFile, collected.visit);
      opened.tally = new Tally(reopened.log, collected.rows);
      startedAt = reopened.header.started_at;
      if (sharded !== null) checkResumedShard(reopened.header, sharded.record);
    } else {
      shardRecord = sharded?.record;
      openNewLog();
    }
  } catch (e) {
    schedule.fail(e);
    await schedule.idle();
    opened.tally?.log.close();
    throw e;
  }
  const tally = openNewLog();
  const invalidCount = problemReports.filter((p) => !p.valid).length;
  const { candidates, skipped } = planned;

  try {
    const keys = candidates.map(candidateKey);
    tally.plan(keys);
    tally.log.notePlan({
      keys,
      problems: problemReports,
      tags: Object.fromEntries(selected.filter((p) => p.tags.length > 0).map((p) => [p.id, [...p.tags]])),
      skipped_submissions: skipped,
    });
    // Added to the schedule as its file was read, or not yet graded: to do in this run; in the log from an interrupted one: resumed.
    const todo = streaming ? candidates : candidates.filter((_, i) => !tally.has(keys[i]!));
    await reports.start(
      {
        mode,
        problems: problemReports.length,
        invalidProblems: invalidCount,
        candidates: todo.length,
        resumed: candidates.length - todo.length,
        logFile: control.logFile,
      },
      keys,
    );
    if (!streaming) await addAll(schedule, todo, loaded.held);
    await schedule.idle();
    await reports.idle();
    schedule.check();
    // The workers have nothing left to do: they wind down while the
    // scorecards are written instead of after (runEvaluation awaits it).
    void pool.close();

    const end = { finished_at: new Date().toISOString(), complete: tally.missing() === 0 };
    tally.log.noteEnd(end);
    const outcome = outcomeOf(tally, {
      header: { mode, run_id: control.runId, started_at: startedAt, options: recordOptions(options) },
      finishedAt: end.finished_at,
      complete: end.complete,
      problems: problemReports,
      tagsByProblem: new Map(selected.map((p) => [p.id, p.tags] as const)),
      skipped,
      passAtK: options.passAtK,
      shard: sharded === null ? null : shardCard(sharded.record, sharded.ranks, (i) => tally.has(keys[i]!)),
    });
    await reporter.onRunEnd(outcome);
    return outcome;
  } catch (e) {
    schedule.fail(e);
    await schedule.idle();
    throw e;
  } finally {
    tally.log.close();
  }
}

/**
 * Tells the reporters of each graded candidate, in the order they finish
 * and one at a time; those graded before the run is planned (a self-check's
 * first ones) once it is, and only if the plan holds them (a problem that
 * turns out to be a duplicate is left out of the plan, and so out of the
 * reports, though its line stays in the log).
 */
class Reports {
  private planned: Set<string> | null = null;
  private early: Array<[string, CandidateRow[]]> = [];
  private chain: Promise<void> = Promise.resolve();
  onFailure: (error: unknown) => void = () => undefined;

  constructor(private readonly reporter: CombinedReporter) {}

  graded(key: string, rows: CandidateRow[]): void {
    if (this.planned === null) this.early.push([key, rows]);
    else if (this.planned.has(key)) this.tell(rows);
  }

  async start(info: Parameters<CombinedReporter['onRunStart']>[0], keys: readonly string[]): Promise<void> {
    await this.reporter.onRunStart(info);
    this.planned = new Set(keys);
    for (const [key, rows] of this.early.splice(0)) this.graded(key, rows);
  }

  idle(): Promise<void> {
    return this.chain;
  }

  private tell(rows: CandidateRow[]): void {
    this.chain = this.chain.then(() => this.reporter.onCandidateResult(rows)).catch((e: unknown) => this.onFailure(e));
  }
}

/**
 * Adds the planned candidates to the schedule. The problems read while
 * planning are used as they are; any other is read again, once for all of
 * its candidates, and let go after its last one.
 */
async function addAll(schedule: Schedule, todo: readonly Candidate[], held: Map<string, PreparedProblem>): Promise<void> {
  const remaining = new Map<string, number>();
  for (const c of todo) remaining.set(c.file, (remaining.get(c.file) ?? 0) + 1);
  const reading = new Map<string, Promise<PreparedProblem | InvalidProblemFile>>();
  for (const candidate of todo) {
    const file = candidate.file;
    const left = (remaining.get(file) ?? 1) - 1;
    remaining.set(file, left);
    let problem: PreparedProblem | Promise<PreparedProblem | InvalidProblemFile> | undefined = held.get(file);
    if (problem === undefined) {
      problem = reading.get(file) ?? loadProblemLazily(file);
      reading.set(file, problem);
    }
    if (left <= 0) {
      held.delete(file);
      reading.delete(file);
    }
    schedule.add(candidate, problem);
    await schedule.room();
  }
}

/**
 * Reads and checks every problem file, in the supervisor, while the
 * workers start beside it. With `take` (a self-check), each problem goes to
 * be graded as soon as it is read; otherwise problems are kept for their
 * candidates up to IN_FLIGHT_TESTS tests' worth, and any other is read
 * again when its candidates are graded.
 */
async function readProblems(
  dir: string,
  take: ((problem: PreparedProblem, summary: ProblemSummary) => Promise<void>) | null,
): Promise<ReadProblems> {
  const found = await listProblemFiles(dir);
  const held = new Map<string, PreparedProblem>();
  const loaded = new Map<string, ProblemSummary | InvalidProblemFile>();
  let heldTests = 0;
  for (const item of found) {
    if (typeof item !== 'string') continue;
    const problem = await loadProblemLazily(item);
    if (isInvalidProblemFile(problem)) {
      loaded.set(item, problem);
    } else {
      const summary = summarizeProblem(problem);
      loaded.set(item, summary);
      if (take !== null) await take(problem, summary);
      else if (heldTests + summary.tests <= IN_FLIGHT_TESTS) {
        held.set(item, problem);
        heldTests += summary.tests;
      }
    }
    // Reading a file hardly ever waits, so give the workers' messages (that
    // they are ready, the answers to jobs) their turn between two files.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const results = found.map((item) => (typeof item === 'string' ? loaded.get(item)! : item));
  const walked = found.map((item): WalkedFile => {
    const file = typeof item === 'string' ? item : item.file;
    return { path: typeof item === 'string' ? item : null, relative: pathInside(dir, file) };
  });
  return { ...splitAndRejectDuplicates(results), held, walked };
}

interface ReadProblems {
  problems: ProblemSummary[];
  invalid: InvalidProblemFile[];
  /** Problems read while planning and kept for their candidates; each is let go when its last candidate is added. */
  held: Map<string, PreparedProblem>;
  /** Every entry the walk of the problems folder found, for a shard's input digest. */
  walked: WalkedFile[];
}

/** The run's candidates, what was skipped, and the solution files found (none for a self-check). */
interface PlannedRun {
  candidates: Candidate[];
  skipped: SkippedSubmissionReport[];
  walked: WalkedFile[] | null;
}

async function planCandidates(
  options: RunOptions,
  loaded: ReadProblems,
  selected: readonly ProblemSummary[],
  modelSelected: (id: string) => boolean,
): Promise<PlannedRun> {
  if (options.solutionsDir === null) return { candidates: selfCheckPlans(selected), skipped: [], walked: null };

  const byId = new Map(selected.map((p) => [p.id, p] as const));
  const valid = new Set(loaded.problems.map((p) => p.id));
  const invalidFiles = new Map<string, string>();
  for (const bad of loaded.invalid) if (bad.id !== null && !valid.has(bad.id)) invalidFiles.set(bad.id, bad.file);
  const known = new Set([...valid, ...invalidFiles.keys()]);

  const found = await discoverSubmissions(options.solutionsDir, known);
  const skipped: SkippedSubmissionReport[] = found.skipped.map((s) => ({ source: s.source, reason: s.reason }));
  const candidates: Candidate[] = [];
  for (const submission of found.submissions) {
    const invalidFile = invalidFiles.get(submission.problemId);
    if (invalidFile !== undefined) {
      skipped.push({ source: submission.source, reason: `problem "${submission.problemId}" is invalid (${invalidFile})` });
      continue;
    }
    const problem = byId.get(submission.problemId);
    // Filtered out by --problem, --tag or --model: not run, and not an error.
    if (problem === undefined || !modelSelected(submission.modelId)) continue;
    candidates.push(submissionPlan(problem, submission, options.extractCode));
  }
  return { candidates, skipped, walked: found.files };
}

function gradeOptionsOf(options: RunOptions): GradeOptions {
  return {
    limits: { memoryMb: options.memoryMb, timeoutMs: options.timeoutMs, seed: options.seed },
    tolerance: options.tolerance,
    languages: [...options.languages],
    strictTypes: options.strictTypes === true,
    pythonPackages: [...(options.pythonPackages ?? [])],
  };
}

function reportProblems(
  selected: readonly ProblemSummary[],
  invalid: readonly InvalidProblemFile[],
  filters: Filters,
): ProblemReport[] {
  // A broken file is always reported, unless a --problem glob rules out its id.
  const byId = selector({ problems: filters.problems, tags: [], models: [] });
  const reports: ProblemReport[] = [
    ...selected.map((p) => ({ problem_id: p.id, file: p.file, valid: true, errors: [], warnings: p.warnings })),
    ...invalid
      .filter((p) => p.id === null || byId.problem(p.id, []))
      .map((p) => ({ problem_id: p.id, file: p.file, valid: false, errors: p.errors, warnings: [] })),
  ];
  return reports.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
