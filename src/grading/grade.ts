/**
 * Grading, in the sandbox worker that holds the candidate: its code becomes
 * its one grade job (language detected, the code prepared, arguments and
 * expected values as wire text, the equality rule: each as the language's
 * descriptor says, engines/descriptor.ts), the worker's engines run the job,
 * and the verdicts become its results, one per suite.
 */
import type { PreparedProblem, PreparedSuite, PreparedTest } from '../problems/prepared.js';
import { boundCode } from '../values/bounded.js';
import type { CandidateResult, CandidateStatus, TestResult } from '../report/scorecard.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import type { SandboxLimits, TestMeasure } from '../sandbox-host/protocol.js';
import { equalityOf, languageOfDialect, type KnownLanguage } from '../engines/find-language.js';
import type { Language } from '../engines/languages.js';
import { thinkingNeverClosed } from '../solutions/extract-code.js';
import { detectLanguage, otherLanguage } from '../solutions/language.js';
import type { Tolerance } from '../values/compare.js';
import { decodeTrustedWire, encodeWire } from '../values/wire.js';
import { codeOf, solutionLanguageOf, type Candidate, type CandidateCode } from './candidate.js';
import { candidateMeasure, measureRun, NOT_MEASURED, testMeasureRecord, type MeasureOutcome } from './measure.js';
import { TestLimitsMismatch, testTimeoutsFor, type TestLimits } from './test-limits.js';

/** Runs grade jobs: the worker's engines. */
export interface RunsJobs {
  run(job: GradeJob): Promise<GradeReply>;
}

export interface GradeOptions {
  limits: SandboxLimits;
  tolerance: Tolerance;
  /** Languages the sandbox can run; others are reported as unsupported. An array: options travel to workers as JSON. */
  languages: readonly Language[];
  /** --strict-types: bool, int and float are distinct for Python candidates (each language's descriptor names its rule). */
  strictTypes?: boolean;
  /** Folders of wheels or packages Python candidates may import (languages whose descriptor `usesPackages`). */
  pythonPackages?: readonly string[];
  /** --stop-on-first-failure: the tests after a candidate's first test that does not pass are `skipped`, not run. */
  stopOnFirstFailure?: boolean;
  /**
   * --grade performance or memory: a candidate that passes every test is
   * graded again as a measured job, each test `repetitions` times, and its
   * results carry the figures (grading/measure.ts).
   */
  measure?: { repetitions: number };
  /** The candidate's problem's limit per test (--timeout-factor), applied when the candidate is in their language. */
  testLimits?: TestLimits;
}

/** The code as it will run, or why it cannot run. */
type Runnable =
  | { ok: true; language: KnownLanguage; sourceLanguage: string; code: string; topLevelNames: string[] }
  | { ok: false; language: string; status: CandidateStatus; message: string };

async function toRunnable(code: string, spec: CandidateCode, options: GradeOptions): Promise<Runnable> {
  // An empty answer is in no language: a language's own error for it ("no function named …") would blame that language.
  if (code.trim() === '') return { ok: false, language: 'unknown', status: 'load-error', message: emptyMessage(spec.raw) };
  const other = otherLanguage(spec.declaredLanguage, spec.fenceLanguage);
  if (other !== null) return { ok: false, language: other, status: 'unsupported', message: `unsupported language: ${other}` };
  const dialect = detectLanguage(code, { declared: spec.declaredLanguage, fenceLanguage: spec.fenceLanguage, onTie: () => solutionLanguageOf(spec.problem) });
  const language = languageOfDialect(dialect);
  if (!options.languages.includes(language.name)) {
    return { ok: false, language: dialect, status: 'unsupported', message: `unsupported language: ${dialect}` };
  }
  const prepared = language.prepare === undefined ? { ok: true as const, code, topLevelNames: [] } : await language.prepare(code, dialect);
  if (!prepared.ok) return { ok: false, language: dialect, status: 'load-error', message: prepared.error };
  // Reported as written: TypeScript runs as JavaScript after its types are stripped.
  return { ok: true, language, sourceLanguage: dialect, code: prepared.code, topLevelNames: prepared.topLevelNames };
}

/** Why a submission's code is empty: a reasoning model cut off before its thinking closed holds no answer (extract-code.ts). */
function emptyMessage(raw: string): string {
  return thinkingNeverClosed(raw) ? 'the submission holds no code: its thinking never closed' : 'the submission holds no code';
}

