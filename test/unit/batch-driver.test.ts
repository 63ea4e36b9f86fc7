/**
 * The control loop every engine shares (src/engines/batch-driver.ts), with a
 * scripted session standing in for a language: which calls it makes, how it
 * recovers after a timeout or a memory error, and what each test gets. The
 * real engines run the same loop in test/sandbox and test/python.
 */
import { describe, expect, it } from 'vitest';
import { runBatches } from '../../src/engines/batch-driver.js';
import type { CallResult, LoadResult, Session } from '../../src/engines/engine.js';
import { parseFrames } from '../../src/engines/frames.js';
import type { CandidateJob, TestOutcome } from '../../src/sandbox-host/protocol.js';

const T = 1000;

/**
 * Each test is one word: `v<digits>` returns that value; `hang` runs past
 * any limit with the CPU busy; `stalled` has its wall clock run out with
 * the CPU elsewhere unless it runs alone with a stretched clock; `greedy`
 * uses 1.5 T of CPU; `oom` exhausts the sandbox's heap; `leak` has its wall
 * clock run out with the CPU elsewhere, and given more time exhausts the
 * heap after 1.5 T of CPU; `crash` breaks the sandbox (a `c` frame);
 * `sleeper` sleeps past any limit with the CPU idle (Python's time.sleep);
 * `napper` sleeps 0.6 T and, when its wall clock runs out, has used little
 * CPU besides, and `dozer` does the same but sleeps 1.2 T in all;
 * `busy<ms>` keeps the CPU busy that long, and returns 0 if the call's wall
 * clock allows it.
 */
class ScriptedSession implements Session {
  readonly calls: Array<{ tests: string[]; wallMs: number }> = [];
  /** The limit each call's job named (`limits.timeoutMs`), which engines read for their CPU clocks. */
  readonly callLimits: number[] = [];
  readonly loads: number[] = [];
  discards = 0;
  ended = 0;
  private done = '';
  private live = false;

  constructor(
    readonly survivesTimeout: boolean,
    private readonly loadAnswer: (attempt: number, wallMs: number) => LoadResult = () => ({ kind: 'loaded', entryPoint: 'f', cpuMs: 0 }),
  ) {}

  load(_job: CandidateJob, wallMs: number): Promise<LoadResult> {
    this.loads.push(wallMs);
    const answer = this.loadAnswer(this.loads.length, wallMs);
    this.live = answer.kind === 'loaded';
    return Promise.resolve(answer);
  }

  call(job: CandidateJob, tests: readonly string[], wallMs: number): Promise<CallResult> {
    return new Promise((resolve) => resolve(this.callNow(job, tests, wallMs)));
  }

  private callNow(job: CandidateJob, tests: readonly string[], wallMs: number): CallResult {
    expect(this.live).toBe(true);
    this.calls.push({ tests: tests.map((t) => JSON.parse(t) as string), wallMs });
    this.callLimits.push(job.limits.timeoutMs);
    this.done = '';
    let cpuMs = 0;
    for (const text of tests) {
      const word = JSON.parse(text) as string;
      if (word === 'hang') return { kind: 'timeout', cpuMs: wallMs, idle: false };
      if (word === 'sleeper') return { kind: 'timeout', cpuMs: 10, idle: false, sleptMs: wallMs };
      if ((word === 'napper' || word === 'dozer') && wallMs <= T) return { kind: 'timeout', cpuMs: 10, idle: false, sleptMs: 0.6 * T };
      if (word === 'dozer') return { kind: 'finished', text: this.done + frame('r', '0'), cpuMs: cpuMs + 10, sleptMs: 1.2 * T };
      if (word === 'stalled' && wallMs <= T) return { kind: 'timeout', cpuMs: 10, idle: false };
      if (word === 'oom') return { kind: 'memory', cpuMs };
      if (word === 'leak') return wallMs <= T ? { kind: 'timeout', cpuMs: 10, idle: false } : { kind: 'memory', cpuMs: 1.5 * T };
      if (word === 'crash') return { kind: 'finished', text: this.done + frame('c', 'boom'), cpuMs };
      if (word === 'greedy') cpuMs += 1.5 * T;
      if (word.startsWith('busy')) {
        const needs = Number(word.slice(4));
        if (needs > wallMs) return { kind: 'timeout', cpuMs: cpuMs + wallMs, idle: false };
        cpuMs += needs;
        this.done += frame('r', '0');
        continue;
      }
      this.done += frame('r', word === 'stalled' || word === 'greedy' || word === 'napper' ? '0' : word.slice(1));
    }
    return { kind: 'finished', text: this.done, cpuMs };
  }

