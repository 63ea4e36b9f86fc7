/**
 * The small part of the WebAssembly binary format the meter needs: LEB128
 * numbers, the section list, and the types that appear inside imports,
 * globals and block headers. Anything malformed or unknown throws
 * `WasmFormatError`: a rewriter that guessed would emit a module that
 * validates yet counts the wrong thing.
 */

export class WasmFormatError extends Error {
  constructor(message: string, offset: number) {
    super(`wasm meter: ${message} (at byte ${offset})`);
    this.name = 'WasmFormatError';
  }
}

export class Reader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end: number = bytes.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  fail(message: string): never {
    throw new WasmFormatError(message, this.pos);
  }

  byte(): number {
    if (this.pos >= this.end) this.fail('unexpected end');
    return this.bytes[this.pos++] as number;
  }

  skip(n: number): void {
    if (this.pos + n > this.end) this.fail('unexpected end');
    this.pos += n;
  }

  /** Unsigned LEB128 of at most 32 bits, as a number. */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      if (shift === 28 && (b & 0x70) !== 0) this.fail('u32 out of range');
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 28) this.fail('u32 too long');
    }
  }

  /**
   * Skips a LEB128 of at most `bits` bits (signed or not: the meter never
   * needs the value of an i64.const, an offset or a type index beyond 2^32).
   */
  skipLeb(bits: number): void {
    const maxBytes = Math.ceil(bits / 7);
    for (let i = 0; i < maxBytes; i++) if ((this.byte() & 0x80) === 0) return;
    this.fail(`LEB128 longer than ${bits} bits`);
  }

  /** Signed LEB128 of at most 33 bits (block types), as a number. */
  s33(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (shift > 35) this.fail('s33 too long');
    } while ((b & 0x80) !== 0);
    if ((b & 0x40) !== 0) result -= 2 ** shift;
    return result;
  }

  name(): string {
    const length = this.u32();
    const start = this.pos;
    this.skip(length);
    return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes.subarray(start, start + length));
  }

  /** A heap type (reference types and GC): an abstract type byte or a type index. */
  heapType(): void {
    this.s33();
  }

  /** A value type, including `(ref null? ht)`. */
  valueType(): void {
    const b = this.byte();
    if (b === 0x63 || b === 0x64) this.heapType();
    else if (!isShortValueType(b)) this.fail(`unknown value type 0x${b.toString(16)}`);
  }

  /** The limits of a table or memory (memory64 and shared flags included). */
  limits(): void {
    const flags = this.byte();
    if (flags > 0x07) this.fail(`unknown limits flags 0x${flags.toString(16)}`);
    const bits = (flags & 0x04) !== 0 ? 64 : 32;
    this.skipLeb(bits);
    if ((flags & 0x01) !== 0) this.skipLeb(bits);
  }

  tableType(): void {
    this.valueType();
    this.limits();
  }

  globalType(): void {
    this.valueType();
    const mutability = this.byte();
    if (mutability > 1) this.fail('bad global mutability');
  }
}

/** Value types encoded in one byte: numbers, v128, and the abbreviated reference types. */
function isShortValueType(b: number): boolean {
  return (b >= 0x7b && b <= 0x7f) || (b >= 0x69 && b <= 0x74);
}

/** Unsigned LEB128. */
export function encodeU32(value: number): number[] {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`wasm meter: not a u32: ${value}`);
  const out: number[] = [];
  let v = value;
  do {
    let b = v % 128;
    v = Math.floor(v / 128);
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 of a 64-bit integer. */
export function encodeS64(value: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asIntN(64, value);
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const signClear = (b & 0x40) === 0;
    if ((v === 0n && signClear) || (v === -1n && !signClear)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export function encodeName(name: string): number[] {
  const bytes = new TextEncoder().encode(name);
  return [...encodeU32(bytes.length), ...bytes];
}

export interface Section {
  id: number;
  /** Where the section's content starts and ends in the module (after the id and size). */
  start: number;
  end: number;
  /** Custom sections only. */
  name?: string;
}

export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
  tag: 13,
} as const;

/** Where each known section must come, in the order the specification requires (tag sits between memory and global). */
const SECTION_RANK: Record<number, number> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13 };

export function sectionRank(id: number): number {
  const rank = SECTION_RANK[id];
  if (rank === undefined) throw new WasmFormatError(`unknown section id ${id}`, 0);
  return rank;
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

export function readSections(bytes: Uint8Array): Section[] {
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC[i]) throw new WasmFormatError('not a WebAssembly 1.0 binary module', i);
  }
  const reader = new Reader(bytes, MAGIC.length);
  const sections: Section[] = [];
  let lastRank = 0;
  while (!reader.done) {
    const id = reader.byte();
    const size = reader.u32();
    const start = reader.pos;
    reader.skip(size);
    const section: Section = { id, start, end: start + size };
    if (id === SECTION.custom) {
      section.name = new Reader(bytes, start, start + size).name();
    } else {
      const rank = sectionRank(id);
      if (rank <= lastRank) throw new WasmFormatError(`section ${id} out of order or repeated`, start);
      lastRank = rank;
    }
    sections.push(section);
  }
  return sections;
}

export const HEADER = Uint8Array.from(MAGIC);
