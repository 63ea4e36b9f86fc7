import { decode, Flow, newDecoded, type Decoded } from './instructions.js';
import { quietBody, type QuietFunction } from './quiet.js';
import { encodeName, encodeS64, encodeU32, HEADER, Reader, readSections, SECTION, sectionRank, WasmFormatError, type Section } from './wasm-binary.js';

/**
 * Meters a WebAssembly module: one mutable i64 global, appended after all
 * others (imported and defined) so that no existing index moves, counts the
 * work the module's code does, and is exported so the host can read and
 * reset it.
 *
 * Two ways to count, both static weights added where control arrives:
 *
 * - `blocks` (the default): a counter update at the start of every
 *   straight-line stretch of code (function entry, loop header, `if` and
 *   `else` arms, after a conditional branch, after the end of a block some
 *   branch targets, exception handlers), adding the number of instructions
 *   in that stretch up to its next branch. The sum is then the number of
 *   WebAssembly instructions executed, exactly, as long as nothing traps or
 *   unwinds in the middle of a stretch (then that stretch's rest counts
 *   too; the count stays deterministic). Structure markers that compile to
 *   nothing (block, loop, end, else, try, nop) are not instructions here.
 *   Bulk memory instructions are the exception to static weights: a
 *   `memory.copy` or `memory.fill` (what memcpy and memset compile to here)
 *   adds 1 plus one per 8 bytes it moves, read from its length operand, as
 *   a copy loop in WebAssembly would cost about that per 64-bit word.
 * - `loops`: 1 at every function entry and every loop iteration, the
 *   cheapest scheme the issue suggests: a count of calls plus iterations,
 *   blind to how long each straight stretch is.
 */
export type MeterMode = 'blocks' | 'loops';

export interface MeterOptions {
  mode?: MeterMode;
  /** The export name of the counter. */
  exportName?: string;
  /**
   * Exported functions left without counters (by export name): code whose
   * path depends on state outside what a restore puts back, such as
   * `sbrk`, which calls out to grow the memory only when the memory is
   * not already large enough. Each must exist, so a rename fails loudly.
   */
  exclude?: readonly string[];
  /** Functions left without counters, by index (imported functions first). */
  silent?: readonly number[];
  /** Functions whose work, and that of the calls they make, is not counted (quiet.ts). */
  quiet?: readonly QuietFunction[];
}

export interface MeterStats {
  functions: number;
  /** Instructions decoded in all function bodies (structure markers included). */
  instructions: number;
  /** Counter updates inserted. */
  sites: number;
  /** memory.copy and memory.fill instructions given a length-dependent weight. */
  bulkSites: number;
  /** Imported globals: the counter's index is this plus the defined ones. */
  importedGlobals: number;
  /** How many instructions of each prefix (0xFC, 0xFD, 0xFE) and each exception-handling kind were seen. */
  features: Record<string, number>;
}

export interface MeteredModule {
  bytes: Uint8Array;
  exportName: string;
  globalIndex: number;
  stats: MeterStats;
}

export const DEFAULT_METER_EXPORT = 'evalrun_meter';

