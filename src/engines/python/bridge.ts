/**
 * Python's engine as a sandbox worker sees it (the registry's entry for
 * Python). The registry imports this module only when a Python job
 * arrives, so a JavaScript-only run never loads Pyodide and never pays for
 * its memory.
 *
 * One engine per worker: booting an interpreter from the snapshot costs far
 * more than a restore, so the engine keeps its interpreter and restores it
 * to its post-boot state before each candidate (see engine.ts; the costs:
 * docs/ISOLATION.md, "Sizes the Python engine is built around").
 */
import { PythonEngine, type PythonEngineOptions } from './engine.js';
import type { CandidateJob, CandidateOutcome, StopAfter } from '../../sandbox-host/protocol.js';
import type { Engine } from '../engine.js';

/** What the bridge needs of an engine; PythonEngine in production. */
export interface PythonSandbox {
  run(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome>;
  /** Gets the interpreter ready for the next candidate ahead of time. */
  warm?(): Promise<void>;
  dispose(): void;
}

export type PythonSandboxFactory = (options: PythonEngineOptions) => Promise<PythonSandbox>;

/**
 * The WebAssembly memory of an interpreter (where Python's objects live) is
 * not counted by the isolate's heap limit, so it is capped on its own. A
 * candidate may grow it by `job.limits.memoryMb` past its size at boot,
 * whatever an earlier candidate grew it to; the cap leaves room for the
 * interpreter itself (its size at boot) on top of that. Its size:
 * docs/ISOLATION.md, "Sizes the Python engine is built around".
 */
export const WASM_HEADROOM_MB = 128;
const MIN_WASM_MB = 256;
/** A 32-bit WebAssembly memory cannot be larger than 4 GB less one page. */
export const MAX_WASM_MB = 4095;

export function wasmCapMb(memoryMb: number): number {
  return Math.min(MAX_WASM_MB, Math.max(MIN_WASM_MB, memoryMb + WASM_HEADROOM_MB));
}

/** Attempts per candidate when the engine itself fails (not the candidate). */
const ATTEMPTS = 2;

export class PythonBridge implements Engine {
  private engine: PythonSandbox | null = null;
  private engineMemoryMb = 0;
  private enginePackages = '[]';
  /** Jobs run strictly one after another: an engine holds one interpreter. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly create: PythonSandboxFactory = (options) => PythonEngine.create(options),
    private readonly cacheDir?: string,
  ) {}

  run(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
    const next = this.queue.then(() => this.runNow(job, stop));
    this.queue = next.catch(() => undefined);
    return next;
  }

  dispose(): void {
    this.drop();
  }

  /**
   * Restores the interpreter the last candidate used, while the worker has
   * nothing else to do. A failure here is left for the next job to meet.
   */
  warm(): Promise<void> {
    const engine = this.engine;
    if (engine?.warm === undefined) return Promise.resolve();
    const next = this.queue.then(() => engine.warm?.());
    this.queue = next.catch(() => undefined);
    return this.queue.then(() => undefined);
  }

  /**
   * Never rejects: a failure of the engine (not of the candidate, which the
   * engine turns into verdicts) costs a fresh engine and one more attempt,
   * and after that becomes this candidate's verdict, so the worker's other
   * jobs are unaffected.
   */
  /**
   * Boots an interpreter now, for jobs with this heap limit and no packages,
   * so that the first candidate does not wait for it. A failure here is
   * the caller's to report; the next job tries again.
   */
  prepare(memoryMb: number): Promise<void> {
    const next = this.queue.then(() => this.engineFor(memoryMb, []));
    this.queue = next.catch(() => undefined);
    return next.then(() => undefined);
  }

  private async runNow(job: CandidateJob, stop?: StopAfter): Promise<CandidateOutcome> {
    let failure = '';
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let engine: PythonSandbox;
      try {
        engine = await this.engineFor(job.limits.memoryMb, job.pythonPackages ?? []);
      } catch (e) {
        failure = `the Python interpreter could not start: ${describe(e)}`;
        continue;
      }
      try {
        // The candidate's time starts once the engine is up: starting it is the worker's cost.
        const started = performance.now();
        const outcome = await engine.run(job, stop);
        return outcome.kind === 'ran' ? { ...outcome, durationMs: Math.round(performance.now() - started) } : outcome;
      } catch (e) {
        this.drop();
        failure = `the Python engine failed: ${describe(e)}`;
      }
    }
    return {
      kind: 'ran',
      entryPoint: '',
      tests: job.tests.map(() => ({ kind: 'threw', message: `sandbox failure: ${failure}`, durationMs: 0 })),
    };
  }

  private async engineFor(memoryMb: number, packages: readonly string[]): Promise<PythonSandbox> {
    const packagesKey = JSON.stringify(packages);
    if (this.engine !== null && this.engineMemoryMb === memoryMb && this.enginePackages === packagesKey) return this.engine;
    this.drop();
    const options: PythonEngineOptions = { memoryMb, wasmMemoryMb: wasmCapMb(memoryMb) };
    if (packages.length > 0) options.packages = packages;
    this.enginePackages = packagesKey;
    if (this.cacheDir !== undefined) options.cacheDir = this.cacheDir;
    this.engine = await this.create(options);
    this.engineMemoryMb = memoryMb;
    return this.engine;
  }

  private drop(): void {
    const engine = this.engine;
    this.engine = null;
    try {
      engine?.dispose();
    } catch {
      // Disposing an isolate that is already gone is not worth a verdict.
    }
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The registry's way to start Python's engine (registry.ts). */
export function createEngine(): Engine {
  return new PythonBridge();
}
