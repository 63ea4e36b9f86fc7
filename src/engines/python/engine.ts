import ivm from 'isolated-vm';
import type { CandidateJob, CandidateOutcome, TestOutcome } from '../../sandbox-host/protocol.js';
import { Interpreter, makeSnapshot, type BootOptions, type CallResult } from './boot.js';
import { describeCrash, parsePythonFrames } from './frames.js';
import { readPythonPackages } from './packages.js';
import { loadPyodideFiles, type PyodideFiles } from './pyodide-files.js';
import { defaultCacheDir, makeAndCacheSnapshot, readOrMakeSnapshot, snapshotPath, type SnapshotOrigin } from './snapshot-cache.js';


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
 * Pyodide's own JavaScript runtime needs about 64 MB of isolate heap to boot
 * (32 MB does not), and the copy of the interpreter's memory that every
 * restore starts from (about 30 MB) is an ArrayBuffer counted in that heap
 * too. Candidates' Python objects live in WebAssembly memory, capped
 * separately, so a smaller requested heap is raised to this.
 */
const MIN_ISOLATE_MB = 128;
/**
 * An interpreter whose memory grew more than this past its boot size is
 * replaced instead of restored: a restore zeroes all memory past the boot
 * size, which would cost every later candidate that much.
 */
const REGROW_SLACK_MB = 32;
/** Time for a restore (a copy of the interpreter's memory); only a broken isolate takes longer. */
const RESET_TIMEOUT_MS = 10_000;
/**
 * A test interrupted at its time limit is the candidate's `timeout` only if
 * the isolate spent at least this share of the limit running it. Less means
 * the wall-clock time went to other processes (an overloaded machine): the
 * test runs again on a fresh interpreter, at most LOAD_RETRIES times per
 * candidate, after which the limit stands.
 */
const CPU_SHARE_FOR_TIMEOUT = 0.75;
const LOAD_RETRIES = 2;
/**
 * A test run again after a timeout that was not its own runs alone, with
 * this many times the wall-clock limit, so that it gets its CPU on a busy
 * machine; it passes only if it used no more CPU than the limit.
 */
const WALL_STRETCH = 4;
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
 * one interpreter at a time. Every candidate starts from the same state:
 * before each one but the first, the interpreter's memory and the state
 * its imports keep are written back as they were after boot (boot.js,
 * `restore`). When that cannot be exact (the candidate wrote a file, hit a
 * limit, crashed the interpreter, or grew its memory too far) the
 * interpreter is replaced by a new one booted from the snapshot instead.
 */
export class PythonEngine {
  private interpreter: Interpreter | null;
  /** The interpreter has run candidate code since it was booted or restored. */
  private used = false;
  /** The last interpreter was thrown away after a limit or failure. */
  private discarded = false;
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

  /**
   * How the interpreter was last made ready for a candidate: "clean" when
   * it was restored (or had just booted), else why it had to be replaced.
   */
  get lastReset(): string {
    return this.lastVerdict;
  }

  /** Restores the interpreter now if a candidate used it (a worker calls this while it waits). */
  async warm(): Promise<void> {
    await this.freshInterpreter();
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
    let loadRetries = 0;
    /** After a timeout that was the machine's: the next call runs one test, with a stretched wall-clock limit. */
    let stretched = false;
    /**
     * Whether an interrupted call was the candidate's: it used its share of
     * CPU, or the retries are spent. If not, the next call is stretched.
     */
    const candidateTimedOut = (cpuMs: number): boolean => {
      if (cpuMs >= timeoutMs * CPU_SHARE_FOR_TIMEOUT || loadRetries >= LOAD_RETRIES) return true;
      loadRetries++;
      stretched = true;
      return false;
    };

    while (outcomes.length < n || !loaded) {
      const interpreter = await this.freshInterpreter();
      this.used = true;
      const prepareStretched = stretched && !loaded;
      const prepared = await interpreter.prepare(job.code, job.functionName, job.limits.seed, job.limits.memoryMb, prepareStretched ? timeoutMs * WALL_STRETCH : timeoutMs);
      if (prepareStretched) {
        stretched = false;
        // More CPU than the limit is the candidate's timeout, however long the wall clock allowed.
        if (prepared.kind === 'ok' && prepared.cpuMs > timeoutMs) {
          this.discard();
          fill(outcomes, n, { kind: 'timeout', durationMs: timeoutMs });
          break;
        }
      }
      const load = this.readPrepare(prepared, timeoutMs, candidateTimedOut);
      if (load.kind === 'again') continue;
      if (load.kind === 'load-error') {
        if (outcomes.length === 0) return { kind: 'load-error', message: load.message };
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
        const alone = stretched;
        stretched = false;
        const slice = oneAtATime || alone ? job.tests.slice(from, from + 1) : job.tests.slice(from);
        const call = await interpreter.runTests(slice, budgetMs, alone ? timeoutMs * WALL_STRETCH : timeoutMs);
        if (call.kind === 'ok' && alone && call.cpuMs > timeoutMs) {
          // More CPU than the limit is the candidate's timeout, however long the wall clock allowed.
          outcomes.push({ kind: 'timeout', durationMs: timeoutMs });
          this.discard();
          break;
        }
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
          // itself from the start and used its CPU; otherwise it runs again as
          // the first test of a new call. After an interrupt the interpreter
          // may be corrupt.
          if (done.length === 0 && candidateTimedOut(call.cpuMs)) outcomes.push({ kind: 'timeout', durationMs: timeoutMs });
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

    return { kind: 'ran', tests: outcomes, entryPoint };
  }

  /** Reads prepare's answer: the entry point, a load error, or how loading failed. */
  private readPrepare(
    result: CallResult,
    timeoutMs: number,
    candidateTimedOut: (cpuMs: number) => boolean,
  ): { kind: 'ok'; entryPoint: string } | { kind: 'load-error'; message: string } | { kind: 'failed'; outcome: TestOutcome } | { kind: 'again' } {
    if (result.kind === 'timeout') {
      this.discard();
      if (!candidateTimedOut(result.cpuMs)) return { kind: 'again' };
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

  /**
   * An interpreter in the state it booted to: the current one, restored if
   * a candidate used it, or a new one when there is none or the restore
   * says it cannot be exact.
   */
  private async freshInterpreter(): Promise<Interpreter> {
    const current = this.interpreter;
    if (current !== null && current.alive) {
      if (!this.used) return current;
      const verdict = await current.reset(RESET_TIMEOUT_MS);
      this.lastVerdict = verdict.kind === 'ok' ? verdict.text : `restoring the interpreter failed (${verdict.kind})`;
      if (this.lastVerdict === 'clean') {
        this.used = false;
        return current;
      }
    } else if (current !== null || this.discarded) {
      this.lastVerdict = 'the interpreter was replaced after a limit or failure';
    }
    this.discarded = false;
    this.discard();
    this.interpreter = await Interpreter.boot(this.files, this.snapshot, this.boot);
    this.used = false;
    return this.interpreter;
  }

  private discard(): void {
    if (this.interpreter !== null) {
      this.interpreter.dispose();
      this.discarded = true;
    }
    this.interpreter = null;
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
