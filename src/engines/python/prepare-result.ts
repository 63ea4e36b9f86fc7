import { MEMORY_MESSAGE } from '../batch-driver.js';
import type { LoadResult } from '../engine.js';
import type { CallResult as InterpreterResult } from './boot.js';

/** Reads prepare's answer: the entry point, a load error, or how loading failed. */
export function readPrepare(result: InterpreterResult): LoadResult {
  switch (result.kind) {
    case 'timeout':
      return { kind: 'timeout', cpuMs: result.cpuMs, sleptMs: result.sleptMs };
    case 'memory':
      return { kind: 'failed', outcome: { kind: 'memory', message: `top-level code ${MEMORY_MESSAGE}` }, lost: true };
    case 'crashed':
      return { kind: 'failed', outcome: { kind: 'threw', message: `sandbox failure: ${result.message}`, durationMs: 0 }, lost: true };
    case 'ok':
      break;
  }
  const text = result.text;
  if (text.startsWith('ok ')) return { kind: 'loaded', entryPoint: text.slice(3), cpuMs: result.cpuMs, sleptMs: result.sleptMs };
  if (text.startsWith('load-error ')) return { kind: 'load-error', message: text.slice('load-error '.length) };
  // `m`: Python raised MemoryError and the interpreter is fine; `M`: the cap was hit where Python could not.
  if (text.startsWith('m') || text.startsWith('M')) {
    return { kind: 'failed', outcome: { kind: 'memory', message: `top-level code: ${text.slice(1)}` }, lost: text.startsWith('M') };
  }
  const message = text.startsWith('c') ? describeCrash(text.slice(1)) : 'the Python sandbox answered nonsense';
  return { kind: 'failed', outcome: { kind: 'threw', message, durationMs: 0 }, lost: true };
}

/**
 * A JavaScript stack overflow inside the interpreter is Python recursing
 * past what the WebAssembly stack holds (the recursion limit was raised):
 * it is reported as the RecursionError CPython would raise natively.
 */
export function describeCrash(message: string): string {
  if (/Maximum call stack size exceeded/i.test(message)) {
    return 'RecursionError: maximum recursion depth exceeded (the interpreter stack overflowed)';
  }
  return `the Python interpreter failed: ${message}`;
}