/**
 * Grades one candidate: its job runs on `jobs`, and its verdicts become its
 * results, one per suite it was run against. `oneByOne`: the job comes
 * again after it killed workers (workers/recovery.ts), to run one test at a
 * time, the settled tests keeping their verdicts.
 */
export async function gradeCandidate(
  jobs: RunsJobs,
  candidate: Candidate,
  problem: PreparedProblem,
  options: GradeOptions,
  oneByOne?: GradeJob['oneByOne'],
): Promise<CandidateResult[]> {
  return gradeCode(jobs, codeOf(candidate, problem), options, oneByOne);
}

async function gradeCode(jobs: RunsJobs, given: CandidateCode, options: GradeOptions, oneByOne: GradeJob['oneByOne']): Promise<CandidateResult[]> {
  let spec = given;
  const queued = performance.now();
  const code = spec.code;
  const tests = spec.suites.flatMap((suite) => suite.tests);
  // Asked to measure: a candidate that cannot pass every test is not measured, and says so.
  const unmeasured: MeasureOutcome | undefined = options.measure === undefined ? undefined : { ok: false, error: NOT_MEASURED.notPassed };
  const runnable = await toRunnable(code, spec, options);
  if (!runnable.ok) return unrunnableResults(spec, runnable, queued, unmeasured);
  if (tests.length === 0) {
    return splitBySuite(spec, runnable.sourceLanguage, null, [], null, queued, undefined, unmeasured);
  }
  const language = runnable.language;
  const returnType = spec.problem.returnType;
  let testTimeoutsMs: number[] | undefined;
  try {
    testTimeoutsMs = testTimeoutsFor(options.testLimits, language.name, tests.length);
  } catch (e) {
    if (!(e instanceof TestLimitsMismatch)) throw e;
    return unrunnableResults(spec, { ok: false, language: runnable.sourceLanguage, status: 'load-error', message: e.message }, queued, unmeasured);
  }
  const job: GradeJob = {
    language: language.name,
    code: runnable.code,
    functionName: spec.functionName,
    arity: spec.problem.parameterNames.length,
    topLevelNames: runnable.topLevelNames,
    tests: spec.suites.flatMap((suite) => encodedSuite(suite, language).args),
    expected: spec.suites.flatMap((suite) => encodedSuite(suite, language).expected),
    returnType,
    tolerance: options.tolerance,
    equality: equalityOf(language, options.strictTypes === true),
    limits: testTimeoutsMs === undefined ? options.limits : { ...options.limits, testTimeoutsMs },
  };
  if (language.usesPackages && options.pythonPackages !== undefined && options.pythonPackages.length > 0) job.pythonPackages = [...options.pythonPackages];
  if (oneByOne !== undefined) job.oneByOne = oneByOne;
  if (options.stopOnFirstFailure === true) job.stopOnFirstFailure = true;
  let reply = await jobs.run(job);
  // Unfenced Python from a model: a top-level line the interpreter rejects that reads as prose goes, and the rest runs again.
  for (let dropped = 0; reply.kind === 'load-error' && spec.unfenced && language.name === 'python' && dropped < MAX_PROSE_LINES; dropped++) {
    const line = proseLineRejected(job.code, reply.message);
    if (line === null) break;
    job.code = job.code
      .split('\n')
      .toSpliced(line - 1, 1)
      .join('\n');
    spec = { ...spec, code: job.code };
    reply = await jobs.run(job);
  }
  if (reply.kind === 'load-error') {
    const failure = { ok: false, language: runnable.sourceLanguage, status: 'load-error', message: reply.message } as const;
    return unrunnableResults(spec, failure, queued, unmeasured);
  }
  let measured: MeasureOutcome | undefined = unmeasured;
  if (options.measure !== undefined && reply.verdicts.length === tests.length && reply.verdicts.every((v) => v.status === 'pass')) {
    measured = oneByOne === undefined ? await measureRun(jobs, job, options.measure.repetitions) : { ok: false, error: NOT_MEASURED.oneByOne };
  }
  return splitBySuite(spec, runnable.sourceLanguage, reply.entryPoint, reply.verdicts, null, queued, reply.durationMs, measured);
}

/** Prose lines taken out of one candidate's code at most, each a run of its own. */
const MAX_PROSE_LINES = 8;

