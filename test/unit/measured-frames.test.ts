/** A measured run's returned frame (`R`, sandbox/prelude.js): written and read back, and refused when malformed. */
import { describe, expect, it } from 'vitest';
import { frame, measuredFrame, parseFrames } from '../../src/engines/frames.js';

const crash = (payload: string): string => payload;

describe('measured frames', () => {
  it('carry a returned test’s measure beside its JSON, which may hold commas', () => {
    const measure = { cost: 12_345_678_901, memory: 4096, wallMs: [1.5, 2], cpuMs: [1.25, 1.75] };
    const text = frame('t', 3, 'ValueError: no') + measuredFrame(2.5, '[1,2,{"a":3}]', measure) + frame('r', 1, '7');
    expect(parseFrames(text, crash)).toEqual({
      kind: 'tests',
      entryPoint: '',
      lost: false,
      tests: [
        { kind: 'threw', message: 'ValueError: no', durationMs: 3 },
        { kind: 'returned', json: '[1,2,{"a":3}]', durationMs: 2.5, measure },
        { kind: 'returned', json: '7', durationMs: 1 },
      ],
    });
  });

  it('are malformed when a figure is not a count or a time', () => {
    for (const payload of ['-1,0,1,1,[]', '1.5,0,1,1,[]', '1,x,1,1,[]', '1,0,1;-2,1,[]', '1,0,1,1', '1,0,1,NaN,[]']) {
      expect(parseFrames(`R0,${payload.length},${payload}`, crash)).toEqual({ kind: 'malformed' });
    }
  });
});