export function meterModule(input: Uint8Array, options: MeterOptions = {}): MeteredModule {
  const mode = options.mode ?? 'blocks';
  const exportName = options.exportName ?? DEFAULT_METER_EXPORT;
  const sections = readSections(input);
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);

  const importedGlobals = countImports(input, find(SECTION.import), 0x03);
  const globalSection = find(SECTION.global);
  const definedGlobals = globalSection === undefined ? 0 : new Reader(input, globalSection.start, globalSection.end).u32();
  const globalIndex = importedGlobals + definedGlobals;

  const exportSection = find(SECTION.export);
  const exported = exportSection === undefined ? new Map<string, { kind: number; index: number }>() : exports(input, exportSection);
  if (exported.has(exportName)) {
    throw new WasmFormatError(`the module already exports ${JSON.stringify(exportName)}`, exportSection?.start ?? 0);
  }
  const importedFunctions = countImports(input, find(SECTION.import), 0x00);
  const excluded = new Set<number>();
  for (const name of options.exclude ?? []) {
    const entry = exported.get(name);
    if (entry === undefined || entry.kind !== 0x00 || entry.index < importedFunctions) {
      throw new WasmFormatError(`no function defined in the module is exported as ${JSON.stringify(name)}`, 0);
    }
    excluded.add(entry.index - importedFunctions);
  }
  const definedIndex = (index: number): number => {
    if (index < importedFunctions) throw new WasmFormatError(`function ${index} is imported, not defined in the module`, 0);
    return index - importedFunctions;
  };
  for (const index of options.silent ?? []) excluded.add(definedIndex(index));
  const quiet = new Map<number, QuietFunction>();
  for (const q of options.quiet ?? []) quiet.set(definedIndex(q.index), q);
  const codeSection = find(SECTION.code);
  const params = functionParamCounts(input, find(SECTION.type), find(SECTION.function));
  checkMemory32(input, find(SECTION.import), find(SECTION.memory));

  const stats: MeterStats = { functions: 0, instructions: 0, sites: 0, bulkSites: 0, importedGlobals, features: {} };

  // The new global: (mut i64) initialised to i64.const 0.
  const newGlobal = [0x7e, 0x01, 0x42, 0x00, 0x0b];
  const newExport = [...encodeName(exportName), 0x03, ...encodeU32(globalIndex)];

  const out = new ByteWriter(input.length + (input.length >> 2));
  out.bytes(HEADER);
  const pending = new Map<number, () => void>();
  if (globalSection === undefined) pending.set(SECTION.global, () => out.section(SECTION.global, [...encodeU32(1), ...newGlobal]));
  if (exportSection === undefined) pending.set(SECTION.export, () => out.section(SECTION.export, [...encodeU32(1), ...newExport]));
  // A missing section goes where the specification's order puts it: before
  // the first section that must follow it.
  const flushBefore = (id: number): void => {
    for (const [missing, write] of [...pending]) {
      if (sectionRank(missing) < sectionRank(id)) {
        write();
        pending.delete(missing);
      }
    }
  };

  for (const section of sections) {
    if (section.id !== SECTION.custom) flushBefore(section.id);
    if (section === globalSection) {
      out.section(SECTION.global, appendToVector(input, section, newGlobal));
    } else if (section === exportSection) {
      out.section(SECTION.export, appendToVector(input, section, newExport));
    } else if (section === codeSection) {
      writeCodeSection(input, section, params, { excluded, quiet }, globalIndex, mode, stats, out);
    } else {
      out.section(section.id, input.subarray(section.start, section.end));
    }
  }
  for (const write of pending.values()) write();
  return { bytes: out.result(), exportName, globalIndex, stats };
}

/** How many imports of one kind (0 functions, 3 globals) the module has: they take the first indices of their kind. */
function countImports(bytes: Uint8Array, section: Section | undefined, wanted: number): number {
  if (section === undefined) return 0;
  const r = new Reader(bytes, section.start, section.end);
  let found = 0;
  for (let n = r.u32(); n > 0; n--) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === wanted) found++;
    switch (kind) {
      case 0x00: // function: type index
        r.u32();
        break;
      case 0x01:
        r.tableType();
        break;
      case 0x02:
        r.limits();
        break;
      case 0x03:
        r.globalType();
        break;
      case 0x04: // tag: attribute, type index
        r.byte();
        r.u32();
        break;
      default:
        r.fail(`unknown import kind ${kind}`);
    }
  }
  if (!r.done) r.fail('import section has trailing bytes');
  return found;
}

/** How many parameters each function defined in the module takes (their locals come first). */
function functionParamCounts(bytes: Uint8Array, typeSection: Section | undefined, functionSection: Section | undefined): number[] {
  const typeParams: number[] = [];
  if (typeSection !== undefined) {
    const r = new Reader(bytes, typeSection.start, typeSection.end);
    for (let n = r.u32(); n > 0; n--) {
      const form = r.byte();
      if (form !== 0x60) r.fail(`type form 0x${form.toString(16)} is not a function type (GC types are not supported)`);
      const count = r.u32();
      for (let i = 0; i < count; i++) r.valueType();
      for (let results = r.u32(); results > 0; results--) r.valueType();
      typeParams.push(count);
    }
  }
  const counts: number[] = [];
  if (functionSection !== undefined) {
    const r = new Reader(bytes, functionSection.start, functionSection.end);
    for (let n = r.u32(); n > 0; n--) {
      const type = r.u32();
      counts.push(typeParams[type] ?? r.fail(`function type ${type} out of range`));
    }
  }
  return counts;
}

