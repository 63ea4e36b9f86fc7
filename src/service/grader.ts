/**
 * The grading service's engine, for a program that grades many small
 * batches as they come (a training loop's reward function, `evalrun
 * serve`): problems checked once, sandbox workers started once and kept
 * warm between calls (Python booted in each before the first call, when a
 * problem's optimal_solution is Python or `warmLanguages` says so), and
 * every candidate sent through the route a run uses (runner/route.ts, on a
 * workers/pool.ts pool, with its fault recovery), so that its verdicts are
 * the ones `evalrun --solutions` gives for the same problem, code and
 * options. What a call asks for is checked before anything reaches a worker;
 * the candidates admitted and not yet graded are bounded (`maxQueue`).
 */
import { DEFAULTS, defaultConcurrency } from '../defaults.js';
import { languageNames, languageNamed } from '../engines/find-language.js';
import { NO_FILTERS } from '../grading/filters.js';
import { unavailableResults, type GradeOptions } from '../grading/grade.js';
import type { Candidate } from '../grading/candidate.js';
import type { CandidateResult } from '../report/scorecard.js';
import { Route } from '../runner/route.js';
import { reviveRecordInts } from '../values/wire.js';
import { gradedRecords, type BatchOptions } from '../workers/messages.js';
import { ceilingForTests } from '../workers/ceilings.js';
import { WorkerPool } from '../workers/pool.js';
import type { IndexedItem } from '../workers/recovery.js';
import { candidateOf, checkedCandidates, gradedOf, type CheckedCandidate } from './candidates.js';
import { referenceOf, ScoredResults } from './efficiency-call.js';
import { measures } from '../grading/graders.js';
import {
  GradeCancelled,
  GradeRefused,
  GraderClosed,
  QueueFull,
  type CandidateInput,
  type GradeCall,
  type GradeCallOptions,
  type GradedCandidate,
  type ProblemListing,
} from './grade-call.js';
import { checkedGrading, checkedLimitsPerTest, positive, type GraderOptions, type GraderSettings, type SettledGrading } from './grader-options.js';
import { ProblemLimits } from './problem-limits.js';
import { InvalidProblem, ProblemSet, ProblemText, type HeldProblem, type ProblemDocument } from './problem-set.js';

export { InvalidProblem, ProblemText, type ProblemDocument };

const QUEUE_PER_WORKER = 64;
const MIN_QUEUE = 1024;
/** The longest delay a Node timer keeps: past it, it fires at once, which would cut a long grace to nothing. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Loads and checks the problems, starts the workers and has them warm up;
 * resolves once the problems are loaded (the workers may still be warming:
 * `grader.ready`). Usage mistakes throw `TypeError`; a folder that cannot be
 * used throws as `evaluate` does; problems given as objects that are not
 * valid throw `InvalidProblem` with every reason.
 */
export async function createGrader(options: GraderOptions): Promise<Grader> {
  const defaults = checkedGrading(options, null, (name, why) => new TypeError(`createGrader: \`${name}\` ${why}`));
  const concurrency = positive(options.concurrency ?? defaultConcurrency(), (why) => new TypeError(`createGrader: \`concurrency\` ${why}`));
  const seed = options.seed ?? DEFAULTS.seed;
  if (!Number.isSafeInteger(seed)) throw new TypeError(`createGrader: \`seed\` must be a whole number, got ${seed}`);
  const maxQueue = positive(
    options.maxQueue ?? Math.max(MIN_QUEUE, concurrency * QUEUE_PER_WORKER),
    (why) => new TypeError(`createGrader: \`maxQueue\` ${why}`),
  );
  let problems: ProblemSet;
  if (typeof options.problems === 'string') {
    if (options.problems === '') throw new TypeError('createGrader: `problems` must name a folder or list problems');
    problems = await ProblemSet.fromFolder(options.problems);
  } else if (Array.isArray(options.problems)) {
    problems = ProblemSet.fromList(options.problems);
  } else {
    throw new TypeError('createGrader: `problems` must name a folder or list problems');
  }
  const warm = [...(options.warmLanguages ?? problems.solutionLanguages())];
  for (const language of warm) {
    if (languageNamed(language) === undefined)
      throw new TypeError(`createGrader: \`warmLanguages\`: no language named ${JSON.stringify(language)} (evalrun runs ${languageNames().join(', ')})`);
  }
  const limitsPerTest = checkedLimitsPerTest(options, (name, why) => new TypeError(`createGrader: \`${name}\` ${why}`));
  return new Grader(problems, { defaults, concurrency, seed, maxQueue, warm, observer: options.observer ?? {}, limitsPerTest });
}

