import ivm from 'isolated-vm';
import type { PythonPackages } from './packages.js';
import { SNAPSHOT_PRELOAD, type PyodideFiles } from './pyodide-files.js';
import { withFullStack } from '../stack-limit.js';

/**
 * One CPython interpreter (Pyodide) inside its own isolated-vm isolate.
 *
 * The host hands files in as copies before boot and keeps References to
 * the harness's functions; nothing of the host (no Reference, no ivm module,
 * no callback) is ever put into the isolate, so code inside has no way out.
 * The boot is bounded by isolated-vm's `timeout` and by a host timer that
 * disposes the isolate if it still has not settled; calls for a candidate
 * are synchronous and bounded by the `timeout` (see `call`).
 */

export type CallResult =
  /** `cpuMs`: the CPU time the isolate used in the call; `sleptMs`: the time the candidate slept in it (time.sleep). */
  | { kind: 'ok'; text: string; cpuMs: number; sleptMs: number }
  /**
   * The call ran past its wall-clock limit and was interrupted by the
   * isolate's timeout; the interpreter may be corrupt. `cpuMs` is the CPU time the isolate used in
   * the call: far below the limit (and with little time slept), the time went to other processes.
   */
  | { kind: 'timeout'; cpuMs: number; sleptMs: number }
  /** The isolate reached its heap limit and was disposed. */
  | { kind: 'memory'; sleptMs: number }
  | { kind: 'crashed'; message: string };

export interface BootOptions {
  /** Heap limit of the isolate (JavaScript objects), in MB. */
  isolateMemoryMb: number;
  /** Cap of the interpreter's WebAssembly memory, in bytes. */
  wasmMemoryCapBytes: number;
  /** Growth of the WebAssembly memory past its size at boot after which the interpreter is replaced instead of restored. */
  regrowSlackBytes: number;
  /** --python-packages: files written into the interpreter before any candidate runs. */
  packages?: PythonPackages;
  /** Tests only: the harness offers `memoryDigest` (grading never sets this). */
  diagnostics?: boolean;
}

/**
 * One pass of a measured run (docs/METERING.md): `counted` reads the
 * metered interpreter's work counter around the candidate's call, `both`
 * also runs the call under tracemalloc for its peak (the metered module
 * leaves tracemalloc's own work uncounted, so both count the same).
 */
export type MeasurePass = 'counted' | 'both';

/** How long a boot may take before it is abandoned. */
const BOOT_TIMEOUT_MS = 60_000;
/** Extra wall-clock time past a call's own timeout before the host gives up on it. */
const HOST_GRACE_MS = 2_000;
/** The random state Pyodide boots with; candidates get their own seed in prepare. */
const BOOT_SEED = 0x5eed;

/** Stands for pyodide.asm.wasm, whose compiled module is handed in instead (see boot.js). */
const WASM_PLACEHOLDER = new Uint8Array(Buffer.from('evalrun:pyodide.asm.wasm', 'latin1'));

let stdlibCopy: ivm.ExternalCopy<ArrayBuffer> | null = null;
const scriptCache = new Map<string, ivm.ExternalCopy<ArrayBuffer>>();

function stdlibExternal(files: PyodideFiles): ivm.ExternalCopy<ArrayBuffer> {
  if (stdlibCopy === null) stdlibCopy = new ivm.ExternalCopy(copyBuffer(files.stdlib));
  return stdlibCopy;
}

function copyBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}

/**
 * Compiles a script, reusing V8's code cache across isolates of this process
 * (Pyodide's large script would otherwise be parsed on every boot; its size:
 * docs/ISOLATION.md, "Sizes the Python engine is built around").
 */
type CompiledScript = ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };

async function compile(isolate: ivm.Isolate, code: string, filename: string): Promise<ivm.Script> {
  const cachedData = scriptCache.get(code);
  if (cachedData !== undefined) {
    const script: CompiledScript = await isolate.compileScript(code, { filename, cachedData });
    if (script.cachedDataRejected !== true) return script;
  }
  const script: CompiledScript = await isolate.compileScript(code, { filename, produceCachedData: true });
  if (script.cachedData !== undefined) scriptCache.set(code, script.cachedData);
  return script;
}

