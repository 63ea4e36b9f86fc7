/**
 * Entry point of a sandbox worker process. Isolates live here, not in the
 * main process, because V8 can abort the whole process on some
 * out-of-memory paths inside an isolate; the supervisor then loses one
 * worker and one candidate, never the run.
 */
import { boundMessage, boundValue, MAX_RECORDED_VALUE_CHARS } from '../values/bounded.js';
import type { GradeJob, GradeReply, Verdict } from './grade-protocol.js';
import type { FromWorker, ToWorker } from './worker-messages.js';
import { Engines } from '../engines/registry.js';
import { judge } from './judge.js';
import type { CandidateOutcome } from './protocol.js';
import { WorkerIo } from './worker-io.js';
import { decodeTrustedWire, encodeWire } from '../values/wire.js';

/** Engines its descriptor calls cheap to start (JavaScript's) are ready before the first job; others start with their first job. */
const engines = new Engines();
const io = new WorkerIo();

function runEngine(job: GradeJob): Promise<CandidateOutcome> {
  return engines.run(job);
}

async function grade(id: number, job: GradeJob): Promise<GradeReply> {
  return job.oneByOne === undefined ? gradeBatch(job) : gradeOneByOne(id, job, job.oneByOne.settled);
}

async function gradeBatch(job: GradeJob): Promise<GradeReply> {
  // The candidate's own time starts here, when this worker takes it up, not when it was queued.
  const started = performance.now();
  const outcome = await runEngine(job);
  if (outcome.kind === 'load-error') return { kind: 'load-error', message: boundMessage(outcome.message) };
  const verdicts = outcome.tests.map((test, i) =>
    bound(judge(test, job.expected[i] ?? 'null', job.returnType, job.tolerance, job.equality)),
  );
  return { kind: 'ran', entryPoint: outcome.entryPoint, verdicts, durationMs: outcome.durationMs ?? Math.round(performance.now() - started) };
}

/**
 * Each test as a job of its own, in a fresh context, after the job killed
 * a worker: the supervisor hears which test starts, so that a test that
 * kills this worker too is known. A settled test (one that killed workers
 * before) keeps its verdict and is not run.
 */
async function gradeOneByOne(id: number, job: GradeJob, settled: ReadonlyArray<[number, Verdict]>): Promise<GradeReply> {
  const known = new Map(settled);
  const verdicts: Verdict[] = [];
  let entryPoint = '';
  let durationMs = 0;
  for (let i = 0; i < job.tests.length; i++) {
    const verdict = known.get(i);
    if (verdict !== undefined) {
      verdicts.push(verdict);
      continue;
    }
    if (!io.send({ type: 'started', id, test: i } satisfies FromWorker)) throw new Error('the supervisor is gone');
    const { oneByOne: _, ...alone } = job;
    const reply = await gradeBatch({ ...alone, tests: job.tests.slice(i, i + 1), expected: job.expected.slice(i, i + 1) });
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

/**
 * Between requests the worker would only wait for the supervisor, which is
 * busy recording the reply it just got: prepare the next context then, so
 * that creating it is not part of the next job. Skipped when a request has
 * already arrived, since that creates what it needs anyway.
 */
async function warmWhenIdle(): Promise<void> {
  if (io.hasRequest()) return;
  // The Python interpreter the last job used is restored now rather than
  // when the next Python job arrives.
  await engines.warm();
}


function parseRequest(text: string): ToWorker | null {
  try {
    const message = JSON.parse(text) as ToWorker | null;
    return message?.type === 'request' ? message : null;
  } catch {
    return null;
  }
}

/**
 * Jobs run one at a time, in the order they came; the supervisor may queue
 * one behind another. When it closes the link, the worker exits.
 */
async function serve(): Promise<void> {
  if (!io.send({ type: 'ready' } satisfies FromWorker)) return;
  for (;;) {
    await warmWhenIdle();
    const text = io.next();
    if (text === null) return;
    const request = parseRequest(text);
    if (request === null) continue;
    let reply: FromWorker;
    try {
      reply = { type: 'answered', id: request.id, reply: await grade(request.id, request.job) };
    } catch (e) {
      reply = { type: 'failed', id: request.id, message: e instanceof Error ? e.message : String(e) };
    }
    if (!io.send(reply)) return;
  }
}

serve().then(
  () => {
    engines.dispose();
    process.exit(0);
  },
  (e: unknown) => {
    process.stderr.write(`evalrun sandbox worker: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
