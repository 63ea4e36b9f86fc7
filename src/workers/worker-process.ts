/**
 * Entry point of a sandbox worker process. It does the work of a run that
 * grows with its candidates: reading problem and solution files, preparing
 * candidates, running them in isolates, judging, and writing each result as
 * the record text the run log keeps. The supervisor only plans and routes.
 * Isolates live here, not in the supervisor, because V8 can abort the whole
 * process on some out-of-memory paths inside an isolate; the supervisor
 * then loses one worker and one candidate, never the run.
 */
import { problemChangedMessage, selfCheckPlan, summarizeProblem, withText, type Candidate, type ProblemSummary } from '../grading/candidate.js';
import { selector, type Selector } from '../grading/filters.js';
import { gradeCandidate, internalErrorResults, unavailableResults, type GradeOptions, type RunsJobs } from '../grading/grade.js';
import { badTestTimeouts, readTestLimits } from '../grading/test-limits.js';
import { loadProblemLazily, loadProblemTextLazily } from '../problems/load-lazily.js';
import { isInvalidProblemFile, type InvalidProblemFile, type PreparedProblem } from '../problems/prepared.js';
import { candidateRow } from '../report/rows.js';
import type { CandidateResult } from '../report/scorecard.js';
import { readSolutionFile } from '../solutions/read-solution-file.js';
import { SolutionBytes } from '../solutions/solution-bytes.js';
import type { SolutionDiscoveryContext } from '../solutions/submission.js';
import { Worker } from 'node:worker_threads';
import { Engines } from '../engines/registry.js';
import { useIsolateStackLimit } from '../engines/stack-limit.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import { judge } from '../sandbox-host/judge.js';
import type { CandidateOutcome, StopAfter, TestOutcome } from '../sandbox-host/protocol.js';
import { jsonLine } from '../sandbox-host/json-lines.js';
import { ProgressWriter } from '../sandbox-host/progress-cell.js';
import { WorkerIo } from '../sandbox-host/worker-io.js';
import { boundMessage, boundValue, MAX_RECORDED_VALUE_CHARS } from '../values/bounded.js';
import { decodeTrustedWire, encodeWire, recordJson } from '../values/wire.js';
import {
  ANSWER_WITHIN_MS,
  GradedAnswers,
  knownTests,
  readToWorker,
  solutionsLines,
  type Batch,
  type BatchOptions,
  type FromWorker,
  type RunContext,
  type ToWorker,
  type WorkItem,
} from './messages.js';

/** Engines its descriptor calls cheap to start (JavaScript's) are ready before the first job; others start with their first job. */
const engines = new Engines();
const io = new WorkerIo();
const progress = new ProgressWriter();
/** Submissions' bytes, read again from their solution files for grading; forgotten at the end of each batch. */
const solutionBytes = new SolutionBytes();
/** What reading a solution file needs, from the run's context (sent before the first solution file). */
let discovery: SolutionDiscoveryContext | null = null;

async function takeContext(run: RunContext): Promise<void> {
  const prompts = new Map<string, readonly string[]>();
  run.knownProblemIds.forEach((problemId, i) => {
    const ids = run.promptIds?.[i];
    if (ids !== undefined && ids !== null) prompts.set(problemId, ids);
  });
  discovery = { known: new Set(run.knownProblemIds), rootName: run.solutionsRootName, prompts };
  if (run.warm === undefined) return;
  // Started before any batch is read: the batches wait in the pipe meanwhile.
  const errors = await engines.prepare(run.warm.languages, run.warm.memoryMb);
  send({ type: 'warmed', errors });
  flush();
}

// ---------------------------------------------------------------------------
// Answers, sent a few at a time
// ---------------------------------------------------------------------------

