import type { TestOutcome } from '../sandbox-host/protocol.js';

export type ParsedFrames =
  | { kind: 'tests'; entryPoint: string; tests: TestOutcome[] }
  | { kind: 'missing-entry'; message: string }
  | { kind: 'malformed'; message: string };

/**
 * Parses the harness's framed result string (sandbox/harness.js, "result
 * framing"). The text is produced inside the sandbox, so every length and
 * kind is checked; a bad frame ends parsing with `malformed`.
 */
export function parseFrames(text: string): ParsedFrames {
  if (text.startsWith('E')) return { kind: 'missing-entry', message: text.slice(1) };
  let pos = 0;
  let entryPoint = '';
  if (text.startsWith('P')) {
    const comma = text.indexOf(',', 1);
    const length = comma < 0 ? NaN : Number(text.slice(1, comma));
    if (!Number.isInteger(length) || length < 0 || comma + 1 + length > text.length) return malformed();
    entryPoint = text.slice(comma + 1, comma + 1 + length);
    pos = comma + 1 + length;
  }
  const tests: TestOutcome[] = [];
  while (pos < text.length) {
    const kind = text[pos];
    const c1 = text.indexOf(',', pos + 1);
    const c2 = c1 < 0 ? -1 : text.indexOf(',', c1 + 1);
    if (c1 < 0 || c2 < 0) return malformed();
    const durationMs = Number(text.slice(pos + 1, c1));
    const length = Number(text.slice(c1 + 1, c2));
    if (!Number.isFinite(durationMs) || !Number.isInteger(length) || length < 0 || c2 + 1 + length > text.length) {
      return malformed();
    }
    const payload = text.slice(c2 + 1, c2 + 1 + length);
    pos = c2 + 1 + length;
    switch (kind) {
      case 'r':
        tests.push({ kind: 'returned', json: payload, durationMs });
        break;
      case 't':
        tests.push({ kind: 'threw', message: payload, durationMs });
        break;
      case 'u':
        tests.push({ kind: 'unserializable', message: payload, durationMs });
        break;
      case 'm':
        tests.push({ kind: 'memory', message: payload });
        break;
      default:
        return malformed();
    }
  }
  return { kind: 'tests', entryPoint, tests };
}

function malformed(): ParsedFrames {
  return { kind: 'malformed', message: 'sandbox returned malformed results' };
}
