/**
 * The WebAssembly meter (src/engines/python/meter/): on small modules
 * assembled from text, the counter equals the instructions executed,
 * worked out by hand for each function; the metered module validates,
 * keeps every index, and fails loudly on what it cannot decode.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { assemble, wasm, type WasmGlobal } from './wasm-text.js';
import { describe, expect, it } from 'vitest';
import { meterModule } from '../../src/engines/python/meter/meter.js';
import type { MeterMode } from '../../src/engines/python/meter/plan.js';
import { WasmFormatError } from '../../src/engines/python/meter/wasm-binary.js';

interface Metered {
  exports: Record<string, unknown>;
  /** The counter's value now. */
  count: () => bigint;
  /** Calls an export and returns what the call counted, and its result. */
  run: (name: string, ...args: number[]) => { cost: bigint; result: unknown };
}

async function metered(text: string, mode: MeterMode = 'blocks', imports: object = {}): Promise<Metered> {
  const { bytes, exportName } = meterModule(await assemble(text), { mode });
  expect(wasm.validate(bytes)).toBe(true);
  const instance = new wasm.Instance(new wasm.Module(bytes), imports);
  const counter = instance.exports[exportName] as WasmGlobal;
  const count = (): bigint => counter.value as bigint;
  return {
    exports: instance.exports,
    count,
    run(name, ...args) {
      const before = count();
      const result = (instance.exports[name] as (...a: number[]) => unknown)(...args);
      return { cost: count() - before, result };
    },
  };
}

const COUNTING_LOOP = `
(module
  (func (export "run") (param $n i32) (local $i i32)
    (block $done
      (loop $top
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $top)))))`;

const NESTED = `
(module
  (func $g (param $x i32) (result i32)
    (i32.mul (local.get $x) (i32.const 3)))
  (func (export "run") (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (block $done
      (loop $top
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $acc (i32.add (local.get $acc) (call $g (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $top)))
    (local.get $acc)))`;

describe('blocks: the count is the number of instructions executed', () => {
  it('counts a loop of n iterations as 9n + 4', async () => {
    // Each iteration: local.get, local.get, i32.ge_u, br_if (4) then
    // local.get, i32.const, i32.add, local.set, br (5); the last test exits.
    const m = await metered(COUNTING_LOOP);
    for (const n of [0, 1, 10, 1000]) expect(m.run('run', n).cost).toBe(BigInt(9 * n + 4));
  });

  it('adds the callee to the caller: 17n + 5 with a 3-instruction callee', async () => {
    // Iteration: 4 (test) + local.get, local.get, call, i32.add, local.set (5)
    // + local.get, i32.const, i32.add, local.set (4) + br (1), and g's 3;
    // after the loop: the exiting test (4) and local.get (1).
    const m = await metered(NESTED);
    for (const n of [0, 5, 300]) {
      const { cost, result } = m.run('run', n);
      expect(cost).toBe(BigInt(17 * n + 5));
      expect(result).toBe((3 * n * Math.max(n - 1, 0)) / 2);
    }
  });

  it('counts only the arm of an if that runs', async () => {
    const m = await metered(`
      (module
        (func (export "run") (param $x i32) (result i32)
          (if (result i32) (i32.eqz (local.get $x))
            (then (i32.const 10))
            (else (i32.add (i32.const 20) (i32.const 1))))))`);
    // local.get, i32.eqz, if (3), then one instruction or three.
    expect(m.run('run', 0)).toEqual({ cost: 4n, result: 10 });
    expect(m.run('run', 1)).toEqual({ cost: 6n, result: 21 });
  });

  it('follows br_table to each target, default included', async () => {
    const m = await metered(`
      (module
        (func (export "run") (param $x i32) (result i32)
          (block $b2
            (block $b1
              (block $b0
                (br_table $b0 $b1 $b2 (local.get $x)))
              (return (i32.const 100)))
            (return (i32.const 200)))
          (i32.const 300)))`);
    // local.get, br_table (2), then i32.const and return (2), or i32.const (1).
    expect(m.run('run', 0)).toEqual({ cost: 4n, result: 100 });
    expect(m.run('run', 1)).toEqual({ cost: 4n, result: 200 });
    expect(m.run('run', 2)).toEqual({ cost: 3n, result: 300 });
    expect(m.run('run', 9)).toEqual({ cost: 3n, result: 300 });
  });

  it('weighs memory.fill and memory.copy by their length, and the copy still happens', async () => {
    const m = await metered(`
      (module
        (memory (export "memory") 1)
        (func (export "fill") (param $n i32) (local $keep i32)
          (local.set $keep (i32.const 42))
          (memory.fill (i32.const 0) (i32.const 7) (local.get $n))
          (i32.store (i32.const 60000) (local.get $keep)))
        (func (export "copy") (param $n i32)
          (memory.copy (i32.const 30000) (i32.const 0) (local.get $n))))`);
    // fill: i32.const, local.set (2), i32.const, i32.const, local.get, memory.fill (4),
    // i32.const, local.get, i32.store (3), and 1000 / 8 for the bytes.
    expect(m.run('fill', 1000).cost).toBe(9n + 125n);
    expect(m.run('copy', 4000).cost).toBe(4n + 500n);
    const bytes = new Uint8Array((m.exports.memory as { buffer: ArrayBuffer }).buffer);
    expect([bytes[999], bytes[1000], bytes[30999], bytes[31000]]).toEqual([7, 0, 7, 0]);
    // The local declared before the scratch one kept its index.
    expect(new DataView(bytes.buffer).getInt32(60000, true)).toBe(42);
  });

  it('counts a legacy try whose call throws, and the handler', async () => {
    const m = await metered(`
      (module
        (tag $e (param i32))
        (func $thrower (param $x i32)
          (if (local.get $x) (then (throw $e (local.get $x)))))
        (func (export "run") (param $x i32) (result i32)
          (try (result i32)
            (do (call $thrower (local.get $x)) (i32.const 0))
            (catch $e (i32.add (i32.const 1))))))`);
    // Not thrown: local.get, call, i32.const (3) + thrower's local.get, if (2).
    expect(m.run('run', 0)).toEqual({ cost: 5n, result: 0 });
    // Thrown: the try's stretch counts in full (3), thrower 2 + local.get,
    // throw (2), handler i32.const, i32.add (2).
    expect(m.run('run', 5)).toEqual({ cost: 9n, result: 6 });
  });
});

