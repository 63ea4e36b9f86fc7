import { afterAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { ObservedPythonEngine } from './observed-engine.js';
import { PythonBridge } from '../../src/engines/python/bridge.js';
import { pyJob, returned } from './helpers.js';
import { py } from '../python-source.js';

/**
 * WebAssembly memory is not counted by the isolate's heap limit (a 64 MB
 * isolate can hold 1 GB of it), and Python's objects all live there. These
 * tests fill it until Python raises MemoryError and check how far the
 * candidate got, and that the host process's resident memory followed the
 * cap rather than the candidate's appetite.
 */

const MB = 1024 * 1024;

/** Needs next to no memory: the candidate after one that filled it. */
const RETURNS_SEVEN = py`
  def f():
      return 7
`;

// Touches every page (a bytearray of zeros might not), so RSS tells the truth.
const FILL = [
  'def f():',
  '    blocks = []',
  '    try:',
  '        while True:',
  "            blocks.append(b'x' * (1 << 20))",
  '    except MemoryError:',
  '        n = len(blocks)',
  '        blocks.clear()',
  '        return n',
].join('\n');

function rssMb(): number {
  return process.memoryUsage().rss / MB;
}

/** Peak RSS of this process so far: minus the RSS before a run, an upper bound of what the run added. */
function peakRssMb(): number {
  return (process.resourceUsage().maxRSS * 1024) / MB;
}

/*
 * The interpreter's heap has free room at boot, so a candidate's blocks
 * can add up to a little more than its allowance past the heap's size;
 * the WebAssembly memory itself never grows past the cap.
 */

describe('the WebAssembly memory of an interpreter is capped', () => {
  const engines: PythonEngine[] = [];
  afterAll(() => {
    for (const e of engines) e.dispose();
  });

  it('by wasmMemoryMb overall, whatever the job allows', async () => {
    const engine = await ObservedPythonEngine.open({ memoryMb: 128, wasmMemoryMb: 256 });
    engines.push(engine);
    const boot = engine.memoryBytes() / MB;
    const before = rssMb();
    const [filled] = returned(await engine.run(pyJob(FILL, [[]], { memoryMb: 4096, timeoutMs: 30_000 }))) as [number];
    const grown = peakRssMb() - before;
    console.log(`[python] cap 256 MB: boot ${boot.toFixed(0)} MB, candidate filled ${filled} MB, host peak RSS +${grown.toFixed(0)} MB at most`);
    expect(filled).toBeLessThan(256);
    expect(filled).toBeGreaterThan(200);
    expect(grown).toBeLessThan(256 + 64);
    // An interpreter grown this far is replaced, not restored; its memory goes with its isolate.
    expect(returned(await engine.run(pyJob(RETURNS_SEVEN, [[]])))).toEqual([7]);
    expect(engine.lastReset).toBe('the interpreter memory grew past what a restore clears');
    expect(engine.memoryBytes() / MB).toBeCloseTo(boot, 0);
  });

  it('by the job memory limit past the interpreter size when the candidate starts', async () => {
    const engine = await PythonEngine.create({ memoryMb: 128, wasmMemoryMb: 1024 });
    engines.push(engine);
    const boot = engine.memoryBytes() / MB;
    const [filled] = returned(await engine.run(pyJob(FILL, [[]], { memoryMb: 64, timeoutMs: 30_000 }))) as [number];
    expect(filled).toBeLessThanOrEqual(64 + boot);
    expect(filled).toBeGreaterThan(40);
  });

  it('through the worker bridge: a candidate gets --memory MB of Python heap, not more', async () => {
    let created = 0;
    const bridge = new PythonBridge((options) => {
      created++;
      return PythonEngine.create(options);
    });
    try {
      const before = rssMb();
      const [filled] = returned(await bridge.run(pyJob(FILL, [[]], { memoryMb: 384, timeoutMs: 30_000 }))) as [number];
      const grown = peakRssMb() - before;
      console.log(`[python] --memory 384 through the bridge: candidate filled ${filled} MB, host peak RSS +${grown.toFixed(0)} MB at most`);
      expect(filled).toBeLessThanOrEqual(384 + 32);
      expect(filled).toBeGreaterThan(340);
      expect(grown).toBeLessThan(384 + 128 + 64);
      // The next candidate runs in a fresh interpreter of the same engine.
      expect(returned(await bridge.run(pyJob(RETURNS_SEVEN, [[]], { memoryMb: 384 })))).toEqual([7]);
      expect(created).toBe(1);
    } finally {
      bridge.dispose();
    }
  });
});
