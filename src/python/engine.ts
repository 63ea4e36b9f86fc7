import ivm from 'isolated-vm';
import type { CandidateJob, CandidateOutcome, TestOutcome } from '../sandbox-host/protocol.js';
import { Interpreter, makeSnapshot, type BootOptions, type CallResult } from './boot.js';
import { describeCrash, parsePythonFrames } from './frames.js';
import { readPythonPackages } from './packages.js';
import { loadPyodideFiles, type PyodideFiles } from './pyodide-files.js';
import { defaultCacheDir, makeAndCacheSnapshot, readOrMakeSnapshot, snapshotPath, type SnapshotOrigin } from './snapshot-cache.js';

export { looksLikePython } from './looks-like-python.js';

export interface PythonEngineOptions {
  /** Heap limit of the isolate (JavaScript objects), in MB; at least 64. */
  memoryMb: number;
  /** Cap of the interpreter's WebAssembly memory (where Python's objects live), in MB. Default 256. */
  wasmMemoryMb?: number;
  /** Where the memory snapshot is cached. Default: node_modules/.cache/evalrun. */
  cacheDir?: string;
  /** --python-packages folders, importable by candidates. */
  packages?: readonly string[];
}

const DEFAULT_WASM_MEMORY_MB = 256;
/**
 * Pyodide's own JavaScript runtime needs about this much isolate heap to
 * boot (32 MB does not). Candidates' Python objects live in WebAssembly
 * memory, capped separately, so a smaller requested heap is raised to this.
 */
const MIN_ISOLATE_MB = 64;
/** An interpreter whose memory grew more than this past its boot size is not reused. */
const REGROW_SLACK_MB = 64;
/** Time for dropping a candidate and checking the interpreter (a full gc and a namespace scan). */
const FINISH_TIMEOUT_MS = 10_000;
const MB = 1024 * 1024;

/** Process-wide: every engine of a process boots from the same snapshot copy. */
interface LoadedSnapshot {
  copy: ivm.ExternalCopy<ArrayBuffer>;
  origin: SnapshotOrigin;
}
const snapshots = new Map<string, Promise<LoadedSnapshot>>();

function loadSnapshot(files: PyodideFiles, cacheDir: string, fresh: boolean): Promise<LoadedSnapshot> {
  const path = snapshotPath(cacheDir, files.version, files.snapshotKey);
  const known = snapshots.get(path);
  if (known !== undefined && !fresh) return known;
  const made = (async (): Promise<LoadedSnapshot> => {
    const make = (): Promise<Uint8Array> => makeSnapshot(files);
    const { bytes, origin } = fresh
      ? { bytes: await makeAndCacheSnapshot(path, make), origin: 'made' as const }
      : await readOrMakeSnapshot(path, make);
    const buffer = new ArrayBuffer(bytes.byteLength);
    new Uint8Array(buffer).set(bytes);
    return { copy: new ivm.ExternalCopy(buffer), origin };
  })();
  snapshots.set(path, made);
  made.catch(() => snapshots.delete(path));
  return made;
}

/**
 * Runs Python candidates: CPython compiled to WebAssembly (Pyodide), booted
 * from a memory snapshot inside an isolated-vm isolate. One engine holds
 * one interpreter at a time; it is reused for the next candidate only when
 * the harness proves it clean, and replaced whenever a limit interrupted it.
 */
export class PythonEngine {
  private interpreter: Interpreter | null;
  private reusable = true;
  private lastVerdict = 'clean';

  private constructor(
    private readonly files: PyodideFiles,
    private snapshot: ivm.ExternalCopy<ArrayBuffer>,
    private readonly boot: BootOptions,
    interpreter: Interpreter,
    /** How this process got its memory snapshot: read from the cache, made here, or made by another process. */
    readonly snapshotOrigin: SnapshotOrigin,
  ) {
    this.interpreter = interpreter;
  }