/** Bulk-memory lengths are read as i32: a 64-bit memory would need other code. */
function checkMemory32(bytes: Uint8Array, importSection: Section | undefined, memorySection: Section | undefined): void {
  const memory64 = (r: Reader): void => {
    if ((r.bytes[r.pos] as number) & 0x04) r.fail('64-bit memories are not supported');
    r.limits();
  };
  if (memorySection !== undefined) {
    const r = new Reader(bytes, memorySection.start, memorySection.end);
    for (let n = r.u32(); n > 0; n--) memory64(r);
  }
  if (importSection !== undefined) {
    const r = new Reader(bytes, importSection.start, importSection.end);
    for (let n = r.u32(); n > 0; n--) {
      r.name();
      r.name();
      const kind = r.byte();
      if (kind === 0x00) r.u32();
      else if (kind === 0x01) r.tableType();
      else if (kind === 0x02) memory64(r);
      else if (kind === 0x03) r.globalType();
      else if (kind === 0x04) {
        r.byte();
        r.u32();
      } else r.fail(`unknown import kind ${kind}`);
    }
  }
}

function exports(bytes: Uint8Array, section: Section): Map<string, { kind: number; index: number }> {
  const r = new Reader(bytes, section.start, section.end);
  const entries = new Map<string, { kind: number; index: number }>();
  for (let n = r.u32(); n > 0; n--) {
    const name = r.name();
    const kind = r.byte();
    entries.set(name, { kind, index: r.u32() });
  }
  return entries;
}

/** A vector section's content with one more entry at its end: the count goes up by one, the entries stay as they are. */
function appendToVector(bytes: Uint8Array, section: Section, entry: number[]): Uint8Array {
  const r = new Reader(bytes, section.start, section.end);
  const count = r.u32();
  const head = encodeU32(count + 1);
  const rest = bytes.subarray(r.pos, section.end);
  const content = new Uint8Array(head.length + rest.length + entry.length);
  content.set(head, 0);
  content.set(rest, head.length);
  content.set(entry, head.length + rest.length);
  return content;
}

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

function writeCodeSection(
  bytes: Uint8Array,
  section: Section,
  params: readonly number[],
  special: { excluded: ReadonlySet<number>; quiet: ReadonlyMap<number, QuietFunction> },
  globalIndex: number,
  mode: MeterMode,
  stats: MeterStats,
  out: ByteWriter,
): void {
  const r = new Reader(bytes, section.start, section.end);
  const count = r.u32();
  if (count !== params.length) r.fail(`${count} function bodies for ${params.length} functions`);
  const body = new ByteWriter(section.end - section.start + (section.end - section.start));
  body.bytes(encodeU32(count));
  const decoded = newDecoded();
  const sites: number[] = [];
  const weights: number[] = [];
  const bulk: number[] = [];
  // Most weights are small; their encodings are made once.
  const snippets = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    const size = r.u32();
    const start = r.pos;
    const end = start + size;
    r.skip(size);
    const locals = new Reader(bytes, start, end);
    const groups = locals.u32();
    const groupsStart = locals.pos;
    let declared = params[i] as number;
    for (let n = groups; n > 0; n--) {
      declared += locals.u32();
      locals.valueType();
    }
    const exprStart = locals.pos;
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
  if (!r.done) r.fail('code section has trailing bytes');
  out.section(SECTION.code, body.result());
}

interface ControlFrame {
  flow: Flow;
  /** Some branch goes to this frame's label: code after its end is a join point. */
  targeted: boolean;
}

/** What a straight-line stretch of code costs when it starts at a counter site. */
function weightOf(flow: Flow): number {
  switch (flow) {
    case Flow.Plain:
    case Flow.If:
    case Flow.Br:
    case Flow.BrIf:
    case Flow.BrTable:
    case Flow.Exit:
      return 1;
    default:
      return 0;
  }
}

const FEATURE_NAMES: Partial<Record<number, string>> = { 0xfc: '0xFC', 0xfd: '0xFD (SIMD)', 0xfe: '0xFE (atomics)' };

