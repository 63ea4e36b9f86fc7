/**
 * time.sleep in a Python candidate: it sleeps for real without using the
 * CPU, the time counts against the test's limit, a sleep past the limit is
 * the candidate's `timeout` on the first run (not a run again as if the
 * machine were busy), its arguments are checked as CPython checks them, and
 * nothing of one candidate's sleeping reaches the next. What a candidate
 * can reach through the sleep is in the hostile catalogue (hostile.test.ts).
 *
 * Timing assertions are one-sided and wide: a sleep can last longer on a
 * loaded machine, never shorter. A sleep past the limit that were run again
 * as for a busy machine would sleep through a second, stretched clock of
 * four times the limit, so such a run takes at least five times the limit;
 * one run takes the limit plus at most a boot of a new interpreter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { encodeWire } from '../../src/values/wire.js';
import { pyJob, returned, testsOf, verdict } from './helpers.js';
import { py } from '../python-source.js';

let engine: PythonEngine;

beforeAll(async () => {
  engine = await PythonEngine.create({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

/** Wall-clock and CPU time (of this process, where the engine runs) of one candidate's run. */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = Date.now();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: Date.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

const NAPPER = py`
  import time
  def add(a, b, s):
      time.sleep(s)
      return a + b
`;

describe('time.sleep', () => {
  it('sleeps for real and the candidate goes on with the right answer', async () => {
    const out = await engine.run(
      pyJob(
        NAPPER,
        [
          [1, 2, 0.01],
          [3, 4, 0.2],
          [5, 6, 0],
        ],
        { functionName: 'add', timeoutMs: 2000 },
      ),
    );
    expect(returned(out)).toEqual([3, 7, 11]);
    const [, slept] = testsOf(out);
    expect(slept).toMatchObject({ kind: 'returned' });
    expect((slept as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(195);
  });

  it('leaves the CPU idle while it sleeps', async () => {
    // The same candidate without the sleep is the baseline, so what the engine spends around the
    // call (restoring the interpreter, loading the candidate) cancels out, however loaded the machine.
    const awake = await timed(() => engine.run(pyJob(NAPPER, [[1, 1, 0]], { functionName: 'add', timeoutMs: 5000 })));
    const asleep = await timed(() => engine.run(pyJob(NAPPER, [[1, 1, 2]], { functionName: 'add', timeoutMs: 5000 })));
    expect(returned(asleep.value)).toEqual([2]);
    expect(asleep.wallMs).toBeGreaterThanOrEqual(1990);
    // Spinning on the clock would add about the whole 2 s of CPU.
    expect(asleep.cpuMs - awake.cpuMs).toBeLessThan(1000);
  });

  it('sleeps at import time too', async () => {
    const code = py`
      import time
      time.sleep(0.1)
      START = time.monotonic()
      def f():
          return 1
    `;
    const { value, wallMs } = await timed(() => engine.run(pyJob(code, [[]], { timeoutMs: 2000 })));
    expect(returned(value)).toEqual([1]);
    expect(wallMs).toBeGreaterThanOrEqual(95);
  });

  it('returns at once for 0, and takes ints, bools and int-like objects as CPython does', async () => {
    const code = [
      'import time, fractions',
      'class Half(float):',
      '    pass',
      'class Index:',
      '    def __index__(self):',
      '        return 0',
      'def f():',
      '    for s in (0, 0.0, -0.0, False, Index(), Half(0.001)):',
      '        if time.sleep(s) is not None:',
      '            return "returned something"',
      '    return "ok"',
    ].join('\n');
    expect(returned(await engine.run(pyJob(code, [[]])))).toEqual(['ok']);
  });
});

describe('a sleep past the time limit', () => {
  const T = 1500;
  /** Less than this, the sleeping test ran once (see the top of the file). */
  const ONE_RUN_MS = 5 * T;

  it("is the test's timeout, on the first run, and the next test goes on", async () => {
    const { value, wallMs } = await timed(() =>
      engine.run(
        pyJob(
          NAPPER,
          [
            [1, 2, 60],
            [3, 4, 0.01],
          ],
          { functionName: 'add', timeoutMs: T },
        ),
      ),
    );
    expect(testsOf(value).map(verdict)).toEqual([{ kind: 'timeout' }, { kind: 'returned', json: '7' }]);
    expect(wallMs).toBeLessThan(ONE_RUN_MS);
  });

  it('made of many short sleeps is a timeout too', async () => {
    const code = py`
      import time
      def f():
          while True:
              time.sleep(0.01)
    `;
    const { value, wallMs } = await timed(() => engine.run(pyJob(code, [[]], { timeoutMs: T })));
    expect(testsOf(value).map(verdict)).toEqual([{ kind: 'timeout' }]);
    expect(wallMs).toBeLessThan(ONE_RUN_MS);
  });

  it('at import time times every test out, once', async () => {
    const code = py`
      import time
      time.sleep(60)
      def f():
          return 1
    `;
    const { value, wallMs } = await timed(() => engine.run(pyJob(code, [[], []], { timeoutMs: T })));
    expect(testsOf(value).map(verdict)).toEqual([{ kind: 'timeout' }, { kind: 'timeout' }]);
    expect(wallMs).toBeLessThan(ONE_RUN_MS);
  });

  it('inside a function the candidate runs at import time', async () => {
    const code = py`
      import time
      def warm_up():
          time.sleep(60)
      warm_up()
      def f():
          return 1
    `;
    const { value, wallMs } = await timed(() => engine.run(pyJob(code, [[]], { timeoutMs: T })));
    expect(testsOf(value).map(verdict)).toEqual([{ kind: 'timeout' }]);
    expect(wallMs).toBeLessThan(ONE_RUN_MS);
  });

  it('through the worker pool and grading: timeout, never error', async () => {
    const pool = new WorkerPool({ size: 1 });
    try {
      const job: GradeJob = {
        language: 'python',
        code: NAPPER,
        functionName: 'add',
        arity: 3,
        topLevelNames: [],
        tests: [
          [1, 2, 0.05],
          [3, 4, 60],
          [5, 6, 0],
        ].map((t) => JSON.stringify(t)),
        expected: [3, 7, 11].map((v) => encodeWire(v)),
        returnType: { kind: 'int' },
        tolerance: { relative: 1e-9, absolute: 1e-9 },
        equality: 'python',
        limits: { memoryMb: 128, timeoutMs: T, seed: 1 },
      };
      // The first job boots the worker's interpreter; the second is timed.
      expect(await gradeWithRecovery(pool, { ...job, tests: [job.tests[0]!], expected: [job.expected[0]!] })).toMatchObject({ verdicts: [{ status: 'pass' }] });
      const { value, wallMs } = await timed(() => gradeWithRecovery(pool, job));
      expect(value.kind === 'ran' ? value.verdicts.map((v) => v.status) : value).toEqual(['pass', 'timeout', 'pass']);
      expect(wallMs).toBeLessThan(ONE_RUN_MS);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('invalid arguments behave as in CPython', () => {
  it('raises the errors CPython raises', async () => {
    const code = [
      'import time, math',
      'def f(s):',
      '    try:',
      '        time.sleep(s)',
      '    except BaseException as e:',
      '        return type(e).__name__ + ": " + str(e)',
      '    return "slept"',
    ].join('\n');
    const out = await engine.run(pyJob(code, ['[-1]', '["x"]', '[{"$evalrun":"float","value":"NaN"}]', '[-0.5]', '[null]', '[1e300]']));
    expect(returned(out)).toEqual([
      'ValueError: sleep length must be non-negative',
      "TypeError: 'str' object cannot be interpreted as an integer or float",
      'ValueError: Invalid value NaN (not a number)',
      'ValueError: sleep length must be non-negative',
      "TypeError: 'NoneType' object cannot be interpreted as an integer or float",
      'OverflowError: timestamp out of range for platform time_t',
    ]);
  });

  it("raises exactly what the interpreter's own time.sleep raises, for every kind of bad argument", async () => {
    // A second instance of the time module carries CPython's own sleep; it
    // is only called with arguments it refuses (valid ones would spin).
    const code = [
      'import time, importlib.util, decimal, fractions',
      'class Bad:',
      '    def __index__(self):',
      '        raise TypeError("no index")',
      'class Worse:',
      '    def __index__(self):',
      '        raise KeyError("worse")',
      'def outcome(sleep, s):',
      '    try:',
      '        sleep(s)',
      '    except BaseException as e:',
      '        return type(e).__name__ + ": " + str(e)',
      '    return "slept"',
      'def f():',
      '    own = importlib.util.module_from_spec(importlib.util.find_spec("time")).sleep',
      '    values = [-1, -10**30, 10**30, 9223372037, -9223372037, "x", b"1", None, [1], 1j, -1e-12, -1.5,',
      '              float("nan"), float("inf"), float("-inf"), 1e300, 9223372037.5, -9223372036.9,',
      '              decimal.Decimal(1), fractions.Fraction(1, 2), Bad(), Worse()]',
      '    return [[repr(s), outcome(time.sleep, s), outcome(own, s)] for s in values]',
    ].join('\n');
    const [rows] = returned(await engine.run(pyJob(code, [[]]))) as [Array<[string, string, string]>];
    expect(rows).toHaveLength(22);
    for (const [value, ours, cpython] of rows) {
      expect(ours, `time.sleep(${value})`).not.toBe('slept');
      expect(ours, `time.sleep(${value})`).toBe(cpython);
    }
  });
});

describe("nothing of one candidate's sleeping reaches the next", () => {
  it('a candidate that timed out asleep, or broke its own sleep, leaves the next one a working time.sleep', async () => {
    const poisons = [
      // Asleep when its limit ran out.
      py`
        import time
        def f():
            time.sleep(60)
      `,
      // Its own sleep that does nothing, and the real one's namespace emptied.
      py`
        import time
        def f():
            real = time.sleep
            time.sleep = lambda s: None
            real.__globals__.clear()
            return 1
      `,
      // A file registered on the poll object the sleep waits in, so that it returns at once.
      py`
        import time, os
        def f():
            time.sleep.__globals__["wait"].__self__.register(os.open("/dev/null", os.O_RDONLY))
            return 1
      `,
    ];
    for (const poison of poisons) {
      const out = await engine.run(pyJob(poison, [[]], { timeoutMs: 800 }));
      expect(testsOf(out)).toHaveLength(1);
      const next = await engine.run(pyJob(NAPPER, [[2, 2, 0.15]], { functionName: 'add' }));
      expect(returned(next)).toEqual([4]);
      expect(testsOf(next)[0]).toMatchObject({ kind: 'returned' });
      expect((testsOf(next)[0] as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(145);
    }
  });
});