  static async create(options: PythonEngineOptions): Promise<PythonEngine> {
    const files = loadPyodideFiles();
    const cacheDir = options.cacheDir ?? defaultCacheDir();
    const boot: BootOptions = {
      isolateMemoryMb: Math.max(options.memoryMb, MIN_ISOLATE_MB),
      wasmMemoryCapBytes: (options.wasmMemoryMb ?? DEFAULT_WASM_MEMORY_MB) * MB,
      regrowSlackBytes: REGROW_SLACK_MB * MB,
    };
    if (options.packages !== undefined && options.packages.length > 0) boot.packages = readPythonPackages(options.packages);
    let snapshot = await loadSnapshot(files, cacheDir, false);
    let interpreter: Interpreter;
    try {
      interpreter = await Interpreter.boot(files, snapshot.copy, boot);
    } catch (e) {
      // A cached snapshot that passes its checksum yet does not boot was
      // written by something else than this build: make a new one, once.
      if (snapshot.origin === 'made') throw e;
      snapshot = await loadSnapshot(files, cacheDir, true);
      interpreter = await Interpreter.boot(files, snapshot.copy, boot);
    }
    return new PythonEngine(files, snapshot.copy, boot, interpreter, snapshot.origin);
  }

  /** True when the interpreter is provably clean and may serve another candidate. */
  isReusable(): boolean {
    return this.reusable && this.interpreter !== null && this.interpreter.alive;
  }

  /** Why the last candidate left the interpreter unusable ("clean" when it did not). */
  get dirtReason(): string {
    return this.lastVerdict;
  }

  /** Size of the current interpreter's WebAssembly memory, in bytes (0 when there is none). */
  memoryBytes(): number {
    return this.interpreter?.memoryBytes() ?? 0;
  }

  dispose(): void {
    this.discard();
  }

  /**
   * Runs every test of one candidate. Never throws for anything the candidate does.
   * `job.limits.timeoutMs` bounds each test (wall clock); `job.limits.memoryMb`
   * is how far the candidate may grow the interpreter's WebAssembly memory past
   * its size when the candidate starts, within `wasmMemoryMb` overall.
   */
  async run(job: CandidateJob): Promise<CandidateOutcome> {
    if (job.language !== 'python') return { kind: 'load-error', message: `the Python engine cannot run ${job.language}` };
    const n = job.tests.length;
    const timeoutMs = job.limits.timeoutMs;
    // Between tests the harness hands back control after half the limit, so
    // a slow-but-legal batch continues in the same interpreter and only a
    // test that runs past the limit is interrupted.
    const budgetMs = Math.max(1, Math.floor(timeoutMs / 2));
    const outcomes: TestOutcome[] = [];
    let entryPoint = '';
    let oneAtATime = false;
    let loaded = false;

    while (outcomes.length < n || !loaded) {
      const interpreter = await this.freshInterpreter();
      const prepared = await interpreter.prepare(job.code, job.functionName, job.limits.seed, job.limits.memoryMb, timeoutMs);
      const load = this.readPrepare(prepared, timeoutMs);
      if (load.kind === 'load-error') {
        if (outcomes.length === 0) {
          await this.settle();
          return { kind: 'load-error', message: load.message };
        }
        fill(outcomes, n, { kind: 'threw', message: load.message, durationMs: 0 });
        break;
      }
      if (load.kind === 'failed') {
        fill(outcomes, n, load.outcome);
        break;
      }
      loaded = true;
      entryPoint = load.entryPoint;

      while (outcomes.length < n) {
        const from = outcomes.length;
        const slice = oneAtATime ? job.tests.slice(from, from + 1) : job.tests.slice(from);
        const call = await interpreter.runTests(slice, budgetMs, timeoutMs);
        if (call.kind === 'ok') {
          const parsed = parsePythonFrames(call.text);
          if (!parsed.ok) {
            fill(outcomes, n, { kind: 'threw', message: parsed.message, durationMs: 0 });
            this.discard();
            break;
          }
          let lost = false;
          for (const frame of parsed.frames.slice(0, slice.length)) {
            outcomes.push(frame.outcome);
            if (frame.lost) {
              lost = true;
              break;
            }
          }
          if (lost) {
            this.discard();
            break;
          }
          if (parsed.frames.length === 0) {
            // Not even one test fitted the budget: impossible unless the
            // harness is broken, and looping would never end.
            fill(outcomes, n, { kind: 'threw', message: 'the Python sandbox returned no result', durationMs: 0 });
            this.discard();
          }
          continue;
        }
        if (call.kind === 'timeout') {
          const done = readProgress(interpreter.progress(), slice.length);
          for (const o of done) outcomes.push(o);
          // The interrupted test gets the blame only when it had the call to
          // itself from the start; otherwise it runs again as the first test
          // of a new call. After an interrupt the interpreter may be corrupt.
          if (done.length === 0) outcomes.push({ kind: 'timeout', durationMs: timeoutMs });
          this.discard();
          break;
        }
        if (call.kind === 'memory') {
          // The isolate's own heap limit disposed it: which test of a batch
          // did it is unknown, so they are replayed one per call.
          if (slice.length === 1) outcomes.push({ kind: 'memory', message: 'exceeded the memory limit' });
          oneAtATime = true;
          this.discard();
          break;
        }
        outcomes.push({ kind: 'threw', message: `sandbox failure: ${call.message}`, durationMs: 0 });
        this.discard();
        break;
      }
      if (n === 0) break;
    }

    await this.settle();
    return { kind: 'ran', tests: outcomes, entryPoint };
  }

