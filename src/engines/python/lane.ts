import type ivm from 'isolated-vm';
import { Interpreter, type BootOptions } from './boot.js';
import type { PyodideFiles } from './pyodide-files.js';

/** Time for a restore (a copy of the interpreter's memory); only a broken isolate takes longer. */
export const RESET_TIMEOUT_MS = 10_000;

/** What a lane boots its interpreters from. */
export interface LaneStart {
  files: PyodideFiles;
  snapshot: ivm.ExternalCopy<SharedArrayBuffer>;
  boot: BootOptions;
  interpreter: Interpreter;
}

/**
 * One interpreter at a time and how to make it ready for a candidate: the
 * current one restored to the state it booted to, or a new one when there
 * is none or the restore says it cannot be exact. An engine has a lane of
 * plain Pyodide, and one of metered Pyodide once a measured job comes.
 */
export class Lane {
  interpreter: Interpreter | null;
  /** The interpreter has run candidate code since it was booted or restored. */
  used = false;
  /** The last interpreter was thrown away after a limit or failure. */
  private discarded = false;

  constructor(
    private readonly start: LaneStart,
    /** Told how the interpreter was made ready: "clean" when restored, else why it was replaced. */
    private readonly readied: (verdict: string) => void,
  ) {
    this.interpreter = start.interpreter;
  }

  /** An interpreter in the state it booted to, marked used. */
  async fresh(): Promise<Interpreter> {
    const interpreter = await this.ready();
    this.used = true;
    return interpreter;
  }

  /** Restores the interpreter now if a candidate used it (while a worker waits). */
  async warm(): Promise<void> {
    await this.ready();
  }

  private async ready(): Promise<Interpreter> {
    const current = this.interpreter;
    if (current !== null && current.alive) {
      if (!this.used) return current;
      const result = await current.reset(RESET_TIMEOUT_MS);
      const verdict = result.kind === 'ok' ? result.text : `restoring the interpreter failed (${result.kind})`;
      this.readied(verdict);
      if (verdict === 'clean') {
        this.used = false;
        return current;
      }
    } else if (current !== null || this.discarded) {
      this.readied('the interpreter was replaced after a limit or failure');
    }
    this.discarded = false;
    this.discard();
    this.interpreter = await Interpreter.boot(this.start.files, this.start.snapshot, this.start.boot);
    this.used = false;
    return this.interpreter;
  }

  discard(): void {
    if (this.interpreter !== null) {
      this.interpreter.dispose();
      this.discarded = true;
    }
    this.interpreter = null;
  }
}
