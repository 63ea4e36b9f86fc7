/**
 * Write marks (src/engines/python/meter/write-marks.ts): on small modules
 * assembled from text, every page a store or a bulk write reached is
 * marked in the page map and no other; a store that traps marks nothing;
 * the marked module computes what the original did, and metering then
 * marking counts what metering alone counted.
 */
import { assemble, wasm, type WasmGlobal, type WasmMemory } from './wasm-text.js';
import wabt from 'wabt';
import { describe, expect, it } from 'vitest';
import { meterModule } from '../../src/engines/python/meter/meter.js';
import { MARKS_EXPORT, markWrites, PAGE_SHIFT } from '../../src/engines/python/meter/write-marks.js';
import { WasmFormatError } from '../../src/engines/python/meter/wasm-binary.js';

const PAGE = 1 << PAGE_SHIFT;
/** The map sits in the first wasm page; the code under test writes from the second on. */
const MAP = 1024;

const WRITER = `
(module
  (memory (export "memory") 4)
  (data (i32.const 70000) "abc")
  (func (export "i32") (param $a i32) (param $v i32) (i32.store (local.get $a) (local.get $v)))
  (func (export "i64off") (param $a i32) (i64.store offset=8192 (local.get $a) (i64.const -1)))
  (func (export "f64") (param $a i32) (f64.store (local.get $a) (f64.const 1.5)))
  (func (export "f32") (param $a i32) (f32.store (local.get $a) (f32.const 2.5)))
  (func (export "byte") (param $a i32) (i32.store8 (local.get $a) (i32.const 7)))
  (func (export "i64s32") (param $a i32) (i64.store32 (local.get $a) (i64.const 9)))
  (func (export "v128") (param $a i32) (v128.store (local.get $a) (v128.const i32x4 1 2 3 4)))
  (func (export "lane") (param $a i32) (v128.store16_lane 3 (local.get $a) (v128.const i32x4 1 2 3 4)))
  (func (export "fill") (param $d i32) (param $n i32) (memory.fill (local.get $d) (i32.const 255) (local.get $n)))
  (func (export "copy") (param $d i32) (param $s i32) (param $n i32) (memory.copy (local.get $d) (local.get $s) (local.get $n)))
  (func (export "sum") (param $a i32) (param $n i32) (result i32) (local $i i32) (local $s i32)
    ;; stores and loads in a loop: the marked module must compute the same
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))) (local.get $i))
      (local.set $s (i32.add (local.get $s) (i32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $s))
)`;

interface Marked {
  call: (name: string, ...args: Array<number | bigint>) => unknown;
  /** The pages marked since the last call of `marked`, which clears the map. */
  marked: () => number[];
  memory: Uint8Array;
}

async function marked(text: string): Promise<Marked> {
  const { bytes } = markWrites(await assemble(text));
  expect(wasm.validate(bytes)).toBe(true);
  const instance = new wasm.Instance(new wasm.Module(bytes));
  (instance.exports[MARKS_EXPORT] as WasmGlobal).value = MAP;
  const memory = new Uint8Array((instance.exports.memory as WasmMemory).buffer);
  return {
    memory,
    call: (name, ...args) => (instance.exports[name] as (...a: Array<number | bigint>) => unknown)(...args),
    marked() {
      const pages: number[] = [];
      const count = memory.length >> PAGE_SHIFT;
      for (let p = 0; p < count; p++) {
        if (memory[MAP + p] !== 0) pages.push(p);
        memory[MAP + p] = 0;
      }
      return pages;
    },
  };
}

