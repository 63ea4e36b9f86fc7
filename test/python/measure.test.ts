import { describe, expect, it } from 'vitest';
import { Interpreter, makeSnapshot } from '../../src/engines/python/boot.js';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { loadPyodideFiles } from '../../src/engines/python/pyodide-files.js';
import { pyJob, returned } from './helpers.js';

/**
 * The numbers the engine is judged by, printed for the record. The bounds
 * asserted are loose (a noisy 2-core machine); the printed values matter.
 */
function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('Python engine measurements', () => {
  it('cold boot vs snapshot boot', async () => {
    const files = loadPyodideFiles();
    let started = performance.now();
    await makeSnapshot(files);
    const coldMs = performance.now() - started;

    const engine = await PythonEngine.create({ memoryMb: 256 });
    engine.dispose();
    const bootMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      started = performance.now();
      const e = await PythonEngine.create({ memoryMb: 256 });
      bootMs.push(performance.now() - started);
      e.dispose();
    }
    console.log(`[python] cold boot + snapshot, inside an isolate: ${coldMs.toFixed(0)} ms`);
    console.log(`[python] boot from the snapshot (median of 3): ${median(bootMs).toFixed(0)} ms (${bootMs.map((x) => x.toFixed(0)).join(', ')})`);
    expect(median(bootMs)).toBeLessThan(coldMs);
    void Interpreter;
  });

  it('add(a, b): 1000 tests in one run', async () => {
    const engine = await PythonEngine.create({ memoryMb: 256 });
    try {
      const tests = Array.from({ length: 1000 }, (_, i) => [i, 2 * i]);
      const job = pyJob('def add(a, b):\n    return a + b\n', tests, { functionName: 'add' });
      await engine.run(job);
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const out = await engine.run(job);
        runs.push(performance.now() - started);
        expect(returned(out)[999]).toBe(2997);
        expect(engine.lastReset).toBe('clean');
      }
      const one = await (async () => {
        const single = pyJob('def add(a, b):\n    return a + b\n', [[1, 2]], { functionName: 'add' });
        const xs: number[] = [];
        for (let i = 0; i < 5; i++) {
          const started = performance.now();
          await engine.run(single);
          xs.push(performance.now() - started);
        }
        return median(xs);
      })();
      const m = median(runs);
      console.log(`[python] add(): 1000 tests in one run() ${m.toFixed(1)} ms -> ${((m - one) / 1000 * 1000).toFixed(1)} us per test beyond a 1-test run (${one.toFixed(1)} ms: load, call, cleanliness check)`);
      expect(m).toBeLessThan(5000);
    } finally {
      engine.dispose();
    }
  });

  it('resident memory per interpreter', async () => {
    const engines: PythonEngine[] = [];
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const before = process.memoryUsage().rss;
    try {
      for (let i = 0; i < 4; i++) engines.push(await PythonEngine.create({ memoryMb: 256 }));
      for (const e of engines) await e.run(pyJob('def f():\n    return 1\n', [[]]));
      const perInterpreter = (process.memoryUsage().rss - before) / engines.length / (1024 * 1024);
      const wasmMb = engines[0]!.memoryBytes() / (1024 * 1024);
      console.log(`[python] RSS per interpreter: ${perInterpreter.toFixed(0)} MB (of which WebAssembly memory ${wasmMb.toFixed(0)} MB)`);
      expect(perInterpreter).toBeLessThan(400);
    } finally {
      for (const e of engines) e.dispose();
    }
  });
});
