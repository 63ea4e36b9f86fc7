/** A measured run's returned frame (`R`, sandbox/prelude.js): written and read back, and refused when malformed. */
import { describe, expect, it } from 'vitest';
import { frame, measuredFrame, measuredFrames, parseFrames } from '../../src/engines/frames.js';

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

/** An `R` frame around `payload`, its length right. */
const frameOf = (payload: string): string => `R0,${payload.length},${payload}`;

describe('measured frames as the JavaScript sandbox writes them', () => {
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
