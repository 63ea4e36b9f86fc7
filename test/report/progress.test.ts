import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressLine, progressMode, progressReporter } from '../../src/report/progress.js';
const START = { mode: 'grade' as const, problems: 1, invalidProblems: 0, candidates: 4, resumed: 0, logFile: 'x.jsonl' };

describe('progressMode', () => {
  it('is live on a terminal, plain lines elsewhere or under CI, and silent with JSON on stdout unless stderr is a terminal', () => {
    const base = { enabled: true, stderrIsTty: true, ci: false, jsonOnStdout: false };
    expect(progressMode(base)).toBe('live');
    expect(progressMode({ ...base, ci: true })).toBe('plain');
    expect(progressMode({ ...base, stderrIsTty: false })).toBe('plain');
    expect(progressMode({ ...base, stderrIsTty: false, jsonOnStdout: true })).toBe('off');
    expect(progressMode({ ...base, jsonOnStdout: true })).toBe('live');
    expect(progressMode({ ...base, enabled: false })).toBe('off');
  });
});

describe('progressLine', () => {
  it('says candidates done of total, tests passed, failures, elapsed and an estimate of what is left', () => {
    expect(progressLine({ done: 25, total: 100, testsPassed: 240, tests: 250, failing: 10, elapsedMs: 30_000 })).toBe(
      '25/100 candidates · 240/250 tests passed · 10 failing tests · 30 s elapsed · ~1m 30s left',
    );
    expect(progressLine({ done: 0, total: 100, testsPassed: 0, tests: 0, failing: 0, elapsedMs: 500 })).toBe(
      '0/100 candidates · 0/0 tests passed · 0 failing tests · 1 s elapsed',
    );
  });
});

describe('progressReporter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('redraws one line in place on a timer, not per result, and clears it at the end', async () => {
    let clock = 0;
    const writes: string[] = [];
    const p = progressReporter({ stream: { write: (t: string) => writes.push(t), columns: 200 }, live: true, intervalMs: 200, now: () => clock });
    await p.onRunStart?.(START);
    expect(writes).toEqual(['\r\x1b[2K0/4 candidates · 0/0 tests passed · 0 failing tests · 0 s elapsed']);
    // A burst of results between two ticks draws nothing by itself.
    for (let i = 0; i < 3; i++) p.onCandidateCounted?.(3, 2);
    expect(writes).toHaveLength(1);
    clock = 3000;
    vi.advanceTimersByTime(200);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe('\r\x1b[2K3/4 candidates · 6/9 tests passed · 3 failing tests · 3 s elapsed · ~1 s left');
    // Nothing changed: no redraw.
    vi.advanceTimersByTime(200);
    expect(writes).toHaveLength(2);
    await p.onRunEnd?.({} as never);
    expect(writes[writes.length - 1]).toBe('\r\x1b[2K');
    vi.advanceTimersByTime(10_000);
    expect(writes).toHaveLength(3);
  });

  it('keeps a live line within the terminal width, so that it never wraps', async () => {
    const writes: string[] = [];
    const p = progressReporter({ stream: { write: (t: string) => writes.push(t), columns: 30 }, live: true, now: () => 0 });
    await p.onRunStart?.(START);
    expect(writes[0]!.replace('\r\x1b[2K', '').length).toBeLessThanOrEqual(29);
    await p.onRunEnd?.({} as never);
  });

  it('prints a plain line every ten seconds when not live', async () => {
    let clock = 0;
    const writes: string[] = [];
    const p = progressReporter({ stream: { write: (t: string) => writes.push(t) }, live: false, now: () => clock });
    await p.onRunStart?.(START);
    p.onCandidateCounted?.(1, 1);
    clock = 9_999;
    vi.advanceTimersByTime(9_999);
    expect(writes).toEqual([]);
    clock = 10_000;
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['evalrun: 1/4 candidates · 1/1 tests passed · 0 failing tests · 10 s elapsed · ~30 s left\n']);
    clock = 20_000;
    vi.advanceTimersByTime(10_000);
    expect(writes).toHaveLength(2);
    await p.onRunEnd?.({} as never);
    expect(writes).toHaveLength(2);
  });
});