interface ActiveCall {
  controller: AbortController;
  /** How long one of its candidates may take once a worker has it. */
  ceilingMs: number;
  settled: Promise<unknown>;
}

/**
 * Problems and warm workers, kept between calls (`createGrader` makes
 * one). Calls may overlap: their candidates share the workers in the order
 * they came. `close` when done: the workers are processes.
 */
export class Grader {
  private readonly pool: WorkerPool;
  private readonly route: Route;
  private queuedCount = 0;
  /** Workers alive and warm, by process id. */
  private readonly warmWorkers = new Set<number>();
  private wasReady = false;
  private lostWorkers = 0;
  private warmErrors: string[] = [];
  private closing: Promise<void> | null = null;
  private readonly active = new Set<ActiveCall>();
  private readonly warmed: Promise<void>;
  private markWarm: () => void = () => undefined;
  /** Each problem's limits per test, with `timeoutFactor`. */
  private readonly problemLimits: ProblemLimits | null;

  /** @internal `createGrader` makes graders. */
  constructor(
    private readonly problemSet: ProblemSet,
    private readonly settings: GraderSettings,
  ) {
    this.warmed = new Promise((resolve) => (this.markWarm = resolve));
    this.pool = new WorkerPool({
      size: settings.concurrency,
      keepWarm: true,
      onWarmed: (worker, errors) => {
        if (errors.length > 0) this.warmErrors = errors;
        this.warmWorkers.add(worker);
        if (this.warmWorkers.size >= settings.concurrency && !this.wasReady) {
          this.wasReady = true;
          this.markWarm();
        }
      },
      onWorkerLost: (worker) => {
        this.warmWorkers.delete(worker);
        this.lostWorkers++;
        settings.observer.workerLost?.();
      },
    });
    this.route = new Route({ pool: this.pool, batch: this.batchOptions(settings.defaults, {}), batchesPerWorker: 1 });
    const perTest = settings.limitsPerTest;
    this.problemLimits =
      perTest === null
        ? null
        : new ProblemLimits({ ...perTest, timeoutMs: settings.defaults.timeoutMs }, (problem, reference) => this.gradeReference(problem, reference));
    this.pool.setContext({ knownProblemIds: [], solutionsRootName: '', warm: { languages: settings.warm, memoryMb: settings.defaults.memoryMb } });
    this.pool.warm();
  }

  /** Resolves once every worker has started and readied the engines it was asked to warm. */
  ready(): Promise<void> {
    return this.warmed;
  }

  /**
   * Whether every worker has started and warmed up (the service's health).
   * Once true it stays true: a worker lost later is replaced while the
   * others go on serving, and readiness probes should not flap with it.
   */
  get isReady(): boolean {
    return this.wasReady;
  }

  /** Why an engine could not be warmed (it is started again with the first candidate that needs it). */
  get warmFailures(): readonly string[] {
    return this.warmErrors;
  }

  /** Candidates admitted and not yet graded. */
  get queued(): number {
    return this.queuedCount;
  }

  get maxQueue(): number {
    return this.settings.maxQueue;
  }

  get workers(): number {
    return this.settings.concurrency;
  }

