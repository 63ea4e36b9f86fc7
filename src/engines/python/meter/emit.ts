/**
 * Turning a plan into bytes: the counter snippets and the rewritten code
 * section, kept apart from planning so that byte layout (sizes, locals,
 * snippet order) has one home.
 */
import { newDecoded } from './instructions.js';
import { planFunction, type MeterMode, type MeterStats } from './plan.js';
import { quietBody, type QuietFunction } from './quiet.js';
import { functionBodies } from './sections.js';
import { encodeS64, encodeU32, Reader, SECTION, type Section } from './wasm-binary.js';

/** The counter update: global.get g; i64.const w; i64.add; global.set g. */
function counterCode(globalIndex: number, weight: number): number[] {
  const g = encodeU32(globalIndex);
  return [0x23, ...g, 0x42, ...encodeS64(BigInt(weight)), 0x7c, 0x24, ...g];
}

/**
 * Before a memory.copy or memory.fill, whose length is on top of the
 * stack: keeps the length in a scratch local and adds length >> 3 to the
 * counter (the instruction's own 1 is in its stretch's weight).
 */
function bulkCode(globalIndex: number, scratch: number): number[] {
  const g = encodeU32(globalIndex);
  const t = encodeU32(scratch);
  // local.tee t; global.get g; local.get t; i64.extend_i32_u; i64.const 3; i64.shr_u; i64.add; global.set g
  return [0x22, ...t, 0x23, ...g, 0x20, ...t, 0xad, 0x42, 0x03, 0x88, 0x7c, 0x24, ...g];
}

export function writeCodeSection(
  bytes: Uint8Array,
  section: Section,
  params: readonly number[],
  special: { excluded: ReadonlySet<number>; quiet: ReadonlyMap<number, QuietFunction> },
  globalIndex: number,
  mode: MeterMode,
  stats: MeterStats,
  out: ByteWriter,
): void {
  const count = params.length;
  const body = new ByteWriter(section.end - section.start + (section.end - section.start));
  body.bytes(encodeU32(count));
  const decoded = newDecoded();
  const sites: number[] = [];
  const weights: number[] = [];
  const bulk: number[] = [];
  // Most weights are small; their encodings are made once.
  const snippets = new Map<number, number[]>();
  let i = -1;
  for (const { start, end, groups, groupsStart, declared, exprStart } of functionBodies(bytes, section, params)) {
    i++;
    const size = end - start;
    const quiet = special.quiet.get(i);
    if (quiet !== undefined) {
      const rewritten = quietBody(bytes, start, end, declared, globalIndex, quiet);
      body.bytes(encodeU32(rewritten.length));
      body.bytes(rewritten);
      stats.functions++;
      continue;
    }
    sites.length = 0;
    weights.length = 0;
    bulk.length = 0;
    planFunction(new Reader(bytes, exprStart, end), mode, decoded, sites, weights, bulk, stats);
    if (special.excluded.has(i)) {
      sites.length = 0;
      weights.length = 0;
      bulk.length = 0;
    }
    // A function with bulk memory instructions gets one more local, an i32
    // after all the others, so no existing local index moves.
    const bulkSnippet = bulk.length === 0 ? [] : bulkCode(globalIndex, declared);
    const localsHead = bulk.length === 0 ? [] : [...encodeU32(groups + 1), ...bytes.subarray(groupsStart, exprStart), 0x01, 0x7f];
    let added = bulk.length === 0 ? 0 : localsHead.length - (exprStart - start) + bulk.length * bulkSnippet.length;
    for (let k = 0; k < sites.length; k++) {
      const w = weights[k] as number;
      let code = snippets.get(w);
      if (code === undefined) {
        code = counterCode(globalIndex, w);
        snippets.set(w, code);
      }
      added += code.length;
    }
    body.bytes(encodeU32(size + added));
    let at = start;
    if (bulk.length > 0) {
      body.bytes(localsHead);
      at = exprStart;
    }
    // Both lists are ascending; where a stretch starts with a bulk
    // instruction, the stretch's counter goes first (either order is valid).
    let k = 0;
    let b = 0;
    while (k < sites.length || b < bulk.length) {
      const site = sites[k] ?? Infinity;
      const bulkSite = bulk[b] ?? Infinity;
      const next = Math.min(site, bulkSite);
      body.bytes(bytes.subarray(at, next));
      at = next;
      if (site <= bulkSite) body.bytes(snippets.get(weights[k++] as number) as number[]);
      else {
        body.bytes(bulkSnippet);
        b++;
      }
    }
    body.bytes(bytes.subarray(at, end));
    stats.bulkSites += bulk.length;
    stats.functions++;
    stats.sites += sites.length;
  }
  out.section(SECTION.code, body.result());
}

/** A growable byte buffer. */
export class ByteWriter {
  private buffer: Uint8Array;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(capacity, 64));
  }

  bytes(data: Uint8Array | readonly number[]): void {
    const n = data.length;
    if (this.length + n > this.buffer.length) {
      const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + n));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    if (data instanceof Uint8Array) this.buffer.set(data, this.length);
    else for (let i = 0; i < n; i++) this.buffer[this.length + i] = data[i] as number;
    this.length += n;
  }

  section(id: number, content: Uint8Array | readonly number[]): void {
    this.bytes([id, ...encodeU32(content.length)]);
    this.bytes(content);
  }

  result(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}
