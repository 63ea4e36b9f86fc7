/**
 * Quiet functions of the WebAssembly meter (src/engines/python/meter/quiet.ts):
 * an allocator hook's own work, and the calls it makes, are not counted,
 * except its call into the allocator it wraps; the helpers it calls are
 * still counted when other code calls them.
 */
import { assemble, wasm } from './wasm-text.js';
import { describe, expect, it } from 'vitest';
import { meterModule, type MeterOptions } from '../../src/engines/python/meter/meter.js';
import { WasmFormatError } from '../../src/engines/python/meter/wasm-binary.js';

// Function indices: $helper 0, $inner 1, $book 2, $hook 3, the exports after.
const HOOKED = `
(module
  (type $alloc (func (param i32) (result i32)))
  (table 2 funcref)
  (elem (i32.const 0) $inner $book)
  (func $helper (param i32) (result i32)
    (i32.add (local.get 0) (i32.const 1)))
  (func $inner (param i32) (result i32)
    (call $helper (local.get 0)))
  (func $book (param i32) (result i32)
    (i32.mul (local.get 0) (i32.const 3)))
  (func $hook (param i32) (result i32) (local $p i32)
    (local.set $p (call_indirect (type $alloc) (local.get 0) (i32.const 0)))
    (drop (call $helper (local.get $p)))
    (drop (call_indirect (type $alloc) (local.get $p) (i32.const 1)))
    (local.get $p))
  (func (export "hook") (param i32) (result i32) (call $hook (local.get 0)))
  (func (export "inner") (param i32) (result i32) (call $inner (local.get 0)))
  (func (export "helper") (param i32) (result i32) (call $helper (local.get 0))))`;

async function costs(options: MeterOptions): Promise<(name: string, arg: number) => { cost: bigint; result: unknown }> {
  const { bytes, exportName } = meterModule(await assemble(HOOKED), options);
  expect(wasm.validate(bytes)).toBe(true);
  const { exports } = new wasm.Instance(new wasm.Module(bytes));
  const counter = exports[exportName] as { value: bigint };
  return (name, arg) => {
    const before = counter.value;
    const result = (exports[name] as (a: number) => unknown)(arg);
    return { cost: counter.value - before, result };
  };
}

describe('a quiet function', () => {
  it('counts only its kept call: the wrapped function and what that calls', async () => {
    const run = await costs({ quiet: [{ index: 3, keepIndirect: [0] }] });
    // The export's call is 2; $inner is 2 and $helper 3 more.
    expect(run('inner', 4)).toEqual({ cost: 7n, result: 5 });
    // $hook's own instructions, its call to $helper and to $book: none counted.
    expect(run('hook', 4)).toEqual({ cost: 7n, result: 5 });
    // $helper, which the hook calls, is still counted when called from elsewhere.
    expect(run('helper', 4)).toEqual({ cost: 5n, result: 5 });
  });

  it('counts everything when it is not quiet, and nothing but its caller when nothing is kept', async () => {
    const loud = await costs({});
    // 2 (export) + the hook's 12 instructions + 5 (inner) + 3 (helper) + 3 ($book).
    expect(loud('hook', 4).cost).toBe(25n);
    const silent = await costs({ quiet: [{ index: 3, keepIndirect: [] }] });
    expect(silent('hook', 4)).toEqual({ cost: 2n, result: 5 });
  });

  it('refuses a call to keep that the function does not have', async () => {
    const bytes = await assemble(HOOKED);
    expect(() => meterModule(bytes, { quiet: [{ index: 3, keepIndirect: [0, 2] }] })).toThrow(WasmFormatError);
  });
});
