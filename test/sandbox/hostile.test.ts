/**
 * The hostile-candidate catalogue: code that tries to hang, exhaust memory,
 * crash, escape, forge results or peek at expected outputs. Each case states
 * the exact verdict it must get. They all run through real sandbox worker
 * processes (the built dist/), as the CLI does.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { GradeJob, GradeReply, Verdict } from '../../src/sandbox-host/grade-protocol.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { gradeWithRecovery } from '../../src/workers/recovery.js';
import type { TypeNode, Value } from '../../src/values/type-node.js';
import { encodeWire } from '../../src/values/wire.js';

const INT: TypeNode = { kind: 'int' };
const STR: TypeNode = { kind: 'str' };
const ANY: TypeNode = { kind: 'any' };

interface Case {
  name: string;
  code: string;
  /** Arguments of each test; default one test `add(1, 2)`. */
  tests?: Value[][];
  expected?: Value[];
  type?: TypeNode;
  verdicts: Array<Verdict['status']>;
  /** Extra check on the reply. */
  check?: (reply: GradeReply) => void;
  timeoutMs?: number;
  memoryMb?: number;
  /** The candidate must fail to load with this message (then `verdicts` is empty). */
  loadError?: RegExp;
}

const ONE = { tests: [[1, 2]], expected: [3] };