/**
 * Decodes one function's expression and lists where counter updates go
 * (byte offsets in the module, ascending) and what each adds.
 */
function planFunction(r: Reader, mode: MeterMode, d: Decoded, sites: number[], weights: number[], bulk: number[], stats: MeterStats): void {
  const frames: ControlFrame[] = [{ flow: Flow.Block, targeted: false }];
  let siteAt = r.pos;
  let weight = 0;
  let live = true;
  const close = (): void => {
    if (live && weight > 0) {
      sites.push(siteAt);
      weights.push(weight);
    }
    weight = 0;
  };
  const open = (at: number): void => {
    close();
    siteAt = at;
    live = true;
  };
  const kill = (): void => {
    close();
    live = false;
  };
  const target = (label: number): void => {
    const frame = frames[frames.length - 1 - label];
    if (frame === undefined) r.fail(`branch to label ${label} outside the function`);
    frame.targeted = true;
  };
  const count = mode === 'blocks';
  if (!count) {
    sites.push(r.pos);
    weights.push(1);
  }

  while (frames.length > 0) {
    if (r.done) r.fail('function body ends inside a block');
    const at = r.pos;
    decode(r, d);
    stats.instructions++;
    if (d.opcode > 0xff) {
      const name = FEATURE_NAMES[Math.floor(d.opcode / 0x1000000)] as string;
      stats.features[name] = (stats.features[name] ?? 0) + 1;
      const sub = d.opcode % 0x1000000;
      if (d.opcode >= 0xfc * 0x1000000 && d.opcode < 0xfd * 0x1000000 && (sub === 10 || sub === 11)) {
        const name = sub === 10 ? 'memory.copy' : 'memory.fill';
        stats.features[name] = (stats.features[name] ?? 0) + 1;
        if (count) bulk.push(at);
      }
    }
    if (count) weight += weightOf(d.flow);
    switch (d.flow) {
      case Flow.Plain:
      case Flow.Nop:
        break;
      case Flow.Block:
        frames.push({ flow: Flow.Block, targeted: false });
        break;
      case Flow.Loop:
        frames.push({ flow: Flow.Loop, targeted: false });
        if (count) open(r.pos);
        else {
          sites.push(r.pos);
          weights.push(1);
        }
        break;
      case Flow.If:
        frames.push({ flow: Flow.If, targeted: false });
        if (count) open(r.pos);
        break;
      case Flow.Else:
      case Flow.Catch:
        noteFeature(stats, d.flow);
        if (count) open(r.pos);
        break;
      case Flow.Try:
        noteFeature(stats, d.flow);
        frames.push({ flow: Flow.Try, targeted: false });
        break;
      case Flow.TryTable:
        noteFeature(stats, d.flow);
        // Catch clauses' labels are relative to the blocks around the try_table.
        for (const label of d.labels) target(label);
        frames.push({ flow: Flow.Block, targeted: false });
        break;
      case Flow.End:
      case Flow.Delegate: {
        const frame = frames.pop() as ControlFrame;
        if (frames.length === 0) {
          close();
          break;
        }
        // Code after an `end` is reached by falling through, and also by
        // branches to a block (a loop's label is its start), by an `if`
        // without `else` skipping its arm, or from a legacy catch.
        const join = frame.flow === Flow.If || (frame.flow === Flow.Try && d.flow === Flow.End) || (frame.flow !== Flow.Loop && frame.targeted);
        if (count && join) open(r.pos);
        break;
      }
      case Flow.Br:
        target(d.label);
        if (count) kill();
        break;
      case Flow.BrIf:
        target(d.label);
        if (count) open(r.pos);
        break;
      case Flow.BrTable:
        for (const label of d.labels) target(label);
        if (count) kill();
        break;
      case Flow.Exit:
        if (count) kill();
        break;
    }
  }
  if (!r.done) r.fail('function body continues after its end');
}

function noteFeature(stats: MeterStats, flow: Flow): void {
  const name = flow === Flow.TryTable ? 'try_table' : 'legacy try/catch';
  if (flow === Flow.Else) return;
  stats.features[name] = (stats.features[name] ?? 0) + 1;
}

/** A growable byte buffer. */
class ByteWriter {
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
