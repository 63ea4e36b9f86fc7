import ivm from 'isolated-vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/python/engine.js';
import { pyJob, returned, testsOf, verdict } from './helpers.js';

/**
 * The hostile catalogue: each candidate tries to hang, exhaust memory, leave
 * the sandbox or poison later candidates. Every case asserts the exact
 * verdict, that nothing of the host was reached, and that a well-behaved
 * candidate run right after it in the same engine still passes.
 */

let engine: PythonEngine;

beforeAll(async () => {
  engine = await PythonEngine.create({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

const WELL_BEHAVED = 'def add(a, b):\n    return a + b\n';

async function stillWorks(): Promise<void> {
  const out = await engine.run(pyJob(WELL_BEHAVED, [[2, 3], [10, -4]], { functionName: 'add' }));
  expect(out).toMatchObject({ kind: 'ran', entryPoint: 'name:add' });
  expect(returned(out)).toEqual([5, 6]);
}

async function single(code: string, options: { timeoutMs?: number; memoryMb?: number } = {}): Promise<Record<string, unknown>> {
  const out = await engine.run(pyJob(code, [[]], options));
  const tests = testsOf(out);
  expect(tests).toHaveLength(1);
  return verdict(tests[0]!);
}

const cases: Array<{ name: string; code: string; expected: Record<string, unknown>; timeoutMs?: number; memoryMb?: number }> = [
  { name: 'while True: pass', code: 'def f():\n    while True:\n        pass\n', expected: { kind: 'timeout' }, timeoutMs: 500 },
  {
    name: 'a list too large for any memory ([0] * 10**10)',
    code: 'def f():\n    return [0] * 10**10\n',
    expected: { kind: 'memory', message: "MemoryError: the requested size does not fit in memory (OverflowError: cannot fit 'int' into an index-sized integer)" },
  },
  {
    name: 'a list larger than the cap ([0] * 10**8)',
    code: 'def f():\n    return len([0] * 10**8)\n',
    expected: { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
  },
  {
    name: "a string too large for any memory ('x' * 10**10)",
    code: "def f():\n    return len('x' * 10**10)\n",
    expected: { kind: 'memory', message: "MemoryError: the requested size does not fit in memory (OverflowError: cannot fit 'int' into an index-sized integer)" },
  },
  {
    name: 'a growing list',
    code: 'def f():\n    grow = []\n    while True:\n        grow.append("y" * 1000)\n',
    expected: { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
  },
  {
    name: 'a growing dict',
    code: 'def f():\n    grow = {}\n    i = 0\n    while True:\n        grow[i] = [i] * 100\n        i += 1\n',
    expected: { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
    // Filling 128 MB one small list at a time takes over 2 s on a loaded 2-core machine.
    timeoutMs: 15_000,
  },
  {
    name: 'deep recursion',
    code: 'def f(n=0):\n    return f(n + 1)\n',
    expected: { kind: 'threw', message: 'RecursionError: maximum recursion depth exceeded' },
  },
  {
    name: 'deep recursion past a raised recursion limit',
    code: 'import sys\nsys.setrecursionlimit(10**6)\ndef f(n=0):\n    return f(n + 1)\n',
    expected: { kind: 'threw', message: 'RecursionError: maximum recursion depth exceeded (the interpreter stack overflowed)' },
  },
  { name: 'sys.exit(1)', code: 'import sys\ndef f():\n    sys.exit(1)\n', expected: { kind: 'threw', message: 'SystemExit: 1' } },
  { name: 'raise SystemExit', code: 'def f():\n    raise SystemExit\n', expected: { kind: 'threw', message: 'SystemExit' } },
  { name: 'raise KeyboardInterrupt', code: 'def f():\n    raise KeyboardInterrupt\n', expected: { kind: 'threw', message: 'KeyboardInterrupt' } },
  { name: 'raise BaseException', code: 'def f():\n    raise BaseException("out")\n', expected: { kind: 'threw', message: 'BaseException: out' } },
  {
    // A dict of the candidate's own that spells a tag is written as a dict, never read as the tag.
    name: 'returns a dict forging a wire tag',
    code: 'def f():\n    return {"$evalrun": "float", "value": "NaN"}\n',
    expected: { kind: 'returned', json: '{"$evalrun":"dict","entries":[["$evalrun","float"],["value","NaN"]]}' },
  },
  { name: 'import js', code: 'def f():\n    import js\n    return str(js.process)\n', expected: { kind: 'threw', message: "ModuleNotFoundError: module 'js' is not available in the sandbox" } },
  {
    name: 'import pyodide_js',
    code: 'def f():\n    import pyodide_js\n    return str(pyodide_js.mountNodeFS)\n',
    expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide_js' is not available in the sandbox" },
  },
  {
    name: 'run_js("typeof require")',
    code: 'def f():\n    from pyodide.code import run_js\n    return run_js("typeof require")\n',
    expected: { kind: 'threw', message: "ModuleNotFoundError: module 'js' is not available in the sandbox" },
  },
  {
    // to_js still reaches the isolate's own JavaScript; that realm holds
    // nothing of the host and can no longer create WebAssembly memory.
    name: 'JavaScript reached through pyodide.ffi.to_js',
    code: [
      'def f():',
      '    from pyodide.ffi import to_js',
      '    Function = to_js([]).constructor.constructor',
      '    probe = Function("return [typeof require, typeof process, typeof readbuffer, typeof __evalrunApi, typeof __evalrunInput, typeof WebAssembly.Memory, typeof WebAssembly.Module, typeof import_meta].join()")',
      '    return probe()',
    ].join('\n'),
    expected: { kind: 'returned', json: '"undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined"' },
  },
  { name: "os.system('ls')", code: 'import os\ndef f():\n    return os.system("ls")\n', expected: { kind: 'returned', json: '-1' } },
  {
    name: 'subprocess.run',
    code: 'import subprocess\ndef f():\n    return str(subprocess.run(["ls"]))\n',
    expected: { kind: 'threw', message: 'OSError: [Errno 138] emscripten does not support processes.' },
  },
  {
    name: 'socket connect',
    code: 'import socket\ndef f():\n    return str(socket.socket().connect(("127.0.0.1", 80)))\n',
    expected: { kind: 'threw', message: 'OSError: [Errno 23] Host is unreachable' },
  },
  {
    name: "open('/etc/passwd')",
    code: 'def f():\n    return open("/etc/passwd").read()\n',
    expected: { kind: 'threw', message: "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd'" },
  },
  {
    name: 'the file system is the in-memory one',
    code: 'import os\ndef f():\n    return sorted(os.listdir("/"))\n',
    expected: { kind: 'returned', json: '["dev","home","lib","proc","tmp"]' },
  },
];

describe('hostile Python candidates', () => {
  for (const c of cases) {
    it(`${c.name} -> ${c.expected.kind}`, async () => {
      const options: { timeoutMs?: number; memoryMb?: number } = {};
      if (c.timeoutMs !== undefined) options.timeoutMs = c.timeoutMs;
      if (c.memoryMb !== undefined) options.memoryMb = c.memoryMb;
      expect(await single(c.code, options)).toEqual(c.expected);
      await stillWorks();
    });
  }

  it('after boot the isolate has no globals but a bare context’s and four small shims', async () => {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    const bare = (isolate.createContextSync().evalSync('Object.getOwnPropertyNames(globalThis).join(",")') as string).split(',');
    isolate.dispose();
    const probe = [
      'import json',
      'def f(bare):',
      '    from pyodide.ffi import to_js',
      '    Function = to_js([]).constructor.constructor',
      '    names = Function("bare", "return Object.getOwnPropertyNames(globalThis).filter(n => !bare.includes(n)).sort().join()")',
      '    return names(to_js(bare))',
    ].join('\n');
    const out = await engine.run(pyJob(probe, [[bare]]));
    expect(returned(out)).toEqual(['TextDecoder,TextEncoder,crypto,performance']);
    expect(engine.dirtReason).toBe('the candidate used the JavaScript bridge');
    await stillWorks();
  });

  it('tampering with builtins is detected; a later clean candidate gets correct results', async () => {
    const tamper = 'import builtins\nbuiltins.len = lambda x: 0\nbuiltins.sorted = lambda x: [42]\ndef f():\n    return 1\n';
    expect(await single(tamper)).toEqual({ kind: 'returned', json: '1' });
    expect(engine.isReusable()).toBe(false);
    expect(engine.dirtReason).toBe('namespace of builtins changed');
    const honest = await engine.run(pyJob('def f(xs):\n    return [len(xs), sorted(xs)]\n', [[[3, 1, 2]]]));
    expect(returned(honest)).toEqual([[3, [1, 2, 3]]]);
    expect(engine.isReusable()).toBe(true);
  });

  it('expected outputs are never in the sandbox to be found', async () => {
    // The sentinel plays the expected output of this job's test: the job
    // carries only arguments, and the candidate searches everything it can.
    const search = [
      'import gc',
      'def f(a):',
      '    target = "SENTINEL-" + str(a * 1000 + 731)',
      '    hits = 0',
      '    for space in (globals(), __builtins__):',
      '        hits += sum(1 for v in space.values() if v == target)',
      '    for obj in gc.get_objects():',
      '        try:',
      '            if isinstance(obj, (list, tuple, set, frozenset)) and target in obj: hits += 1',
      '            elif isinstance(obj, dict) and (target in obj or target in obj.values()): hits += 1',
      '        except Exception:',
      '            pass',
      '    return hits',
    ].join('\n');
    const out = await engine.run(pyJob(search, [[93]]));
    expect(returned(out)).toEqual([0]);
    expect(engine.isReusable()).toBe(false);
    expect(engine.dirtReason).toBe('the candidate did gc.get_objects');
    await stillWorks();
  });

  it('a top-level infinite loop times every test out', async () => {
    const out = await engine.run(pyJob('while True:\n    pass\n', [[], [], []], { timeoutMs: 400 }));
    expect(testsOf(out).map(verdict)).toEqual([{ kind: 'timeout' }, { kind: 'timeout' }, { kind: 'timeout' }]);
    await stillWorks();
  });

  it('writing files is taint: the next candidate does not see them', async () => {
    await engine.run(pyJob('def f():\n    open("/tmp/left-behind", "w").write("x")\n    return 1\n', [[]]));
    expect(engine.isReusable()).toBe(false);
    const out = await engine.run(pyJob('import os\ndef f():\n    return os.path.exists("/tmp/left-behind")\n', [[]]));
    expect(returned(out)).toEqual([false]);
  });

  it('the same engine still passes a well-behaved candidate at the end', async () => {
    await stillWorks();
    expect(engine.isReusable()).toBe(true);
  });
});