  progress(): string | null {
    return this.done;
  }

  discard(): void {
    this.discards++;
    this.live = false;
  }

  end(): void {
    this.ended++;
  }

  describeCrash(payload: string): string {
    return `crashed: ${payload}`;
  }
}

function frame(kind: string, payload: string): string {
  return `${kind}1,${payload.length},${payload}`;
}

function job(...words: string[]): CandidateJob {
  return {
    language: 'javascript',
    code: '',
    functionName: 'f',
    arity: 0,
    tests: words.map((w) => JSON.stringify(w)),
    limits: { memoryMb: 64, timeoutMs: T, seed: 1 },
  };
}

function kinds(tests: TestOutcome[]): string[] {
  return tests.map((t) => (t.kind === 'returned' ? t.json : t.kind === 'threw' ? `threw ${t.message}` : t.kind));
}

describe('the batch driver', () => {
  it('runs every test in one call and ends the session once', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, job('v1', 'v2', 'v3'));
    expect(out).toMatchObject({ kind: 'ran', entryPoint: 'f' });
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', '2', '3']);
    expect(session.calls).toEqual([{ tests: ['v1', 'v2', 'v3'], wallMs: T }]);
    expect([session.discards, session.ended]).toEqual([0, 1]);
  });

  it('with a stop, runs one test per call in the same sandbox and ends after the test it says to stop at', async () => {
    const session = new ScriptedSession(true);
    const asked: number[] = [];
    const out = await runBatches(session, job('v1', 'v2', 'v3', 'v4'), (index, outcome) => {
      asked.push(index);
      return outcome.kind === 'returned' && outcome.json === '2';
    });
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', '2']);
    expect(asked).toEqual([0, 1]);
    expect(session.calls.map((c) => c.tests)).toEqual([['v1'], ['v2']]);
    expect([session.loads.length, session.ended]).toEqual([1, 1]);
  });

  it('with a stop, stops at a timeout like at any other outcome', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, job('v1', 'hang', 'v3'), (_, outcome) => outcome.kind !== 'returned');
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', 'timeout']);
    expect(session.calls.map((c) => c.tests)).toEqual([['v1'], ['hang']]);
  });

  it('keeps the tests finished before a timeout, blames the test that had the call to itself, and goes on', async () => {
    for (const survives of [true, false]) {
      const session = new ScriptedSession(survives);
      const out = await runBatches(session, job('v1', 'hang', 'v3'));
      expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', 'timeout', '3']);
      // The hang was the second test of the first call: it runs again as the first of the next.
      expect(session.calls.map((c) => c.tests)).toEqual([['v1', 'hang', 'v3'], ['hang', 'v3'], ['v3']]);
      expect(session.loads.length).toBe(survives ? 1 : 3);
    }
  });

  it('runs a test whose time went to other processes again, alone, in a fresh sandbox, with a stretched wall clock', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, job('stalled', 'v2'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['0', '2']);
    expect(session.calls).toEqual([
      { tests: ['stalled', 'v2'], wallMs: T },
      { tests: ['stalled'], wallMs: 4 * T },
      { tests: ['v2'], wallMs: T },
    ]);
    expect(session.loads).toEqual([T, T]);
  });

  it('gives timeout to a test run again that used more CPU than the limit before it ran out of memory', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, job('leak', 'v2'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['timeout', '2']);
    expect(session.calls.map((c) => c.wallMs)).toEqual([T, 4 * T, T]);
  });

  it('gives timeout to a test that used more CPU than the limit on a stretched clock', async () => {
    const session = new ScriptedSession(true);
    // `greedy` stands for a test that was interrupted with little CPU, then used 1.5 T when it ran alone.
    const original = session.call.bind(session);
    let first = true;
    session.call = async (j, tests, wallMs) => {
      if (first) {
        first = false;
        return { kind: 'timeout', cpuMs: 1, idle: false };
      }
      return original(j, tests, wallMs);
    };
    const out = await runBatches(session, job('greedy', 'v2'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['timeout', '2']);
  });

  it('stops running a test again after two retries per candidate', async () => {
    const session = new ScriptedSession(true);
    session.call = (_j, tests, wallMs) => {
      session.calls.push({ tests: tests.map((t) => JSON.parse(t) as string), wallMs });
      return Promise.resolve({ kind: 'timeout', cpuMs: 1, idle: false });
    };
    const out = await runBatches(session, job('v1', 'v2'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['timeout', 'timeout']);
    expect(session.calls.map((c) => c.wallMs)).toEqual([T, 4 * T, 4 * T, T]);
  });

  it('counts time slept like CPU: a test that slept past its limit gets timeout at once, not another run', async () => {
    const session = new ScriptedSession(false);
    const out = await runBatches(session, job('sleeper', 'v2'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['timeout', '2']);
    expect(session.calls).toEqual([
      { tests: ['sleeper', 'v2'], wallMs: T },
      { tests: ['v2'], wallMs: T },
    ]);
    expect(session.loads).toEqual([T, T]);
  });

  it('runs a test again when sleep and CPU together used less than their share (the rest went to the machine), and blames it if it then sleeps past the limit', async () => {
    const napper = new ScriptedSession(true);
    const napped = await runBatches(napper, job('napper', 'v2'));
    expect(napped.kind === 'ran' && kinds(napped.tests)).toEqual(['0', '2']);
    expect(napper.calls.map((c) => c.wallMs)).toEqual([T, 4 * T, T]);

    const dozer = new ScriptedSession(true);
    const dozed = await runBatches(dozer, job('dozer', 'v2'));
    expect(dozed.kind === 'ran' && kinds(dozed.tests)).toEqual(['timeout', '2']);
    expect(dozer.calls.map((c) => c.wallMs)).toEqual([T, 4 * T, T]);
  });

  it('counts time slept while loading like CPU', async () => {
    const session = new ScriptedSession(true, () => ({ kind: 'timeout', cpuMs: 5, sleptMs: T }));
    const out = await runBatches(session, job('v1', 'v2'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['timeout', 'timeout']);
    expect(session.loads).toEqual([T]);
  });

  it('blames a call that sat idle whatever the CPU did', async () => {
    const session = new ScriptedSession(true);
    session.call = () => Promise.resolve({ kind: 'timeout', cpuMs: 0, idle: true });
    const out = await runBatches(session, job('v1'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['timeout']);
    expect(session.discards).toBe(1);
  });

  it('replays one test per call after a memory error in a batch', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, job('v1', 'oom', 'v3'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', 'memory', '3']);
    expect(session.calls.map((c) => c.tests)).toEqual([['v1', 'oom', 'v3'], ['v1'], ['oom'], ['v3']]);
    expect(session.discards).toBe(2);
  });

  it('reloads after a frame that says the sandbox is lost, and goes on', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, job('v1', 'crash', 'v3'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', 'threw crashed: boom', '3']);
    expect(session.loads.length).toBe(2);
  });

  it('answers a load error as such, or fills the rest when tests already ran', async () => {
    const failing = new ScriptedSession(true, () => ({ kind: 'load-error', message: 'no' }));
    expect(await runBatches(failing, job('v1'))).toEqual({ kind: 'load-error', message: 'no' });
    expect(failing.ended).toBe(1);

    const later = new ScriptedSession(true, (n) => (n === 1 ? { kind: 'loaded', entryPoint: 'f', cpuMs: 0 } : { kind: 'load-error', message: 'no' }));
    const out = await runBatches(later, job('v1', 'crash', 'v3'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', 'threw crashed: boom', 'threw no']);
  });

  it('loads a candidate with no tests, so that code that cannot run says so', async () => {
    const session = new ScriptedSession(true, () => ({ kind: 'load-error', message: 'no' }));
    expect(await runBatches(session, job())).toEqual({ kind: 'load-error', message: 'no' });
  });

  it('judges a top-level timeout by its CPU share like a test', async () => {
    const session = new ScriptedSession(true, (n) => (n === 1 ? { kind: 'timeout', cpuMs: 1 } : { kind: 'loaded', entryPoint: 'f', cpuMs: 10 }));
    const out = await runBatches(session, job('v1'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1']);
    expect(session.loads).toEqual([T, 4 * T]);

    const own = new ScriptedSession(true, () => ({ kind: 'timeout', cpuMs: T }));
    const timedOut = await runBatches(own, job('v1', 'v2'));
    expect(timedOut.kind === 'ran' && kinds(timedOut.tests)).toEqual(['timeout', 'timeout']);
  });
});

describe('the frame parser', () => {
  const crash = (p: string): string => `crash ${p}`;

  it('reads a header, every kind of frame, and stops after a frame that says the sandbox is lost', () => {
    expect(parseFrames('P3,addr2,3,[1]t0,2,no', crash)).toEqual({
      kind: 'tests',
      entryPoint: 'add',
      lost: false,
      tests: [
        { kind: 'returned', json: '[1]', durationMs: 2 },
        { kind: 'threw', message: 'no', durationMs: 0 },
      ],
    });
    expect(parseFrames('u1,1,xm0,3,oomc5,4,wasmr1,1,9', crash)).toEqual({
      kind: 'tests',
      entryPoint: '',
      lost: true,
      tests: [
        { kind: 'unserializable', message: 'x', durationMs: 1 },
        { kind: 'memory', message: 'oom' },
        { kind: 'threw', message: 'crash wasm', durationMs: 5 },
      ],
    });
    expect(parseFrames('M0,3,cap', crash)).toMatchObject({ lost: true, tests: [{ kind: 'memory', message: 'cap' }] });
    expect(parseFrames('Eno function', crash)).toEqual({ kind: 'missing-entry', message: 'no function' });
  });

  it('rejects text it cannot trust', () => {
    for (const text of ['r1,5,ab', 'x1,1,a', 'r-1,1,a', 'r1,-1,', 'r1', 'P9,ab', 'rNaN,1,a']) {
      expect(parseFrames(text, crash), text).toEqual({ kind: 'malformed' });
    }
  });
});

describe('the batch driver with a limit per test', () => {
  const limited = (limits: number[], ...words: string[]): CandidateJob => {
    const j = job(...words);
    return { ...j, limits: { ...j.limits, testTimeoutsMs: limits } };
  };

  it('runs each test alone under its own limit, the loading under timeoutMs', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, limited([50, 300, 20], 'busy10', 'busy200', 'busy5'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['0', '0', '0']);
    expect(session.calls).toEqual([
      { tests: ['busy10'], wallMs: 50 },
      { tests: ['busy200'], wallMs: 300 },
      { tests: ['busy5'], wallMs: 20 },
    ]);
    expect(session.callLimits).toEqual([50, 300, 20]);
    expect(session.loads).toEqual([T]);
  });

  it('times out a test over its own limit, with that limit as its duration, and goes on', async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, limited([50, 100, 400], 'busy10', 'busy300', 'busy300'));
    expect(out.kind).toBe('ran');
    if (out.kind !== 'ran') return;
    expect(kinds(out.tests)).toEqual(['0', 'timeout', '0']);
    expect(out.tests[1]).toEqual({ kind: 'timeout', durationMs: 100 });
  });

  it("passes a test under its limit however small another test's limit is", async () => {
    const session = new ScriptedSession(true);
    const out = await runBatches(session, limited([1, 5000], 'v7', 'busy3000'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['7', '0']);
  });

  it("judges a stretched retry against the test's own limit", async () => {
    // Its first call's wall clock runs out with the CPU elsewhere; alone, with a stretched clock, it uses less than its limit.
    const session = new ScriptedSession(true);
    const out = await runBatches(session, limited([T, T / 2], 'v1', 'stalled'));
    expect(out.kind === 'ran' && kinds(out.tests)).toEqual(['1', '0']);
    expect(session.calls.map((c) => c.wallMs)).toEqual([T, T / 2, 2 * T]);
  });

  it("times out a stretched retry that uses more than the test's own limit, with that limit as its duration", async () => {
    const session = new ScriptedSession(true);
    // `dozer` first looks like a busy machine's timeout, then sleeps 1.2 T in all on the stretched clock: over its limit of 0.9 T.
    const out = await runBatches(session, limited([0.9 * T], 'dozer'));
    expect(out.kind === 'ran' && out.tests).toEqual([{ kind: 'timeout', durationMs: 0.9 * T }]);
    expect(session.calls.map((c) => c.wallMs)).toEqual([0.9 * T, 3.6 * T]);
  });
});
