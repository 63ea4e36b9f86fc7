import type { TestOutcome } from '../../sandbox-host/protocol.js';

/**
 * One test's result as the Python harness frames it (sandbox/python/boot.js,
 * `frame`): a kind letter, the duration in ms, the payload length, the
 * payload. `c` (a failure of the interpreter itself, e.g. its WebAssembly
 * stack overflowed) and `M` (its memory cap was hit where Python could not
 * raise MemoryError) also say that the interpreter is lost.
 */
export interface PythonFrame {
  outcome: TestOutcome;
  /** The interpreter failed during this test and must be replaced. */
  lost: boolean;
}

export type ParsedPythonFrames = { ok: true; frames: PythonFrame[] } | { ok: false; message: string };

/** The text comes from inside the sandbox, so every length and kind is checked. */
export function parsePythonFrames(text: string): ParsedPythonFrames {
  const frames: PythonFrame[] = [];
  let pos = 0;
  while (pos < text.length) {
    const kind = text[pos];
    const c1 = text.indexOf(',', pos + 1);
    const c2 = c1 < 0 ? -1 : text.indexOf(',', c1 + 1);
    if (c1 < 0 || c2 < 0) return malformed();
    const durationMs = Number(text.slice(pos + 1, c1));
    const length = Number(text.slice(c1 + 1, c2));
    if (!Number.isFinite(durationMs) || durationMs < 0 || !Number.isInteger(length) || length < 0 || c2 + 1 + length > text.length) {
      return malformed();
    }
    const payload = text.slice(c2 + 1, c2 + 1 + length);
    pos = c2 + 1 + length;
    switch (kind) {
      case 'r':
        frames.push({ outcome: { kind: 'returned', json: payload, durationMs }, lost: false });
        break;
      case 't':
        frames.push({ outcome: { kind: 'threw', message: payload, durationMs }, lost: false });
        break;
      case 'u':
        frames.push({ outcome: { kind: 'unserializable', message: payload, durationMs }, lost: false });
        break;
      case 'm':
        frames.push({ outcome: { kind: 'memory', message: payload }, lost: false });
        break;
      case 'M':
        frames.push({ outcome: { kind: 'memory', message: payload }, lost: true });
        break;
      case 'c':
        frames.push({ outcome: { kind: 'threw', message: describeCrash(payload), durationMs }, lost: true });
        break;
      default:
        return malformed();
    }
  }
  return { ok: true, frames };
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

function malformed(): ParsedPythonFrames {
  return { ok: false, message: 'the Python sandbox returned malformed results' };
}
