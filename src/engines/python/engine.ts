import ivm from 'isolated-vm';
import type { CandidateJob, CandidateOutcome, StopAfter } from '../../sandbox-host/protocol.js';
import { runBatches } from '../batch-driver.js';
import type { CallResult, LoadResult, Session } from '../engine.js';
import { Interpreter, makeSnapshot, type BootOptions } from './boot.js';
import { Lane } from './lane.js';
import { measuredLoad, measuredTests, newMeasuredState, type MeasuredState } from './measured.js';
import { readPythonPackages } from './packages.js';
import { loadMeteredPyodideFiles } from './meter/metered-files.js';
import type { MeterMode } from './meter/plan.js';
import { describeCrash, readPrepare } from './prepare-result.js';
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
  /**
   * Boot from Pyodide's WebAssembly metered this way
   * (src/engines/python/meter/). The engine does so by itself for measured
   * jobs (a second lane); set here, the first interpreter is metered.
   */
  meter?: MeterMode;
}

const DEFAULT_WASM_MEMORY_MB = 256;
/**
 * Pyodide's own JavaScript runtime needs a good part of this isolate heap to
 * boot (docs/ISOLATION.md, "Sizes the Python engine is built around"), and
 * the copy of the interpreter's memory that every restore starts from (the
 * pages that held data at boot) is an ArrayBuffer counted in that heap too. Candidates' Python objects live in WebAssembly memory, capped
 * separately, so a smaller requested heap is raised to this.
 */
const MIN_ISOLATE_MB = 128;
/**
 * An interpreter whose memory grew more than this past its boot size is
 * replaced instead of restored: a restore zeroes all memory past the boot
 * size, which would cost every later candidate that much.
 */
const REGROW_SLACK_MB = 32;
/** How a measured run's interpreters count (docs/METERING.md). */
const MEASURE_MODE: MeterMode = 'blocks';
const MB = 1024 * 1024;

/**
 * Process-wide: every engine of a process boots from the same snapshot,
 * held in a SharedArrayBuffer so that handing it to an isolate copies
 * nothing (boot.js copies it once, into the interpreter's memory, and
 * drops it).
 */
interface LoadedSnapshot {
  copy: ivm.ExternalCopy<SharedArrayBuffer>;
  origin: SnapshotOrigin;
}
const snapshots = new Map<string, Promise<LoadedSnapshot>>();

function loadSnapshot(files: PyodideFiles, cacheDir: string, fresh: boolean): Promise<LoadedSnapshot> {
  const path = snapshotPath(cacheDir, files.version, files.snapshotKey);
  const known = snapshots.get(path);
  if (known !== undefined && !fresh) return known;
  const made = (async (): Promise<LoadedSnapshot> => {
    const make = (): Promise<Uint8Array> => makeSnapshot(files);
    const { bytes, origin } = fresh ? { bytes: await makeAndCacheSnapshot(path, make), origin: 'made' as const } : await readOrMakeSnapshot(path, make);
    return { copy: new ivm.ExternalCopy(sharedBuffer(bytes)), origin };
  })();
  snapshots.set(path, made);
  made.catch(() => snapshots.delete(path));
  return made;
}

/** The bytes in a SharedArrayBuffer of their own: as read from the cache already, else copied once. */
function sharedBuffer(bytes: Uint8Array): SharedArrayBuffer {
  const buffer = bytes.buffer;
  if (buffer instanceof SharedArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) return buffer;
  const shared = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(shared).set(bytes);
  return shared;
}

/** What an engine starts from: its first interpreter, and what it boots the next ones from. */
export interface PythonStart {
  files: PyodideFiles;
  snapshot: ivm.ExternalCopy<SharedArrayBuffer>;
  boot: BootOptions;
  interpreter: Interpreter;
  /** How this process got its memory snapshot: read from the cache, made here, or made by another process. */
  snapshotOrigin: SnapshotOrigin;
  /** What it was started with, to start a metered lane from when a measured job comes. */
  options: PythonEngineOptions;
}

/**
 * Reads Pyodide's files and the memory snapshot (making it if no process
 * has) and boots a first interpreter from it. `diagnostics` is for tests
 * only (BootOptions): grading never sets it.
 */
export async function startPython(options: PythonEngineOptions, diagnostics = false): Promise<PythonStart> {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const files = options.meter === undefined ? loadPyodideFiles() : loadMeteredPyodideFiles(options.meter, cacheDir).files;
  const boot: BootOptions = {
    isolateMemoryMb: Math.max(options.memoryMb, MIN_ISOLATE_MB),
    wasmMemoryCapBytes: (options.wasmMemoryMb ?? DEFAULT_WASM_MEMORY_MB) * MB,
    regrowSlackBytes: REGROW_SLACK_MB * MB,
  };
  if (diagnostics) boot.diagnostics = true;
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
  return { files, snapshot: snapshot.copy, boot, interpreter, snapshotOrigin: snapshot.origin, options };
}