describe('write marks', () => {
  it('marks the page of every store, at the address plus the offset, for each value type', async () => {
    const m = await marked(WRITER);
    const cases: Array<[string, number, number]> = [
      ['i32', 5 * PAGE + 4, 5],
      ['i64off', 6 * PAGE, 8],
      ['f64', 9 * PAGE + 100, 9],
      ['f32', 10 * PAGE, 10],
      ['byte', 11 * PAGE + PAGE - 1, 11],
      ['i64s32', 12 * PAGE + 8, 12],
      ['v128', 13 * PAGE + 32, 13],
      ['lane', 14 * PAGE + 2, 14],
    ];
    for (const [name, address, page] of cases) {
      m.call(name, address, 1);
      expect(m.marked(), name).toEqual([page]);
    }
    expect(m.memory[6 * PAGE + 8192]).toBe(0xff);
  });

  it('marks the first page of a store that crosses into the next one (readers count the next page with it)', async () => {
    const m = await marked(WRITER);
    m.call('f64', 20 * PAGE - 4);
    expect(m.marked()).toEqual([19]);
    expect(m.memory[20 * PAGE + 3]).not.toBe(0);
  });

  it('marks every page a fill or a copy writes, and none for an empty one', async () => {
    const m = await marked(WRITER);
    m.call('fill', 24 * PAGE + 10, 3 * PAGE);
    expect(m.marked()).toEqual([24, 25, 26, 27]);
    m.call('copy', 30 * PAGE, 70000, 3);
    expect(m.marked()).toEqual([30]);
    expect([...m.memory.subarray(30 * PAGE, 30 * PAGE + 3)]).toEqual([97, 98, 99]);
    m.call('fill', 40 * PAGE, 0);
    expect(m.marked()).toEqual([]);
  });

  it('marks nothing for a store that traps', async () => {
    const m = await marked(WRITER);
    expect(() => m.call('i32', 4 * 65536 - 2, 1)).toThrow();
    expect(() => m.call('fill', 4 * 65536 - 2, 10)).toThrow();
    expect(m.marked()).toEqual([]);
  });

  it('marks nothing while the map address is 0 (before the host sets it)', async () => {
    const { bytes } = markWrites(await assemble(WRITER));
    const instance = new wasm.Instance(new wasm.Module(bytes));
    const memory = new Uint8Array((instance.exports.memory as WasmMemory).buffer);
    const before = memory.slice(0, 3 * PAGE);
    (instance.exports.i32 as (a: number, v: number) => void)(5 * PAGE, 1);
    (instance.exports.fill as (d: number, n: number) => void)(24 * PAGE, 2 * PAGE);
    expect(memory.slice(0, 3 * PAGE)).toEqual(before);
  });

  it('computes what the original module computes', async () => {
    const m = await marked(WRITER);
    expect(m.call('sum', 50 * PAGE, 1000)).toBe((999 * 1000) / 2);
    expect(m.marked()).toEqual([50]);
  });

  it('leaves the counts of a metered module as they were', async () => {
    const plain = meterModule(await assemble(WRITER));
    const both = markWrites(plain.bytes);
    const run = (bytes: Uint8Array): bigint => {
      const instance = new wasm.Instance(new wasm.Module(bytes));
      const marks = instance.exports[MARKS_EXPORT] as WasmGlobal | undefined;
      if (marks !== undefined) marks.value = MAP;
      (instance.exports.sum as (a: number, n: number) => number)(50 * PAGE, 300);
      (instance.exports.fill as (d: number, n: number) => number)(60 * PAGE, 5000);
      return (instance.exports[plain.exportName] as WasmGlobal).value as bigint;
    };
    expect(run(both.bytes)).toBe(run(plain.bytes));
    expect(both.stores).toBeGreaterThan(0);
    expect(both.bulk).toBe(2);
  });

  it('refuses atomic stores', async () => {
    // Assembled without wabt's validation, which this build of it does not pass for shared memories.
    const tools = await wabt();
    const module = tools.parseWat('t.wat', '(module (memory 1 1 shared) (func (i32.atomic.store (i32.const 0) (i32.const 1))))', { threads: true });
    module.resolveNames();
    const bytes = new Uint8Array(module.toBinary({ log: false }).buffer);
    module.destroy();
    expect(() => markWrites(bytes)).toThrow(WasmFormatError);
  });
});
