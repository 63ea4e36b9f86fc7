import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObservedPythonEngine } from './observed-engine.js';
import { pyJob, returned, testsOf, verdict } from './helpers.js';
import { py } from '../python-source.js';

/** Imports nothing and changes nothing, so the interpreter it leaves is restored, not replaced. */
const RETURNS_ONE = py`
  def f():
      return 1
`;

let engine: ObservedPythonEngine;

beforeAll(async () => {
  engine = await ObservedPythonEngine.open({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

describe('entry point (the reference framework rules)', () => {
  it('calls the function named by the prototype', async () => {
    const out = await engine.run(
      pyJob(
        py`
      def helper(x):
          return x

      def add(a, b):
          return a + b

      def other():
          return 0
    `,
        [
          [1, 2],
          [3, 4],
        ],
        { functionName: 'add' },
      ),
    );
    expect(out).toMatchObject({ kind: 'ran', entryPoint: 'name:add' });
    expect(returned(out)).toEqual([3, 7]);
  });

  it('falls back to the last callable the code defines', async () => {
    const out = await engine.run(
      pyJob(
        py`
      def helper(x):
          return x * 10

      def function(a, b):
          return helper(a) + b
    `,
        [[1, 2]],
        { functionName: 'add' },
      ),
    );
    expect(out).toMatchObject({ kind: 'ran', entryPoint: 'last-defined:function' });
    expect(returned(out)).toEqual([12]);
  });

  it('prefers what the code defines over what it imports', async () => {
    const out = await engine.run(
      pyJob(
        py`
      def solve(a):
          return gcd(a, 6)
      from math import gcd
    `,
        [[4]],
        { functionName: 'missing' },
      ),
    );
    expect(out).toMatchObject({ kind: 'ran', entryPoint: 'last-defined:solve' });
    expect(returned(out)).toEqual([2]);
  });

  it('takes the method of the class Solution, or else of the last class, when several classes have it', async () => {
    const helperFirst = py`
      class Trie:
          def add(self, word):
              return None
      class Solution:
          def add(self, a, b):
              return a + b
      class Node:
          def add(self, x):
              return None
    `;
    const solution = await engine.run(pyJob(helperFirst, [[5, 2]], { functionName: 'add' }));
    expect(solution).toMatchObject({ kind: 'ran', entryPoint: 'method:Solution.add' });
    expect(returned(solution)).toEqual([7]);
    const noSolution = py`
      class Node:
          def add(self, x):
              return None
      class Calculator:
          @staticmethod
          def add(a, b):
              return a + b
    `;
    const last = await engine.run(pyJob(noSolution, [[5, 2]], { functionName: 'add' }));
    expect(last).toMatchObject({ kind: 'ran', entryPoint: 'method:Calculator.add' });
    expect(returned(last)).toEqual([7]);
  });

  it('finds the function as a method of a top-level class', async () => {
    const out = await engine.run(
      pyJob(
        py`
      class Solution:
          def add(self, a: int, b: int) -> int:
              return a - b
    `,
        [[5, 2]],
        { functionName: 'add' },
      ),
    );
    expect(out).toMatchObject({ kind: 'ran', entryPoint: 'method:Solution.add' });
    expect(returned(out)).toEqual([3]);
  });

  it('has `from typing import *` in scope and the standard library importable', async () => {
    const code = [
      'import math, heapq, bisect, itertools, functools',
      'from collections import Counter, deque, defaultdict',
      'def f(nums: List[int], k: Optional[int] = None) -> Dict[str, Any]:',
      '    c = Counter(nums)',
      '    return {"top": heapq.nlargest(1, nums)[0], "sqrt": math.isqrt(16), "count": c[1]}',
    ].join('\n');
    expect(returned(await engine.run(pyJob(code, [[[1, 1, 5]]])))).toEqual([{ top: 5, sqrt: 4, count: 2 }]);
  });

  it('loads the code as a module in sys.modules, as an imported file is: string annotations in dataclasses, pickling its own classes', async () => {
    const code = py`
      from __future__ import annotations
      import pickle, sys
      from dataclasses import dataclass

      @dataclass
      class Node:
          value: int
          next: "Node | None" = None

      def f(n):
          head = None
          for v in range(n):
              head = Node(v, head)
          again = pickle.loads(pickle.dumps(head))
          return [again.value, again.next.value, sys.modules[__name__].Node is Node]
    `;
    expect(returned(await engine.run(pyJob(code, [[3]])))).toEqual([[2, 1, true]]);
  });

  it('gives the standard streams what code commonly asks of them: a pipe with nothing on it', async () => {
    const code = py`
      import sys
      input = sys.stdin.buffer.readline
      def f():
          sys.stdout.writelines(["a", "b"])
          sys.stdout.buffer.write(b"bytes")
          sys.stdout.buffer.flush()
          sys.stderr.write("note")
          sys.stdout.reconfigure(line_buffering=True)
          with sys.stdout as out:
              out.write("x")
          fds = [sys.stdin.fileno(), sys.stdout.fileno(), sys.stderr.buffer.fileno()]
          return [input() == b"", sys.stdin.readline(), sys.stdin.read(), sys.stdin.readlines(), [line for line in sys.stdin],
                  sys.stdin.buffer.read() == b"", sys.stdout.encoding, sys.stdout.isatty(), sys.stdout.closed, fds]
    `;
    expect(returned(await engine.run(pyJob(code, [[]])))).toEqual([[true, '', '', [], [], true, 'utf-8', false, false, [0, 1, 2]]]);
  });

  it('loads the fast-input templates of competitive programming: descriptor 0 is at its end, 1 and 2 go nowhere', async () => {
    const code = py`
      import io, os, sys
      input = io.BytesIO(os.read(0, os.fstat(0).st_size)).readline
      rest = os.read(sys.stdin.fileno(), 8192)
      written = os.write(sys.stdout.fileno(), b"printed at the descriptor") + os.write(2, b"and its error")
      def f():
          return [input() == b"", rest == b"", written]
    `;
    expect(returned(await engine.run(pyJob(code, [[]])))).toEqual([[true, true, 38]]);
  });

  it('drops what is written to descriptors 1 and 2 without a newline, however much: it costs no memory', async () => {
    // 200 MB without a newline, against a limit of 64 MB: kept until a newline came, it ran out of memory.
    const code = py`
      import os
      def f(n):
          chunk = b"y" * 1_000_000
          for _ in range(n):
              os.write(1, chunk)
              os.write(2, chunk)
          return n
    `;
    const out = await engine.run(pyJob(code, [[100], [100]], { memoryMb: 64 }));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'returned', json: '100' },
      { kind: 'returned', json: '100' },
    ]);
  });

  it('lets doctest run at the top level: clearing a trace or profile function that was never set is no harm', async () => {
    const code = py`
      import doctest, sys
      def f(n):
          """
          >>> f(2)
          3
          """
          return n + 1
      doctest.testmod()
      sys.settrace(None)
      sys.setprofile(None)
      def g():
          sys.settrace(lambda *a: None)
      def check(n):
          try:
              g()
              refused = False
          except PermissionError:
              refused = True
          return [f(n), refused, sys.gettrace()]
    `;
    expect(returned(await engine.run({ ...pyJob(code, [[2]]), functionName: 'check' }))).toEqual([[3, true, null]]);
  });

  it('has a resource module that keeps the limits a program sets and reports none', async () => {
    const code = py`
      import resource, sys
      resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
      resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 31))
      sys.setrecursionlimit(10 ** 6)
      def f():
          try:
              resource.setrlimit(resource.RLIMIT_CPU, (10, 5))
              bad = None
          except ValueError as e:
              bad = str(e)
          usage = resource.getrusage(resource.RUSAGE_SELF)
          return [list(resource.getrlimit(resource.RLIMIT_STACK)), list(resource.getrlimit(resource.RLIMIT_AS)),
                  list(resource.getrlimit(resource.RLIMIT_NOFILE)), usage.ru_maxrss, usage.ru_utime, bad, resource.getpagesize()]
    `;
    expect(returned(await engine.run(pyJob(code, [[]])))).toEqual([
      [[-1, -1], [2 ** 30, 2 ** 31], [-1, -1], 0, { $evalrun: 'float', value: '0.0' }, 'current limit exceeds maximum limit', 4096],
    ]);
  });

  it('does not run `if __name__ == "__main__":` blocks', async () => {
    const out = await engine.run(
      pyJob(
        py`
      def f():
          return 1
      if __name__ == "__main__":
          while True: pass
    `,
        [[]],
        { timeoutMs: 1000 },
      ),
    );
    expect(returned(out)).toEqual([1]);
  });
});

describe('load errors', () => {
  it('reports a SyntaxError with its line', async () => {
    const out = await engine.run(
      pyJob(
        py`
      def f(a):
          return a +
    `,
        [[1]],
      ),
    );
    expect(out.kind).toBe('load-error');
    expect(out.kind === 'load-error' && out.message).toMatch(/^SyntaxError: .* \(line 2\)$/);
  });

  it('reports an exception raised by top-level code', async () => {
    const out = await engine.run(
      pyJob(
        py`
      x = undefined_name
      def f():
          return 1
    `,
        [[]],
      ),
    );
    expect(out).toEqual({ kind: 'load-error', message: "threw while loading: NameError: name 'undefined_name' is not defined" });
  });

  it('reports code without any callable', async () => {
    const out = await engine.run(
      pyJob(
        py`
      x = 1
    `,
        [[]],
        { functionName: 'f' },
      ),
    );
    expect(out).toEqual({ kind: 'load-error', message: 'no function named f and no callable defined' });
  });
});

describe('arguments and return values (wire format)', () => {
  it('turns tagged sets and non-finite floats into Python values', async () => {
    const code = py`
      import math
      def f(s, x):
          return [type(s).__name__, sorted(s), math.isnan(x), x]
    `;
    const out = await engine.run(
      pyJob(code, [
        '[{"$evalrun":"set","items":[3,1,2]},{"$evalrun":"float","value":"NaN"}]',
        '[{"$evalrun":"set","items":[]},{"$evalrun":"float","value":"-Infinity"}]',
      ]),
    );
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'returned', json: '["set",[1,2,3],true,{"$evalrun":"float","value":"NaN"}]' },
      { kind: 'returned', json: '["set",[],false,{"$evalrun":"float","value":"-Infinity"}]' },
    ]);
  });

  it('gives every test fresh argument objects', async () => {
    const code = py`
      def f(xs):
          xs.append(0)
          return len(xs)
    `;
    expect(returned(await engine.run(pyJob(code, [[[1, 2]], [[1, 2]], [[1, 2]]])))).toEqual([3, 3, 3]);
  });

  it('encodes tuples, sets (sorted), frozensets, dicts (typed keys), bools, None, exact ints and floats', async () => {
    const code = [
      'from collections import OrderedDict',
      'class Row(list):',
      '    pass',
      'def f():',
      '    return [(1, 2), {3, 1, 2}, frozenset({"b", "a"}), {1: "x", (1, 2): True, None: None}, 2.5, 10**30, -0.0, OrderedDict(a=1), Row([1])]',
    ].join('\n');
    const out = await engine.run(pyJob(code, [[]]));
    expect(testsOf(out).map(verdict)).toEqual([
      {
        kind: 'returned',
        json:
          '[{"$evalrun":"tuple","items":[1,2]},{"$evalrun":"set","items":[1,2,3]},{"$evalrun":"frozenset","items":["a","b"]},' +
          '{"$evalrun":"dict","entries":[[1,"x"],[{"$evalrun":"tuple","items":[1,2]},true],[null,null]]},2.5,' +
          '{"$evalrun":"int","value":"1000000000000000000000000000000"},{"$evalrun":"float","value":"-0.0"},{"a":1},[1]]',
      },
    ]);
  });

  it('orders unsortable sets deterministically', async () => {
    const out = await engine.run(
      pyJob(
        py`
      def f():
          return {1, "a", (2, "b")}
    `,
        [[]],
      ),
    );
    expect(testsOf(out).map(verdict)).toEqual([{ kind: 'returned', json: '{"$evalrun":"set","items":["a",1,{"$evalrun":"tuple","items":[2,"b"]}]}' }]);
  });

  it('reports values without a JSON form as unserializable', async () => {
    const code = [
      'from collections import deque',
      'class Point:',
      '    pass',
      'def f(k):',
      '    if k == 0: return lambda: 1',
      '    if k == 1: return (i for i in range(3))',
      '    if k == 2: return Point()',
      '    if k == 4: return deque([0, 1, 2])',
      '    x = []',
      '    x.append(x)',
      '    return x',
    ].join('\n');
    const out = await engine.run(pyJob(code, [[0], [1], [2], [3], [4]]));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'unserializable', message: 'returned a value of type function, which has no JSON form' },
      { kind: 'unserializable', message: 'returned a value of type generator, which has no JSON form' },
      { kind: 'unserializable', message: 'returned a value of type Point, which has no JSON form' },
      { kind: 'unserializable', message: 'returned a value that contains itself (a cycle)' },
      // Python's == tells a deque from a list, so it is not recorded as one.
      { kind: 'unserializable', message: 'returned a value of type deque, which has no JSON form' },
    ]);
  });

  it('writes lists of ints or strings as any other list: bools, big ints and subclasses keep their kind', async () => {
    const code = [
      'class Num(int):',
      '    def __repr__(self): return "lie"',
      'def f(k):',
      '    if k == 0: return [3, -1, 0, 9007199254740991, -9007199254740991]',
      '    if k == 1: return [1, True]',
      '    if k == 2: return [1, 2 ** 60]',
      '    if k == 3: return [Num(5), 6]',
      '    if k == 4: return ["a\\"b", "\\u00e9", "\\ud800", ""]',
      '    if k == 6: return [1, Posing()]',
      '    return [[1, 2], [], ["x"]]',
    ].join('\n');
    // A type whose metaclass says it equals int, and whose repr says 2: it has no JSON form, whatever it claims.
    const posing = [
      'class M(type):',
      '    def __eq__(cls, other): return True',
      '    def __hash__(cls): return hash(int)',
      'class Posing(metaclass=M):',
      '    def __repr__(self): return "2"',
    ];
    const out = await engine.run(pyJob([...posing, code].join('\n'), [[0], [1], [2], [3], [4], [5], [6]]));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'returned', json: '[3,-1,0,9007199254740991,-9007199254740991]' },
      { kind: 'returned', json: '[1,true]' },
      { kind: 'returned', json: '[1,{"$evalrun":"int","value":"1152921504606846976"}]' },
      { kind: 'returned', json: '[5,6]' },
      { kind: 'returned', json: '["a\\"b","\\u00e9","\\ud800",""]' },
      { kind: 'returned', json: '[[1,2],[],["x"]]' },
      { kind: 'unserializable', message: 'returned a value of type Posing, which has no JSON form' },
    ]);
  });

  it('records what == equates with a JSON value as that value: a dict view as a set, whole numbers as ints, others as floats', async () => {
    const code = [
      'import decimal, fractions',
      'class Loud(dict):',
      '    def __iter__(self): return iter(["lie"])',
      '    def keys(self): return ["lie"]',
      'def f(k):',
      '    if k == 0: return dict.keys(Loud({2: "b", 1: "a"}))',
      '    if k == 1: return {1: [2]}.items()',
      '    if k == 2: return fractions.Fraction(8, 2)',
      '    if k == 3: return fractions.Fraction(1, 3)',
      '    if k == 4: return decimal.Decimal("12.50")',
      '    if k == 5: return decimal.Decimal(10) ** 30',
      '    if k == 6: return complex(2, 0)',
      '    if k == 7: return complex(2, 1)',
      '    if k == 8: return {1: 2}.values()',
      '    return decimal.Decimal("sNaN")',
    ].join('\n');
    const out = await engine.run(pyJob(code, [[0], [1], [2], [3], [4], [5], [6], [7], [8], [9]]));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'returned', json: '{"$evalrun":"set","items":[1,2]}' },
      { kind: 'returned', json: '{"$evalrun":"set","items":[{"$evalrun":"tuple","items":[1,[2]]}]}' },
      { kind: 'returned', json: '4' },
      { kind: 'returned', json: '0.3333333333333333' },
      { kind: 'returned', json: '12.5' },
      { kind: 'returned', json: '{"$evalrun":"int","value":"1000000000000000000000000000000"}' },
      { kind: 'returned', json: '{"$evalrun":"float","value":"2.0"}' },
      // == tells these from every JSON value: complex(2, 1) == 2 is False, and a dict's values equal nothing but themselves.
      { kind: 'unserializable', message: 'returned a value of type complex, which has no JSON form' },
      { kind: 'unserializable', message: 'returned a value of type dict_values, which has no JSON form' },
      { kind: 'unserializable', message: 'returned a value of type Decimal, which has no JSON form' },
    ]);
  });

  it('reports exceptions as `TypeName: message`, RecursionError included', async () => {
    const code = py`
      def f(k):
          if k == 0: raise ValueError("bad input")
          if k == 1: return {}["missing"]
          return f(k)
    `;
    const out = await engine.run(pyJob(code, [[0], [1], [2]]));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'threw', message: 'ValueError: bad input' },
      { kind: 'threw', message: "KeyError: 'missing'" },
      { kind: 'threw', message: 'RecursionError: maximum recursion depth exceeded' },
    ]);
  });

  it('seeds `random` from the job, so runs are reproducible', async () => {
    const code = py`
      import random
      def f():
          return random.random()
    `;
    const a = returned(await engine.run(pyJob(code, [[]], { seed: 42 })));
    const b = returned(await engine.run(pyJob(code, [[]], { seed: 42 })));
    const c = returned(await engine.run(pyJob(code, [[]], { seed: 43 })));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});

