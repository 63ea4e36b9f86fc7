import { invalid, isInvalidProblemFile, listProblemFiles, splitAndRejectDuplicates } from '../problems/find-files.js';
import type { InvalidProblemFile } from '../problems/prepared.js';
import { candidateRow, type CandidateRow } from '../report/rows.js';
import { combineReporters, type CombinedReporter, type Reporter, type RunOutcome, type RunStartInfo } from '../report/reporter.js';
import type { CandidateResult, ProblemReport, ScorecardHead, SkippedSubmissionReport } from '../report/scorecard.js';
import { RunLog, type RunHeader, type ShardLogRecord } from '../runlog/run-log.js';
import { recordJson } from '../values/wire.js';
import { WorkerPool } from '../workers/pool.js';
import type { IndexedItem } from '../workers/recovery.js';
import { allLanguages, equalityOf } from '../engines/find-language.js';
import type { Language } from '../engines/languages.js';
import {
  collectSubmissions,
  findSolutionFiles,
  solutionDiscoveryContext,
  type DiscoveredSubmissions,
  type SolutionFileOutcome,
} from '../solutions/discover.js';
import type { Tolerance } from '../values/compare.js';
import {
  candidateKey,
  selfCheckPlans,
  submissionPlan,
  type Candidate,
  type ProblemSummary,
} from '../grading/candidate.js';
import { unavailableResults, type GradeOptions } from '../grading/grade.js';
import { selector, type Filters } from '../grading/filters.js';
import { pathInside, type WalkedFile } from './input-digest.js';
import { outcomeOf } from './outcome.js';
import { Route } from './route.js';
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
  /** --stop-on-first-failure: a candidate's tests after its first that does not pass are skipped. */
  stopOnFirstFailure?: boolean;
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
    ...(options.stopOnFirstFailure === true ? { stop_on_first_failure: true } : {}),
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
    stopOnFirstFailure: record.stop_on_first_failure === true,
  };
}

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
  const interrupted = (): boolean => control.signal?.aborted === true;
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
  const route = new Route({ pool, batch: { grade: gradeOptionsOf(options), extractCode: options.extractCode, filters: options.filters } });
  const record = (key: string, rows: readonly CandidateRow[], records: readonly Uint8Array[]): void => {
    if (interrupted()) return;
    openNewLog().record(key, rows, records);
    reports.graded(key, rows);
  };
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
      route,
      streaming
        ? {
            record,
            interrupted,
            listed: (files) => reports.startEstimated({ mode, problems: files, invalidProblems: 0, candidates: files, resumed: 0, logFile: control.logFile }),
          }
        : null,
    );
    selected = loaded.problems.filter((p) => select.problem(p.id, p.tags));
    planned = await planCandidates(options, loaded, selected, select.model, route);
    problemReports = reportProblems(selected, loaded.invalid, options.filters);
    if (options.shard) {
      const plan = planShard(planned.candidates, options.shard, await digestInputs(options.solutionsDir, loaded.walked(), planned.walked), selected);
      sharded = { record: shardLogRecord(plan, problemReports, planned.skipped), ranks: plan.ranks };
      planned = { ...planned, candidates: plan.specs };
    }
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
    // Graded as its file was read, or not yet graded: to do in this run; in the log from an interrupted one: resumed.
    const todo = streaming ? [] : candidates.flatMap((candidate, i) => (tally.has(keys[i]!) ? [] : [{ candidate, key: keys[i]! }]));
    reports.plan(
      {
        mode,
        problems: problemReports.length,
        invalidProblems: invalidCount,
        candidates: streaming ? candidates.length : todo.length,
        resumed: streaming ? 0 : candidates.length - todo.length,
        logFile: control.logFile,
      },
      streaming ? null : keys,
    );
    await gradeAll(route, todo, record, interrupted);
    await reports.idle();
    // The workers have nothing left to do: they wind down while the
    // scorecards are written instead of after (runEvaluation awaits it).
    void pool.close();

    const end = { finished_at: new Date().toISOString(), complete: tally.missing() === 0 && loaded.unread === 0 };
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
  } finally {
    tally.log.close();
  }
}

/**
 * Tells the reporters of each graded candidate, in the order they finish
 * and one at a time. A self-check starts them once the problem files are
 * listed, with one candidate per file at most, and settles the count once
 * every file is read (`onPlan`); any other run starts them once it is
 * planned, and tells only candidates of the plan. A reporter's failure ends
 * the run once grading stops.
 */
class Reports {
  /** Keys the reporters hear of; null: every graded candidate (a self-check, planned as it goes). */
  private planned: Set<string> | null = null;
  private started = false;
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(private readonly reporter: CombinedReporter) {}

