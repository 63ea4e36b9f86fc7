import { compareValues, type Tolerance } from '../values/compare.js';
import type { TypeNode, Value } from '../values/type-node.js';
import { decodeWire } from '../values/wire.js';
import type { Verdict } from './grade-protocol.js';
import type { TestOutcome } from './protocol.js';

/** Turns what happened in the sandbox into a verdict, comparing a returned value with the expected one. */
export function judge(outcome: TestOutcome, expected: Value, type: TypeNode, tolerance: Tolerance): Verdict {
  switch (outcome.kind) {
    case 'returned': {
      const decoded = decodeWire(outcome.json);
      if (!decoded.ok) return { status: 'error', message: decoded.error, durationMs: outcome.durationMs };
      const comparison = compareValues(expected, decoded.value, type, tolerance);
      if (comparison.equal) return { status: 'pass', actual: decoded.value, durationMs: outcome.durationMs };
      const where = comparison.path === '$' ? '' : ` at ${comparison.path}`;
      return {
        status: 'fail',
        actual: decoded.value,
        reason: `${comparison.reason}${where}`,
        durationMs: outcome.durationMs,
      };
    }
    case 'threw':
      return { status: 'error', message: outcome.message, durationMs: outcome.durationMs };
    case 'unserializable':
      return { status: 'error', message: `cannot be compared: ${outcome.message}`, durationMs: outcome.durationMs };
    case 'timeout':
      return { status: 'timeout', durationMs: outcome.durationMs };
    case 'memory':
      return { status: 'memory', message: outcome.message };
  }
}