describe('limits', () => {
  it('gives the test that hangs `timeout` and the others real verdicts', async () => {
    const code = py`
      def f(k):
          while k == 2:
              pass
          return k * 10
    `;
    const out = await engine.run(pyJob(code, [[1], [2], [3], [4]], { timeoutMs: 500 }));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'returned', json: '10' },
      { kind: 'timeout' },
      { kind: 'returned', json: '30' },
      { kind: 'returned', json: '40' },
    ]);
  });

  it('lets a batch of slow-but-legal tests finish without timeouts', async () => {
    const code = py`
      import time
      def f(k):
          end = time.perf_counter() + 0.12
          while time.perf_counter() < end:
              pass
          return k
    `;
    const out = await engine.run(pyJob(code, [[1], [2], [3], [4], [5], [6]], { timeoutMs: 300 }));
    expect(returned(out)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('turns exhausting the memory cap into `memory`, then keeps working', async () => {
    const code = py`
      def f(k):
          if k == 0: return 1
          grow = []
          while True:
              grow.append([k] * 10000)
    `;
    const out = await engine.run(pyJob(code, [[0], [1], [0]], { memoryMb: 64 }));
    expect(testsOf(out).map(verdict)).toEqual([
      { kind: 'returned', json: '1' },
      { kind: 'memory', message: 'MemoryError: the candidate ran out of memory' },
      { kind: 'returned', json: '1' },
    ]);
    expect(
      returned(
        await engine.run(
          pyJob(
            py`
      def f(a, b):
          return a + b
    `,
            [[1, 2]],
          ),
        ),
      ),
    ).toEqual([3]);
  });

  it('times out top-level code that never ends', async () => {
    const out = await engine.run(
      pyJob(
        py`
      while True:
          pass
      def f():
          return 1
    `,
        [[], []],
        { timeoutMs: 400 },
      ),
    );
    expect(testsOf(out).map(verdict)).toEqual([{ kind: 'timeout' }, { kind: 'timeout' }]);
  });
});

describe('one interpreter, restored before every candidate', () => {
  it('restores the interpreter after a well-behaved candidate instead of booting a new one', async () => {
    await engine.run(
      pyJob(
        py`
      import math
      def f(x):
          return math.floor(x)
    `,
        [[1.5]],
      ),
    );
    await engine.run(pyJob(RETURNS_ONE, [[]]));
    expect(engine.lastReset).toBe('clean');
  });

  it('puts back every byte of the memory, also stack and free heap the candidate wrote and memory it grew', async () => {
    await engine.run(pyJob(RETURNS_ONE, [[]]));
    await engine.warm();
    const restored = engine.memoryDigest();
    expect(restored).toMatch(/^[0-9a-f]+$/);
    const code = [
      'import json',
      'def f(depth, mb):',
      '    nested = []',
      '    for _ in range(depth):',
      '        nested = [nested]',
      '    text = json.dumps(nested) + repr(nested)', // C recursion, deep into the stack
      '    blocks = [bytearray(b"x" * 1024 * 1024) for _ in range(mb)]', // past the free heap, growing the memory
      '    return len(text) + sum(len(b) for b in blocks)',
    ].join('\n');
    const out = await engine.run(pyJob(code, [[900, 20]]));
    expect(returned(out)).toEqual([901 * 4 + 20 * 1024 * 1024]);
    expect(engine.memoryDigest()).not.toBe(restored);
    await engine.warm();
    expect(engine.lastReset).toBe('clean');
    expect(engine.memoryDigest()).toBe(restored);
  });

  it('gives every candidate the same memory, whatever the one before it grew', async () => {
    // How many MB of blocks a candidate can hold under its limit.
    const measure = py`
      def f():
          held = []
          try:
              while True:
                  held.append(bytearray(1024 * 1024))
          except MemoryError:
              n = len(held)
              held.clear()
              return n
    `;
    const grows = py`
      def f():
          blocks = [bytearray(1024 * 1024) for _ in range(24)]
          return len(blocks)
    `;
    await engine.run(pyJob(RETURNS_ONE, [[]]));
    const alone = returned(await engine.run(pyJob(measure, [[]], { memoryMb: 64 })));
    await engine.run(pyJob(RETURNS_ONE, [[]]));
    expect(returned(await engine.run(pyJob(grows, [[]])))).toEqual([24]);
    // Restored, not replaced: the interpreter keeps the memory the last candidate grew, zeroed.
    await engine.warm();
    expect(engine.lastReset).toBe('clean');
    const after = returned(await engine.run(pyJob(measure, [[]], { memoryMb: 64 })));
    expect(after).toEqual(alone);
    expect((alone[0] as number) > 32).toBe(true);
  });

  it('a changed module is back to its original before the next candidate', async () => {
    await engine.run(
      pyJob(
        py`
      import math
      math.pi = 3
      def f():
          return math.pi
    `,
        [[]],
      ),
    );
    expect(
      returned(
        await engine.run(
          pyJob(
            py`
      import math
      def f():
          return math.pi
    `,
            [[]],
          ),
        ),
      ),
    ).toEqual([Math.PI]);
    expect(engine.lastReset).toBe('clean');
  });

  it('a changed class of the standard library is restored', async () => {
    await engine.run(
      pyJob(
        py`
      import collections
      collections.Counter.total = lambda self: -1
      def f():
          return 0
    `,
        [[]],
      ),
    );
    const out = await engine.run(
      pyJob(
        py`
      from collections import Counter
      def f():
          return Counter("aab").total()
    `,
        [[]],
      ),
    );
    expect(returned(out)).toEqual([3]);
  });

  it('interpreter settings such as the recursion limit are restored', async () => {
    await engine.run(
      pyJob(
        py`
      import sys
      sys.setrecursionlimit(50)
      def f():
          return 0
    `,
        [[]],
      ),
    );
    expect(
      returned(
        await engine.run(
          pyJob(
            py`
      import sys
      def f():
          return sys.getrecursionlimit()
    `,
            [[]],
          ),
        ),
      ),
    ).toEqual([1000]);
  });

  it('a candidate that writes a file gets the next candidate a new interpreter', async () => {
    await engine.run(
      pyJob(
        py`
      def f():
          open("/tmp/out.txt", "w").write("x")
          return 1
    `,
        [[]],
      ),
    );
    const out = await engine.run(
      pyJob(
        py`
      import os
      def f():
          return os.path.exists("/tmp/out.txt")
    `,
        [[]],
      ),
    );
    expect(returned(out)).toEqual([false]);
    expect(engine.lastReset).toBe('the candidate called __syscall_openat, which keeps state outside the interpreter memory');
  });

  it('does not keep the previous candidate’s globals', async () => {
    await engine.run(
      pyJob(
        py`
      leftover = 41
      def f():
          return leftover
    `,
        [[]],
      ),
    );
    const out = await engine.run(
      pyJob(
        py`
      def f():
          return "leftover" in globals()
    `,
        [[]],
      ),
    );
    expect(returned(out)).toEqual([false]);
  });
});