/**
 * Answers wait here and go in one write: at the end of a batch, or once the
 * oldest has waited as long as the batch allows (BatchOptions.answerWithinMs)
 * or they fill FLUSH_AT_BYTES. Each write wakes the supervisor, and on a
 * machine with many workers those wake-ups are what the supervisor would
 * spend its time on. What the supervisor needs to know at once (which item
 * and test runs, for faults and ceilings) is in the progress cell instead.
 */
const FLUSH_AT_BYTES = 1 << 18;
const waiting: Buffer[] = [];
let waitingBytes = 0;
let waitingSince = 0;
/**
 * A batch of one item is one sent again after a fault: its answers go at
 * once, so that what it learned before its next fault (the problem a
 * self-check read) is not lost with the worker.
 */
let sendAtOnce = true;

/**
 * Graded answers of consecutive items, which go as one message: they can
 * take the next item until anything else is sent, they are written, or
 * they reach GRADED_MESSAGE_BYTES.
 */
let graded: GradedAnswers | null = null;
/**
 * About the most bytes of one graded message. The supervisor reads its
 * pipe in pieces of some tens of kilobytes, and puts a message that spans
 * several of them together with a copy; messages this size still share
 * their cost among many candidates.
 */
const GRADED_MESSAGE_BYTES = 1 << 16;

function pending(): boolean {
  return waiting.length > 0 || graded !== null;
}

function send(message: FromWorker): void {
  sendLine(jsonLine(message));
}

function sendLine(line: string): void {
  closeGraded();
  queue(Buffer.from(line, 'utf8'));
}

function queue(...pieces: Buffer[]): void {
  if (!pending()) waitingSince = performance.now();
  keep(pieces);
  flushIfDue();
}

function keep(pieces: readonly Buffer[]): void {
  for (const piece of pieces) {
    waiting.push(piece);
    waitingBytes += piece.length;
  }
}

/** Writes what waits if the batch allows no wait, or once it fills FLUSH_AT_BYTES. */
function flushIfDue(): void {
  if (sendAtOnce || waitingBytes + (graded?.bytes ?? 0) >= FLUSH_AT_BYTES) flush();
}

function sendGraded(batch: number, item: number, results: readonly CandidateResult[], problem?: ProblemSummary): void {
  if (graded !== null && !graded.follows(batch, item)) closeGraded();
  if (!pending()) waitingSince = performance.now();
  graded ??= new GradedAnswers(batch, item);
  graded.add(
    results.map(candidateRow),
    results.map((r) => recordJson(r)),
    problem,
  );
  if (graded.bytes >= GRADED_MESSAGE_BYTES) closeGraded();
  flushIfDue();
}

/** The graded answers waiting, as their message, behind what waits already. */
function closeGraded(): void {
  if (graded === null) return;
  const { line, payload } = graded.frame();
  graded = null;
  keep([Buffer.from(line, 'utf8'), payload]);
}

function flushIfWaitedLong(withinMs: number): void {
  if (pending() && performance.now() - waitingSince >= withinMs) flush();
}

function flush(): void {
  closeGraded();
  if (waiting.length === 0) return;
  const bytes = Buffer.concat(waiting, waitingBytes);
  waiting.length = 0;
  waitingBytes = 0;
  if (!io.sendBytes(bytes)) throw new SupervisorGone();
}

class SupervisorGone extends Error {
  constructor() {
    super('the supervisor is gone');
  }
}

// ---------------------------------------------------------------------------
// Problems, read once for the items of a batch and the batches after it
// ---------------------------------------------------------------------------

/**
 * Prepared problems this worker read lately: a problem's candidates come
 * in one batch or in batches one after another, so a few suffice, and the
 * worker's memory stays bounded whatever the run's size.
 */
const PROBLEMS_KEPT = 8;
const problems = new Map<string, Promise<PreparedProblem | InvalidProblemFile>>();

