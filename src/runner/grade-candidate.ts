import type { PreparedTest } from '../problems/prepared.js';
import { boundCode } from '../values/bounded.js';
import type { CandidateResult, CandidateStatus, TestResult } from '../report/scorecard.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import { FAULT_RETRIES, isSandboxFault } from '../sandbox-host/sandbox-errors.js';
import type { Language, SandboxLimits } from '../sandbox-host/protocol.js';
import { detectLanguage } from '../solutions/language.js';
import { topLevelFunctionNames } from '../solutions/top-level-names.js';
import { prepareJavaScript } from '../solutions/transpile.js';
import type { Equality, Tolerance } from '../values/compare.js';
import { decodeTrustedWire, encodeWire } from '../values/wire.js';
import type { TypeNode, Value } from '../values/type-node.js';
import type { CandidateSpec } from './candidate.js';

export interface GradeOptions {
  limits: SandboxLimits;
  tolerance: Tolerance;
  /** Languages the sandbox can run; others are reported as unsupported. An array: options travel to workers as JSON. */
  languages: readonly Language[];
  /** --strict-types: bool, int and float are distinct for Python candidates (JavaScript keeps its own rules). */
  strictTypes?: boolean;
  /** Folders of wheels or packages Python candidates may import. */
  pythonPackages?: readonly string[];
}

/** The number equality a candidate in `language` is judged by. */
export function equalityFor(language: Language, strictTypes: boolean): Equality {
  if (language === 'javascript') return 'javascript';
  return strictTypes ? 'strict' : 'python';
}

/** The code as it will run, or why it cannot run. */
type Runnable =
  | { ok: true; language: Language; sourceLanguage: string; code: string; topLevelNames: string[] }
  | { ok: false; language: string; status: CandidateStatus; message: string };

async function toRunnable(code: string, spec: CandidateSpec, options: GradeOptions): Promise<Runnable> {
  const language = detectLanguage(code, { declared: spec.declaredLanguage, fenceLanguage: spec.fenceLanguage });
  if (language === 'python') {
    if (!options.languages.includes('python')) {
      return { ok: false, language, status: 'unsupported', message: 'unsupported language: python' };
    }
    return { ok: true, language: 'python', sourceLanguage: 'python', code, topLevelNames: [] };
  }
  const prepared = await prepareJavaScript(code, language);
  if (!prepared.ok) return { ok: false, language, status: 'load-error', message: prepared.error };
  return {
    ok: true,
    language: 'javascript',
    // Reported as written: TypeScript runs as JavaScript after its types are stripped.
    sourceLanguage: language,
    code: prepared.code,
    topLevelNames: topLevelFunctionNames(prepared.code),
  };
}

/**
 * Runs one prepared job and answers with its verdicts: through the pool
 * from the supervisor (`gradeWithRecovery`), or directly inside a worker.
 */
export type RunGradeJob = (job: GradeJob) => Promise<GradeReply>;

/** What grading needs of the worker pool (sandbox-host/pool.ts): a job in, its reply out, or a fault thrown. */
export interface GradesJobs {
  grade(job: GradeJob): Promise<GradeReply>;
}

/** Grades one candidate; returns one result per suite it was run against. */
export async function gradeCandidate(run: RunGradeJob, spec: CandidateSpec, options: GradeOptions): Promise<CandidateResult[]> {
  const queued = performance.now();
  const code = spec.code;
  const tests = spec.suites.flatMap((suite) => suite.tests);
  const runnable = await toRunnable(code, spec, options);
  if (!runnable.ok) return unrunnableResults(spec, runnable, queued);
  if (tests.length === 0) {
    return splitBySuite(spec, runnable.sourceLanguage, null, [], null, queued);
  }
  const python = runnable.language === 'python';
  const returnType = spec.problem.returnType;
  const job: GradeJob = {
    language: runnable.language,
    code: runnable.code,
    functionName: spec.functionName,
    arity: spec.problem.parameterNames.length,
    topLevelNames: runnable.topLevelNames,
    tests: tests.map((t) => encodeArgs(t.args, spec.problem.parameterTypes, python)),
    // In the form the harness writes a returned value, so that a candidate
    // returning exactly the expected value passes on its text alone.
    expected: tests.map((t) => encodeWire(t.expected, python ? { form: 'python', type: returnType } : { form: 'javascript-result' })),
    returnType,
    tolerance: options.tolerance,
    equality: equalityFor(runnable.language, options.strictTypes === true),
    limits: options.limits,
  };
  if (python && options.pythonPackages !== undefined && options.pythonPackages.length > 0) job.pythonPackages = [...options.pythonPackages];
  const reply = await run(job);
  if (reply.kind === 'load-error') {
    const failure = { ok: false, language: runnable.sourceLanguage, status: 'load-error', message: reply.message } as const;
    return unrunnableResults(spec, failure, queued);
  }
  return splitBySuite(spec, runnable.sourceLanguage, reply.entryPoint, reply.verdicts, null, queued, reply.durationMs);
}

/** Why a candidate could not run at all: every one of its tests gets this error. */
export type Unrunnable = Extract<Runnable, { ok: false }>;

/** Results of a candidate none of whose tests could run, per suite, each test carrying the reason. */
export function unrunnableResults(spec: CandidateSpec, failure: Unrunnable, started = performance.now()): CandidateResult[] {
  const tests = spec.suites.flatMap((suite) => suite.tests);
  return splitBySuite(spec, failure.language, null, tests.map(() => null), failure, started);
}

/**
 * Sends the whole candidate to the pool. A worker that dies or stops
 * answering costs time, not verdicts: the job goes again to a fresh worker,
 * up to FAULT_RETRIES times. Only a process that V8 aborted for running out
 * of memory, or one that fails on every attempt, turns the job into one job
 * per test, so that the test at fault is found and every other test still
 * gets its real verdict: `memory` for the out-of-memory abort, an error
 * naming the failure otherwise.
 */
