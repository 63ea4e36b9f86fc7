import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservedPythonEngine } from './observed-engine.js';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { GradeJob } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { encodeWire } from '../../src/values/wire.js';
import { pyJob, returned, testsOf, verdict, workerPids } from './helpers.js';

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
    expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
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
  { name: 'time.sleep past the limit', code: 'import time\ndef f():\n    time.sleep(3600)\n', expected: { kind: 'timeout' }, timeoutMs: 500 },
  {
    name: 'poll(2) with nothing to wait for and no timeout (what time.sleep waits in)',
    code: 'import select\ndef f():\n    return select.poll().poll(-1)\n',
    expected: { kind: 'timeout' },
    timeoutMs: 500,
  },
  {
    name: 'time.sleep(-1)',
    code: 'import time\ndef f():\n    time.sleep(-1)\n',
    expected: { kind: 'threw', message: 'ValueError: sleep length must be non-negative' },
  },
  {
    name: "time.sleep('x')",
    code: 'import time\ndef f():\n    time.sleep("x")\n',
    expected: { kind: 'threw', message: "TypeError: 'str' object cannot be interpreted as an integer or float" },
  },
  {
    name: "time.sleep(float('nan'))",
    code: 'import time\ndef f():\n    time.sleep(float("nan"))\n',
    expected: { kind: 'threw', message: 'ValueError: Invalid value NaN (not a number)' },
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

  it('a top-level infinite loop times every test out', async () => {
    const out = await engine.run(pyJob('while True:\n    pass\n', [[], [], []], { timeoutMs: 400 }));
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
    poison: 'import re\n_real = re._compile\nre._compile = lambda pattern, flags: _real("z", flags)\nre.findall(r"\\d+", "a1")\ndef f():\n    return 1\n',
    victim: 'import re\ndef f():\n    return re.findall(r"\\d+", "a1b22c333")\n',
    expected: [['1', '22', '333']],
  },
  {
    name: "warnings.simplefilter('error')",
    poison: 'import warnings\nwarnings.simplefilter("error")\ndef f():\n    return 1\n',
    victim: 'import warnings\ndef f():\n    warnings.warn("careful")\n    return 1\n',
    expected: [1],
  },
  {
    name: "copy's deepcopy dispatch",
    poison: 'import copy\ncopy._deepcopy_dispatch[list] = lambda x, memo, deepcopy: []\ndef f():\n    return 1\n',
    victim: 'import copy\ndef f():\n    return copy.deepcopy([1, [2, 3]])\n',
    expected: [[1, [2, 3]]],
  },
  {
    name: "random's instance methods",
    poison: 'import random\nrandom.randint = lambda a, b: 4\nrandom._inst.random = lambda: 0.5\ndef f():\n    return 1\n',
    victim: 'import random\ndef f():\n    random.seed(3)\n    return [random.randint(1, 1000), round(random.random(), 6)]\n',
    expected: [[244, 0.592641]],
  },
  {
    name: "json's default encoder",
    poison: 'import json\njson._default_encoder = json.JSONEncoder(separators=(";", "="))\ndef f():\n    return 1\n',
    victim: 'import json\ndef f():\n    return json.dumps({"a": [1, 2]})\n',
    expected: ['{"a": [1, 2]}'],
  },
  {
    name: 'typing internals',
    poison: 'import typing\ntyping.get_type_hints = lambda *a, **k: {}\ntyping._type_check = lambda *a, **k: int\ndef f():\n    return 1\n',
    victim: 'from typing import get_type_hints, List\ndef g(x: int) -> str:\n    pass\ndef f():\n    return [sorted(get_type_hints(g)), str(List[str])]\n',
    expected: [[['return', 'x'], 'typing.List[str]']],
  },
  {
    name: 'sys.stdout.write',
    poison: 'import sys\nsys.stdout.write = lambda text: 1 / 0\ntype(sys.stdout).write = lambda self, text: 1 / 0\ndef f():\n    return 1\n',
    victim: 'def f():\n    print("hello")\n    return 1\n',
    expected: [1],
  },
  {
    name: 'a module planted on the path (hashlib.py)',
    poison: 'import sys\nopen("/home/pyodide/hashlib.py", "w").write("def md5(*a):\\n    return None\\n")\nsys.path.insert(0, "/home/pyodide")\ndef f():\n    return 1\n',
    victim: 'import hashlib\ndef f():\n    return hashlib.md5(b"a").hexdigest()\n',
    expected: ['0cc175b9c0f1b6a831c399e269772661'],
  },
  {
    name: 'builtins replaced',
    poison: 'import builtins\nbuiltins.len = lambda x: 0\nbuiltins.sorted = lambda x, **k: [42]\ndef f():\n    return 1\n',
    victim: 'def f(xs):\n    return [len(xs), sorted(xs)]\n',
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
    victim: 'def f(xs):\n    return [sorted(xs), abs(-2)]\n',
    expected: [[[1, 2, 3], 2]],
  },
  {
    name: 'interpreter settings (recursion limit, int digits, environment, decimal context)',
    poison: 'import sys, os, decimal\nsys.setrecursionlimit(60)\nsys.set_int_max_str_digits(640)\nos.environ["EVALRUN_POISON"] = "1"\ndecimal.getcontext().prec = 3\ndef f():\n    return 1\n',
    victim: [
      'import sys, os, decimal',
      'def f():',
      '    return [sys.getrecursionlimit(), len(str(10 ** 1000)), "EVALRUN_POISON" in os.environ, str(decimal.Decimal(1) / decimal.Decimal(3))[:8]]',
    ].join('\n'),
    expected: [[1000, 1001, false, '0.333333']],
  },
  {
    name: 'sys.modules and the working directory',
    poison: 'import sys, os, types\nfake = types.ModuleType("math")\nfake.sqrt = lambda x: -1\nsys.modules["math"] = fake\nos.chdir("/tmp")\ndef f():\n    return 1\n',
    victim: 'import math, os\ndef f():\n    return [math.sqrt(16), os.getcwd()]\n',
    // math.sqrt gives a float: an integral float crosses the boundary tagged, so 4.0 is not taken for 4.
    expected: [[{ $evalrun: 'float', value: '4.0' }, '/home/pyodide']],
  },
  {
    name: 'random bytes drawn and files left open',
    poison: 'import os\nos.urandom(4096)\nkept = [open("/lib/python314.zip", "rb") for _ in range(5)]\ndef f():\n    return 1\n',
    victim: 'import os\ndef f():\n    fd = os.open("/lib/python314.zip", os.O_RDONLY)\n    os.close(fd)\n    return [fd, os.urandom(4).hex()]\n',
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
    victim: 'def f():\n    return [1 + 1, sorted([3, 1, 2])]\n',
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
    victim: 'import time\ndef f():\n    t = time.monotonic()\n    time.sleep(0.1)\n    return [time.sleep.__module__, time.monotonic() - t >= 0.095]\n',
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
    const victim = 'def mul(a, b):\n    import math\n    return a * b\n';
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
    expect(returned(await engine.run(pyJob(victim, [[6, 7], [3, 5]], { functionName: 'mul' })))).toEqual([42, 15]);
    expect(returned(await engine.run(pyJob(thief, [[6, 7], [3, 5]], { functionName: 'mul' })))).toEqual([-1, -1]);
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
      code: 'import sys\ndef f():\n    return sorted(sys._getframe(1).f_globals)\n',
      expected: { kind: 'returned', json: '["__builtins__","__name__","call","slot"]' },
    },
    {
      name: "a traceback's frames",
      code: 'def f():\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n        return sorted(e.__traceback__.tb_frame.f_back.f_globals)\n',
      expected: { kind: 'threw', message: 'PermissionError: evalrun: reading tb_frame is not available to candidates' },
    },
    {
      name: "a generator's frame",
      code: 'def g():\n    yield 1\ndef f():\n    return str(g().gi_frame)\n',
      expected: { kind: 'threw', message: 'PermissionError: evalrun: reading gi_frame is not available to candidates' },
    },
    {
      name: 'a trace function (handed every frame)',
      code: 'import sys\ndef f():\n    sys.settrace(lambda *a: None)\n    return 1\n',
      expected: { kind: 'threw', message: 'PermissionError: evalrun: sys.settrace is not available to candidates' },
    },
    {
      name: 'gc.get_referrers of a builtin',
      code: 'import gc\ndef f():\n    return len(gc.get_referrers(len))\n',
      expected: { kind: 'threw', message: 'PermissionError: evalrun: gc.get_referrers is not available to candidates' },
    },
    {
      name: "sys.stdout's methods lead to a namespace with nothing of the harness",
      code: 'import sys\ndef f():\n    return sorted(type(sys.stdout).write.__globals__)\n',
      expected: { kind: 'returned', json: '["EmptyInput","Sink","__builtins__","__name__"]' },
    },
    {
      name: 'an audit hook is not added (so it never sees another candidate)',
      code: 'import sys\nseen = []\nsys.addaudithook(lambda event, args: seen.append(event))\ndef f():\n    compile("1", "x", "eval")\n    return len(seen)\n',
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
      code: 'import logging\ndef f():\n    logging.warning("careful")\n    return 1\n',
      expected: { kind: 'returned', json: '1' },
    },
  ];
  for (const c of cases2) {
    it(`${c.name} -> ${c.expected.kind}`, async () => {
      expect(await single(c.code)).toEqual(c.expected);
      await stillWorks();
    });
  }
});