/** The problem a candidate names by `file`: from its text when the batch carries it (the grading service), else read from the file. */
function problemAt(file: string, text?: string): Promise<PreparedProblem | InvalidProblemFile> {
  let problem = problems.get(file);
  if (problem === undefined) {
    problem = text === undefined ? loadProblemLazily(file) : loadProblemTextLazily(text, file);
    if (problems.size >= PROBLEMS_KEPT) problems.delete(problems.keys().next().value as string);
  } else {
    problems.delete(file);
  }
  problems.set(file, problem);
  return problem;
}

// ---------------------------------------------------------------------------
// Jobs in the engines
// ---------------------------------------------------------------------------

/** Runs grade jobs on this worker's engines; a job sent one test at a time names each test it starts in the progress cell. */
function localJobs(batch: number, item: number): RunsJobs {
  return { run: (job) => runJob(job, (test) => progress.set(batch, item, job.tests.length, test)) };
}

function runJob(job: GradeJob, onTest: (test: number) => void): Promise<GradeReply> {
  return job.oneByOne === undefined ? runAll(job) : runOneByOne(job, job.oneByOne.settled, onTest);
}

async function runAll(job: GradeJob): Promise<GradeReply> {
  // The candidate's own time starts here, when this worker takes it up, not when it was queued.
  const started = performance.now();
  const judged: Verdict[] = [];
  const verdictOf = (i: number, test: TestOutcome): Verdict =>
    (judged[i] ??= judge(test, job.expected[i] ?? 'null', job.returnType, job.tolerance, job.equality));
  // Stopping at the first failure needs each verdict as its test ends; the engine is asked after each test.
  const stop: StopAfter | undefined = job.stopOnFirstFailure === true ? (i, test) => verdictOf(i, test).status !== 'pass' : undefined;
  const outcome: CandidateOutcome = await engines.run(job, stop);
  if (outcome.kind === 'load-error') return { kind: 'load-error', message: boundMessage(outcome.message) };
  const verdicts = outcome.tests.map((test, i) => bound(verdictOf(i, test)));
  while (verdicts.length < job.tests.length) verdicts.push({ status: 'skipped' });
  const durationMs = outcome.durationMs ?? Math.round(performance.now() - started);
  // A measured run's loading figures, when the engine measured it.
  if (outcome.load !== undefined) return { kind: 'ran', entryPoint: outcome.entryPoint, verdicts, durationMs, load: outcome.load };
  return { kind: 'ran', entryPoint: outcome.entryPoint, verdicts, durationMs };
}

/**
 * Each test as a job of its own, in a fresh context, after the job killed
 * a worker: the progress cell names the test that starts, so that a test
 * that kills this worker too is known. A settled test (one that killed workers
 * before) keeps its verdict and is not run.
 */
async function runOneByOne(job: GradeJob, settled: ReadonlyArray<[number, Verdict]>, onTest: (test: number) => void): Promise<GradeReply> {
  const known = new Map(settled);
  const verdicts: Verdict[] = [];
  let entryPoint = '';
  let durationMs = 0;
  const { oneByOne: _, ...alone } = job;
  const stopping = job.stopOnFirstFailure === true;
  for (let i = 0; i < job.tests.length; i++) {
    if (stopping && i > 0 && verdicts[i - 1]!.status !== 'pass') {
      verdicts.push({ status: 'skipped' });
      continue;
    }
    const verdict = known.get(i);
    if (verdict !== undefined) {
      verdicts.push(verdict);
      continue;
    }
    onTest(i);
    const perTest = job.limits.testTimeoutsMs;
    const limits = perTest === undefined ? job.limits : { ...job.limits, testTimeoutsMs: perTest.slice(i, i + 1) };
    const reply = await runAll({ ...alone, tests: job.tests.slice(i, i + 1), expected: job.expected.slice(i, i + 1), limits, guardTopLevel: true });
    if (reply.kind === 'load-error') return reply;
    entryPoint = reply.entryPoint;
    durationMs += reply.durationMs ?? 0;
    verdicts.push(reply.verdicts[0] ?? { status: 'error', message: 'sandbox returned no verdict', durationMs: null });
  }
  return { kind: 'ran', entryPoint, verdicts, durationMs };
}