async function prepareIsolate(
  files: PyodideFiles,
  isolateMemoryMb: number,
  wasmMemoryCapBytes: number,
  snapshot: ivm.ExternalCopy<SharedArrayBuffer> | null,
  sleepRecord: SharedArrayBuffer | null,
): Promise<{ isolate: ivm.Isolate; context: ivm.Context }> {
  // Python's C recursion needs the worker's whole stack (worker-launch.ts); the
  // limit is set as this thread first enters the isolate.
  const isolate = new ivm.Isolate({ memoryLimit: isolateMemoryMb });
  try {
    const context = withFullStack(() => isolate.createContextSync());
    const input = {
      files: { '/pyodide/pyodide.asm.wasm': WASM_PLACEHOLDER },
      wasm: files.wasmModule,
      memoryCapBytes: wasmMemoryCapBytes,
      seed: BOOT_SEED,
      // Shared, not copied (isolated-vm hands a SharedArrayBuffer's memory over as it is).
      ...(sleepRecord === null ? {} : { sleepRecord }),
    };
    const global = context.global;
    await global.set('__evalrunInput', new ivm.ExternalCopy(input).copyInto({ release: true }));
    await global.set('__evalrunStdlib', stdlibExternal(files).copyInto());
    if (snapshot !== null) await global.set('__evalrunSnapshot', snapshot.copyInto());
    for (const [code, filename] of [
      [files.bootScript, 'evalrun-python-boot.js'],
      [files.asmScript(wasmMemoryCapBytes), 'pyodide.asm.js'],
      [files.loaderScript, 'pyodide.js'],
    ] as const) {
      const script = await compile(isolate, code, filename);
      await script.run(context, { timeout: BOOT_TIMEOUT_MS });
      script.release();
    }
    return { isolate, context };
  } catch (e) {
    if (!isolate.isDisposed) isolate.dispose();
    throw e;
  }
}

async function runBoot(isolate: ivm.Isolate, context: ivm.Context, config: Record<string, unknown>): Promise<unknown> {
  const call = context.evalClosure('return __evalrunBoot($0)', [config], {
    arguments: { copy: true },
    result: { promise: true, copy: true },
    timeout: BOOT_TIMEOUT_MS,
  });
  return withHostTimer(isolate, call, BOOT_TIMEOUT_MS + HOST_GRACE_MS);
}

/** What boot.js needs to mount --python-packages; nothing when there are none. */
function packagesConfig(files: PyodideFiles, packages: PythonPackages | undefined): Record<string, unknown> {
  if (packages === undefined || (packages.files.length === 0 && packages.paths.length === 0)) return {};
  return { packages, packagesSource: files.packagesSource };
}

/** Cold-boots Pyodide in an isolate and returns a memory snapshot of it. */
export async function makeSnapshot(files: PyodideFiles): Promise<Uint8Array> {
  const cap = 1024 * 1024 * 1024;
  const { isolate, context } = await prepareIsolate(files, 1024, cap, null, null);
  try {
    const result = await runBoot(isolate, context, {
      makeSnapshot: true,
      preload: SNAPSHOT_PRELOAD,
      harnessSource: files.harnessSource,
      ctypesSource: files.ctypesSource,
      lockText: files.lockText,
      memoryCapBytes: cap,
    });
    if (!(result instanceof Uint8Array)) throw new Error('evalrun: Pyodide returned no snapshot');
    return result;
  } finally {
    if (!isolate.isDisposed) isolate.dispose();
  }
}

interface HarnessRefs {
  prepare: ivm.Reference<(code: string, functionName: string, seed: number, memoryMb: number, pass: MeasurePass | '') => string>;
  measureTest: ivm.Reference<(test: string, pass: MeasurePass) => string>;
  restoreLoaded: ivm.Reference<() => string>;
  runTests: ivm.Reference<(tests: string[], budgetMs: number) => string>;
  progress: ivm.Reference<() => string>;
  reset: ivm.Reference<() => string>;
  memoryBytes: ivm.Reference<() => number>;
  /** Booted with `diagnostics` only. */
  memoryDigest?: ivm.Reference<() => string>;
  lastRestore?: ivm.Reference<() => string>;
}

/**
 * Where boot.js writes how long the candidate slept (sandbox/python/boot.js,
 * "sleeping"): the ms slept in finished waits, and Date.now() when the wait
 * in progress began (0 when none). Memory shared with the isolate, read
 * without a call into it, even after a timeout interrupted a wait.
 */
const SLEEP_RECORD_BYTES = 16;

export class Interpreter {
  private constructor(
    private readonly isolate: ivm.Isolate,
    private readonly context: ivm.Context,
    private readonly refs: HarnessRefs,
    private readonly sleepRecord: Float64Array,
  ) {}