const cases: Case[] = [
  // ---- never finishing ----
  { name: 'sync infinite loop', code: 'function add(a, b) { for (;;) {} }', verdicts: ['timeout'] },
  { name: 'async infinite loop', code: 'async function add(a, b) { for (;;) {} }', verdicts: ['timeout'] },
  { name: 'microtask loop', code: 'async function add(a, b) { for (;;) await null; }', verdicts: ['timeout'] },
  {
    name: 'promise chain that never ends',
    code: 'function add(a, b) { const spin = () => Promise.resolve().then(spin); return spin(); }',
    verdicts: ['timeout'],
  },
  {
    name: 'catastrophic regex backtracking',
    code: "function add(a, b) { return /^(a+)+$/.test('a'.repeat(40) + 'b') ? 1 : 2; }",
    verdicts: ['timeout'],
  },
  { name: 'promise that never settles', code: 'function add(a, b) { return new Promise(() => {}); }', verdicts: ['timeout'] },
  { name: 'thenable that never calls back', code: 'function add(a, b) { return { then() {} }; }', verdicts: ['timeout'] },
  {
    name: 'Atomics.wait forever',
    code: 'function add(a, b) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return a + b; }',
    verdicts: ['timeout'],
  },
  { name: 'infinite loop at top level', code: 'for (;;) {}\nfunction add(a, b) { return a + b; }', verdicts: ['timeout'] },
  // What top-level code throws is read once the isolate's limit is off: a read that never ends is a timeout, not a stuck worker.
  {
    name: 'top-level throw whose stack trace never comes',
    code: "Error.prepareStackTrace = () => { for (;;) {} };\nthrow new Error('top');\nfunction add(a, b) { return a + b; }",
    verdicts: [],
    // The hook cannot be set: the error is read as any other.
    loadError: /^threw while loading: top$/,
  },
  {
    name: 'top-level throw of an object whose name and message never come',
    code: 'throw { get message() { for (;;) {} }, get name() { for (;;) {} }, get stack() { for (;;) {} } };\nfunction add(a, b) { return a + b; }',
    verdicts: ['timeout'],
  },
  {
    name: 'top-level throw of a Proxy whose traps never return',
    code: 'throw new Proxy({}, { get() { for (;;) {} }, ownKeys() { for (;;) {} }, getOwnPropertyDescriptor() { for (;;) {} } });\nfunction add(a, b) { return a + b; }',
    verdicts: ['timeout'],
  },
  {
    name: 'top-level throw of a plain error',
    code: "throw new TypeError('bad start');\nfunction add(a, b) { return a + b; }",
    verdicts: [],
    loadError: /^threw while loading: bad start$/,
  },
  {
    name: 'getter on the returned value that never returns',
    code: 'function add(a, b) { return { get x() { for (;;) {} } }; }',
    type: ANY,
    verdicts: ['timeout'],
  },
  {
    name: 'only the hanging test times out',
    code: 'function add(a, b) { if (a === 2) for (;;) {} return a + b; }',
    tests: [
      [1, 1],
      [2, 2],
      [3, 3],
    ],
    expected: [2, 4, 6],
    verdicts: ['pass', 'timeout', 'pass'],
  },
  {
    name: 'only the never-settling test times out (async)',
    code: 'async function add(a, b) { if (a === 2) await new Promise(() => {}); return a + b; }',
    tests: [
      [1, 1],
      [2, 2],
      [3, 3],
    ],
    expected: [2, 4, 6],
    verdicts: ['pass', 'timeout', 'pass'],
  },

  // ---- memory ----
  {
    name: 'growing array',
    code: 'function add(a, b) { const xs = []; for (;;) xs.push({ a, b, s: "x" + xs.length }); }',
    verdicts: ['memory'],
  },
  { name: 'doubling string', code: 'function add(a, b) { let s = "x"; for (;;) s += s; }', verdicts: ['memory'] },
  {
    name: 'huge typed array',
    code: 'function add(a, b) { const t = new Float64Array(2 ** 31); return t.length; }',
    verdicts: ['memory'],
  },
  {
    name: 'many typed arrays',
    code: 'function add(a, b) { const keep = []; for (;;) keep.push(new Uint8Array(16 * 1024 * 1024)); }',
    verdicts: ['memory'],
  },
  {
    name: 'growing Map',
    code: 'function add(a, b) { const m = new Map(); for (let i = 0; ; i++) m.set(i, { i }); }',
    verdicts: ['memory'],
  },
  {
    name: 'growing Set',
    code: 'function add(a, b) { const s = new Set(); for (let i = 0; ; i++) s.add("k" + i); }',
    verdicts: ['memory'],
  },
  {
    name: 'object used as a dictionary',
    code: 'function add(a, b) { const o = {}; for (let i = 0; ; i++) o["k" + i] = i; }',
    verdicts: ['memory'],
  },
  {
    name: 'WebAssembly memory is not available',
    code: 'function add(a, b) { const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(60000); return a + b; }',
    verdicts: ['error'],
  },
  {
    name: 'memory bomb at top level',
    code: 'const keep = []; for (;;) keep.push(new Array(1e5).fill(1));\nfunction add(a, b) { return a + b; }',
    verdicts: ['memory'],
  },
  {
    name: 'growing Map at top level',
    code: 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });\nfunction add(a, b) { return a + b; }',
    verdicts: ['memory'],
  },
  {
    name: 'typed arrays at top level',
    code: 'const keep = []; for (;;) keep.push(new Float64Array(1 << 20));\nfunction add(a, b) { return a + b; }',
    verdicts: ['memory'],
  },
  {
    name: 'WebAssembly memory at top level is not available either',
    code: 'const m = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); m.grow(60000);\nfunction add(a, b) { return a + b; }',
    // Top-level code that throws means the candidate does not load: every test gets that error.
    verdicts: [],
    loadError: /threw while loading: WebAssembly is not defined/,
  },
  {
    name: 'an asynchronous waiter on shared memory is not available (V8 would abort the worker)',
    code: 'Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);\nfunction add(a, b) { return a + b; }',
    verdicts: [],
    loadError: /threw while loading: Atomics\.waitAsync is not a function/,
  },
  {
    name: 'an asynchronous waiter inside a test is not available either',
    code: 'function add(a, b) { Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); return a + b; }',
    verdicts: ['error'],
  },
  {
    name: 'only the memory-hungry test is blamed',
    code: 'function add(a, b) { if (a === 2) { const xs = []; for (;;) xs.push([a, b, xs.length]); } return a + b; }',
    tests: [
      [1, 1],
      [2, 2],
      [3, 3],
    ],
    expected: [2, 4, 6],
    verdicts: ['pass', 'memory', 'pass'],
  },
  {
    name: 'huge return value is judged, and recorded bounded',
    code: 'function add(a, b) { return "x".repeat(20 * 1024 * 1024); }',
    expected: ['x'],
    type: STR,
    tests: [[1, 2]],
    verdicts: ['fail'],
    check: (reply) => {
      const v = reply.kind === 'ran' ? reply.verdicts[0] : undefined;
      expect(v?.status).toBe('fail');
      if (v?.status === 'fail') expect(v.actual.length).toBeLessThan(10_000);
    },
  },
  {
    name: 'stack overflow',
    code: 'function add(a, b) { return add(a, b) + 1; }',
    verdicts: ['error'],
    check: (reply) => expect(message(reply)).toMatch(/Maximum call stack/),
  },

  // ---- odd things thrown or returned ----
  { name: 'throws a number', code: 'function add() { throw 42; }', verdicts: ['error'], check: (r) => expect(message(r)).toBe('threw 42') },
  { name: 'throws null', code: 'function add() { throw null; }', verdicts: ['error'], check: (r) => expect(message(r)).toBe('threw null') },
  { name: 'throws a symbol', code: 'function add() { throw Symbol("s"); }', verdicts: ['error'] },
  {
    name: 'throws an object whose getters throw',
    code: 'function add() { throw { get name() { throw 1; }, get message() { throw 2; } }; }',
    verdicts: ['error'],
  },
  {
    name: 'throws a proxy whose every trap throws',
    code: 'function add() { throw new Proxy({}, { get() { throw new Error("trap"); }, getPrototypeOf() { throw new Error("trap"); } }); }',
    verdicts: ['error'],
  },
  {
    name: 'rejects with a 10 MB message (recorded bounded)',
    code: 'async function add() { throw new Error("m".repeat(10 * 1024 * 1024)); }',
    verdicts: ['error'],
    check: (r) => expect(message(r).length).toBeLessThan(5000),
  },
  { name: 'returns a function', code: 'function add() { return () => 3; }', verdicts: ['error'] },
  {
    name: 'returns a function whose length is not a number',
    code: 'function add() { return new Proxy(function () {}, { get: (t, k) => (k === "length" ? {} : t[k]) }); }',
    verdicts: ['error'],
  },
  {
    name: 'async returns a function proxy',
    code: 'async function add() { return new Proxy(function () {}, { get: (t, k) => (k === "length" ? {} : t[k]) }); }',
    verdicts: ['error'],
  },
  { name: 'returns a cycle', code: 'function add() { const o = [1]; o.push(o); return o; }', type: ANY, verdicts: ['error'] },
  {
    name: 'returns a proxy that throws when read',
    code: 'function add() { return new Proxy([], { get() { throw new Error("no"); } }); }',
    type: ANY,
    verdicts: ['error'],
  },
  { name: 'returns a symbol', code: 'function add() { return Symbol.iterator; }', verdicts: ['error'] },
  { name: 'returns a small BigInt equal to the answer', code: 'function add(a, b) { return BigInt(a + b); }', verdicts: ['pass'] },
  // An exact integer beyond 2**53 travels as such, and is a wrong answer here.
  { name: 'returns a huge BigInt', code: 'function add(a, b) { return 2n ** 80n; }', verdicts: ['fail'] },
  { name: 'returns an object forging a tag', code: 'function add(a, b) { return { $evalrun: "int", value: "3" }; }', verdicts: ['fail'] },
  { name: 'returns undefined', code: 'function add(a, b) { }', verdicts: ['fail'] },
  {
    name: 'returns an object whose getter throws',
    code: 'function add() { return { get x() { throw new Error("getter"); } }; }',
    type: ANY,
    verdicts: ['error'],
  },

  // ---- tampering with the sandbox to forge a result ----
  {
    name: 'replaces JSON, then returns a wrong answer',
    code: 'JSON.stringify = () => "3"; JSON.parse = () => 3;\nfunction add(a, b) { return 0; }',
    verdicts: ['fail'],
  },
  {
    name: 'replaces JSON, then returns the right answer',
    code: 'JSON.stringify = () => "0"; delete globalThis.JSON;\nfunction add(a, b) { return a + b; }',
    verdicts: ['pass'],
  },
  {
    name: 'poisons Array.prototype and iteration',
    code: [
      'Array.prototype.push = function () { return 0; };',
      'Array.prototype.join = () => "3";',
      'Array.prototype[Symbol.iterator] = function* () { yield 3; };',
      'Object.defineProperty(Array.prototype, "0", { set() {}, get() { return 3; } });',
      'function add(a, b) { return 0; }',
    ].join('\n'),
    verdicts: ['fail'],
  },
  {
    name: 'poisons Promise.prototype.then',
    code: 'Promise.prototype.then = function (ok) { ok(3); };\nasync function add(a, b) { return 0; }',
    verdicts: ['fail'],
  },
  {
    name: 'adds Object.prototype.toJSON',
    code: 'Object.prototype.toJSON = function () { return 3; };\nfunction add(a, b) { return { wrong: true }; }',
    verdicts: ['fail'],
  },
  {
    name: 'replaces Reflect, Function.prototype and String',
    code: 'Reflect.apply = () => 3; Function.prototype.call = () => 3; Function.prototype.apply = () => 3; String = () => "3";\nfunction add(a, b) { return a + b; }',
    verdicts: ['pass'],
  },
  {
    name: 'forges a result frame in an error message',
    code: 'function add() { throw new Error("r0,1,3"); }',
    verdicts: ['error'],
  },

  // ---- trying to reach the host ----
  {
    name: 'looks for process, require, fetch and the isolated-vm module',
    code: 'function add() { return [typeof process, typeof require, typeof fetch, typeof ivm, typeof setTimeout, typeof WebAssembly].join(","); }',
    type: STR,
    expected: ['undefined,undefined,undefined,undefined,undefined,undefined'],
    verdicts: ['pass'],
  },
  { name: 'calls require', code: 'function add() { return require("fs").readFileSync("/etc/passwd", "utf8"); }', verdicts: ['error'] },
  {
    name: 'dynamic import',
    code: 'async function add() { const fs = await import("fs"); return fs.readFileSync("/etc/passwd", "utf8"); }',
    verdicts: ['error'],
  },
  {
    name: 'constructor chain to the Function of another realm',
    code: 'function add() { return (function () {}).constructor.constructor("return typeof process")(); }',
    type: STR,
    expected: ['undefined'],
    verdicts: ['pass'],
  },
  {
    name: 'walks every reachable object looking for host objects or the expected value',
    code: `function add(a, b) {
      const seen = new Set(); const stack = [globalThis]; let found = 'not found';
      while (stack.length) {
        const o = stack.pop();
        if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o)) continue;
        seen.add(o);
        for (const k of Reflect.ownKeys(o)) {
          let v; try { v = o[k]; } catch { continue; }
          if (v === 'SECRET-EXPECTED') found = v;
          if (typeof v === 'function' && /^(require|process|Reference|Isolate|Callback|ExternalCopy)$/.test(v.name)) found = 'host:' + v.name;
          stack.push(v);
        }
        try { stack.push(Object.getPrototypeOf(o)); } catch {}
      }
      return found;
    }`,
    type: STR,
    expected: ['SECRET-EXPECTED'],
    verdicts: ['fail'],
    check: (r) => expect(r.kind === 'ran' && r.verdicts[0]?.status === 'fail' ? r.verdicts[0].actual : null).toBe('"not found"'),
  },

  // ---- trying to see expected outputs ----
  {
    name: 'reads fn.caller and arguments.callee.caller',
    code: 'function add(a, b) { let c; try { c = add.caller; } catch (e) { c = "blocked"; } let d; try { d = arguments.callee.caller; } catch (e) { d = "blocked"; } return String(c) + "|" + String(d); }',
    type: STR,
    expected: ['null|null'],
    verdicts: ['pass'],
  },
  {
    name: 'scans error stacks for host paths',
    code: 'function add() { const s = new Error().stack; return /\\/(work|home|usr|tmp)\\/|node:|\\.ts/.test(s) ? s : "clean"; }',
    type: STR,
    expected: ['clean'],
    verdicts: ['pass'],
  },
  {
    name: 'scans globals and its own arguments for the expected output',
    code: 'function add(a, b) { const hits = Object.getOwnPropertyNames(globalThis).filter((k) => { try { return JSON.stringify(globalThis[k]).includes("SECRET"); } catch { return false; } }); return hits.length ? hits.join() : JSON.stringify([...arguments]); }',
    type: STR,
    expected: ['SECRET-EXPECTED'],
    verdicts: ['fail'],
    check: (r) => expect(r.kind === 'ran' && r.verdicts[0]?.status === 'fail' ? r.verdicts[0].actual : null).toBe('"[1,2]"'),
  },
  {
    name: 'keeps state between tests (allowed: it is judged on what it returns)',
    code: 'let calls = 0;\nfunction add(a, b) { calls++; return calls === 1 ? a + b : -1; }',
    tests: [
      [1, 1],
      [2, 2],
    ],
    expected: [2, 4],
    verdicts: ['pass', 'fail'],
  },
  {
    name: 'mutates its arguments',
    code: 'function add(xs) { xs.push(99); return xs.length; }',
    tests: [[[1, 2]], [[1, 2]]],
    expected: [3, 3],
    verdicts: ['pass', 'pass'],
  },
];

