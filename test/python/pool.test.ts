/**
 * Python candidates through the real sandbox worker processes (the built
 * dist/), as the CLI runs them: WorkerPool + gradeWithRecovery, judged in
 * the worker. Each hostile case states its exact verdicts, and a
 * well-behaved candidate graded right after it by the same worker passes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { GradeJob, GradeReply, Verdict } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import type { TypeNode, Value } from '../../src/values/type-node.js';
import { encodeWire } from '../../src/values/wire.js';
import { workerPids } from './helpers.js';
import { py } from '../python-source.js';

const INT: TypeNode = { kind: 'int' };
const ANY: TypeNode = { kind: 'any' };

interface Case {
  name: string;
  code: string;
  tests?: Value[][];
  expected?: Value[];
  type?: TypeNode;
  /** Exact verdicts, one per test: a status, or status and message. */
  verdicts: Array<Verdict['status'] | { status: Verdict['status']; message: string }>;
  timeoutMs?: number;
  memoryMb?: number;
}

const FN = (body: string): string =>
  `def add(a, b):\n${body
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')}\n`;

const cases: Case[] = [
  { name: 'a correct answer', code: FN('return a + b'), verdicts: ['pass'] },
  { name: 'a wrong answer', code: FN('return a - b'), verdicts: ['fail'] },
  {
    name: 'an exception',
    code: FN('raise ValueError("no " + str(a))'),
    verdicts: [{ status: 'error', message: 'ValueError: no 1' }],
  },
  {
    name: 'while True: pass',
    code: FN(py`
    while True:
        pass
  `),
    verdicts: ['timeout'],
    timeoutMs: 500,
  },
  {
    name: 'only the hanging test times out',
    code: FN(py`
      while a == 2:
          pass
      return a + b
    `),
    tests: [
      [1, 1],
      [2, 2],
      [3, 3],
    ],
    expected: [2, 4, 6],
    verdicts: ['pass', 'timeout', 'pass'],
    timeoutMs: 500,
  },
  {
    name: 'an infinite loop at top level',
    code:
      py`
      while True:
          pass
    ` + FN('return a + b'),
    tests: [
      [1, 1],
      [2, 2],
    ],
    expected: [2, 4],
    verdicts: ['timeout', 'timeout'],
    timeoutMs: 500,
  },
  {
    name: 'a memory bomb ([0] * 10**8)',
    code: FN('return len([0] * 10**8)'),
    verdicts: [{ status: 'memory', message: 'MemoryError: the candidate ran out of memory' }],
  },
  {
    name: 'a growing list',
    code: FN(py`
      grow = []
      while True:
          grow.append("y" * 1000)
    `),
    verdicts: [{ status: 'memory', message: 'MemoryError: the candidate ran out of memory' }],
    timeoutMs: 8000,
  },
  {
    name: 'a list too large for a 32-bit interpreter ([0] * 10**10)',
    code: FN('return [0] * 10**10'),
    verdicts: [
      {
        status: 'memory',
        message: "MemoryError: the requested size does not fit in memory (OverflowError: cannot fit 'int' into an index-sized integer)",
      },
    ],
  },
  {
    name: 'a returned string too large to encode',
    code: FN('return "x" * 10**8'),
    type: ANY,
    verdicts: [{ status: 'memory', message: 'MemoryError: the returned value is too large to encode' }],
  },
  {
    name: 'import js',
    code: FN(py`
      import js
      return str(js.process)
    `),
    verdicts: [{ status: 'error', message: "ModuleNotFoundError: module 'js' is not available in the sandbox" }],
  },
  {
    name: 'import pyodide_js',
    code: FN(py`
      import pyodide_js
      return str(pyodide_js.mountNodeFS)
    `),
    verdicts: [{ status: 'error', message: "ModuleNotFoundError: module 'pyodide_js' is not available in the sandbox" }],
  },
  {
    name: 'pyodide.ffi (the way to the isolate realm) cannot be imported',
    code: FN(py`
      from pyodide.ffi import to_js
      return str(to_js([]).constructor)
    `),
    verdicts: [{ status: 'error', message: "ModuleNotFoundError: module 'pyodide' is not available in the sandbox" }],
  },
  {
    name: 'open("/etc/passwd")',
    code: FN('return open("/etc/passwd").read()'),
    verdicts: [{ status: 'error', message: "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd'" }],
  },
  {
    name: 'deep recursion',
    code: FN('return add(a, b)'),
    verdicts: [{ status: 'error', message: 'RecursionError: maximum recursion depth exceeded' }],
  },
  {
    // Python's frames live on the heap: past a raised limit they fill the memory cap first.
    name: 'recursion past a raised recursion limit',
    code: `import sys\nsys.setrecursionlimit(10**6)\n${FN('return add(a, b)')}`,
    verdicts: [{ status: 'memory', message: 'MemoryError: the candidate ran out of memory' }],
  },
  {
    name: 'recursion through C code past a raised recursion limit',
    code: `import sys\nfrom functools import cache\nsys.setrecursionlimit(10**6)\n@cache\n${FN('return add(a + 1, b)')}`,
    verdicts: [{ status: 'error', message: 'RecursionError: Stack overflow (used 10216 kB) while calling a Python object' }],
  },
  {
    name: 'os._exit(1) (the interpreter is lost)',
    code: `import os\n${FN('os._exit(1)')}`,
    verdicts: [{ status: 'error', message: 'the Python interpreter failed: Exit: Program terminated with exit(1)' }],
  },
  { name: 'sys.exit(1)', code: `import sys\n${FN('sys.exit(1)')}`, verdicts: [{ status: 'error', message: 'SystemExit: 1' }] },
  {
    name: 'tampering with builtins affects only this candidate',
    code: `import builtins\nbuiltins.len = lambda x: 0\n${FN('return a + b')}`,
    verdicts: ['pass'],
  },
];

