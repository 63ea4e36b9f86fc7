/**
 * A Python engine that tells tests what grading never asks: how the
 * interpreter was made ready for each candidate, and a digest of its whole
 * memory (its interpreters are booted with `diagnostics`, which grading
 * never sets).
 */
import { PythonEngine, startPython, type PythonEngineOptions } from '../../src/engines/python/engine.js';

export class ObservedPythonEngine extends PythonEngine {
  private verdict = 'clean';

  static async open(options: PythonEngineOptions): Promise<ObservedPythonEngine> {
    return new ObservedPythonEngine(await startPython(options, true));
  }

  /** How the interpreter was last made ready for a candidate: "clean" when it was restored (or had just booted), else why it was replaced. */
  get lastReset(): string {
    return this.verdict;
  }

  /** A digest of every byte of the current interpreter's memory; null when there is none. */
  memoryDigest(): string | null {
    return this.interpreter?.memoryDigest() ?? null;
  }

  protected override readied(verdict: string): void {
    this.verdict = verdict;
  }
}
