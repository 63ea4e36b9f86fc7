import { compareValues, type Equality, type Tolerance } from '../values/compare.js';
import type { TypeNode } from '../values/type-node.js';
import { decodeTrustedWire, decodeWire } from '../values/wire.js';
import type { Verdict } from './grade-protocol.js';
import type { TestOutcome } from './protocol.js';

/**
 * Turns what happened in the sandbox into a verdict, comparing a returned
 * value with the expected one (`expectedWire`, its wire text).
 *
 * The same text is the same value: both sides are wire JSON, which encodes
 * a value one way only (no whitespace, keys in their order, numbers as
 * JavaScript prints them), and every comparison rule holds a value equal to
 * itself (NaN included). So that case passes without decoding anything.
 */
export function judge(outcome: TestOutcome, expectedWire: string, type: TypeNode, tolerance: Tolerance, equality: Equality = 'javascript'): Verdict {
  switch (outcome.kind) {
    case 'returned': {
      // A measured run's figures go with a pass only: a test that does not pass is not scored.
      if (outcome.json === expectedWire) {
        return outcome.measure === undefined
          ? { status: 'pass', durationMs: outcome.durationMs }
          : { status: 'pass', durationMs: outcome.durationMs, measure: outcome.measure };
      }
      const decoded = decodeWire(outcome.json);
      if (!decoded.ok) return { status: 'error', message: decoded.error, durationMs: outcome.durationMs };
      // The supervisor wrote this text from a checked value.
      const expected = decodeTrustedWire(expectedWire, 'the expected value');
      const comparison = compareValues(expected, decoded.value, type, tolerance, equality);
      if (comparison.equal) {
        return outcome.measure === undefined
          ? { status: 'pass', actual: outcome.json, durationMs: outcome.durationMs }
          : { status: 'pass', actual: outcome.json, durationMs: outcome.durationMs, measure: outcome.measure };
      }
      const where = comparison.path === '$' ? '' : ` at ${comparison.path}`;
      return {
        status: 'fail',
        actual: outcome.json,
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