// Judged on the full value first; only what is recorded is capped, here, so
// that a 50 MB return value never travels to the supervisor.
function bound(verdict: Verdict): Verdict {
  switch (verdict.status) {
    case 'pass':
      return verdict.actual === undefined ? verdict : { ...verdict, actual: boundWire(verdict.actual) };
    case 'fail':
      return { ...verdict, actual: boundWire(verdict.actual), reason: boundMessage(verdict.reason) };
    case 'error':
    case 'memory':
      return { ...verdict, message: boundMessage(verdict.message) };
    case 'timeout':
    case 'skipped':
      return verdict;
  }
}

/**
 * A value's JSON is never longer than its wire text, so short text is
 * within the cap as it is; only longer text, which the judge has already
 * decoded once, is decoded again to be capped.
 */
function boundWire(text: string): string {
  if (text.length <= MAX_RECORDED_VALUE_CHARS) return text;
  return encodeWire(boundValue(decodeTrustedWire(text, 'a judged value')));
}

// ---------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------

async function doItem(id: number, index: number, item: WorkItem, options: BatchOptions, select: Selector): Promise<void> {
  switch (item.kind) {
    case 'read-problem': {
      const problem = await problemAt(item.file);
      const summary = isInvalidProblemFile(problem) ? problem : { ...summarizeProblem(problem), promptIds: problem.problem.prompts.map((p) => p.prompt_id) };
      send({ type: 'problem', batch: id, item: index, problem: summary, grading: false });
      return;
    }
    case 'self-check': {
      const problem = await problemAt(item.file);
      if (isInvalidProblemFile(problem)) {
        send({ type: 'problem', batch: id, item: index, problem, grading: false });
        return;
      }
      const summary = summarizeProblem(problem);
      const candidate = summary.hasOptimalSolution && select.problem(summary.id, summary.tags) ? selfCheckPlan(summary) : undefined;
      if (candidate === undefined) {
        send({ type: 'problem', batch: id, item: index, problem: summary, grading: false });
        return;
      }
      // Its ceiling now follows from its tests.
      progress.set(id, index, summary.tests, -1);
      // Sent again alone after a fault, it says at once what it read, which the next fault would lose; in a batch the problem goes with the results.
      if (sendAtOnce) send({ type: 'problem', batch: id, item: index, problem: summary, grading: true });
      sendGraded(id, index, await grade(id, index, candidate, problem, options.grade, undefined), sendAtOnce ? undefined : summary);
      return;
    }
    case 'grade': {
      const limits = item.limits === undefined ? undefined : readTestLimits(item.limits);
      if (typeof limits === 'string') throw new Error(`a grade item with ${limits}`);
      const gradeOptions = limits === undefined ? options.grade : { ...options.grade, testLimits: limits };
      const problem = await problemAt(item.candidate.file, options.problems?.[item.candidate.file]);
      const results = isInvalidProblemFile(problem)
        ? unavailableResults(item.candidate, problemChangedMessage(problem))
        : await grade(id, index, item.candidate, problem, gradeOptions, item.oneByOne);
      sendGraded(id, index, results);
      return;
    }
    case 'read-solutions': {
      if (discovery === null) throw new Error('no run context before a solution file');
      for (const line of solutionsLines(id, index, readSolutionFile(item.file, discovery))) sendLine(line);
      return;
    }
    case 'job': {
      const bad = badTestTimeouts(item.job.limits.testTimeoutsMs, item.job.tests.length);
      if (bad !== null) throw new Error(`a job with ${bad}`);
      const job = item.oneByOne === undefined ? item.job : { ...item.job, oneByOne: { settled: item.oneByOne } };
      const reply = await runJob(job, (test) => progress.set(id, index, job.tests.length, test));
      send({ type: 'answered', batch: id, item: index, reply });
      return;
    }
  }
}

