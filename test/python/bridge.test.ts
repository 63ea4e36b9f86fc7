import { describe, expect, it } from 'vitest';
import type { PythonEngineOptions } from '../../src/engines/python/engine.js';
import { PythonBridge, wasmCapMb, type PythonSandbox } from '../../src/engines/python/bridge.js';
import type { CandidateJob, CandidateOutcome } from '../../src/sandbox-host/protocol.js';
import { pyJob } from './helpers.js';
import { py } from '../python-source.js';

/**
 * The bridge's policy, with scripted engines standing in for Pyodide: when
 * an engine is reused, when it is replaced, and what a candidate gets when
 * the engine itself fails. The real engine behind the bridge is exercised
 * through worker processes in pool.test.ts.
 */

type Script = (job: CandidateJob, engine: FakeEngine) => Promise<CandidateOutcome> | CandidateOutcome;

class FakeEngine implements PythonSandbox {
  warmed = 0;
  disposed = false;
  runs = 0;
  constructor(
    readonly id: number,
    readonly options: PythonEngineOptions,
    private readonly script: Script,
  ) {}
  async run(job: CandidateJob): Promise<CandidateOutcome> {
    if (this.disposed) throw new Error('ran a disposed engine');
    this.runs++;
    return this.script(job, this);
  }
  warm(): Promise<void> {
    if (this.disposed) return Promise.reject(new Error('warmed a disposed engine'));
    this.warmed++;
    return Promise.resolve();
  }
  dispose(): void {
    this.disposed = true;
  }
}

function harness(script: Script, failCreate: (n: number) => boolean = () => false) {
  const engines: FakeEngine[] = [];
  const bridge = new PythonBridge((options) => {
    const n = engines.length + 1;
    if (failCreate(n)) {
      engines.push(new FakeEngine(-n, options, script));
      return Promise.reject(new Error(`boot ${n} failed`));
    }
    const engine = new FakeEngine(n, options, script);
    engines.push(engine);
    return Promise.resolve(engine);
  });
  return { bridge, engines };
}

const ok = (job: CandidateJob, engine: FakeEngine): CandidateOutcome => ({
  kind: 'ran',
  entryPoint: `engine ${engine.id}`,
  tests: job.tests.map(() => ({ kind: 'returned', json: '1', durationMs: 0 })),
});

const job = (memoryMb = 128): CandidateJob =>
  pyJob(
    py`
  def f():
      return 1
`,
    [[], []],
    { memoryMb },
  );

describe('PythonBridge', () => {
  it('creates no engine before the first Python job, then one that serves every clean candidate', async () => {
    const { bridge, engines } = harness(ok);
    expect(engines).toHaveLength(0);
    for (let i = 0; i < 5; i++) expect(await bridge.run(job())).toMatchObject({ kind: 'ran', entryPoint: 'engine 1' });
    expect(engines).toHaveLength(1);
    expect(engines[0]!.runs).toBe(5);
  });

  it('warms the engine the last candidate used, in turn with the jobs, and nothing before the first job', async () => {
    const { bridge, engines } = harness(ok);
    await bridge.warm();
    expect(engines).toHaveLength(0);
    await bridge.run(job());
    await bridge.warm();
    expect(engines[0]!.warmed).toBe(1);
    expect(engines[0]!.runs).toBe(1);
  });

  it('passes the memory limit to the engine and caps WebAssembly memory above it', async () => {
    const { bridge, engines } = harness(ok);
    await bridge.run(job(128));
    expect(engines[0]!.options).toMatchObject({ memoryMb: 128, wasmMemoryMb: 256 });
    // Another limit needs another isolate: the heap limit is fixed when it is made.
    await bridge.run(job(512));
    expect(engines[0]!.disposed).toBe(true);
    expect(engines[1]!.options).toMatchObject({ memoryMb: 512, wasmMemoryMb: 640 });
    expect(wasmCapMb(64)).toBe(256);
    expect(wasmCapMb(100_000)).toBe(4095);
  });

  it('an engine that throws is replaced and the candidate is run again on a fresh one', async () => {
    const { bridge, engines } = harness((j, e) => {
      if (e.id === 1) throw new Error('interpreter vanished');
      return ok(j, e);
    });
    expect(await bridge.run(job())).toMatchObject({ kind: 'ran', entryPoint: 'engine 2' });
    expect(engines[0]!.disposed).toBe(true);
  });

  it('when engines keep failing, the candidate gets an error per test and the next candidate a fresh engine', async () => {
    const { bridge, engines } = harness((j, e) => {
      if (e.id <= 2) throw new Error(`engine ${e.id} broke`);
      return ok(j, e);
    });
    const failed = await bridge.run(job());
    expect(failed).toEqual({
      kind: 'ran',
      entryPoint: '',
      tests: [
        { kind: 'threw', message: 'sandbox failure: the Python engine failed: engine 2 broke', durationMs: 0 },
        { kind: 'threw', message: 'sandbox failure: the Python engine failed: engine 2 broke', durationMs: 0 },
      ],
    });
    expect(await bridge.run(job())).toMatchObject({ entryPoint: 'engine 3' });
    expect(engines.slice(0, 2).every((e) => e.disposed)).toBe(true);
  });

  it('a failed boot is retried; two in a row become the verdict, and the next job boots again', async () => {
    const { bridge, engines } = harness(ok, (n) => n <= 2);
    const failed = await bridge.run(job());
    expect(failed.kind === 'ran' && failed.tests[0]).toEqual({
      kind: 'threw',
      message: 'sandbox failure: the Python interpreter could not start: boot 2 failed',
      durationMs: 0,
    });
    expect(await bridge.run(job())).toMatchObject({ kind: 'ran', entryPoint: 'engine 3' });
    // Every engine the bridge asked for, the two that failed to boot included.
    expect(engines).toHaveLength(3);
  });

  it('runs overlapping jobs one after another on the one engine', async () => {
    let active = 0;
    let most = 0;
    const { bridge } = harness(async (j, e) => {
      active++;
      most = Math.max(most, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      return ok(j, e);
    });
    await Promise.all([bridge.run(job()), bridge.run(job()), bridge.run(job())]);
    expect(most).toBe(1);
  });
});