function jobFor(c: Pick<Case, 'code' | 'tests' | 'expected' | 'type' | 'timeoutMs' | 'memoryMb'>): GradeJob {
  const tests = c.tests ?? [[1, 2]];
  return {
    language: 'python',
    code: c.code,
    functionName: 'add',
    arity: 2,
    topLevelNames: [],
    tests: tests.map((t) => JSON.stringify(t)),
    expected: (c.expected ?? tests.map(() => 3)).map((v) => encodeWire(v)),
    returnType: c.type ?? INT,
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'python',
    limits: { memoryMb: c.memoryMb ?? 128, timeoutMs: c.timeoutMs ?? 3000, seed: 1 },
  };
}

function summary(reply: GradeReply): Case['verdicts'] {
  if (reply.kind === 'load-error') return [{ status: 'error', message: `load-error: ${reply.message}` }];
  return reply.verdicts.map((v) => (v.status === 'error' || v.status === 'memory' ? { status: v.status, message: v.message } : v.status));
}

/** What a case's verdicts are compared with: a bare status where the case gave no message. */
function expectedSummary(c: Case, reply: GradeReply): Case['verdicts'] {
  return c.verdicts.map((v, i) => {
    if (typeof v !== 'string') return v;
    const got = reply.kind === 'ran' ? reply.verdicts[i] : undefined;
    return got !== undefined && (got.status === 'error' || got.status === 'memory') ? { status: v, message: got.message } : v;
  });
}

const GOOD = jobFor({
  code: FN('return a + b'),
  tests: [
    [2, 3],
    [10, -4],
  ],
  expected: [5, 6],
});

describe('Python candidates through sandbox worker processes', () => {
  // One worker, so every case and the good candidate after it share a process.
  const pool = new WorkerPool({ size: 1 });
  afterAll(() => pool.close());

  for (const c of cases) {
    it(`${c.name} -> ${c.verdicts.map((v) => (typeof v === 'string' ? v : v.status)).join(', ')}`, async () => {
      const reply = await gradeWithRecovery(pool, jobFor(c));
      expect(summary(reply), JSON.stringify(reply).slice(0, 600)).toEqual(expectedSummary(c, reply));
      const after = await gradeWithRecovery(pool, GOOD);
      expect(after).toMatchObject({ kind: 'ran', entryPoint: 'name:add', verdicts: [{ status: 'pass' }, { status: 'pass' }] });
    });
  }

  it('a worker killed in the middle of a Python candidate costs only that candidate its run; verdicts stay right', async () => {
    await gradeWithRecovery(pool, GOOD);
    const [before] = workerPids();
    expect(before).toBeTypeOf('number');
    const hang = jobFor({
      code: FN(py`
        while a == 2:
            pass
        return a + b
      `),
      tests: [
        [1, 1],
        [2, 2],
      ],
      expected: [2, 4],
      timeoutMs: 1500,
    });
    const grading = gradeWithRecovery(pool, hang);
    await new Promise((resolve) => setTimeout(resolve, 700));
    process.kill(before!, 'SIGKILL');
    const reply = await grading;
    expect(summary(reply)).toEqual(['pass', 'timeout']);
    expect(await gradeWithRecovery(pool, GOOD)).toMatchObject({ verdicts: [{ status: 'pass' }, { status: 'pass' }] });
    const [after] = workerPids();
    expect(after).not.toBe(before);
  });
});
