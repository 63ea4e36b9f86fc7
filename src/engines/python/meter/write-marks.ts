/**
 * Write marks: a rewrite that makes a module record which pages of its
 * linear memory its code writes, so that a restore can copy back only
 * those pages instead of the whole memory (docs/METERING.md, "Restores
 * that copy what was written").
 *
 * One mutable i32 global is appended (exported as `evalrun_marks`): the
 * address of a page map in linear memory, one byte per page of
 * 2^PAGE_SHIFT bytes, which the host allocates and zeroes; while it is 0
 * (from instantiation until the host sets it) nothing is marked. After every
 * store that did not trap, the byte of the page holding the store's first
 * byte is set to 1; a store is at most 16 bytes, so it can reach into the
 * next page too, which the reader of the map accounts for (a marked page
 * stands for itself and the one after it). After a `memory.fill`,
 * `memory.copy` or `memory.init` that did not trap, every page of its
 * destination is marked. The mark comes after the store, so a store that
 * traps marks nothing, and an address that passed the store's bounds
 * check always has its byte in a map that covers the memory's size.
 *
 * The marks are not instructions the meter counts: this rewrite runs on
 * the metered module, after counters were placed by the original code.
 * Atomic stores are refused (Pyodide is built without threads); an
 * unknown instruction fails as in the meter's decoder.
 */
import { rewriteWithGlobal } from './append-global.js';
import type { ByteWriter } from './emit.js';
import { decode, newDecoded } from './instructions.js';
import { checkMemory32, functionBodies, functionParamCounts } from './sections.js';
import { encodeU32, Reader, readSections, SECTION, type Section } from './wasm-binary.js';

export const MARKS_EXPORT = 'evalrun_marks';
/** Pages of 4 KiB: small enough that a test's writes copy little, large enough that the map is small. */
export const PAGE_SHIFT = 12;

export interface MarkedModule {
  bytes: Uint8Array;
  globalIndex: number;
  /** Stores and bulk writes that got a mark. */
  stores: number;
  bulk: number;
}

const I32 = 0x7f;
const I64 = 0x7e;
const F32 = 0x7d;
const F64 = 0x7c;
const V128 = 0x7b;

/** The value type each plain store takes (0x36 i32.store ... 0x3e i64.store32). */
const STORE_VALUE: Readonly<Record<number, number>> = {
  0x36: I32,
  0x37: I64,
  0x38: F32,
  0x39: F64,
  0x3a: I32,
  0x3b: I32,
  0x3c: I64,
  0x3d: I64,
  0x3e: I64,
};

const FD = 0xfd * 0x1000000;
const FC = 0xfc * 0x1000000;
const FE = 0xfe * 0x1000000;

/** Scratch locals appended to a function that writes: their offsets from the first new index. */
const LOCAL = { address: 0, value32: 1, length: 2, page: 3, last: 4, value64: 5, valueF32: 6, valueF64: 7, valueV128: 8 };
/** Their declarations; the v128 one only in a function that stores a v128. */
const LOCAL_GROUPS = [5, I32, 1, I64, 1, F32, 1, F64];

type Site = { at: number; end: number; kind: 'store'; value: number; offset: number } | { at: number; end: number; kind: 'bulk' };

export function markWrites(input: Uint8Array): MarkedModule {
  const sections = readSections(input);
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  checkMemory32(input, find(SECTION.import), find(SECTION.memory));
  const params = functionParamCounts(input, find(SECTION.type), find(SECTION.function));
  const counts = { stores: 0, bulk: 0 };
  const written = rewriteWithGlobal(input, sections, {
    // (mut i32) initialised to i32.const 0: the host sets it before any code runs.
    global: [I32, 0x01, 0x41, 0x00, 0x0b],
    exportName: MARKS_EXPORT,
    writeCode: (section, globalIndex, out) => writeMarkedCode(input, section, params, globalIndex, counts, out),
  });
  return { bytes: written.bytes, globalIndex: written.globalIndex, ...counts };
}

function writeMarkedCode(
  bytes: Uint8Array,
  section: Section,
  params: readonly number[],
  globalIndex: number,
  counts: { stores: number; bulk: number },
  out: ByteWriter,
): void {
  const chunks: Uint8Array[] = [Uint8Array.from(encodeU32(params.length))];
  const decoded = newDecoded();
  const sites: Site[] = [];
  for (const { start, end, groups, groupsStart, declared, exprStart } of functionBodies(bytes, section, params)) {
    sites.length = 0;
    findWrites(new Reader(bytes, exprStart, end), decoded, sites);
    if (sites.length === 0) {
      chunks.push(Uint8Array.from(encodeU32(end - start)), bytes.subarray(start, end));
      continue;
    }
    const added = sites.some((s) => s.kind === 'store' && s.value === V128) ? [...LOCAL_GROUPS, 1, V128] : LOCAL_GROUPS;
    const body: number[] = [...encodeU32(groups + added.length / 2), ...bytes.subarray(groupsStart, exprStart)];
    for (let g = 0; g < added.length; g += 2) body.push(...encodeU32(added[g] as number), added[g + 1] as number);
    const local = (name: keyof typeof LOCAL): number[] => encodeU32(declared + LOCAL[name]);
    let at = exprStart;
    for (const site of sites) {
      for (let k = at; k < site.at; k++) body.push(bytes[k] as number);
      const original = bytes.subarray(site.at, site.end);
      if (site.kind === 'store') {
        body.push(...storeCode(original, site.value, site.offset, globalIndex, local));
        counts.stores++;
      } else {
        body.push(...bulkCode(original, globalIndex, local));
        counts.bulk++;
      }
      at = site.end;
    }
    for (let k = at; k < end; k++) body.push(bytes[k] as number);
    chunks.push(Uint8Array.from(encodeU32(body.length)), Uint8Array.from(body));
  }
  let total = 0;
  for (const c of chunks) total += c.length;
  const content = new Uint8Array(total);
  let pos = 0;
  for (const c of chunks) {
    content.set(c, pos);
    pos += c.length;
  }
  out.section(SECTION.code, content);
}