  /** Reads prepare's answer: the entry point, a load error, or how loading failed. */
  private readPrepare(
    result: CallResult,
    timeoutMs: number,
  ): { kind: 'ok'; entryPoint: string } | { kind: 'load-error'; message: string } | { kind: 'failed'; outcome: TestOutcome } {
    if (result.kind === 'timeout') {
      this.discard();
      return { kind: 'failed', outcome: { kind: 'timeout', durationMs: timeoutMs } };
    }
    if (result.kind === 'memory') {
      this.discard();
      return { kind: 'failed', outcome: { kind: 'memory', message: 'top-level code exceeded the memory limit' } };
    }
    if (result.kind === 'crashed') {
      this.discard();
      return { kind: 'failed', outcome: { kind: 'threw', message: `sandbox failure: ${result.message}`, durationMs: 0 } };
    }
    const text = result.text;
    if (text.startsWith('ok ')) return { kind: 'ok', entryPoint: text.slice(3) };
    if (text.startsWith('load-error ')) return { kind: 'load-error', message: text.slice('load-error '.length) };
    if (text.startsWith('m') || text.startsWith('M')) {
      if (text.startsWith('M')) this.discard();
      return { kind: 'failed', outcome: { kind: 'memory', message: `top-level code: ${text.slice(1)}` } };
    }
    this.discard();
    const message = text.startsWith('c') ? describeCrash(text.slice(1)) : 'the Python sandbox answered nonsense';
    return { kind: 'failed', outcome: { kind: 'threw', message, durationMs: 0 } };
  }

  /** The current interpreter if it is alive and clean, else a new one. */
  private async freshInterpreter(): Promise<Interpreter> {
    if (this.interpreter !== null && this.interpreter.alive && this.reusable) return this.interpreter;
    this.discard();
    this.interpreter = await Interpreter.boot(this.files, this.snapshot, this.boot);
    this.reusable = true;
    this.lastVerdict = 'clean';
    return this.interpreter;
  }

  /**
   * Drops the candidate and asks the harness whether the interpreter is
   * still clean; a dirty one is discarded at once (the next run boots anew).
   */
  private async settle(): Promise<void> {
    const interpreter = this.interpreter;
    if (interpreter === null || !interpreter.alive) {
      this.reusable = false;
      this.lastVerdict = 'the interpreter was replaced after a limit or failure';
      this.discard();
      return;
    }
    const verdict = await interpreter.finish(FINISH_TIMEOUT_MS);
    this.lastVerdict = verdict.kind === 'ok' ? verdict.text : `checking the interpreter failed (${verdict.kind})`;
    this.reusable = this.lastVerdict === 'clean';
    if (!this.reusable) this.discard();
  }

  private discard(): void {
    if (this.interpreter !== null) this.interpreter.dispose();
    this.interpreter = null;
    this.reusable = false;
  }
}

function readProgress(text: string | null, max: number): TestOutcome[] {
  if (text === null) return [];
  const parsed = parsePythonFrames(text);
  if (!parsed.ok) return [];
  const out: TestOutcome[] = [];
  for (const frame of parsed.frames.slice(0, max)) {
    if (frame.lost) break;
    out.push(frame.outcome);
  }
  return out;
}

function fill(outcomes: TestOutcome[], n: number, outcome: TestOutcome): void {
  while (outcomes.length < n) outcomes.push(outcome);
}