  static async boot(files: PyodideFiles, snapshot: ivm.ExternalCopy<SharedArrayBuffer>, options: BootOptions): Promise<Interpreter> {
    const sleepBuffer = new SharedArrayBuffer(SLEEP_RECORD_BYTES);
    const { isolate, context } = await prepareIsolate(files, options.isolateMemoryMb, options.wasmMemoryCapBytes, snapshot, sleepBuffer);
    try {
      const ready = await runBoot(isolate, context, {
        makeSnapshot: false,
        lockText: files.lockText,
        memoryCapBytes: options.wasmMemoryCapBytes,
        regrowSlackBytes: options.regrowSlackBytes,
        diagnostics: options.diagnostics === true,
        ...packagesConfig(files, options.packages),
      });
      if (ready !== 'ready') throw new Error('evalrun: the Python harness did not start');
      const api = (await context.global.get('__evalrunApi', { reference: true })) as ivm.Reference<Record<string, unknown>>;
      await context.global.delete('__evalrunApi');
      const ref = async <T>(name: string): Promise<ivm.Reference<T>> => (await api.get(name, { reference: true })) as ivm.Reference<T>;
      const refs: HarnessRefs = {
        prepare: await ref('prepare'),
        runTests: await ref('runTests'),
        progress: await ref('progress'),
        reset: await ref('reset'),
        memoryBytes: await ref('memoryBytes'),
        measureTest: await ref('measureTest'),
        restoreLoaded: await ref('restoreLoaded'),
      };
      if (options.diagnostics === true) {
        refs.memoryDigest = await ref('memoryDigest');
        refs.lastRestore = await ref('lastRestore');
      }
      api.release();
      return new Interpreter(isolate, context, refs, new Float64Array(sleepBuffer));
    } catch (e) {
      if (!isolate.isDisposed) isolate.dispose();
      throw e;
    }
  }

  get alive(): boolean {
    return !this.isolate.isDisposed;
  }

  /**
   * Runs the candidate's module code and resolves its entry point. In a
   * measured run's `pass` the answer starts with the pass's figure (see
   * `splitFigure`), and a measured load that succeeded is kept as the state
   * `restoreLoaded` puts back.
   */
  prepare(code: string, functionName: string, seed: number, memoryMb: number, timeoutMs: number, pass: MeasurePass | '' = ''): Promise<CallResult> {
    return this.call(this.refs.prepare, [code, functionName, seed, memoryMb, pass], timeoutMs);
  }

  /** One pass of one measured test; the answer is "<figure> <outcome>" (`splitFigure`) or a failure "c"/"M" + message. */
  measureTest(test: string, pass: MeasurePass, timeoutMs: number): Promise<CallResult> {
    return this.call(this.refs.measureTest, [test, pass], timeoutMs);
  }

  /** Puts back the state right after the last measured load: "clean", else why it cannot. */
  restoreLoaded(timeoutMs: number): Promise<CallResult> {
    return this.call(this.refs.restoreLoaded, [], timeoutMs);
  }

  /** Runs tests in order until all are done or `budgetMs` has passed; framed results. */
  runTests(tests: readonly string[], budgetMs: number, timeoutMs: number): Promise<CallResult> {
    return this.call(this.refs.runTests, [[...tests], budgetMs], timeoutMs);
  }

  /** Frames of the tests that finished in the last runTests call, read after it was interrupted. */
  progress(): string | null {
    if (!this.alive) return null;
    try {
      const text = this.refs.progress.applySync(undefined, [], { timeout: 1000 });
      return typeof text === 'string' ? text : null;
    } catch {
      return null;
    }
  }

  /**
   * Puts the interpreter back into the state it booted to (its whole
   * memory, and what its imports keep outside it); "clean" when it did,
   * else why it could not, and the interpreter must be replaced.
   */
  reset(timeoutMs: number): Promise<CallResult> {
    return this.call(this.refs.reset, [], timeoutMs);
  }

  /** Size of the interpreter's WebAssembly memory. */
  memoryBytes(): number {
    if (!this.alive) return 0;
    try {
      const n = this.refs.memoryBytes.applySync(undefined, [], { timeout: 1000 });
      return typeof n === 'number' ? n : 0;
    } catch {
      return 0;
    }
  }