/**
 * Runs Python candidates: CPython compiled to WebAssembly (Pyodide), booted
 * from a memory snapshot inside an isolated-vm isolate. One engine holds
 * one interpreter at a time per lane (lane.ts). Every candidate starts from
 * the same state: before each one but the first, the interpreter's memory
 * and the state its imports keep are written back as they were after boot
 * (harness.js, `restore`). When that cannot be exact (the candidate wrote a
 * file, hit a limit, crashed the interpreter, or grew its memory too far)
 * the interpreter is replaced by a new one booted from the snapshot
 * instead.
 *
 * The tests run through the shared batch driver; between tests the harness
 * hands back control after half the limit, so a slow-but-legal batch
 * continues in the same interpreter and only a test that runs past the
 * limit is interrupted. After an interrupt the interpreter may be corrupt,
 * so it is replaced.
 *
 * A measured job (`CandidateJob.measure`) runs on a second lane of metered
 * interpreters, started when the first such job comes (measured.ts).
 */
export class PythonEngine {
  private readonly plain: Lane;
  private metered: Promise<Lane> | null = null;
  /** The lane of the job running (or last run). */
  private lane: Lane;
  private measuring = false;
  private readonly measured: MeasuredState = newMeasuredState();
  private readonly options: PythonEngineOptions;

  constructor(start: PythonStart) {
    this.options = start.options;
    this.plain = new Lane(start, (verdict) => this.readied(verdict));
    this.lane = this.plain;
  }

  static async create(options: PythonEngineOptions): Promise<PythonEngine> {
    return new PythonEngine(await startPython(options));
  }

  /** The current lane's interpreter (tests observe it). */
  protected get interpreter(): Interpreter | null {
    return this.lane.interpreter;
  }

  /** Restores the interpreters now if a candidate used them (a worker calls this while it waits). */
  async warm(): Promise<void> {
    await this.plain.warm();
    // A metered lane that failed to start is started again by the next measured job, which reports why.
    const metered = this.metered === null ? null : await this.metered.catch(() => null);
    if (metered !== null) await metered.warm();
  }

  /** Size of the current interpreter's WebAssembly memory, in bytes (0 when there is none). */
  memoryBytes(): number {
    return this.lane.interpreter?.memoryBytes() ?? 0;
  }

  dispose(): void {
    this.plain.discard();
    void this.metered?.then((lane) => lane.discard());
  }

  /**
   * Runs every test of one candidate. Never throws for anything the candidate does.
   * `job.limits.timeoutMs` bounds each test (wall clock); `job.limits.memoryMb`
   * is how far the candidate may grow the interpreter's WebAssembly memory past
   * its size at boot (the size every candidate starts from, whatever an earlier
   * one grew), within `wasmMemoryMb` overall.
   */
  async run(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
    if (job.language !== 'python') return { kind: 'load-error', message: `the Python engine cannot run ${job.language}` };
    this.measuring = job.measure !== undefined;
    this.lane = this.measuring ? await this.meteredLane() : this.plain;
    return runBatches(this.session, job, stop);
  }

  /** The lane of metered interpreters, booted on first use from the same snapshot and the cached metered module. */
  private meteredLane(): Promise<Lane> {
    if (this.metered === null) {
      const made = startPython({ ...this.options, meter: MEASURE_MODE }).then((start) => new Lane(start, (verdict) => this.readied(verdict)));
      made.catch(() => {
        if (this.metered === made) this.metered = null;
      });
      this.metered = made;
    }
    return this.metered;
  }

  /** This engine's part of the batch driver's work: one interpreter, replaced whenever the driver discards it. */
  private readonly session: Session = {
    survivesTimeout: false,
    load: (job, wallMs) => (this.measuring ? measuredLoad(this.lane, this.measured, job, wallMs) : this.load(job, wallMs)),
    call: (job, tests, wallMs) => (this.measuring ? measuredTests(this.lane, this.measured, job, tests, wallMs) : this.runTests(job, tests, wallMs)),
    progress: () => (this.measuring ? this.measured.frames.join('') : (this.lane.interpreter?.progress() ?? null)),
    discard: () => this.lane.discard(),
    end: () => undefined,
    describeCrash,
  };

  /** A clean interpreter with the candidate's module code run and its entry point resolved. */
  private async load(job: CandidateJob, wallMs: number): Promise<LoadResult> {
    const interpreter = await this.lane.fresh();
    const result = await interpreter.prepare(job.code, job.functionName, job.limits.seed, job.limits.memoryMb, wallMs);
    return readPrepare(result);
  }

  private async runTests(job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult> {
    const interpreter = this.lane.interpreter;
    if (interpreter === null) return { kind: 'crashed', message: 'the interpreter was already disposed' };
    const budgetMs = Math.max(1, Math.floor(job.limits.timeoutMs / 2));
    const cpuStart = process.cpuUsage();
    const result = await interpreter.runTests(tests, budgetMs, wallMs);
    switch (result.kind) {
      case 'ok':
        return { kind: 'finished', text: result.text, cpuMs: result.cpuMs, sleptMs: result.sleptMs };
      case 'timeout':
        return { kind: 'timeout', cpuMs: result.cpuMs, idle: false, sleptMs: result.sleptMs };
      case 'memory': {
        const used = process.cpuUsage(cpuStart);
        return { kind: 'memory', cpuMs: (used.user + used.system) / 1000, sleptMs: result.sleptMs };
      }
      case 'crashed':
        return result;
    }
  }

  /**
   * Told how the interpreter was made ready for a candidate: "clean" when
   * it was restored, else why it was replaced. Grading needs nothing of
   * it; tests observe it (test/python/observed-engine.ts).
   */
  protected readied(_verdict: string): void {}
}