/**
 * The line of a Python syntax error (`SyntaxError: invalid syntax (line 4)`,
 * as the harness reports it) when that line is prose a model wrote around
 * unfenced code: at the top level, not a statement's start, two words side
 * by side or a Markdown emphasis or list marker first (`**Complexity:**
 * O(n)`, `We iterate; for each k...`, `This is O(n).`). A line that opens
 * with a compound statement's keyword but has no colon and no block under
 * it, and ends as a sentence does, cannot be that statement (`for example,
 * it returns False.`). Null otherwise: the error is then the code's own.
 */
function proseLineRejected(code: string, message: string): number | null {
  const at = /^SyntaxError: (.*)\(line (\d+)\)$/.exec(message);
  if (at === null) return null;
  const line = Number(at[2]);
  const lines = code.split('\n');
  const text = lines[line - 1];
  if (text === undefined || /^\s/.test(text)) return null;
  // A line that opens with a character no Python token starts with (`以下是…：`, `✅ Done!`).
  if ((at[1] as string).startsWith('invalid character') && /^\P{ASCII}/u.test(text) && !/^\p{L}[\p{L}\p{N}_]*\s*(?:[=(.[,:]|[-+*/%&|^@<>]{1,2}=)/u.test(text))
    return line;
  // Code that went wrong leaves a bracket open, or assigns; a sentence does neither, unless it opens as one.
  if (!bracketsBalance(text) || (text.includes('=') && !OPENS_AS_SENTENCE.test(text))) return null;
  if (PYTHON_STATEMENT.test(text) && !keywordSentence(lines, line)) return null;
  return /^(?:\*\*|__|[-*+>] |\d+[.)] )|[A-Za-z]{2,}[,:;]?\s+[A-Za-z(]/.test(text) ? line : null;
}

/**
 * The start of a sentence that no Python statement has: two words side by side,
 * the first no keyword (`We need f(n) = …`), or a capitalised label (`Note: n = 0 gives 0.`).
 */
const OPENS_AS_SENTENCE =
  /^(?:[A-Z][a-z]+:\s+\S|(?!(?:and|as|assert|async|await|del|exec|from|global|import|in|is|lambda|nonlocal|not|or|print|raise|return|type|yield)\b)[A-Za-z]{2,}\s+[A-Za-z]{2,}\b(?!\s*[=(.[]))/;

/**
 * Whether line `at` (1-based), which opens with a compound statement's
 * keyword, is a sentence: no colon, it ends as a sentence does, and no
 * indented line follows it (which would make it a header that lost its colon).
 */
function keywordSentence(lines: readonly string[], at: number): boolean {
  const text = lines[at - 1] as string;
  if (!COMPOUND_HEADER.test(text) || text.includes(':') || !SENTENCE_END.test(text)) return false;
  const next = lines.slice(at).find((l) => l.trim() !== '');
  return next === undefined || !/^\s/.test(next);
}

function bracketsBalance(text: string): boolean {
  const open: string[] = [];
  for (const c of text) {
    if (c === '(' || c === '[' || c === '{') open.push(c);
    else if (c === ')' || c === ']' || c === '}') {
      if (open.pop() !== { ')': '(', ']': '[', '}': '{' }[c]) return false;
    }
  }
  return open.length === 0;
}

/** The keywords that open a compound statement, whose header ends with a colon. */
const COMPOUND_HEADER = /^(?:async\s+)?(?:class|def|elif|else|except|finally|for|if|match|case|try|while|with)\b/;
/** The end of a sentence: a full stop, exclamation or question mark, perhaps inside a closing quote or bracket. */
const SENTENCE_END = /[.!?]["')]?\s*$/;
/** Words a Python statement starts with: a line that starts with one is code, however wrong. */
const PYTHON_STATEMENT =
  /^(?:async|await|assert|break|class|continue|def|del|elif|else|except|finally|for|from|global|if|import|lambda|match|case|nonlocal|pass|raise|return|try|while|with|yield|print)\b/;

/** Why a candidate could not run at all: every one of its tests gets this error. */
type Unrunnable = Extract<Runnable, { ok: false }>;

/** Results of a candidate none of whose tests could run, per suite, each test carrying the reason. */
function unrunnableResults(spec: CandidateCode, failure: Unrunnable, started = performance.now(), measured?: MeasureOutcome): CandidateResult[] {
  const tests = spec.suites.flatMap((suite) => suite.tests);
  return splitBySuite(
    spec,
    failure.language,
    null,
    tests.map(() => null),
    failure,
    started,
    undefined,
    measured,
  );
}

/**
 * A bug in evalrun itself while grading one candidate: that candidate's
 * tests get an error verdict naming it, and the run goes on.
 */
export function internalErrorResults(candidate: Candidate, problem: PreparedProblem, error: unknown): CandidateResult[] {
  const message = `internal error in evalrun: ${error instanceof Error ? error.message : String(error)}`;
  return unrunnableResults(codeOf(candidate, problem), { ok: false, language: 'unknown', status: 'load-error', message });
}

/** A candidate that could not be graded at all (its problem file changed meanwhile), with the reason. */
export function unavailableResults(candidate: Candidate, message: string): CandidateResult[] {
  return [
    {
      problem_id: candidate.problemId,
      model_id: candidate.modelId,
      prompt_id: candidate.promptId,
      sample_id: candidate.sampleId,
      language: 'unknown',
      source: candidate.source,
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
    },
  ];
}

/** A suite's arguments and expected values as wire text, in one language's forms. */
interface EncodedSuite {
  args: string[];
  expected: string[];
}

/**
 * Each suite is encoded once per language while its problem is held: the
 * submissions of one problem (pass@k samples, several models) share it.
 */
const encodedSuites = new WeakMap<PreparedSuite, Map<string, EncodedSuite>>();

function encodedSuite(suite: PreparedSuite, language: KnownLanguage): EncodedSuite {
  let forms = encodedSuites.get(suite);
  if (forms === undefined) {
    forms = new Map();
    encodedSuites.set(suite, forms);
  }
  let encoded = forms.get(language.name);
  if (encoded === undefined) {
    encoded = {
      args: suite.tests.map((t) => encodeWire(t.args, language.wire.args)),
      // In the form the harness writes a returned value, so that a candidate
      // returning exactly the expected value passes on its text alone.
      expected: suite.tests.map((t) => encodeWire(t.expected, language.wire.results)),
    };
    forms.set(language.name, encoded);
  }
  return encoded;
}

function splitBySuite(
  spec: CandidateCode,
  language: string,
  entryPoint: string | null,
  verdicts: ReadonlyArray<Verdict | null>,
  failure: Unrunnable | null,
  started: number,
  ranForMs?: number,
  measured?: MeasureOutcome,
): CandidateResult[] {
  const duration = ranForMs ?? Math.round(performance.now() - started);
  const results: CandidateResult[] = [];
  let offset = 0;
  for (const suite of spec.suites) {
    const suiteName = suite.kind === 'correctness' ? 'correctness' : `sample:${suite.promptId ?? ''}`;
    const tests = suite.tests.map((test, i) => toTestResult(test, suiteName, verdicts[offset + i] ?? null, failure));
    const figures = measured?.ok === true ? measured.tests.slice(offset, offset + suite.tests.length) : [];
    figures.forEach((m, i) => (tests[i]!.measure = testMeasureRecord(m)));
    offset += suite.tests.length;
    const passed = tests.filter((t) => t.status === 'pass').length;
    const total = tests.length;
    // Suites other than the correctness suite are only reported when they have tests.
    if (suite.kind === 'sample' && total === 0) continue;
    const status: CandidateStatus = failure !== null ? failure.status : total === 0 ? 'no-tests' : passed === total ? 'passed' : 'failed';
    const result: CandidateResult = {
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
    };
    results.push(measured === undefined ? result : withMeasure(result, measured, figures));
  }
  return results;
}

/** The record with its measured totals (or why there are none) just before its tests, where a reader finds them. */
function withMeasure(result: CandidateResult, measured: MeasureOutcome, figures: readonly TestMeasure[]): CandidateResult {
  const { tests, ...head } = result;
  if (!measured.ok) return { ...head, measure: null, measure_error: measured.error, tests };
  return { ...head, measure: candidateMeasure(measured.load, figures), measure_error: null, tests };
}

function toTestResult(test: PreparedTest, suite: string, verdict: Verdict | null, failure: Unrunnable | null): TestResult {
  // Every record is built whole, fields in one order: one object shape for
  // the thousands of them a run makes, which V8 builds and encodes fastest.
  const { index, source, input, expected } = test;
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
      return {
        index,
        suite,
        source,
        input,
        expected,
        status: 'fail',
        actual: decodeTrustedWire(verdict.actual, 'a judged value'),
        error: verdict.reason,
        duration_ms: verdict.durationMs,
      };
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
    case 'skipped':
      return { index, suite, source, input, expected, status: 'skipped', actual: null, error: null, duration_ms: null };
  }
}