function message(reply: GradeReply): string {
  if (reply.kind === 'load-error') return reply.message;
  const v = reply.verdicts[0];
  if (v === undefined) return '';
  return v.status === 'error' || v.status === 'memory' ? v.message : v.status === 'fail' ? v.reason : '';
}

function jobFor(c: Case): GradeJob {
  const tests = c.tests ?? ONE.tests;
  return {
    language: 'javascript',
    code: c.code,
    functionName: 'add',
    arity: 2,
    topLevelNames: [],
    tests: tests.map((t) => JSON.stringify(t)),
    expected: (c.expected ?? tests.map(() => 3)).map((v) => encodeWire(v)),
    returnType: c.type ?? INT,
    tolerance: { relative: 1e-9, absolute: 1e-9 },
    equality: 'javascript',
    // Filling the heap takes far longer than a small test, so memory cases get a longer time limit: they must end in memory, not timeout.
    limits: { memoryMb: c.memoryMb ?? 64, timeoutMs: c.timeoutMs ?? (c.verdicts.includes('memory') ? 8000 : 400), seed: 1 },
  };
}

describe('hostile candidate catalogue', () => {
  const pool = new WorkerPool({ size: 2 });
  afterAll(() => pool.close());

  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  describe.each(cases)('$name', (c) => {
    it(`gets ${c.loadError === undefined ? c.verdicts.join(', ') : 'a load error'}`, async () => {
      const reply = await gradeWithRecovery(pool, jobFor(c));
      if (c.loadError !== undefined) {
        expect(reply.kind === 'load-error' ? reply.message : JSON.stringify(reply)).toMatch(c.loadError);
        return;
      }
      const got = reply.kind === 'ran' ? reply.verdicts.map((v) => v.status) : [`load-error: ${reply.message}`];
      expect(got, JSON.stringify(reply).slice(0, 500)).toEqual(c.verdicts);
      c.check?.(reply);
    });
  });

  it('still grades a well-behaved candidate correctly afterwards', async () => {
    const reply = await gradeWithRecovery(
      pool,
      jobFor({
        name: 'good',
        code: 'function add(a, b) { return a + b; }',
        tests: [
          [1, 2],
          [5, 7],
        ],
        expected: [3, 12],
        verdicts: [],
      }),
    );
    expect(reply).toMatchObject({ kind: 'ran', verdicts: [{ status: 'pass' }, { status: 'pass' }] });
  });
});