async function grade(
  id: number,
  index: number,
  candidate: Candidate,
  problem: PreparedProblem,
  options: GradeOptions,
  oneByOne: Array<[number, Verdict]> | undefined,
): Promise<CandidateResult[]> {
  // A submission's text is read here, from its solution file, not sent with it.
  const withItsText = withText(candidate, solutionBytes);
  if ('unavailable' in withItsText) return unavailableResults(candidate, withItsText.unavailable);
  try {
    return await gradeCandidate(localJobs(id, index), withItsText, problem, options, oneByOne === undefined ? undefined : { settled: oneByOne });
  } catch (e) {
    if (e instanceof SupervisorGone) throw e;
    // A bug in evalrun while grading this candidate: it gets an error verdict naming it, and the run goes on.
    return internalErrorResults(withItsText, problem, e);
  }
}

async function doBatch(id: number, batch: Batch): Promise<void> {
  const select = selector(batch.options.filters);
  const within = answerWithin(batch.options.answerWithinMs);
  sendAtOnce = batch.items.length === 1;
  for (let index = 0; index < batch.items.length; index++) {
    const item = batch.items[index]!;
    progress.set(id, index, knownTests(item) ?? 0, -1);
    try {
      await doItem(id, index, item, batch.options, select);
    } catch (e) {
      if (e instanceof SupervisorGone) throw e;
      send({ type: 'failed', batch: id, item: index, message: e instanceof Error ? e.message : String(e) });
    }
    flushIfWaitedLong(within);
  }
  solutionBytes.forget();
  flush();
}

/** The batch's wait for answers, or the default when it names none usable. */
function answerWithin(ms: number | undefined): number {
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : ANSWER_WITHIN_MS;
}

/**
 * Between batches the worker would only wait for the supervisor: prepare
 * the next context then, so that creating it is not part of the next job.
 * Skipped when a batch has already arrived, since that creates what it
 * needs anyway.
 */
async function warmWhenIdle(): Promise<void> {
  if (io.hasRequest()) return;
  // The Python interpreter the last job used is restored now rather than
  // when the next Python job arrives.
  await engines.warm();
}

function parseMessage(text: string): ToWorker | null {
  try {
    return readToWorker(JSON.parse(text));
  } catch {
    return null;
  }
}

/**
 * Batches run one at a time, in the order they came; the supervisor may
 * queue one behind another. When it closes the link, the worker exits.
 */
async function serve(): Promise<void> {
  send({ type: 'ready' });
  flush();
  for (;;) {
    await warmWhenIdle();
    const text = io.next();
    if (text === null) return;
    const message = parseMessage(text);
    if (message === null) continue;
    if (message.type === 'context') await takeContext(message.context);
    else await doBatch(message.id, message.batch);
  }
}

/**
 * Ends this process once its supervisor is gone, from a thread of its own:
 * the main thread notices a closed link only between jobs, and a
 * candidate's code can hold it (isolated-vm reads what JavaScript top-level
 * code threw outside the time limit), which would leave a worker running
 * after the run was killed.
 */
function endWithSupervisor(): void {
  const source = `
    const { workerData } = require('node:worker_threads');
    setInterval(() => {
      if (process.ppid !== workerData.parent) process.kill(workerData.self, 'SIGKILL');
    }, ${SUPERVISOR_CHECK_MS});
  `;
  new Worker(source, { eval: true, workerData: { parent: process.ppid, self: process.pid } }).unref();
}

/** How often the thread above looks for the supervisor. */
const SUPERVISOR_CHECK_MS = 1000;

useIsolateStackLimit();
endWithSupervisor();
serve().then(
  () => {
    engines.dispose();
    process.exit(0);
  },
  (e: unknown) => {
    if (e instanceof SupervisorGone) process.exit(0);
    process.stderr.write(`evalrun sandbox worker: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