/** Lists a function's writes to memory, in order, with their byte ranges. */
function findWrites(r: Reader, d: ReturnType<typeof newDecoded>, sites: Site[]): void {
  while (!r.done) {
    const at = r.pos;
    decode(r, d);
    const op = d.opcode;
    const value = STORE_VALUE[op];
    if (value !== undefined) sites.push({ at, end: r.pos, kind: 'store', value, offset: memargOffset(r.bytes, at + 1) });
    else if (op === FD + 11 || (op >= FD + 88 && op <= FD + 91)) {
      // v128.store, v128.storeN_lane: the memarg follows the sub-opcode.
      const m = new Reader(r.bytes, at + 1, r.pos);
      m.u32();
      sites.push({ at, end: r.pos, kind: 'store', value: V128, offset: memargOffset(r.bytes, m.pos) });
    } else if (op === FC + 8 || op === FC + 10 || op === FC + 11) sites.push({ at, end: r.pos, kind: 'bulk' });
    else if (op >= FE && op < FE + 0x1000000 && op !== FE + 3) {
      r.fail('atomic memory instructions are not supported by write marks');
    }
  }
}

/** The offset of the memarg at `pos` (alignment, then offset); a memory index (multi-memory) is refused. */
function memargOffset(bytes: Uint8Array, pos: number): number {
  const m = new Reader(bytes, pos);
  const align = m.u32();
  if ((align & 0x40) !== 0) m.fail('stores to a second memory are not supported by write marks');
  return m.u32();
}

/**
 * A store with its mark: the value and address are kept in scratch locals,
 * the store runs, then the byte of the page of (address + offset) is set.
 */
function storeCode(original: Uint8Array, value: number, offset: number, g: number, local: (name: keyof typeof LOCAL) => number[]): number[] {
  const slot = value === I32 ? 'value32' : value === I64 ? 'value64' : value === F32 ? 'valueF32' : value === F64 ? 'valueF64' : 'valueV128';
  const address = local('address');
  const keep = local(slot);
  // local.set v; local.tee a; local.get v; <store>
  const code = [0x21, ...keep, 0x22, ...address, 0x20, ...keep, ...original];
  // global.get g; if; global.get g; local.get a; (i32.const offset; i32.add;) i32.const SHIFT; i32.shr_u; i32.add; i32.const 1; i32.store8 0 0; end
  const gi = encodeU32(g);
  code.push(0x23, ...gi, 0x04, 0x40, 0x23, ...gi, 0x20, ...address);
  if (offset !== 0) code.push(0x41, ...encodeS32(offset | 0), 0x6a);
  code.push(0x41, PAGE_SHIFT, 0x76, 0x6a, 0x41, 0x01, 0x3a, 0x00, 0x00, 0x0b);
  return code;
}

/**
 * memory.fill (d, value, n), memory.copy (d, s, n) and memory.init (d, s,
 * n) with their marks: every page from d to d + n - 1, after the
 * instruction ran (it traps on a range out of bounds, so the loop's range
 * is then in the map).
 */
function bulkCode(original: Uint8Array, g: number, local: (name: keyof typeof LOCAL) => number[]): number[] {
  const a = local('address');
  const x = local('value32');
  const n = local('length');
  const p = local('page');
  const q = local('last');
  const gi = encodeU32(g);
  return [
    // local.set n; local.set x; local.tee a; local.get x; local.get n; <instruction>
    0x21,
    ...n,
    0x21,
    ...x,
    0x22,
    ...a,
    0x20,
    ...x,
    0x20,
    ...n,
    ...original,
    // if g and n: p = a >> SHIFT; q = (a + n - 1) >> SHIFT; do { map[p] = 1 } while (++p <= q)
    0x23,
    ...gi,
    0x04,
    0x40,
    0x20,
    ...n,
    0x04,
    0x40,
    0x20,
    ...a,
    0x41,
    PAGE_SHIFT,
    0x76,
    0x21,
    ...p,
    0x20,
    ...a,
    0x20,
    ...n,
    0x6a,
    0x41,
    0x01,
    0x6b,
    0x41,
    PAGE_SHIFT,
    0x76,
    0x21,
    ...q,
    0x03,
    0x40,
    0x23,
    ...gi,
    0x20,
    ...p,
    0x6a,
    0x41,
    0x01,
    0x3a,
    0x00,
    0x00,
    0x20,
    ...p,
    0x41,
    0x01,
    0x6a,
    0x22,
    ...p,
    0x20,
    ...q,
    0x4d,
    0x0d,
    0x00,
    0x0b,
    0x0b,
    0x0b,
  ];
}

/** Signed LEB128 of a 32-bit value. */
function encodeS32(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