  /**
   * Tests only, of an interpreter booted with `diagnostics`: a digest of
   * its whole memory, to check a restore; null when it is gone.
   */
  memoryDigest(): string | null {
    if (this.refs.memoryDigest === undefined) throw new Error('evalrun: memoryDigest needs an interpreter booted with diagnostics');
    if (!this.alive) return null;
    const digest = this.refs.memoryDigest.applySync(undefined, [], { timeout: 10_000 });
    return typeof digest === 'string' ? digest : null;
  }

  /**
   * Tests only, of an interpreter booted with `diagnostics`: how its last
   * restore was made, "marked" (only the pages written, page-marks.js) or
   * "full" and why.
   */
  lastRestore(): string {
    if (this.refs.lastRestore === undefined) throw new Error('evalrun: lastRestore needs an interpreter booted with diagnostics');
    const kind = this.refs.lastRestore.applySync(undefined, [], { timeout: 10_000 });
    return typeof kind === 'string' ? kind : '';
  }

  dispose(): void {
    if (!this.isolate.isDisposed) this.isolate.dispose();
    this.context.release();
  }

  /**
   * One synchronous call into the isolate: this thread waits for it, as it
   * has nothing else to do meanwhile, and a synchronous call costs a
   * fraction of an asynchronous one (no hand-over between threads). The
   * call is bounded by isolated-vm's `timeout`; should that ever fail to
   * stop it, the supervisor's ceiling for the job replaces this worker and
   * sends the job again (grading/recovery.ts).
   */
  private call(ref: ivm.Reference<(...args: never[]) => unknown>, args: unknown[], timeoutMs: number): Promise<CallResult> {
    const isolate = this.isolate;
    if (isolate.isDisposed) return Promise.resolve({ kind: 'crashed', message: 'the interpreter was already disposed' });
    // CPU time of this process, not isolated-vm's `cpuTime`, which counts
    // the time the isolate is entered, whether it runs or waits for a core.
    // While a call runs, this process does nothing else but the isolate.
    const cpuStart = process.cpuUsage();
    const cpuMs = (): number => {
      const used = process.cpuUsage(cpuStart);
      return (used.user + used.system) / 1000;
    };
    const record = this.sleepRecord;
    record[0] = 0;
    record[1] = 0;
    const wallStart = Date.now();
    let result: CallResult;
    try {
      const value = ref.applySync(undefined, args as never[], {
        timeout: timeoutMs,
        arguments: { copy: true },
        result: { copy: true },
      });
      result =
        typeof value === 'string'
          ? { kind: 'ok', text: value, cpuMs: cpuMs(), sleptMs: sleptSince(record, wallStart) }
          : { kind: 'crashed', message: 'the harness returned no text' };
    } catch (e) {
      if (isolate.isDisposed) result = { kind: 'memory', sleptMs: sleptSince(record, wallStart) };
      else if (e instanceof Error && /timed out/i.test(e.message)) result = { kind: 'timeout', cpuMs: cpuMs(), sleptMs: sleptSince(record, wallStart) };
      else result = { kind: 'crashed', message: e instanceof Error ? e.message : String(e) };
    }
    return Promise.resolve(result);
  }
}

/**
 * How long the candidate slept since the call began at `wallStart`: the
 * finished waits, and the one a timeout interrupted up to now. The record
 * is written inside the isolate, so it is held to what the call could
 * have slept at most.
 */
function sleptSince(record: Float64Array, wallStart: number): number {
  const now = Date.now();
  const finished = record[0] ?? 0;
  const since = record[1] ?? 0;
  const slept = finished + (since > 0 ? now - since : 0);
  return Number.isFinite(slept) ? Math.min(Math.max(slept, 0), now - wallStart) : 0;
}

/**
 * Resolves like `promise`, unless it has not settled after `ms`: then the
 * isolate is disposed (which makes a pending call reject at once).
 */
async function withHostTimer<T>(isolate: ivm.Isolate, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      if (!isolate.isDisposed) isolate.dispose();
      reject(new Error(`evalrun: the interpreter did not answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A measured pass's answer split into its count (null for '-': the call
 * did not run, or the interpreter is not metered), its peak (a `both`
 * pass's, else null) and the rest; null when the answer carries no figure
 * (the interpreter failed: "c"/"M" + message).
 */
export function splitFigure(text: string): { figure: number | null; peak: number | null; rest: string } | null {
  const match = /^(-|[0-9]+)(?:\/(-|[0-9]+))? /.exec(text);
  if (match === null) return null;
  const number = (figure: string | undefined): number | null => (figure === undefined || figure === '-' ? null : Number(figure));
  return { figure: number(match[1]), peak: number(match[2]), rest: text.slice(match[0].length) };
}
