/**
 * The rewrite reads a few sections besides code (imports, types, memories,
 * exports) only to learn indices and to refuse what it cannot meter; these
 * readers keep that bookkeeping out of the entry point.
 */
import { encodeU32, Reader, type Section } from './wasm-binary.js';

/** How many imports of one kind (0 functions, 3 globals) the module has: they take the first indices of their kind. */
export function countImports(bytes: Uint8Array, section: Section | undefined, wanted: number): number {
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
export function functionParamCounts(bytes: Uint8Array, typeSection: Section | undefined, functionSection: Section | undefined): number[] {
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
export function checkMemory32(bytes: Uint8Array, importSection: Section | undefined, memorySection: Section | undefined): void {
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

export function exports(bytes: Uint8Array, section: Section): Map<string, { kind: number; index: number }> {
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
export function appendToVector(bytes: Uint8Array, section: Section, entry: number[]): Uint8Array {
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

/** One function body of the code section: its byte range, its local declarations, and where its expression starts. */
export interface FunctionBody {
  /** First byte after the body's size, and the byte after its end. */
  start: number;
  end: number;
  /** How many groups of locals it declares, and where the first one starts. */
  groups: number;
  groupsStart: number;
  /** Its parameters and locals: the index the next local would get. */
  declared: number;
  exprStart: number;
}

/** The code section's bodies in order; `params` is each function's parameter count. Fails on a count that does not match or trailing bytes. */
export function* functionBodies(bytes: Uint8Array, section: Section, params: readonly number[]): Generator<FunctionBody> {
  const r = new Reader(bytes, section.start, section.end);
  const count = r.u32();
  if (count !== params.length) r.fail(`${count} function bodies for ${params.length} functions`);
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
    yield { start, end, groups, groupsStart, declared, exprStart: locals.pos };
  }
  if (!r.done) r.fail('code section has trailing bytes');
}