export async function gradeWithRecovery(pool: GradesJobs, job: GradeJob): Promise<GradeReply> {
  const whole = await gradeOrFault(pool, job);
  if (whole.kind !== 'fault') return whole;
  const verdicts: Verdict[] = [];
  let entryPoint = '';
  let durationMs = 0;
  for (let i = 0; i < job.tests.length; i++) {
    const single: GradeJob = {
      ...job,
      tests: job.tests.slice(i, i + 1),
      expected: job.expected.slice(i, i + 1),
    };
    const reply = await gradeOrFault(pool, single);
    if (reply.kind === 'load-error') return reply;
    if (reply.kind === 'fault') {
      verdicts.push(reply.outOfMemory ? { status: 'memory', message: reply.message } : { status: 'error', message: reply.message, durationMs: null });
      continue;
    }
    entryPoint = reply.entryPoint;
    durationMs += reply.durationMs ?? 0;
    verdicts.push(reply.verdicts[0] ?? { status: 'error', message: 'sandbox returned no verdict', durationMs: null });
  }
  return { kind: 'ran', entryPoint, verdicts, durationMs };
}

type FaultOr<T> = T | { kind: 'fault'; outOfMemory: boolean; message: string };

/** The job's reply, on a fresh worker again after a fault, or the fault that stands. */
async function gradeOrFault(pool: GradesJobs, job: GradeJob): Promise<FaultOr<GradeReply>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await pool.grade(job);
    } catch (e) {
      if (!isSandboxFault(e)) throw e;
      const outOfMemory = 'outOfMemory' in e && e.outOfMemory;
      if (outOfMemory || attempt >= FAULT_RETRIES) {
        const tries = attempt + 1;
        return { kind: 'fault', outOfMemory, message: tries > 1 ? `${e.message} (on each of ${tries} workers)` : e.message };
      }
    }
  }
}

/**
 * The arguments as one array. The decoded values carry their Python kinds
 * (tags); for Python the parameter types also make integral numbers where
 * a float is declared floats. JavaScript gets its natural forms.
 */
function encodeArgs(args: Value[], types: readonly TypeNode[], python: boolean): string {
  if (!python) return encodeWire(args, { form: 'javascript' });
  return encodeWire(args, { form: 'python', type: { kind: 'tuple', items: [...types] } });
}

function splitBySuite(
  spec: CandidateSpec,
  language: string,
  entryPoint: string | null,
  verdicts: ReadonlyArray<Verdict | null>,
  failure: Unrunnable | null,
  started: number,
  ranForMs?: number,
): CandidateResult[] {
  const duration = ranForMs ?? Math.round(performance.now() - started);
  const results: CandidateResult[] = [];
  let offset = 0;
  for (const suite of spec.suites) {
    const suiteName = suite.kind === 'correctness' ? 'correctness' : `sample:${suite.promptId ?? ''}`;
    const tests = suite.tests.map((test, i) => toTestResult(test, suiteName, verdicts[offset + i] ?? null, failure));
    offset += suite.tests.length;
    const passed = tests.filter((t) => t.status === 'pass').length;
    const total = tests.length;
    // Suites other than the correctness suite are only reported when they have tests.
    if (suite.kind === 'sample' && total === 0) continue;
    const status: CandidateStatus =
      failure !== null ? failure.status : total === 0 ? 'no-tests' : passed === total ? 'passed' : 'failed';
    results.push({
      problem_id: spec.problem.id,
      model_id: spec.modelId,
      prompt_id: suite.kind === 'sample' ? suite.promptId : spec.promptId,
      sample_id: spec.sampleId,
      language,
      source: spec.source,
      raw_code: boundCode(spec.raw),
      code: boundCode(spec.code),
      status,
      error: failure?.message ?? null,
      entry_point: entryPoint,
      passed,
      total,
      score: total === 0 ? 0 : passed / total,
      duration_ms: duration,
      tests,
    });
  }
  return results;
}

function toTestResult(
  test: PreparedTest,
  suite: string,
  verdict: Verdict | null,
  failure: Unrunnable | null,
): TestResult {
  // Every record is built whole, fields in one order: one object shape for
  // the thousands of them a run makes, which V8 builds and encodes fastest.
  const { index, source, rawInput: input, expected } = test;
  if (verdict === null) {
    return { index, suite, source, input, expected, status: 'error', actual: null, error: failure?.message ?? 'not run', duration_ms: null };
  }
  switch (verdict.status) {
    case 'pass':
      // No actual value: the candidate returned exactly the expected one.
      // Otherwise its wire text, which the worker already decoded once to judge it.
      return {
        index,
        suite,
        source,
        input,
        expected,
        status: 'pass',
        actual: verdict.actual === undefined ? expected : decodeTrustedWire(verdict.actual, 'a judged value'),
        error: null,
        duration_ms: verdict.durationMs,
      };
    case 'fail':
      return { index, suite, source, input, expected, status: 'fail', actual: decodeTrustedWire(verdict.actual, 'a judged value'), error: verdict.reason, duration_ms: verdict.durationMs };
    case 'error':
      return { index, suite, source, input, expected, status: 'error', actual: null, error: verdict.message, duration_ms: verdict.durationMs };
    case 'timeout':
      return {
        index,
        suite,
        source,
        input,
        expected,
        status: 'timeout',
        actual: null,
        error: `exceeded the time limit of ${verdict.durationMs} ms`,
        duration_ms: verdict.durationMs,
      };
    case 'memory':
      return { index, suite, source, input, expected, status: 'memory', actual: null, error: verdict.message, duration_ms: null };
  }
}
