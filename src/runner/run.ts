import pLimit from 'p-limit';
import { isInvalidProblemFile, listProblemFiles, splitAndRejectDuplicates } from '../problems/find-files.js';
import { loadProblemLazily } from '../problems/load-lazily.js';
import type { InvalidProblemFile, PreparedProblem } from '../problems/prepared.js';
import { combineReporters, type CombinedReporter, type Reporter, type RunOutcome } from '../report/reporter.js';
import type { CandidateResult, ProblemReport, ScorecardHead, SkippedSubmissionReport } from '../report/scorecard.js';
import { outcomeFromStore } from './outcome.js';
import { ceilingForTests, FAULT_RETRIES, isSandboxFault, WorkerPool } from '../sandbox-host/pool.js';
import type { Language } from '../sandbox-host/protocol.js';
import { discoverSubmissions } from '../solutions/discover.js';
import type { Tolerance } from '../values/compare.js';
import {
  buildCandidate,
  candidateKey,
  problemChangedMessage,
  selfCheckPlans,
  submissionPlan,
  summarizeProblem,
  type CandidateSpec,
  type PlannedCandidate,
  type ProblemSummary,
} from './candidate.js';
import { EarlyGrades } from './early-grades.js';
import { selector, type Filters } from './filters.js';
import { gradeCandidate, gradeWithRecovery, unrunnableResults, type GradeOptions } from './grade-candidate.js';
import { pathInside, type WalkedFile } from './input-digest.js';
import { gradedFromResults, ResultsStore, type CandidateRowWithCounts, type GradedCandidate, type RunHeader } from './results-store.js';
import type { ShardSpec } from './shard.js';
import { checkResumedShard, digestInputs, planShard, shardCard, shardLogRecord, type ShardLogRecord } from './shard-plan.js';
import { gradedFromWire, type CandidateTask } from './worker-tasks.js';

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
    equality: { python: options.strictTypes === true ? 'strict' : 'python', javascript: 'javascript' },
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
 * One run: read the problems (the supervisor and the workers between them),
 * plan the candidates (self-check or submissions, filtered), grade them in
 * the sandbox workers (a self-check's as soon as each problem is read),
 * stream each result to the run log, and hand the outcome to the reporters.
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
  try {
    return await evaluate(options, control, reporter, pool);
  } finally {
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
  const gradeOptions = gradeOptionsOf(options);
  const aborted = (): boolean => control.signal?.aborted === true;
  const mode: ScorecardHead['mode'] = options.solutionsDir === null ? 'self-check' : 'grade';
  let startedAt = new Date().toISOString();
  // A new run's log is created with its first result, or once the run is
  // planned: a run that cannot start (a missing folder) leaves none behind.
  const created: { store: ResultsStore | null } = { store: null };
  const shardRecord: { value: ShardLogRecord | undefined } = { value: undefined };
  const createStore = (): ResultsStore => {
    const header: RunHeader = { type: 'run', run_id: control.runId, started_at: startedAt, mode, options: recordOptions(options) };
    if (shardRecord.value !== undefined) header.shard = shardRecord.value;
    created.store ??= ResultsStore.create(control.logFile, header);
    return created.store;
  };
  const early =
    // A shard knows its candidates only once every problem is read.
    options.solutionsDir === null && !control.resume && !options.shard
      ? new EarlyGrades({
          selected: (problem) => select.problem(problem.id, problem.tags),
          grade: (planned, problem) => gradeOnSupervisor(pool, planned, gradeOptions, aborted, problem),
          record: (key, graded) => {
            try {
              createStore().recordGraded(key, graded);
            } catch (e) {
              // The run ends with this error (early.check); the workers go now.
              void pool.close();
              throw e;
            }
          },
        })
      : null;
  let loaded: LoadedSummaries;
  let selected: ProblemSummary[];
  let planned: PlannedRun;
  let store: ResultsStore;
  let problemReports: ProblemReport[];
  let sharded: { record: ShardLogRecord; ranks: number[] } | null = null;
  try {
    loaded = await loadOnWorkers(pool, options.problemsDir, options.concurrency, early === null ? null : (problem, summary) => early.take(problem, summary));
    selected = loaded.problems.filter((p) => select.problem(p.id, p.tags));
    planned = await planCandidates(options, loaded, selected, select.model);
    problemReports = reportProblems(selected, loaded.invalid, options.filters);
    if (options.shard) {
      const plan = planShard(planned.specs, options.shard, await digestInputs(options.solutionsDir, loaded.walked, planned.walked), selected);
      sharded = { record: shardLogRecord(plan, problemReports, planned.skipped), ranks: plan.ranks };
      planned = { ...planned, specs: plan.specs };
    }
    if (control.resume) {
      const reopened = ResultsStore.resume(control.logFile);
      store = reopened.store;
      startedAt = reopened.header.started_at;
      if (sharded !== null) {
        try {
          checkResumedShard(reopened.header, sharded.record);
        } catch (e) {
          store.close();
          throw e;
        }
      }
    } else {
      shardRecord.value = sharded?.record;
      store = createStore();
    }
  } catch (e) {
    early?.stop();
    created.store?.close();
    throw e;
  }
  const invalidCount = problemReports.filter((p) => !p.valid).length;
  const { specs, skipped } = planned;

  try {
    early?.check();
    const keys = specs.map(candidateKey);
    store.plan(keys);
    store.notePlan({
      keys,
      problems: problemReports,
      tags: Object.fromEntries(selected.filter((p) => p.tags.length > 0).map((p) => [p.id, [...p.tags]])),
      skipped_submissions: skipped,
    });
    // Graded early or not graded at all: to do in this run; in the log from an interrupted one: resumed.
    const todo = specs.filter((_, i) => early?.has(keys[i]!) === true || !store.has(keys[i]!));
    await reporter.onRunStart({
      mode,
      problems: problemReports.length,
      invalidProblems: invalidCount,
      candidates: todo.length,
      resumed: specs.length - todo.length,
      logFile: control.logFile,
    });

    await gradeAll(pool, { ...loaded, early }, todo, options, control.signal, {
      record: async (spec, graded) => {
        store.recordGraded(candidateKey(spec), graded);
        await reporter.onCandidateResult(graded.rows);
      },
      recorded: (rows) => reporter.onCandidateResult(rows),
    });
    early?.check();
    // The workers have nothing left to do: they wind down while the
    // scorecards are written instead of after (runEvaluation awaits it).
    void pool.close();

    const end = { finished_at: new Date().toISOString(), complete: store.missing() === 0 };
    store.noteEnd(end);
    const outcome = outcomeFromStore(store, {
      header: { mode, run_id: control.runId, started_at: startedAt, options: recordOptions(options) },
      finishedAt: end.finished_at,
      complete: end.complete,
      problems: problemReports,
      tagsByProblem: new Map(selected.map((p) => [p.id, p.tags] as const)),
      skipped,
      passAtK: options.passAtK,
      shard: sharded === null ? null : shardCard(sharded.record, sharded.ranks, (i) => store.has(keys[i]!)),
    });
    await reporter.onRunEnd(outcome);
    return outcome;
  } finally {
    early?.stop();
    store.close();
  }
}

/** Longest a worker may take to read and check one problem file (the largest accepted is 32 MB). */
const LOAD_CEILING_MS = 120_000;

/**
 * Tests of the problems the supervisor reads itself (see `loadOnWorkers`):
 * it holds them, or their results until the run is planned, so this bounds
 * its memory as a worker's own bound does.
 */
const HELD_TESTS = 20_000;

/**
 * Reads and checks every problem file. A worker takes a few hundred
 * milliseconds to start, and the supervisor would only wait for it, so it
 * reads the first files itself. With `take` (a self-check), each problem is
 * handed over to be graded as soon as it is read, and the supervisor reads
 * on: grading starts at the first file instead of after the last, and the
 * workers only run the sandbox jobs, which is what this division of work
 * measured fastest (README, performance). Otherwise it keeps the problems
 * it read, to grade their candidates from here through sandbox jobs, and
 * stops once a worker is ready. Either way it holds at most HELD_TESTS
 * tests' worth. The rest go to the workers, several files at once; the
 * supervisor keeps a summary of each and which worker read it, so that its
 * candidates go to the worker that still holds the problem. A worker that
 * dies or hangs on a file costs nothing but time: the file is read here.
 */
async function loadOnWorkers(
  pool: WorkerPool,
  dir: string,
  workers: number,
  take: ((problem: PreparedProblem, summary: ProblemSummary) => void) | null,
): Promise<LoadedSummaries> {
  const found = await listProblemFiles(dir);
  const loadedBy = new Map<string, number>();
  const held = new Map<string, PreparedProblem>();
  const files = found.filter((item): item is string => typeof item === 'string');
  const loaded = new Map<string, ProblemSummary | InvalidProblemFile>();

  let workerReady = false;
  void pool.whenReady().then(() => {
    workerReady = true;
  });
  let next = 0;
  let heldTests = 0;
  while (next < files.length && (take !== null || !workerReady) && heldTests < HELD_TESTS) {
    const file = files[next++]!;
    const problem = await loadProblemLazily(file);
    if (isInvalidProblemFile(problem)) {
      loaded.set(file, problem);
    } else {
      const summary = summarizeProblem(problem);
      loaded.set(file, summary);
      heldTests += summary.tests;
      if (take === null) held.set(file, problem);
      else take(problem, summary);
    }
    // Reading a file hardly ever waits, so give the workers' messages (that
    // they are ready, the answers to jobs) their turn between two files.
    await new Promise((resolve) => setImmediate(resolve));
  }

  const loadBatch = async (batch: string[]): Promise<void> => {
    try {
      const { answer, worker } = await pool.request({ kind: 'load', files: batch }, { ceilingMs: LOAD_CEILING_MS * batch.length });
      batch.forEach((file, i) => {
        const one = answer[i];
        if (one === undefined) throw new Error(`worker answered ${answer.length} of ${batch.length} files`);
        loaded.set(file, one.ok ? one.summary : one.invalid);
        if (one.ok) loadedBy.set(file, worker);
      });
    } catch {
      for (const file of batch) {
        if (loaded.has(file)) continue;
        const problem = await loadProblemLazily(file);
        loaded.set(file, isInvalidProblemFile(problem) ? problem : summarizeProblem(problem));
      }
    }
  };
  await Promise.all(batches(files.slice(next), workers).map(loadBatch));
  const results = found.map((item) => (typeof item === 'string' ? loaded.get(item)! : item));
  const walked = found.map((item): WalkedFile => {
    const file = typeof item === 'string' ? item : item.file;
    return { path: typeof item === 'string' ? item : null, relative: pathInside(dir, file) };
  });
  return { ...splitAndRejectDuplicates(results), loadedBy, held, walked };
}

/**
 * Files go to the workers a few at a time: one message per file would cost
 * more than reading most files, while batches too large would leave a
 * worker idle at the end. About eight batches per worker, of 1 to 16 files.
 */
function batches(files: readonly string[], workers: number): string[][] {
  const size = Math.min(16, Math.max(1, Math.ceil(files.length / (Math.max(1, workers) * 8))));
  const out: string[][] = [];
  for (let i = 0; i < files.length; i += size) out.push(files.slice(i, i + size));
  return out;
}

interface LoadedSummaries {
  problems: ProblemSummary[];
  invalid: InvalidProblemFile[];
  /** File -> the worker process that read it (and may still hold it). */
  loadedBy: ReadonlyMap<string, number>;
  /** Problems the supervisor read itself and kept; each is dropped when its last candidate is taken. */
  held: Map<string, PreparedProblem>;
  /** Every entry the walk of the problems folder found, for a shard's input digest. */
  walked: WalkedFile[];
}

/** The run's candidates, what was skipped, and the solution files found (none for a self-check). */
interface PlannedRun {
  specs: PlannedCandidate[];
  skipped: SkippedSubmissionReport[];
  walked: WalkedFile[] | null;
}

/** What becomes of a graded candidate. */
interface GradedSink {
  /** Records it in the log and tells the reporters. */
  record: (spec: PlannedCandidate, graded: GradedCandidate) => Promise<void>;
  /** Tells the reporters of one already in the log (graded early), by its rows. */
  recorded: (rows: CandidateRowWithCounts[]) => Promise<void>;
}

async function planCandidates(
  options: RunOptions,
  loaded: LoadedSummaries,
  selected: readonly ProblemSummary[],
  modelSelected: (id: string) => boolean,
): Promise<PlannedRun> {
  if (options.solutionsDir === null) return { specs: selfCheckPlans(selected), skipped: [], walked: null };

  const byId = new Map(selected.map((p) => [p.id, p] as const));
  const valid = new Set(loaded.problems.map((p) => p.id));
  const invalidFiles = new Map<string, string>();
  for (const bad of loaded.invalid) if (bad.id !== null && !valid.has(bad.id)) invalidFiles.set(bad.id, bad.file);
  const known = new Set([...valid, ...invalidFiles.keys()]);

  const found = await discoverSubmissions(options.solutionsDir, known);
  const skipped: SkippedSubmissionReport[] = found.skipped.map((s) => ({ source: s.source, reason: s.reason }));
  const specs: PlannedCandidate[] = [];
  for (const submission of found.submissions) {
    const invalidFile = invalidFiles.get(submission.problemId);
    if (invalidFile !== undefined) {
      skipped.push({ source: submission.source, reason: `problem "${submission.problemId}" is invalid (${invalidFile})` });
      continue;
    }
    const problem = byId.get(submission.problemId);
    // Filtered out by --problem, --tag or --model: not run, and not an error.
    if (problem === undefined || !modelSelected(submission.modelId)) continue;
    specs.push(submissionPlan(problem, submission, options.extractCode));
  }
  return { specs, skipped, walked: found.files };
}

async function gradeAll(
  pool: WorkerPool,
  { loadedBy, held, early }: Pick<LoadedSummaries, 'loadedBy' | 'held'> & { early: EarlyGrades | null },
  specs: readonly PlannedCandidate[],
  options: RunOptions,
  signal: AbortSignal | undefined,
  sink: GradedSink,
): Promise<void> {
  if (specs.length === 0) return;
  // Each worker can hold a second task behind the one it runs, so keep that many in flight.
  const limit = pLimit(options.concurrency * 2);
  // Candidates still to come per file: the last one lets its worker forget the problem.
  const remaining = new Map<string, number>();
  for (const s of specs) remaining.set(s.file, (remaining.get(s.file) ?? 0) + 1);
  // Queued candidates see the abort and return at once (clearing p-limit's
  // queue instead would leave their promises pending forever).
  const stop = (): void => void pool.close();
  signal?.addEventListener('abort', stop, { once: true });
  // The first result the log cannot take ends the run: nothing after it
  // could be kept, and the workers are let go at once.
  let logFailure: { error: unknown } | null = null;
  const record: GradedSink['record'] = async (spec, graded) => {
    try {
      await sink.record(spec, graded);
    } catch (e) {
      logFailure ??= { error: e };
      stop();
    }
  };
  // A function, not a value: the signal changes while a candidate is graded.
  const aborted = (): boolean => signal?.aborted === true || logFailure !== null;
  const gradeOptions = gradeOptionsOf(options);
  try {
    await Promise.all(
      specs.map((planned) =>
        limit(async () => {
          if (aborted()) return;
          const left = (remaining.get(planned.file) ?? 1) - 1;
          remaining.set(planned.file, left);
          const gradedEarly = early?.get(candidateKey(planned));
          if (gradedEarly !== undefined) {
            const result = await gradedEarly;
            if (result !== null && !aborted()) await sink.recorded(result);
            return;
          }
          const problem = held.get(planned.file);
          if (problem !== undefined) {
            if (left <= 0) held.delete(planned.file);
            const graded = await gradeOnSupervisor(pool, planned, gradeOptions, aborted, problem);
            if (graded !== null && !aborted()) await record(planned, graded);
            return;
          }
          const task: CandidateTask = { file: planned.file, recipe: planned.recipe, options: gradeOptions, last: left <= 0 };
          let graded: GradedCandidate | null = null;
          // A worker that dies or hangs mid-candidate costs time only: the
          // same task goes to a fresh worker. Only an out-of-memory abort, or
          // a failure on every attempt, is graded job by job from here, so
          // that the test at fault is found (gradeWithRecovery).
          for (let attempt = 0; graded === null; attempt++) {
            try {
              const { answer } = await pool.request(
                { kind: 'candidate', task },
                {
                  ceilingMs: ceilingForTests(planned.tests, gradeOptions.limits) + LOAD_CEILING_MS,
                  prefer: loadedBy.get(planned.file) ?? null,
                },
              );
              graded = answer.kind === 'graded' ? gradedFromWire(answer.graded) : gradedFromResults([unavailable(planned, answer.message)]);
            } catch (e) {
              // Interrupted mid-candidate: its results are incomplete, so none are kept.
              if (aborted()) return;
              const outOfMemory = isSandboxFault(e) && 'outOfMemory' in e && e.outOfMemory;
              if (isSandboxFault(e) && !outOfMemory && attempt < FAULT_RETRIES) continue;
              graded = await gradeOnSupervisor(pool, planned, gradeOptions, aborted);
              break;
            }
          }
          if (graded === null || aborted()) return;
          await record(planned, graded);
        }),
      ),
    );
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  if (logFailure !== null) throw (logFailure as { error: unknown }).error;
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

/**
 * Grades a candidate as a worker would, but with the supervisor holding the
 * problem (read here unless given) and sending the prepared code to the
 * pool, replaying test by test when a sandbox process dies. Null when the
 * run was interrupted meanwhile.
 */
async function gradeOnSupervisor(
  pool: WorkerPool,
  planned: PlannedCandidate,
  options: GradeOptions,
  aborted: () => boolean,
  loaded?: PreparedProblem,
): Promise<GradedCandidate | null> {
  const problem = loaded ?? (await loadProblemLazily(planned.file));
  if (isInvalidProblemFile(problem)) {
    return gradedFromResults([unavailable(planned, problemChangedMessage(problem))]);
  }
  const spec = buildCandidate(problem, planned.recipe);
  try {
    return gradedFromResults(await gradeCandidate((job) => gradeWithRecovery(pool, job), spec, options));
  } catch (e) {
    if (aborted()) return null;
    return gradedFromResults(internalError(spec, e));
  }
}

/** A candidate that could not be graded at all, with the reason. */
function unavailable(planned: PlannedCandidate, message: string): CandidateResult {
  return {
    problem_id: planned.problemId,
    model_id: planned.modelId,
    prompt_id: planned.promptId,
    sample_id: planned.sampleId,
    language: 'unknown',
    source: planned.source,
    raw_code: '',
    code: '',
    status: 'load-error',
    error: message,
    entry_point: null,
    passed: 0,
    total: 0,
    score: 0,
    duration_ms: 0,
    tests: [],
  };
}

/**
 * A bug in evalrun itself while grading one candidate: that candidate's
 * tests get an error verdict naming it, and the run goes on.
 */
function internalError(spec: CandidateSpec, error: unknown): CandidateResult[] {
  const message = `internal error in evalrun: ${error instanceof Error ? error.message : String(error)}`;
  return unrunnableResults(spec, { ok: false, language: 'unknown', status: 'load-error', message });
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
