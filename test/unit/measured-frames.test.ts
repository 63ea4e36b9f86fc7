/** The `R` frame of a measured run (sandbox/prelude.js): read by parseFrames, written by measuredFrames. */
import { describe, expect, it } from 'vitest';
import { measuredFrames, parseFrames } from '../../src/engines/frames.js';

const crash = (payload: string): string => `crash: ${payload}`;
/** An `R` frame around `payload`, its length right. */
const frameOf = (payload: string): string => `R0,${payload.length},${payload}`;

describe('measured frames', () => {
  it('carry cost, memory and the times of each repetition beside the value', () => {
    const measure = { cost: 1234, memory: 56, wallMs: [1.5, 0.25], cpuMs: [1, 0.2] };
    const text = measuredFrames('declaration:f', 3, '[1,"a,b"]', measure);
    expect(parseFrames(text, crash)).toEqual({
      kind: 'tests',
      entryPoint: 'declaration:f',
      lost: false,
      tests: [{ kind: 'returned', json: '[1,"a,b"]', durationMs: 3, measure }],
    });
  });

  it('as the sandbox writes them, without times, sit among ordinary frames', () => {
    const sandbox = `${frameOf('7,8,,,"x"')}r1,1,2`;
    expect(parseFrames(sandbox, crash)).toMatchObject({
      kind: 'tests',
      tests: [
        { kind: 'returned', json: '"x"', measure: { cost: 7, memory: 8, wallMs: [], cpuMs: [] } },
        { kind: 'returned', json: '2' },
      ],
    });
  });

  it.each(['7,8,1', '-1,8,,,1', '7,x,,,1', '7,8,a,,1', '1.5,8,,,1', '7,8,1;;2,,1'])('refuse a bad payload: %s', (payload) => {
    expect(parseFrames(frameOf(payload), crash)).toEqual({ kind: 'malformed' });
  });
});