  /** Workers lost (and replaced) so far. */
  get workerRestarts(): number {
    return this.lostWorkers;
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  /** The valid problems, and the files that could not be used. */
  problems(): ProblemListing {
    return {
      problems: this.problemSet.list().map((p) => ({ id: p.id, tests: p.tests, tags: [...p.tags] })),
      invalid: this.problemSet.invalid.map((p) => ({ file: p.file, id: p.id, errors: [...p.errors] })),
    };
  }

  /**
   * Grades `candidates` against a problem: its id among the loaded ones,
   * or the problem itself (an object, or `ProblemText`), checked as a file
   * would be. Resolves to one result per candidate, in their order. Rejects
   * with `GradeRefused` (nothing ran), `QueueFull`, `GraderClosed` or
   * `GradeCancelled`.
   */
  async grade(
    problem: string | ProblemDocument | ProblemText,
    candidates: readonly CandidateInput[],
    options: GradeCallOptions = {},
  ): Promise<GradedCandidate[]> {
    return this.start(problem, candidates, options).results;
  }

  /**
   * `grade` in two steps: everything is checked and the candidates admitted
   * at once (throwing what `grade` rejects with), then they are graded. The
   * service answers a refusal before it starts a streamed reply.
   */
  start(problem: string | ProblemDocument | ProblemText, candidates: readonly CandidateInput[], options: GradeCallOptions = {}): GradeCall {
    if (this.closing !== null) throw new GraderClosed();
    const held = this.resolveProblem(problem);
    const inputs = checkedCandidates(candidates, held);
    const grading = checkedGrading(options, this.settings.defaults, (name, why) => new GradeRefused('invalid-options', `options.${name} ${why}`));
    if (inputs.length > this.settings.maxQueue) {
      throw new GradeRefused('too-many-candidates', `too many candidates in one call: ${inputs.length} (at most ${this.settings.maxQueue})`);
    }
    if (this.queuedCount + inputs.length > this.settings.maxQueue) {
      throw new QueueFull(this.queuedCount, this.settings.maxQueue, this.retryAfterSeconds(grading.timeoutMs));
    }
    this.queuedCount += inputs.length;
    const controller = new AbortController();
    const signal = options.signal;
    const onAbort = (): void => controller.abort();
    if (signal?.aborted === true) controller.abort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const call: ActiveCall = {
      controller,
      ceilingMs: ceilingForTests(held.tests, this.limits(grading)),
      settled: Promise.resolve(),
    };
    const results = this.run(held, inputs, grading, controller.signal, options.onResult).finally(() => {
      signal?.removeEventListener('abort', onAbort);
      this.active.delete(call);
    });
    call.settled = results.catch(() => undefined);
    this.active.add(call);
    return { results };
  }

  /**
   * Stops admitting calls, lets those admitted finish for at most `graceMs`
   * (default: the ceiling of one candidate of the slowest call in flight:
   * the time a worker is given for one before it is taken to be stuck),
   * cancels what is left, and stops the workers.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    this.closing ??= this.shutDown(options.graceMs);
    return this.closing;
  }

  private async shutDown(graceMs: number | undefined): Promise<void> {
    const calls = [...this.active];
    const grace = graceMs ?? Math.max(0, ...calls.map((c) => c.ceilingMs));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(grace, MAX_TIMER_MS));
    });
    await Promise.race([Promise.all(calls.map((c) => c.settled)), late]);
    clearTimeout(timer);
    for (const call of this.active) call.controller.abort();
    await this.pool.close();
    await Promise.all([...this.active].map((c) => c.settled));
  }

  private resolveProblem(problem: string | ProblemDocument | ProblemText): HeldProblem {
    if (typeof problem === 'string') {
      const held = this.problemSet.get(problem);
      if (held === undefined) throw new GradeRefused('unknown-problem', `unknown problem ${JSON.stringify(problem)}`);
      return held;
    }
    try {
      return this.problemSet.fromRequest(problem);
    } catch (e) {
      if (!(e instanceof InvalidProblem)) throw e;
      throw new GradeRefused('invalid-problem', `invalid problem: ${e.errors.join('; ')}`, e.errors);
    }
  }

  private async run(
    problem: HeldProblem,
    inputs: readonly CheckedCandidate[],
    grading: SettledGrading,
    signal: AbortSignal,
    onResult: ((result: GradedCandidate) => void) | undefined,
  ): Promise<GradedCandidate[]> {
    const admitted = performance.now();
    const results: Array<GradedCandidate | undefined> = inputs.map(() => undefined);
    // What this call holds of the queue's bound: its candidates not yet answered, until a cancel lets them all go at
    // once (the batches they wait in are dropped; one already running finishes, and its answer is not counted again).
    let held = inputs.length;
    const release = (n: number): void => {
      this.queuedCount -= n;
      held -= n;
    };
    const onCancel = (): void => release(held);
    signal.addEventListener('abort', onCancel, { once: true });
    const planned = inputs.map((input, index) => candidateOf(problem, input, index, grading.extractCode));
    // Efficiency is scored against the problem's optimal solution, graded first, as an item after the candidates'.
    const reference = measures(grading.grade) ? referenceOf(problem) : null;
    const scored = new ScoredResults(grading.grade, reference !== null, (index, record, efficiency) => {
      if (results[index] !== undefined) return;
      const result = gradedOf(index, inputs[index]!, record, efficiency);
      results[index] = result;
      if (held > 0) release(1);
      this.settings.observer.graded?.(result.status, (performance.now() - admitted) / 1000);
      onResult?.(result);
    });
    const referenceIndex = inputs.length;
    const finish = (index: number, record: CandidateResult): void => {
      if (index === referenceIndex) scored.settle(record);
      else scored.candidate(index, record);
    };
    const limits = this.problemLimits === null ? undefined : await this.problemLimits.of(problem);
    const item = (candidate: Candidate): IndexedItem['item'] => (limits === undefined ? { kind: 'grade', candidate } : { kind: 'grade', candidate, limits });
    const items: IndexedItem[] = planned.map((candidate, index) => ({ index, item: item(candidate) }));
    if (reference !== null) items.unshift({ index: referenceIndex, item: item(reference) });
    const plannedAt = (index: number): Candidate => (index === referenceIndex && reference !== null ? reference : planned[index]!);
    try {
      await this.route.send(
        items,
        {
          onMessage: (m, indexOf) => {
            if (m.type === 'graded') {
              for (let j = 0; j < m.count; j++) {
                const record = gradedRecords(m, j)[0];
                if (record === undefined) continue;
                const text = record.toString('utf8');
                finish(indexOf(j), reviveRecordInts(JSON.parse(text) as CandidateResult, text));
              }
            } else if (m.type === 'failed') {
              finish(indexOf(0), unavailableResults(plannedAt(indexOf(0)), `internal error in evalrun: ${m.message}`)[0]!);
            }
          },
          giveUp: (index, _, reason) => finish(index, unavailableResults(plannedAt(index), reason)[0]!),
        },
        { batch: this.batchOptions(grading, { [problem.key]: problem.text }, onResult !== undefined), signal, request: true },
      );
    } catch (e) {
      // Stopping the workers fails the batches they were running.
      if (this.closing !== null) throw new GraderClosed();
      throw e;
    } finally {
      // A reference that never answered (a cancel) lets the candidates held for it go.
      scored.settle(null);
      // Candidates dropped by a cancel, or left when the workers were stopped, leave the queue too.
      signal.removeEventListener('abort', onCancel);
      release(held);
    }
    if (results.some((r) => r === undefined)) {
      if (signal.aborted) throw this.closing !== null ? new GraderClosed() : new GradeCancelled();
      throw new Error('evalrun: a candidate got no answer from the workers');
    }
    return results as GradedCandidate[];
  }

  /** The problem's optimal solution graded on its own, correctness only, every test, under the grader's defaults; null when no answer came. */
  private async gradeReference(problem: HeldProblem, reference: Candidate): Promise<CandidateResult | null> {
    let result: CandidateResult | null = null;
    const grading: SettledGrading = { ...this.settings.defaults, grade: ['correctness'], stopOnFirstFailure: false };
    const only: IndexedItem = { index: 0, item: { kind: 'grade', candidate: reference } };
    await this.route.send(
      [only],
      {
        onMessage: (m) => {
          const record = m.type === 'graded' ? gradedRecords(m, 0)[0] : undefined;
          if (record === undefined) return;
          const text = record.toString('utf8');
          result = reviveRecordInts(JSON.parse(text) as CandidateResult, text);
        },
        giveUp: () => undefined,
      },
      { batch: this.batchOptions(grading, { [problem.key]: problem.text }), request: true },
    );
    return result;
  }

  private limits(grading: SettledGrading): GradeOptions['limits'] {
    return { memoryMb: grading.memoryMb, timeoutMs: grading.timeoutMs, seed: this.settings.seed };
  }

  /** `streamed`: each result goes to the client as it comes, so a worker sends each answer at once rather than with the next ones. */
  private batchOptions(grading: SettledGrading, problems: Record<string, string>, streamed = false): BatchOptions {
    return {
      ...(streamed ? { answerWithinMs: 0 } : {}),
      grade: {
        limits: this.limits(grading),
        tolerance: grading.floatTolerance,
        languages: languageNames(),
        strictTypes: grading.strictTypes,
        stopOnFirstFailure: grading.stopOnFirstFailure,
        ...(measures(grading.grade) ? { measure: { repetitions: grading.repetitions } } : {}),
      },
      extractCode: grading.extractCode,
      filters: NO_FILTERS,
      problems,
    };
  }

  /** A hint for a refused call: about as long as the workers take for what is queued, if each candidate ran for a tenth of its limit; at least a second. */
  private retryAfterSeconds(timeoutMs: number): number {
    const perWorker = this.queuedCount / Math.max(1, this.settings.concurrency);
    return Math.max(1, Math.min(60, Math.ceil((perWorker * timeoutMs) / 10 / 1000)));
  }
}
