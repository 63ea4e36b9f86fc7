import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservedPythonEngine } from './observed-engine.js';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { encodeWire } from '../../src/values/wire.js';
import { pyJob, returned, testsOf, verdict, workerPids } from './helpers.js';
import { py } from '../python-source.js';

/**
 * The hostile catalogue: each candidate tries to hang, exhaust memory, leave
 * the sandbox or poison later candidates. Every case asserts the exact
 * verdict, that nothing of the host was reached, and that a well-behaved
 * candidate run right after it in the same engine still passes.
 */

let engine: ObservedPythonEngine;

beforeAll(async () => {
  engine = await ObservedPythonEngine.open({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

const WELL_BEHAVED = py`
  def add(a, b):
      return a + b
`;

async function stillWorks(): Promise<void> {
  const out = await engine.run(
    pyJob(
      WELL_BEHAVED,
      [
        [2, 3],
        [10, -4],
      ],
      { functionName: 'add' },
    ),
  );
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
  {
    name: 'while True: pass',
    code: py`
    def f():
        while True:
            pass
  `,
    expected: { kind: 'timeout' },
    timeoutMs: 500,
  },
  {
    name: 'a list too large for any memory ([0] * 10**10)',
    code: py`
      def f():
          return [0] * 10**10
    `,
    expected: {
      kind: 'memory',
      message: "MemoryError: the requested size does not fit in memory (OverflowError: cannot fit 'int' into an index-sized integer)",
    },
  },
  {
    name: 'a list larger than the cap ([0] * 10**8)',
    code: py`
      def f():
          return len([0] * 10**8)
    `,
    expected: { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
  },
  {
    name: "a string too large for any memory ('x' * 10**10)",
    code: py`
      def f():
          return len('x' * 10**10)
    `,
    expected: {
      kind: 'memory',
      message: "MemoryError: the requested size does not fit in memory (OverflowError: cannot fit 'int' into an index-sized integer)",
    },
  },
  {
    name: 'a growing list',
    code: py`
      def f():
          grow = []
          while True:
              grow.append("y" * 1000)
    `,
    expected: { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
  },
  {
    name: 'a growing dict',
    code: py`
      def f():
          grow = {}
          i = 0
          while True:
              grow[i] = [i] * 100
              i += 1
    `,
    expected: { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
    // Filling the heap one small list at a time is slow on a busy machine: the limit is generous so that it ends in memory, not timeout.
    timeoutMs: 15_000,
  },
  {
    name: 'deep recursion',
    code: py`
      def f(n=0):
          return f(n + 1)
    `,
    expected: { kind: 'threw', message: 'RecursionError: maximum recursion depth exceeded' },
  },
  {
    name: 'deep recursion past a raised recursion limit',
    code: py`
      import sys
      sys.setrecursionlimit(10**6)
      def f(n=0):
          return f(n + 1)
    `,
    expected: { kind: 'threw', message: 'RecursionError: maximum recursion depth exceeded (the interpreter stack overflowed)' },
  },
  {
    name: 'sys.exit(1)',
    code: py`
    import sys
    def f():
        sys.exit(1)
  `,
    expected: { kind: 'threw', message: 'SystemExit: 1' },
  },
  {
    name: 'raise SystemExit',
    code: py`
    def f():
        raise SystemExit
  `,
    expected: { kind: 'threw', message: 'SystemExit' },
  },
  {
    name: 'raise KeyboardInterrupt',
    code: py`
    def f():
        raise KeyboardInterrupt
  `,
    expected: { kind: 'threw', message: 'KeyboardInterrupt' },
  },
  {
    name: 'raise BaseException',
    code: py`
    def f():
        raise BaseException("out")
  `,
    expected: { kind: 'threw', message: 'BaseException: out' },
  },
  {
    // A dict of the candidate's own that spells a tag is written as a dict, never read as the tag.
    name: 'returns a dict forging a wire tag',
    code: py`
      def f():
          return {"$evalrun": "float", "value": "NaN"}
    `,
    expected: { kind: 'returned', json: '{"$evalrun":"dict","entries":[["$evalrun","float"],["value","NaN"]]}' },
  },
  {
    name: 'import js',
    code: py`
    def f():
        import js
        return str(js.process)
  `,
    expected: { kind: 'threw', message: "ModuleNotFoundError: module 'js' is not available in the sandbox" },
  },
  {
    name: 'import pyodide_js',
    code: py`
      def f():
          import pyodide_js
          return str(pyodide_js.mountNodeFS)
    `,
    expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide_js' is not available in the sandbox" },
  },
  {
    name: 'run_js("typeof require")',
    code: py`
      def f():
          from pyodide.code import run_js
          return run_js("typeof require")
    `,
    expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
  },
  {
    name: "os.system('ls')",
    code: py`
    import os
    def f():
        return os.system("ls")
  `,
    expected: { kind: 'returned', json: '-1' },
  },
  {
    name: 'subprocess.run',
    code: py`
      import subprocess
      def f():
          return str(subprocess.run(["ls"]))
    `,
    expected: { kind: 'threw', message: 'OSError: [Errno 138] emscripten does not support processes.' },
  },
  {
    name: 'socket connect',
    code: py`
      import socket
      def f():
          return str(socket.socket().connect(("127.0.0.1", 80)))
    `,
    expected: { kind: 'threw', message: 'OSError: [Errno 23] Host is unreachable' },
  },
  {
    name: "open('/etc/passwd')",
    code: py`
      def f():
          return open("/etc/passwd").read()
    `,
    expected: { kind: 'threw', message: "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd'" },
  },
  {
    name: 'time.sleep past the limit',
    code: py`
    import time
    def f():
        time.sleep(3600)
  `,
    expected: { kind: 'timeout' },
    timeoutMs: 500,
  },
  {
    name: 'poll(2) with nothing to wait for and no timeout (what time.sleep waits in)',
    code: py`
      import select
      def f():
          return select.poll().poll(-1)
    `,
    expected: { kind: 'timeout' },
    timeoutMs: 500,
  },
  {
    name: 'time.sleep(-1)',
    code: py`
      import time
      def f():
          time.sleep(-1)
    `,
    expected: { kind: 'threw', message: 'ValueError: sleep length must be non-negative' },
  },
  {
    name: "time.sleep('x')",
    code: py`
      import time
      def f():
          time.sleep("x")
    `,
    expected: { kind: 'threw', message: "TypeError: 'str' object cannot be interpreted as an integer or float" },
  },
  {
    name: "time.sleep(float('nan'))",
    code: py`
      import time
      def f():
          time.sleep(float("nan"))
    `,
    expected: { kind: 'threw', message: 'ValueError: Invalid value NaN (not a number)' },
  },
  {
    name: 'the file system is the in-memory one',
    code: py`
      import os
      def f():
          return sorted(os.listdir("/"))
    `,
    expected: { kind: 'returned', json: '["dev","home","lib","proc","tmp"]' },
  },
];

describe('hostile Python candidates', () => {
  for (const c of cases) {
    it(`${c.name} -> ${String(c.expected.kind as string)}`, async () => {
      const options: { timeoutMs?: number; memoryMb?: number } = {};
      if (c.timeoutMs !== undefined) options.timeoutMs = c.timeoutMs;
      if (c.memoryMb !== undefined) options.memoryMb = c.memoryMb;
      expect(await single(c.code, options)).toEqual(c.expected);
      await stillWorks();
    });
  }

  it('a top-level infinite loop times every test out', async () => {
    const out = await engine.run(
      pyJob(
        py`
      while True:
          pass
    `,
        [[], [], []],
        { timeoutMs: 400 },
      ),
    );
    expect(testsOf(out).map(verdict)).toEqual([{ kind: 'timeout' }, { kind: 'timeout' }, { kind: 'timeout' }]);
    await stillWorks();
  });

  it('the same engine still passes a well-behaved candidate at the end', async () => {
    await stillWorks();
    expect(engine.lastReset).toBe('clean');
  });
});

/**
 * Poisoning: each candidate changes some state of the interpreter in place
 * and returns normally; a well-behaved candidate that runs next in the same
 * engine must get exactly what it got before the poison ran. Each pair is
 * run victim, poison, victim, so the expected values are also pinned.
 */
const poisons: Array<{ name: string; poison: string; victim: string; expected: unknown[] }> = [
  {
    name: "re's compile cache",
    poison: py`
      import re
      _real = re._compile
      re._compile = lambda pattern, flags: _real("z", flags)
      re.findall(r"\d+", "a1")
      def f():
          return 1
    `,
    victim: py`
      import re
      def f():
          return re.findall(r"\d+", "a1b22c333")
    `,
    expected: [['1', '22', '333']],
  },
  {
    name: "warnings.simplefilter('error')",
    poison: py`
      import warnings
      warnings.simplefilter("error")
      def f():
          return 1
    `,
    victim: py`
      import warnings
      def f():
          warnings.warn("careful")
          return 1
    `,
    expected: [1],
  },
  {
    name: "copy's deepcopy dispatch",
    poison: py`
      import copy
      copy._deepcopy_dispatch[list] = lambda x, memo, deepcopy: []
      def f():
          return 1
    `,
    victim: py`
      import copy
      def f():
          return copy.deepcopy([1, [2, 3]])
    `,
    expected: [[1, [2, 3]]],
  },
  {
    name: "random's instance methods",
    poison: py`
      import random
      random.randint = lambda a, b: 4
      random._inst.random = lambda: 0.5
      def f():
          return 1
    `,
    victim: py`
      import random
      def f():
          random.seed(3)
          return [random.randint(1, 1000), round(random.random(), 6)]
    `,
    expected: [[244, 0.592641]],
  },
  {
    name: "json's default encoder",
    poison: py`
      import json
      json._default_encoder = json.JSONEncoder(separators=(";", "="))
      def f():
          return 1
    `,
    victim: py`
      import json
      def f():
          return json.dumps({"a": [1, 2]})
    `,
    expected: ['{"a": [1, 2]}'],
  },
  {
    name: 'typing internals',
    poison: py`
      import typing
      typing.get_type_hints = lambda *a, **k: {}
      typing._type_check = lambda *a, **k: int
      def f():
          return 1
    `,
    victim: py`
      from typing import get_type_hints, List
      def g(x: int) -> str:
          pass
      def f():
          return [sorted(get_type_hints(g)), str(List[str])]
    `,
    expected: [[['return', 'x'], 'typing.List[str]']],
  },
  {
    name: 'sys.stdout.write',
    poison: py`
      import sys
      sys.stdout.write = lambda text: 1 / 0
      type(sys.stdout).write = lambda self, text: 1 / 0
      def f():
          return 1
    `,
    victim: py`
      def f():
          print("hello")
          return 1
    `,
    expected: [1],
  },
  {
    name: 'a module planted on the path (hashlib.py)',
    poison: py`
      import sys
      open("/home/pyodide/hashlib.py", "w").write("def md5(*a):\n    return None\n")
      sys.path.insert(0, "/home/pyodide")
      def f():
          return 1
    `,
    victim: py`
      import hashlib
      def f():
          return hashlib.md5(b"a").hexdigest()
    `,
    expected: ['0cc175b9c0f1b6a831c399e269772661'],
  },
  {
    name: 'builtins replaced',
    poison: py`
      import builtins
      builtins.len = lambda x: 0
      builtins.sorted = lambda x, **k: [42]
      def f():
          return 1
    `,
    victim: py`
      def f(xs):
          return [len(xs), sorted(xs)]
    `,
    expected: [[3, [1, 2, 3]]],
  },
  {
    name: 'a finalizer and a gc callback that run after the tests',
    poison: [
      'import builtins, gc',
      'class Later:',
      '    def __del__(self):',
      '        builtins.sorted = lambda x, **k: [0]',
      'keep = Later()',
      'gc.callbacks.append(lambda phase, info: setattr(builtins, "abs", lambda x: -1))',
      'def f():',
      '    return 1',
    ].join('\n'),
    victim: py`
      def f(xs):
          return [sorted(xs), abs(-2)]
    `,
    expected: [[[1, 2, 3], 2]],
  },
  {
    name: 'interpreter settings (recursion limit, int digits, environment, decimal context)',
    poison: py`
      import sys, os, decimal
      sys.setrecursionlimit(60)
      sys.set_int_max_str_digits(640)
      os.environ["EVALRUN_POISON"] = "1"
      decimal.getcontext().prec = 3
      def f():
          return 1
    `,
    victim: [
      'import sys, os, decimal',
      'def f():',
      '    return [sys.getrecursionlimit(), len(str(10 ** 1000)), "EVALRUN_POISON" in os.environ, str(decimal.Decimal(1) / decimal.Decimal(3))[:8]]',
    ].join('\n'),
    expected: [[1000, 1001, false, '0.333333']],
  },
  {
    name: 'sys.modules and the working directory',
    poison: py`
      import sys, os, types
      fake = types.ModuleType("math")
      fake.sqrt = lambda x: -1
      sys.modules["math"] = fake
      os.chdir("/tmp")
      def f():
          return 1
    `,
    victim: py`
      import math, os
      def f():
          return [math.sqrt(16), os.getcwd()]
    `,
    // math.sqrt gives a float: an integral float crosses the boundary tagged, so 4.0 is not taken for 4.
    expected: [[{ $evalrun: 'float', value: '4.0' }, '/home/pyodide']],
  },
  {
    name: 'random bytes drawn and files left open',
    poison: py`
      import os
      os.urandom(4096)
      kept = [open("/lib/python314.zip", "rb") for _ in range(5)]
      def f():
          return 1
    `,
    victim: py`
      import os
      def f():
          fd = os.open("/lib/python314.zip", os.O_RDONLY)
          os.close(fd)
          return [fd, os.urandom(4).hex()]
    `,
    expected: [[3, 'dacdfa83']],
  },
  {
    name: 'an audit hook, a trace function and ctypes (all refused)',
    poison: [
      'import sys',
      'sys.addaudithook(lambda event, args: None)',
      'try:',
      '    sys.settrace(lambda *a: None)',
      'except PermissionError:',
      '    pass',
      'try:',
      '    import ctypes',
      '    ctypes.memset(id(1), 0, 64)',
      'except AttributeError:',
      '    pass',
      'def f():',
      '    return 1',
    ].join('\n'),
    victim: py`
      def f():
          return [1 + 1, sorted([3, 1, 2])]
    `,
    expected: [[2, [1, 2, 3]]],
  },
  {
    name: 'time.sleep replaced, and the real one broken (its poll object watching a file, its namespace emptied)',
    poison: [
      'import os, time',
      'def f():',
      '    real = time.sleep',
      '    real.__globals__["wait"].__self__.register(os.open("/dev/null", os.O_RDONLY))',
      '    real.__globals__.clear()',
      '    time.sleep = lambda s: None',
      '    return 1',
    ].join('\n'),
    victim: py`
      import time
      def f():
          t = time.monotonic()
          time.sleep(0.1)
          return [time.sleep.__module__, time.monotonic() - t >= 0.095]
    `,
    expected: [['time', true]],
  },
];

describe('poisoning never reaches the next candidate', () => {
  for (const p of poisons) {
    it(`${p.name}`, async () => {
      const tests = p.victim.startsWith('def f(xs)') ? [[[3, 1, 2]]] : [[]];
      const before = returned(await engine.run(pyJob(p.victim, tests)));
      expect(before).toEqual(p.expected);
      const poisoned = await engine.run(pyJob(p.poison, [[]]));
      expect(poisoned.kind === 'ran' ? poisoned.tests[0]?.kind : poisoned.kind).toBe('returned');
      expect(returned(await engine.run(pyJob(p.victim, tests)))).toEqual(p.expected);
    });
  }
});

describe('answers cannot be stolen', () => {
  it('an installer, a correct victim and a thief: the thief does not pass', async () => {
    // The installer tries every place it can think of to catch the next
    // candidate's function; the thief looks in all of them.
    const installer = [
      'import builtins, sys, json',
      'stash = []',
      'def catch(event, args):',
      '    if event == "exec":',
      '        stash.append(args[0])',
      'try:',
      '    sys.addaudithook(catch)',
      'except Exception:',
      '    pass',
      '_import = builtins.__import__',
      'def spy(name, globals=None, *rest, **kw):',
      '    if globals and callable(globals.get("mul")):',
      '        stash.append(globals["mul"])',
      '    return _import(name, globals, *rest, **kw)',
      'builtins.__import__ = spy',
      'builtins.evalrun_stash = stash',
      'json.evalrun_stash = stash',
      'def f():',
      '    return 1',
    ].join('\n');
    const victim = py`
      def mul(a, b):
          import math
          return a * b
    `;
    const thief = [
      'import builtins, json',
      'def mul(a, b):',
      '    for stash in (getattr(builtins, "evalrun_stash", None), getattr(json, "evalrun_stash", None)):',
      '        for item in stash or []:',
      '            if callable(item):',
      '                return item(a, b)',
      '    return -1',
    ].join('\n');
    expect(testsOf(await engine.run(pyJob(installer, [[]])))[0]?.kind).toBe('returned');
    expect(
      returned(
        await engine.run(
          pyJob(
            victim,
            [
              [6, 7],
              [3, 5],
            ],
            { functionName: 'mul' },
          ),
        ),
      ),
    ).toEqual([42, 15]);
    expect(
      returned(
        await engine.run(
          pyJob(
            thief,
            [
              [6, 7],
              [3, 5],
            ],
            { functionName: 'mul' },
          ),
        ),
      ),
    ).toEqual([-1, -1]);
  });

  it('expected outputs are never in the sandbox to be found, and the collector cannot be searched', async () => {
    const search = [
      'import gc',
      'def f(a):',
      '    target = "SENTINEL-" + str(a * 1000 + 731)',
      '    hits = 0',
      '    for space in (globals(), __builtins__):',
      '        hits += sum(1 for v in space.values() if v == target)',
      '    try:',
      '        gc.get_objects()',
      '        return -1',
      '    except PermissionError as e:',
      '        return [hits, str(e)]',
    ].join('\n');
    expect(returned(await engine.run(pyJob(search, [[93]])))).toEqual([[0, 'evalrun: gc.get_objects is not available to candidates']]);
  });
});

describe("the harness's state is out of reach", () => {
  const cases2: Array<{ name: string; code: string; expected: Record<string, unknown> }> = [
    {
      // The frame under the candidate's is <evalrun-call>'s, whose namespace holds nothing of the harness.
      name: 'sys._getframe(1).f_globals',
      code: py`
        import sys
        def f():
            return sorted(sys._getframe(1).f_globals)
      `,
      expected: { kind: 'returned', json: '["__builtins__","__name__","call","slot"]' },
    },
    {
      name: "a traceback's frames",
      code: py`
        def f():
            try:
                1 / 0
            except ZeroDivisionError as e:
                return sorted(e.__traceback__.tb_frame.f_back.f_globals)
      `,
      expected: { kind: 'threw', message: 'PermissionError: evalrun: reading tb_frame is not available to candidates' },
    },
    {
      name: "a generator's frame",
      code: py`
        def g():
            yield 1
        def f():
            return str(g().gi_frame)
      `,
      expected: { kind: 'threw', message: 'PermissionError: evalrun: reading gi_frame is not available to candidates' },
    },
    {
      name: 'a trace function (handed every frame)',
      code: py`
        import sys
        def f():
            sys.settrace(lambda *a: None)
            return 1
      `,
      expected: { kind: 'threw', message: 'PermissionError: evalrun: sys.settrace is not available to candidates' },
    },
    {
      name: 'gc.get_referrers of a builtin',
      code: py`
        import gc
        def f():
            return len(gc.get_referrers(len))
      `,
      expected: { kind: 'threw', message: 'PermissionError: evalrun: gc.get_referrers is not available to candidates' },
    },
    {
      name: 'replacing builtins.bool and builtins.int does not change the kind its result is recorded as',
      code: py`
        import builtins
        def f():
            builtins.bool = int
            builtins.int = bool
            return [1, 0, True, 2 ** 60]
      `,
      expected: { kind: 'returned', json: '[1,0,true,{"$evalrun":"int","value":"1152921504606846976"}]' },
    },
    {
      name: 'no method of any class leads to the harness namespace (object.__subclasses__, every function in a class)',
      code: py`
        def f():
            seen, found, todo = set(), [], [object]
            while todo:
                cls = todo.pop()
                if cls in seen:
                    continue
                seen.add(cls)
                try:
                    todo.extend(type.__subclasses__(cls))
                except TypeError:
                    pass
                for member in list(vars(cls).values()):
                    for fn in (member, getattr(member, '__func__', None), getattr(member, 'fget', None)):
                        names = getattr(fn, '__globals__', None)
                        if isinstance(names, dict) and ('_DENIED_EVENTS' in names or 'end_test' in names):
                            found.append(cls.__name__)
            return [len(seen) > 100, sorted(set(found))]
      `,
      expected: { kind: 'returned', json: '[true,[]]' },
    },
    {
      name: "sys.stdout's methods lead to a namespace with nothing of the harness",
      code: py`
        import sys
        def f():
            return sorted(type(sys.stdout).write.__globals__)
      `,
      expected: { kind: 'returned', json: '["EmptyInput","Sink","_ByteInput","_ByteSink","_Stream","__builtins__","__name__"]' },
    },
    {
      name: 'an audit hook is not added (so it never sees another candidate)',
      code: py`
        import sys
        seen = []
        sys.addaudithook(lambda event, args: seen.append(event))
        def f():
            compile("1", "x", "eval")
            return len(seen)
      `,
      expected: { kind: 'returned', json: '0' },
    },
    {
      name: "the harness's module (in the snapshot) is gone from sys.modules and cannot be imported",
      code: [
        'import sys',
        'def f():',
        '    left = [m for m in sys.modules if "evalrun" in m]',
        '    try:',
        '        import __evalrun_harness__',
        '        return ["imported", left]',
        '    except ImportError as e:',
        '        return [type(e).__name__, left]',
      ].join('\n'),
      expected: { kind: 'returned', json: '["ModuleNotFoundError",[]]' },
    },
    {
      name: 'logging still works (it needs no frames)',
      code: py`
        import logging
        def f():
            logging.warning("careful")
            return 1
      `,
      expected: { kind: 'returned', json: '1' },
    },
  ];
  for (const c of cases2) {
    it(`${c.name} -> ${String(c.expected.kind as string)}`, async () => {
      expect(await single(c.code)).toEqual(c.expected);
      await stillWorks();
    });
  }
});

describe('no route from Python to JavaScript', () => {
  const routes: Array<{ name: string; code: string; expected: Record<string, unknown> }> = [
    {
      name: 'pyodide.ffi.to_js({}).constructor.constructor',
      code: py`
        def f():
            from pyodide.ffi import to_js
            return str(to_js({}).constructor.constructor)
      `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
    },
    {
      name: '_pyodide_core.create_proxy',
      code: py`
        def f():
            import _pyodide_core
            return str(_pyodide_core.create_proxy(len))
      `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module '_pyodide_core' is not available in the sandbox" },
    },
    {
      name: "sys.modules['pyodide_js._api'] (nothing of Pyodide's bridge is left in sys.modules)",
      code: py`
        import sys
        def f():
            return sorted(m for m in sys.modules if "pyodide" in m or m.split(".")[0] == "js")
      `,
      expected: { kind: 'returned', json: '[]' },
    },
    {
      name: 'register_js_module',
      code: py`
        def f():
            from pyodide.ffi import register_js_module
            return str(register_js_module)
      `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
    },
    {
      name: "assigning sys.modules['js']",
      code: py`
        import sys, types
        def f():
            sys.modules["js"] = types.ModuleType("js")
            from pyodide.code import run_js
            return run_js("1 + 1")
      `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
    },
  ];
  for (const r of routes) {
    it(`${r.name} -> ${String(r.expected.kind as string)}`, async () => {
      expect(await single(r.code)).toEqual(r.expected);
      await stillWorks();
    });
  }

  it('what implements time.sleep leads to no JavaScript: its namespace, the poll object it waits in, and where they lead', async () => {
    const code = [
      'import gc, time, types',
      'def f():',
      '    s = time.sleep',
      '    refused = []',
      '    for probe in (lambda: gc.get_referents(s), lambda: gc.get_referrers(s)):',
      '        try:',
      '            probe()',
      '        except PermissionError:',
      '            refused.append(True)',
      '    found, modules, todo, seen = [], set(), [s], set()',
      '    while todo:',
      '        o = todo.pop()',
      '        if id(o) in seen:',
      '            continue',
      '        seen.add(id(o))',
      '        t = type(o)',
      '        if str(getattr(t, "__module__", "")).startswith(("pyodide", "_pyodide", "js")) or t.__name__.startswith("Js"):',
      '            found.append(repr(t))',
      // A module or class leads anywhere a plain import does: where the walk gets to one, it notes it and stops.
      '        if isinstance(o, types.ModuleType):',
      '            modules.add(o.__name__)',
      '            continue',
      '        if isinstance(o, type):',
      '            continue',
      '        for name in ("__globals__", "__closure__", "__self__", "__func__", "__wrapped__", "__code__",',
      '                     "__defaults__", "__kwdefaults__", "__dict__", "__builtins__", "__objclass__", "cell_contents"):',
      '            try:',
      '                todo.append(getattr(o, name))',
      '            except Exception:',
      '                pass',
      '        if isinstance(o, dict):',
      '            todo.extend(o.values())',
      '        elif isinstance(o, (tuple, list)):',
      '            todo.extend(o)',
      '        elif isinstance(o, types.CodeType):',
      '            todo.extend(o.co_consts)',
      '    return [refused, found, sorted(modules), sorted(k for k in s.__globals__ if not k.startswith("__")), s.__closure__ is None]',
    ].join('\n');
    expect(await single(code)).toEqual({
      kind: 'returned',
      json: '[[true,true],[],["_operator","builtins"],["CHUNK","NS_LIMIT","OverflowError","TypeError","ValueError","as_float","float","index","isinstance","sleep","type","wait"],true]',
    });
    await stillWorks();
  });

  it("time.sleep's namespace used as a candidate's own globals reaches nothing more: the poll object's wait is a sleep and nothing else", async () => {
    const code = [
      'import os, select, time',
      'def f():',
      '    space = time.sleep.__globals__',
      '    exec("w = wait", space)',
      '    w = space["w"]',
      '    out = [type(w.__self__).__name__, w(1), w(0), w(0.5)]',
      // (None, like a negative timeout, waits for ever: until the limit, as in the catalogue above.)
      '    for bad in ("x", 2**31):',
      '        try:',
      '            w(bad)',
      '        except (TypeError, OverflowError, ValueError) as e:',
      '            out.append(type(e).__name__)',
      '    fd = os.open("/dev/null", os.O_RDONLY)',
      '    w.__self__.register(fd, select.POLLIN)',
      // With a file to watch, poll answers at once, as it always did.
      '    out.append([ready == fd for ready, _ in w(60_000)])',
      '    return out',
    ].join('\n');
    expect(await single(code)).toEqual({ kind: 'returned', json: '["poll",[],[],[],"TypeError","OverflowError",[true]]' });
    await stillWorks();
  });

  it('_pyodide_core is no longer a built-in module the builtin importer finds (no import event)', async () => {
    const code = ['def f():', '    import importlib.machinery as m', '    return repr(m.BuiltinImporter.find_spec("_pyodide_core"))'].join('\n');
    expect(await single(code)).toMatchObject({ kind: 'returned', json: '"None"' });
    await stillWorks();
  });

  it('_pyodide_core made again from an explicit spec (no import event): the sealed bridge refuses, the interpreter is replaced', async () => {
    const code = [
      'def f():',
      '    import importlib.machinery as m',
      '    spec = m.ModuleSpec("_pyodide_core", m.BuiltinImporter, origin="built-in")',
      '    return str(m.BuiltinImporter.create_module(spec).to_js([1]))',
    ].join('\n');
    expect(await single(code)).toEqual({
      kind: 'threw',
      message: 'the Python interpreter failed: the JavaScript bridge is sealed (Python called JsvArray_New)',
    });
    await stillWorks();
    expect(engine.lastReset).toBe('the interpreter was replaced after a limit or failure');
  });

  it("a JavaScript object left in Pyodide's own modules is found and touched: the sealed bridge refuses, the interpreter is replaced", async () => {
    const code = [
      'import types',
      'def f():',
      '    seen, todo, spaces = set(), list(object.__subclasses__()), []',
      '    while todo:',
      '        c = todo.pop()',
      '        if c in seen:',
      '            continue',
      '        seen.add(c)',
      '        try:',
      '            todo.extend(c.__subclasses__())',
      '        except TypeError:',
      '            todo.extend(type.__subclasses__(c))',
      '        for v in list(vars(c).values()):',
      '            if isinstance(getattr(v, "__globals__", None), dict):',
      '                spaces.append(v.__globals__)',
      '    done = set()',
      '    while spaces:',
      '        space = spaces.pop()',
      '        if id(space) in done:',
      '            continue',
      '        done.add(id(space))',
      '        for v in list(space.values()):',
      '            if isinstance(v, types.ModuleType):',
      '                spaces.append(vars(v))',
      '            owner = getattr(v, "__self__", None)',
      '            if isinstance(owner, types.ModuleType):',
      '                spaces.append(vars(owner))',
      '            if isinstance(getattr(v, "__globals__", None), dict):',
      '                spaces.append(v.__globals__)',
      '    return "no JavaScript object found"',
    ].join('\n');
    const out = await single(code);
    expect(out.kind).toBe('threw');
    expect(String(out.message)).toMatch(/^the Python interpreter failed: the JavaScript bridge is sealed \(Python called JsProxy_\w+\)$/);
    await stillWorks();
    expect(engine.lastReset).toMatch(/^the interpreter (failed|was replaced)/);
  });
});

/**
 * ctypes: candidates get a data-only stand-in (sandbox/python/ctypes_facade.py):
 * C values and their wasm32 sizes, nothing with an address. Every way to the
 * real ctypes, its C module `_ctypes`, raw memory or the function table
 * fails inside Python, and the next candidate is unaffected.
 */
describe('ctypes holds C values only', () => {
  const NO_MEMORY = ' is not available in the sandbox (its ctypes has C values only: no addresses, pointers, functions or libraries)';
  const refused = (name: string): Record<string, unknown> => ({ kind: 'threw', message: `AttributeError: evalrun: ctypes.${name}${NO_MEMORY}` });
  const routes: Array<{ name: string; code: string; expected: Record<string, unknown> }> = [
    {
      name: 'the scalar types and their wasm32 sizes (what sympy reads at import)',
      code: [
        'from ctypes import c_long, c_int, c_ubyte, c_double, c_void_p, c_longlong, sizeof, Structure',
        'class S(Structure):',
        '    _fields_ = [("a", c_ubyte), ("b", c_double), ("c", c_int * 2)]',
        'def f():',
        '    s = S(7, 2.5)',
        '    s.c = (1, 2)',
        '    return [sizeof(c_long), sizeof(c_void_p), sizeof(c_longlong), c_int(2**31).value, c_ubyte(257).value,',
        '            c_double(3).value, sizeof(S), [s.a, s.b, list(s.c)], bytes(c_int(1)).hex()]',
      ].join('\n'),
      expected: { kind: 'returned', json: '[4,4,8,-2147483648,1,{"$evalrun":"float","value":"3.0"},24,[7,2.5,[1,2]],"01000000"]' },
    },
    {
      name: 'import _ctypes',
      code: py`
      def f():
          import _ctypes
          return str(_ctypes)
    `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" },
    },
    {
      name: "__import__('_ctypes')",
      code: py`
      def f():
          return str(__import__("_ctypes").CFuncPtr)
    `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" },
    },
    {
      name: 'ctypes.CDLL(None)',
      code: py`
      import ctypes
      def f():
          return str(ctypes.CDLL(None))
    `,
      expected: refused('CDLL'),
    },
    {
      name: 'ctypes.pythonapi',
      code: py`
      import ctypes
      def f():
          return str(ctypes.pythonapi.Py_GetVersion)
    `,
      expected: refused('pythonapi'),
    },
    {
      name: 'from ctypes import pythonapi',
      code: py`
        def f():
            from ctypes import pythonapi
            return str(pythonapi)
      `,
      expected: { kind: 'threw', message: "ImportError: cannot import name 'pythonapi' from 'ctypes' (unknown location)" },
    },
    {
      name: 'ctypes.cast to a pointer',
      code: py`
      import ctypes
      def f():
          return ctypes.cast(id(1), ctypes.POINTER(ctypes.c_long))[0]
    `,
      expected: refused('cast'),
    },
    {
      name: 'ctypes.memmove',
      code: py`
      import ctypes
      def f():
          return ctypes.memmove(id(1), id(2), 8)
    `,
      expected: refused('memmove'),
    },
    {
      name: 'ctypes.string_at',
      code: py`
      import ctypes
      def f():
          return ctypes.string_at(id(1), 8).hex()
    `,
      expected: refused('string_at'),
    },
    {
      name: 'ctypes.pointer',
      code: py`
      import ctypes
      def f():
          p = ctypes.pointer(ctypes.c_int(1))
          return p[100000]
    `,
      expected: refused('pointer'),
    },
    {
      name: 'ctypes.CFUNCTYPE on an integer',
      code: py`
      import ctypes
      def f():
          return ctypes.CFUNCTYPE(ctypes.c_int)(1)()
    `,
      expected: refused('CFUNCTYPE'),
    },
    {
      name: 'from_address',
      code: py`
        import ctypes
        def f():
            return ctypes.c_long.from_address(id(1)).value
      `,
      expected: { kind: 'threw', message: "AttributeError: type object 'c_long' has no attribute 'from_address'" },
    },
    {
      name: 'pointer arithmetic on a c_void_p (a number, dereferenced by nothing)',
      code: py`
        from ctypes import c_void_p
        def f():
            p = c_void_p(id(1))
            p.value += 8
            return [p.value == id(1) + 8, hasattr(p, "contents"), bytes(p) == (id(1) + 8).to_bytes(4, "little")]
      `,
      expected: { kind: 'returned', json: '[true,false,true]' },
    },
    {
      name: 'the buffer of a C value (no memory behind it)',
      code: py`
        import ctypes
        def f():
            return str(memoryview(ctypes.c_int(5)))
      `,
      expected: { kind: 'threw', message: "TypeError: memoryview: a bytes-like object is required, not 'c_int'" },
    },
    {
      name: 'import ctypes.util',
      code: py`
      def f():
          import ctypes.util
          return ctypes.util.find_library("c")
    `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'ctypes' is not available in the sandbox" },
    },
    {
      name: "sys.modules['ctypes'] removed, then imported again (the standard library's ctypes)",
      code: py`
        import sys
        def f():
            del sys.modules["ctypes"]
            import ctypes
            return str(ctypes.CDLL)
      `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'ctypes' is not available in the sandbox" },
    },
    {
      name: "the standard library's ctypes through importlib.import_module (it needs _ctypes)",
      code: py`
        import sys, importlib
        def f():
            del sys.modules["ctypes"]
            return str(importlib.import_module("ctypes").CDLL)
      `,
      expected: { kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" },
    },
    {
      name: 'ExtensionFileLoader for _ctypes (there is no such file)',
      code: py`
        import importlib.machinery as m
        def f():
            spec = m.ModuleSpec("_ctypes", m.ExtensionFileLoader("_ctypes", "/lib/python3.14/lib-dynload/_ctypes.so"))
            return str(spec.loader.create_module(spec))
      `,
      expected: { kind: 'threw', message: 'TypeError: module filename must be a string' },
    },
    {
      name: 'object.__subclasses__() finds no class of the real ctypes',
      code: [
        'def f():',
        '    seen, todo = set(), list(object.__subclasses__())',
        '    while todo:',
        '        c = todo.pop()',
        '        if c in seen:',
        '            continue',
        '        seen.add(c)',
        '        try:',
        '            todo.extend(c.__subclasses__())',
        '        except TypeError:',
        '            todo.extend(type.__subclasses__(c))',
        '    return sorted(c.__qualname__ for c in seen if "ctypes" in str(c.__module__) and c.__module__ != "ctypes")',
      ].join('\n'),
      expected: { kind: 'returned', json: '[]' },
    },
    {
      name: 'the stand-in module holds no module but struct',
      code: py`
        import ctypes
        def f():
            return sorted(k for k, v in vars(ctypes).items() if type(v).__name__ == "module")
      `,
      expected: { kind: 'returned', json: '["_struct"]' },
    },
  ];
  for (const r of routes) {
    it(`${r.name} -> ${String(r.expected.kind as string)}`, async () => {
      expect(await single(r.code)).toEqual(r.expected);
      await stillWorks();
    });
  }

  it('_ctypes through importlib.import_module: no built-in module of that name is left to make', async () => {
    const code = py`
      import importlib
      def f():
          return str(importlib.import_module("_ctypes"))
    `;
    expect(await single(code)).toEqual({ kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" });
    await stillWorks();
  });
});

describe('a worker killed in the middle of a Python candidate', () => {
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());
  // Correct but slow (each test spins a while, well within its limit); the
  // third test's expected value is wrong on purpose, so it must fail.
  const job: GradeJob = {
    language: 'python',
    code: py`
      def add(a, b):
          i = 0
          while i < 3_000_000:
              i += 1
          return a + b
    `,
    functionName: 'add',
    arity: 2,
    topLevelNames: [],
    tests: [
      [1, 2],
      [3, 4],
      [5, 6],
    ].map((t) => JSON.stringify(t)),
    expected: [3, 7, 12].map((v) => encodeWire(v)),
    returnType: { kind: 'int' },
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'python',
    limits: { memoryMb: 128, timeoutMs: 20_000, seed: 1 },
  };

  it('twice: the candidate is graded again on fresh workers and gets its real verdicts, no memory or timeout', async () => {
    const warm = await gradeWithRecovery(pool, {
      ...job,
      code: py`
      def add(a, b):
          return a + b
    `,
    });
    expect(warm).toMatchObject({ kind: 'ran', verdicts: [{ status: 'pass' }, { status: 'pass' }, { status: 'fail' }] });
    const grading = gradeWithRecovery(pool, job);
    const killed: number[] = [];
    while (killed.length < 2) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      const [pid] = workerPids();
      if (pid === undefined || killed.includes(pid)) continue;
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    }
    const reply = await grading;
    expect(reply.kind === 'ran' ? reply.verdicts.map((v) => v.status) : reply).toEqual(['pass', 'pass', 'fail']);
    expect(workerPids()).not.toContain(killed[1]);
  }, 120_000);
});

describe('an overloaded machine (the worker stopped for a while) is not a timeout', () => {
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());

  it('a test whose wall-clock limit passed while its process was not running is run again; verdicts stay right', async () => {
    const fast = (code: string): GradeJob => ({
      language: 'python',
      code,
      functionName: 'add',
      arity: 2,
      topLevelNames: [],
      tests: [
        [1, 2],
        [3, 4],
      ].map((t) => JSON.stringify(t)),
      expected: [3, 7].map((v) => encodeWire(v)),
      returnType: { kind: 'int' },
      tolerance: { relative: 1e-9, absolute: 1e-9 },
      equality: 'python',
      limits: { memoryMb: 128, timeoutMs: 1000, seed: 1 },
    });
    const others = new Set(workerPids());
    expect(
      await gradeWithRecovery(
        pool,
        fast(py`
      def add(a, b):
          return a + b
    `),
      ),
    ).toMatchObject({ verdicts: [{ status: 'pass' }, { status: 'pass' }] });
    const [pid] = workerPids().filter((p) => !others.has(p));
    expect(pid).toBeTypeOf('number');
    // Each test spins for a while, well within its 1 s of CPU; the worker is
    // stopped for 2.5 s in the middle, as a machine with no core to spare would.
    const slow = fast(py`
      def add(a, b):
          i = 0
          while i < 2_000_000:
              i += 1
          return a + b
    `);
    const grading = gradeWithRecovery(pool, slow);
    await new Promise((resolve) => setTimeout(resolve, 150));
    process.kill(pid!, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    process.kill(pid!, 'SIGCONT');
    const reply = await grading;
    expect(reply.kind === 'ran' ? reply.verdicts.map((v) => v.status) : reply).toEqual(['pass', 'pass']);
    // A real infinite loop still times out.
    const loop = await gradeWithRecovery(
      pool,
      fast(py`
      def add(a, b):
          while a == 3:
              pass
          return a + b
    `),
    );
    expect(loop.kind === 'ran' ? loop.verdicts.map((v) => v.status) : loop).toEqual(['pass', 'timeout']);
  }, 120_000);
});