  /** Rows not yet told: told together, one step of the chain for all that came meanwhile. */
  private queued: Array<readonly CandidateRow[]> = [];

  graded(key: string, rows: readonly CandidateRow[]): void {
    if (!this.started || (this.planned !== null && !this.planned.has(key))) return;
    this.queued.push(rows);
    if (this.queued.length === 1) this.tell(() => this.drain());
  }

  private async drain(): Promise<void> {
    for (const rows of this.queued.splice(0)) await this.reporter.onCandidateResult(rows);
  }

  /** Starts the reporters before the plan is known: `info.candidates` is an upper bound. */
  startEstimated(info: RunStartInfo): void {
    this.started = true;
    this.tell(() => this.reporter.onRunStart({ ...info, estimated: true }));
  }

  /** The plan is known: starts the reporters, or settles the count of those started on an estimate. */
  plan(info: RunStartInfo, keys: readonly string[] | null): void {
    const estimated = this.started;
    this.planned = keys === null ? null : new Set(keys);
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

/** Appends a graded candidate, by its key, to the run log and tells the reporters. */
type RecordCandidate = (key: string, rows: readonly CandidateRow[], records: readonly Uint8Array[]) => void;

/**
 * Grades the planned candidates: a worker reads each one's problem file
 * (candidates of one problem come one after another, so it reads it once
 * for them) and answers with its records.
 */
async function gradeAll(
  route: Route,
  todo: ReadonlyArray<{ candidate: Candidate; key: string }>,
  record: RecordCandidate,
  interrupted: () => boolean,
): Promise<void> {
  await swallowIfInterrupted(
    interrupted,
    route.send(
      groupedByFile(todo.map((t) => t.candidate)).map((index) => ({ index, item: { kind: 'grade', candidate: todo[index]!.candidate } })),
      {
        onMessage: (index, m) => {
          const { candidate, key } = todo[index]!;
          if (m.type === 'graded') record(key, m.rows, m.records);
          else if (m.type === 'failed') recordResults(record, candidate, unavailableResults(candidate, `internal error in evalrun: ${m.message}`));
        },
        giveUp: (index, _, reason) => recordResults(record, todo[index]!.candidate, unavailableResults(todo[index]!.candidate, reason)),
      },
    ),
  );
}

/**
 * The candidates' indexes with those of one problem file together, in the
 * order the files first come: a worker then reads a problem once for all
 * of a batch's candidates, however the solutions were laid out (a JSON
 * Lines file per model interleaves the problems). Only the order they are
 * sent in changes; the scorecard keeps the plan's.
 */
function groupedByFile(todo: readonly Candidate[]): number[] {
  const byFile = new Map<string, number[]>();
  todo.forEach((candidate, index) => {
    const group = byFile.get(candidate.file);
    if (group === undefined) byFile.set(candidate.file, [index]);
    else group.push(index);
  });
  return [...byFile.values()].flat();
}

function recordResults(record: RecordCandidate, candidate: Candidate, results: readonly CandidateResult[]): void {
  record(candidateKey(candidate), results.map(candidateRow), results.map((r) => Buffer.from(recordJson(r), 'utf8')));
}

/** An interrupted run stops its workers, which fails the batches in flight: that is no error of the run. */
async function swallowIfInterrupted(interrupted: () => boolean, work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (e) {
    if (!interrupted()) throw e;
  }
}

/**
 * Has the workers read and check every problem file, while the supervisor
 * only lists them. With `grade` (a self-check), each worker grades a
 * problem's optimal_solution as soon as it has read it.
 */
async function readProblems(
  dir: string,
  route: Route,
  grade: { record: RecordCandidate; interrupted: () => boolean; listed: (files: number) => void } | null,
): Promise<ReadProblems> {
  const found = await listProblemFiles(dir);
  grade?.listed(found.length);
  const loaded: Array<ProblemSummary | InvalidProblemFile | undefined> = found.map((item) => (typeof item === 'string' ? undefined : item));
  const items: IndexedItem[] = [];
  found.forEach((item, index) => {
    if (typeof item === 'string') items.push({ index, item: grade === null ? { kind: 'read-problem', file: item } : { kind: 'self-check', file: item } });
  });
  const fileAt = (index: number): string => found[index] as string;
  const work = route.send(items, {
    onMessage: (index, m) => {
      if (m.type === 'problem') {
        loaded[index] = m.problem;
      } else if (m.type === 'graded' && grade !== null) {
        const summary = loaded[index];
        if (summary !== undefined && !isInvalidProblemFile(summary)) grade.record(candidateKey(selfCheckOf(summary)), m.rows, m.records);
      } else if (m.type === 'failed') {
        const summary = loaded[index];
        if (summary === undefined || isInvalidProblemFile(summary)) loaded[index] = invalid(fileAt(index), null, [`${fileAt(index)}: evalrun failed to read it: ${m.message}`]);
        else if (grade !== null) {
          const candidate = selfCheckOf(summary);
          recordResults(grade.record, candidate, unavailableResults(candidate, `internal error in evalrun: ${m.message}`));
        }
      }
    },
    // A self-check that had read its problem when its worker failed is graded again as a planned candidate.
    again: (index, item) => {
      const summary = loaded[index];
      return item.kind === 'self-check' && summary !== undefined && !isInvalidProblemFile(summary) ? { kind: 'grade', candidate: selfCheckOf(summary) } : item;
    },
    giveUp: (index, _, reason) => {
      loaded[index] = invalid(fileAt(index), null, [`${fileAt(index)}: reading it stopped the sandbox worker: ${reason}`]);
    },
  });
  await (grade === null ? work : swallowIfInterrupted(grade.interrupted, work));
  const unread = loaded.filter((problem) => problem === undefined).length;
  const results = loaded.map((problem, index) => problem ?? invalid(fileAt(index), null, [`${fileAt(index)}: not read (the run was interrupted)`]));
  // Only a shard digests its input: the paths inside the folder are worked out then.
  const walked = (): WalkedFile[] => found.map((item): WalkedFile => {
    const file = typeof item === 'string' ? item : item.file;
    return { path: typeof item === 'string' ? item : null, relative: pathInside(dir, file) };
  });
  return { ...splitAndRejectDuplicates(results), walked, unread };
}

function selfCheckOf(summary: ProblemSummary): Candidate {
  return selfCheckPlans([summary])[0]!;
}

interface ReadProblems {
  problems: ProblemSummary[];
  invalid: InvalidProblemFile[];
  /** Every entry the walk of the problems folder found, for a shard's input digest. */
  walked: () => WalkedFile[];
  /** Files no worker read (the run was interrupted first): the run is not complete. */
  unread: number;
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
  route: Route,
): Promise<PlannedRun> {
  if (options.solutionsDir === null) return { candidates: selfCheckPlans(selected), skipped: [], walked: null };

  const byId = new Map(selected.map((p) => [p.id, p] as const));
  const valid = new Set(loaded.problems.map((p) => p.id));
  const invalidFiles = new Map<string, string>();
  for (const bad of loaded.invalid) if (bad.id !== null && !valid.has(bad.id)) invalidFiles.set(bad.id, bad.file);
  const known = new Set([...valid, ...invalidFiles.keys()]);

  const found = await discoverInWorkers(route, options.solutionsDir, known);
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

/**
 * Finds the submissions as `discoverSubmissions` does, the supervisor only
 * walking the folder: the workers read the files, which grows with the
 * candidates, and know the problem ids from the run's context.
 */
async function discoverInWorkers(route: Route, dir: string, known: ReadonlySet<string>): Promise<DiscoveredSubmissions> {
  const found = await findSolutionFiles(dir);
  const context = solutionDiscoveryContext(dir, known);
  route.setContext({ knownProblemIds: [...known], solutionsRootName: context.rootName });
  const outcomes: SolutionFileOutcome[][] = found.files.map(() => []);
  const skip = (index: number, reason: string): void => {
    outcomes[index] = [{ kind: 'skipped', skipped: { source: found.files[index]!.source, reason } }];
  };
  await route.send(
    found.files.map((file, index) => ({ index, item: { kind: 'read-solutions', file } })),
    {
      onMessage: (index, m) => {
        if (m.type === 'solutions') outcomes[index] = m.outcomes;
        else if (m.type === 'failed') skip(index, `unreadable: evalrun failed to read it: ${m.message}`);
      },
      giveUp: (index, _, reason) => skip(index, `unreadable: reading it stopped the sandbox worker: ${reason}`),
    },
  );
  return collectSubmissions(found, outcomes);
}

function gradeOptionsOf(options: RunOptions): GradeOptions {
  return {
    limits: { memoryMb: options.memoryMb, timeoutMs: options.timeoutMs, seed: options.seed },
    tolerance: options.tolerance,
    languages: [...options.languages],
    strictTypes: options.strictTypes === true,
    pythonPackages: [...(options.pythonPackages ?? [])],
    stopOnFirstFailure: options.stopOnFirstFailure === true,
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