describe('loops: one per call and per loop iteration', () => {
  it('counts n + 2 for a loop of n iterations (entry, and n + 1 loop headers)', async () => {
    const m = await metered(COUNTING_LOOP, 'loops');
    for (const n of [0, 7, 1000]) expect(m.run('run', n).cost).toBe(BigInt(n + 2));
  });

  it('counts the callee once per call: 2n + 2', async () => {
    const m = await metered(NESTED, 'loops');
    expect(m.run('run', 50).cost).toBe(102n);
  });
});

describe('the metered module', () => {
  it('puts the counter after imported and defined globals, which keep their indices', async () => {
    const imported = new wasm.Global({ value: 'i32', mutable: true }, 5);
    const text = `
      (module
        (import "env" "g" (global $g (mut i32)))
        (global $h (export "h") (mut i32) (i32.const 100))
        (func (export "bump")
          (global.set $g (i32.add (global.get $g) (i32.const 1)))
          (global.set $h (i32.add (global.get $h) (i32.const 2)))))`;
    const result = meterModule(await assemble(text));
    expect(result.globalIndex).toBe(2);
    expect(result.stats.importedGlobals).toBe(1);
    const m = await metered(text, 'blocks', { env: { g: imported } });
    expect(m.run('bump').cost).toBe(8n);
    expect(imported.value).toBe(6);
    expect((m.exports.h as WasmGlobal).value).toBe(102);
  });

  it('adds global and export sections where there were none, in the order the format requires', async () => {
    const text = `
      (module
        (memory 1)
        (func $init (drop (i32.const 1)))
        (start $init)
        (data (i32.const 0) "abc"))`;
    const m = await metered(text);
    // The start function ran at instantiation: i32.const, drop.
    expect(m.count()).toBe(2n);
  });

  it('leaves excluded functions without counters, and refuses a name it cannot find', async () => {
    const text = NESTED.replace('(func $g (param', '(func $g (export "g") (param');
    const { bytes, exportName } = meterModule(await assemble(text), { exclude: ['g'] });
    const instance = new wasm.Instance(new wasm.Module(bytes));
    const run = instance.exports.run as (n: number) => number;
    run(10);
    // 17n + 5 less g's 3 per call.
    expect((instance.exports[exportName] as WasmGlobal).value).toBe(BigInt(14 * 10 + 5));
    await expect(async () => meterModule(await assemble(text), { exclude: ['h'] })).rejects.toThrow(/no function .* exported as "h"/);
  });

  it('refuses an opcode it does not know instead of guessing its length', () => {
    // A module by hand: one function type, one function whose body holds 0xFB (the GC prefix).
    const bytes = Uint8Array.from([
      ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      ...[0x01, 0x04, 0x01, 0x60, 0x00, 0x00],
      ...[0x03, 0x02, 0x01, 0x00],
      ...[0x0a, 0x06, 0x01, 0x04, 0x00, 0xfb, 0x00, 0x0b],
    ]);
    expect(() => meterModule(bytes)).toThrow(WasmFormatError);
    expect(() => meterModule(bytes)).toThrow(/unknown opcode 0xfb/);
  });

  it('refuses a module that already exports the counter name', async () => {
    const bytes = await assemble('(module (global (export "evalrun_meter") i32 (i32.const 0)))');
    expect(() => meterModule(bytes)).toThrow(/already exports "evalrun_meter"/);
  });

  it("meters Pyodide's own module, every instruction decoded, and V8 accepts the result", () => {
    const dir = dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
    const input = new Uint8Array(readFileSync(join(dir, 'pyodide.asm.wasm')));
    const result = meterModule(input);
    expect(wasm.validate(result.bytes)).toBe(true);
    expect(result.stats.functions).toBeGreaterThan(10_000);
    expect(result.stats.sites).toBeGreaterThan(result.stats.functions);
    // Pyodide's code uses bulk memory and legacy exception handling (setjmp/longjmp).
    expect(result.stats.bulkSites).toBeGreaterThan(0);
    expect(result.stats.features['legacy try/catch']).toBeGreaterThan(0);
  });
});