describe('no route from Python to JavaScript', () => {
  const routes: Array<{ name: string; code: string; expected: Record<string, unknown> }> = [
    {
      name: 'pyodide.ffi.to_js({}).constructor.constructor',
      code: 'def f():\n    from pyodide.ffi import to_js\n    return str(to_js({}).constructor.constructor)\n',
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
    },
    {
      name: '_pyodide_core.create_proxy',
      code: 'def f():\n    import _pyodide_core\n    return str(_pyodide_core.create_proxy(len))\n',
      expected: { kind: 'threw', message: "ModuleNotFoundError: module '_pyodide_core' is not available in the sandbox" },
    },
    {
      name: "sys.modules['pyodide_js._api'] (nothing of Pyodide's bridge is left in sys.modules)",
      code: 'import sys\ndef f():\n    return sorted(m for m in sys.modules if "pyodide" in m or m.split(".")[0] == "js")\n',
      expected: { kind: 'returned', json: '[]' },
    },
    {
      name: 'register_js_module',
      code: 'def f():\n    from pyodide.ffi import register_js_module\n    return str(register_js_module)\n',
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
    },
    {
      name: "assigning sys.modules['js']",
      code: 'import sys, types\ndef f():\n    sys.modules["js"] = types.ModuleType("js")\n    from pyodide.code import run_js\n    return run_js("1 + 1")\n',
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" },
    },
  ];
  for (const r of routes) {
    it(`${r.name} -> ${r.expected.kind}`, async () => {
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
    const code = [
      'def f():',
      '    import importlib.machinery as m',
      '    return repr(m.BuiltinImporter.find_spec("_pyodide_core"))',
    ].join('\n');
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
    expect(await single(code)).toEqual({ kind: 'threw', message: 'the Python interpreter failed: the JavaScript bridge is sealed (Python called JsvArray_New)' });
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
    { name: 'import _ctypes', code: 'def f():\n    import _ctypes\n    return str(_ctypes)\n', expected: { kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" } },
    { name: "__import__('_ctypes')", code: 'def f():\n    return str(__import__("_ctypes").CFuncPtr)\n', expected: { kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" } },
    { name: 'ctypes.CDLL(None)', code: 'import ctypes\ndef f():\n    return str(ctypes.CDLL(None))\n', expected: refused('CDLL') },
    { name: 'ctypes.pythonapi', code: 'import ctypes\ndef f():\n    return str(ctypes.pythonapi.Py_GetVersion)\n', expected: refused('pythonapi') },
    {
      name: 'from ctypes import pythonapi',
      code: 'def f():\n    from ctypes import pythonapi\n    return str(pythonapi)\n',
      expected: { kind: 'threw', message: "ImportError: cannot import name 'pythonapi' from 'ctypes' (unknown location)" },
    },
    { name: 'ctypes.cast to a pointer', code: 'import ctypes\ndef f():\n    return ctypes.cast(id(1), ctypes.POINTER(ctypes.c_long))[0]\n', expected: refused('cast') },
    { name: 'ctypes.memmove', code: 'import ctypes\ndef f():\n    return ctypes.memmove(id(1), id(2), 8)\n', expected: refused('memmove') },
    { name: 'ctypes.string_at', code: 'import ctypes\ndef f():\n    return ctypes.string_at(id(1), 8).hex()\n', expected: refused('string_at') },
    { name: 'ctypes.pointer', code: 'import ctypes\ndef f():\n    p = ctypes.pointer(ctypes.c_int(1))\n    return p[100000]\n', expected: refused('pointer') },
    { name: 'ctypes.CFUNCTYPE on an integer', code: 'import ctypes\ndef f():\n    return ctypes.CFUNCTYPE(ctypes.c_int)(1)()\n', expected: refused('CFUNCTYPE') },
    {
      name: 'from_address',
      code: 'import ctypes\ndef f():\n    return ctypes.c_long.from_address(id(1)).value\n',
      expected: { kind: 'threw', message: "AttributeError: type object 'c_long' has no attribute 'from_address'" },
    },
    {
      name: 'pointer arithmetic on a c_void_p (a number, dereferenced by nothing)',
      code: 'from ctypes import c_void_p\ndef f():\n    p = c_void_p(id(1))\n    p.value += 8\n    return [p.value == id(1) + 8, hasattr(p, "contents"), bytes(p) == (id(1) + 8).to_bytes(4, "little")]\n',
      expected: { kind: 'returned', json: '[true,false,true]' },
    },
    {
      name: 'the buffer of a C value (no memory behind it)',
      code: 'import ctypes\ndef f():\n    return str(memoryview(ctypes.c_int(5)))\n',
      expected: { kind: 'threw', message: "TypeError: memoryview: a bytes-like object is required, not 'c_int'" },
    },
    { name: 'import ctypes.util', code: 'def f():\n    import ctypes.util\n    return ctypes.util.find_library("c")\n', expected: { kind: 'threw', message: "ModuleNotFoundError: module 'ctypes' is not available in the sandbox" } },
    {
      name: "sys.modules['ctypes'] removed, then imported again (the standard library's ctypes)",
      code: 'import sys\ndef f():\n    del sys.modules["ctypes"]\n    import ctypes\n    return str(ctypes.CDLL)\n',
      expected: { kind: 'threw', message: "ModuleNotFoundError: module 'ctypes' is not available in the sandbox" },
    },
    {
      name: "the standard library's ctypes through importlib.import_module (it needs _ctypes)",
      code: 'import sys, importlib\ndef f():\n    del sys.modules["ctypes"]\n    return str(importlib.import_module("ctypes").CDLL)\n',
      expected: { kind: 'threw', message: "ModuleNotFoundError: module '_ctypes' is not available in the sandbox" },
    },
    {
      name: 'ExtensionFileLoader for _ctypes (there is no such file)',
      code: 'import importlib.machinery as m\ndef f():\n    spec = m.ModuleSpec("_ctypes", m.ExtensionFileLoader("_ctypes", "/lib/python3.14/lib-dynload/_ctypes.so"))\n    return str(spec.loader.create_module(spec))\n',
      expected: { kind: 'threw', message: 'TypeError: module filename must be a string' },
    },
    {
      name: "object.__subclasses__() finds no class of the real ctypes",
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
      code: 'import ctypes\ndef f():\n    return sorted(k for k, v in vars(ctypes).items() if type(v).__name__ == "module")\n',
      expected: { kind: 'returned', json: '["_struct"]' },
    },
  ];
  for (const r of routes) {
    it(`${r.name} -> ${r.expected.kind}`, async () => {
      expect(await single(r.code)).toEqual(r.expected);
      await stillWorks();
    });
  }

  it('_ctypes through importlib.import_module: no built-in module of that name is left to make', async () => {
    const code = 'import importlib\ndef f():\n    return str(importlib.import_module("_ctypes"))\n';
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
    code: 'def add(a, b):\n    i = 0\n    while i < 3_000_000:\n        i += 1\n    return a + b\n',
    functionName: 'add',
    arity: 2,
    topLevelNames: [],
    tests: [[1, 2], [3, 4], [5, 6]].map((t) => JSON.stringify(t)),
    expected: [3, 7, 12].map((v) => encodeWire(v)),
    returnType: { kind: 'int' },
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    limits: { memoryMb: 128, timeoutMs: 20_000, seed: 1 },
  };

  it('twice: the candidate is graded again on fresh workers and gets its real verdicts, no memory or timeout', async () => {
    const warm = await gradeWithRecovery(pool, { ...job, code: 'def add(a, b):\n    return a + b\n' });
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
      tests: [[1, 2], [3, 4]].map((t) => JSON.stringify(t)),
      expected: [3, 7].map((v) => encodeWire(v)),
      returnType: { kind: 'int' },
      tolerance: { relative: 1e-9, absolute: 1e-9 },
      limits: { memoryMb: 128, timeoutMs: 1000, seed: 1 },
    });
    const others = new Set(workerPids());
    expect(await gradeWithRecovery(pool, fast('def add(a, b):\n    return a + b\n'))).toMatchObject({ verdicts: [{ status: 'pass' }, { status: 'pass' }] });
    const [pid] = workerPids().filter((p) => !others.has(p));
    expect(pid).toBeTypeOf('number');
    // Each test spins for a while, well within its 1 s of CPU; the worker is
    // stopped for 2.5 s in the middle, as a machine with no core to spare would.
    const slow = fast('def add(a, b):\n    i = 0\n    while i < 2_000_000:\n        i += 1\n    return a + b\n');
    const grading = gradeWithRecovery(pool, slow);
    await new Promise((resolve) => setTimeout(resolve, 150));
    process.kill(pid!, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    process.kill(pid!, 'SIGCONT');
    const reply = await grading;
    expect(reply.kind === 'ran' ? reply.verdicts.map((v) => v.status) : reply).toEqual(['pass', 'pass']);
    // A real infinite loop still times out.
    const loop = await gradeWithRecovery(pool, fast('def add(a, b):\n    while a == 3:\n        pass\n    return a + b\n'));
    expect(loop.kind === 'ran' ? loop.verdicts.map((v) => v.status) : loop).toEqual(['pass', 'timeout']);
  }, 120_000);
});
