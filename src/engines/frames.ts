import type { TestMeasure, TestOutcome } from '../sandbox-host/protocol.js';

/**
 * The results of a call into a sandbox, as every language's in-isolate code
 * writes them (sandbox/prelude.js, `frame`, describes the format): an
 * optional `P` header naming the entry point, then one frame per test; or a
 * lone `E<message>` when there is no entry point to call.
 */
export type ParsedFrames =
  | {
      kind: 'tests';
      /** '' when the text has no header (the engine learnt the entry point elsewhere). */
      entryPoint: string;
      tests: TestOutcome[];
      /**
       * The last test's frame says the sandbox itself failed during it (`c`)
       * or ran out of memory where the code could not catch it (`M`): its
       * state must not be used again. Parsing stops after such a frame.
       */
      lost: boolean;
    }
  | { kind: 'missing-entry'; message: string }
  | { kind: 'malformed' };

/**
 * Parses framed results. The text is produced inside the sandbox, so every
 * length, number and kind is checked; a bad frame makes the whole text
 * `malformed`. `describeCrash` turns a `c` frame's payload into the
 * message the test gets (each language says what failed in its own words).
 */
export function parseFrames(text: string, describeCrash: (payload: string) => string): ParsedFrames {
  if (text.startsWith('E')) return { kind: 'missing-entry', message: text.slice(1) };
  let pos = 0;
  let entryPoint = '';
  if (text.startsWith('P')) {
    const comma = text.indexOf(',', 1);
    const length = comma < 0 ? NaN : Number(text.slice(1, comma));
    if (!Number.isInteger(length) || length < 0 || comma + 1 + length > text.length) return MALFORMED;
    entryPoint = text.slice(comma + 1, comma + 1 + length);
    pos = comma + 1 + length;
  }
  const tests: TestOutcome[] = [];
  while (pos < text.length) {
    const kind = text[pos];
    const c1 = text.indexOf(',', pos + 1);
    const c2 = c1 < 0 ? -1 : text.indexOf(',', c1 + 1);
    if (c1 < 0 || c2 < 0) return MALFORMED;
    const durationMs = Number(text.slice(pos + 1, c1));
    const length = Number(text.slice(c1 + 1, c2));
    if (!Number.isFinite(durationMs) || durationMs < 0 || !Number.isInteger(length) || length < 0 || c2 + 1 + length > text.length) {
      return MALFORMED;
    }
    const payload = text.slice(c2 + 1, c2 + 1 + length);
    pos = c2 + 1 + length;
    switch (kind) {
      case 'r':
        tests.push({ kind: 'returned', json: payload, durationMs });
        break;
      case 'R': {
        const measured = readMeasured(payload);
        if (measured === null) return MALFORMED;
        tests.push({ kind: 'returned', json: measured.json, durationMs, measure: measured.measure });
        break;
      }
      case 't':
        tests.push({ kind: 'threw', message: payload, durationMs });
        break;
      case 'u':
        tests.push({ kind: 'unserializable', message: payload, durationMs });
        break;
      case 'm':
        tests.push({ kind: 'memory', message: payload });
        break;
      case 'M':
        tests.push({ kind: 'memory', message: payload });
        return { kind: 'tests', entryPoint, tests, lost: true };
      case 'c':
        tests.push({ kind: 'threw', message: describeCrash(payload), durationMs });
        return { kind: 'tests', entryPoint, tests, lost: true };
      default:
        return MALFORMED;
    }
  }
  return { kind: 'tests', entryPoint, tests, lost: false };
}

const MALFORMED: ParsedFrames = { kind: 'malformed' };

/** One test's frame, as sandbox/prelude.js's `frame` writes it. */
export function frame(kind: string, durationMs: number, payload: string): string {
  return `${kind}${durationMs > 0 ? durationMs : 0},${payload.length},${payload}`;
}

/**
 * A returned test's frame in a measured run (sandbox/prelude.js describes
 * the format): `R`, and a payload that puts the test's measure in front of
 * its wire JSON.
 */
export function measuredFrame(durationMs: number, json: string, measure: TestMeasure): string {
  const payload = `${measure.cost},${measure.memory},${measure.wallMs.join(';')},${measure.cpuMs.join(';')},${json}`;
  return frame('R', durationMs, payload);
}

/** An `R` frame's payload; null when it is not one. */
function readMeasured(payload: string): { json: string; measure: TestMeasure } | null {
  const fields: string[] = [];
  let pos = 0;
  for (let i = 0; i < 4; i++) {
    const comma = payload.indexOf(',', pos);
    if (comma < 0) return null;
    fields.push(payload.slice(pos, comma));
    pos = comma + 1;
  }
  const [costText = '', memoryText = '', wallText = '', cpuText = ''] = fields;
  const cost = Number(costText);
  const memory = Number(memoryText);
  const wallMs = readTimes(wallText);
  const cpuMs = readTimes(cpuText);
  if (!isCount(cost) || !isCount(memory) || wallMs === null || cpuMs === null) return null;
  return { json: payload.slice(pos), measure: { cost, memory, wallMs, cpuMs } };
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function readTimes(text: string): number[] | null {
  if (text === '') return [];
  const items = text.split(';');
  const times = items.map(Number);
  return items.every((item, i) => item !== '' && Number.isFinite(times[i]) && times[i]! >= 0) ? times : null;
}

/** The frames of one test that returned in a measured run, behind the entry point's header when there is one. */
export function measuredFrames(entryPoint: string, durationMs: number, json: string, measure: TestMeasure): string {
  const header = entryPoint === '' ? '' : `P${entryPoint.length},${entryPoint}`;
  return `${header}${measuredFrame(durationMs, json, measure)}`;
}
