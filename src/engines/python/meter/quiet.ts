import { decode, newDecoded } from './instructions.js';
import { encodeU32, Reader } from './wasm-binary.js';

/**
 * A function whose own work, and the work of the calls it makes, the
 * counter does not see, except for the calls it names: an allocator hook
 * (tracemalloc's) that calls the allocator it wraps, then does its own
 * bookkeeping. The hook's instructions get no counter updates, and every
 * call in it other than the kept ones puts the counter back, after it
 * returns, to what it was before: so shared helpers it calls (a hash
 * table, malloc, a lock) are not counted when it calls them, and are still
 * counted when anything else does.
 */
export interface QuietFunction {
  /** The function's index (imported functions first). */
  index: number;
  /**
   * Which of its `call_indirect` instructions, by their order in the body
   * (0 the first), stay counted: the call into the wrapped allocator.
   */
  keepIndirect: readonly number[];
}

const CALL = 0x10;
const CALL_INDIRECT = 0x11;
const CALL_REF = 0x14;
const TAIL_CALLS = new Set([0x12, 0x13, 0x15]);

/**
 * The new body (without its size) of a quiet function, from its bytes in
 * the module (`start` to `end`, after the size). `declared` is its number
 * of parameters and locals: one more i64 local, after them, keeps the
 * counter across a call.
 */
export function quietBody(bytes: Uint8Array, start: number, end: number, declared: number, globalIndex: number, quiet: QuietFunction): Uint8Array {
  const locals = new Reader(bytes, start, end);
  const groups = locals.u32();
  const groupsStart = locals.pos;
  for (let n = groups; n > 0; n--) {
    locals.u32();
    locals.valueType();
  }
  const exprStart = locals.pos;
  const g = encodeU32(globalIndex);
  const s = encodeU32(declared);
  // global.get g; local.set s ... call ... local.get s; global.set g
  const save = [0x23, ...g, 0x21, ...s];
  const restore = [0x20, ...s, 0x24, ...g];
  const out: number[] = [...encodeU32(groups + 1), ...bytes.subarray(groupsStart, exprStart), 0x01, 0x7e];
  const r = new Reader(bytes, exprStart, end);
  const d = newDecoded();
  let indirect = 0;
  let kept = 0;
  let copied = exprStart;
  while (!r.done) {
    const at = r.pos;
    decode(r, d);
    if (TAIL_CALLS.has(d.opcode)) r.fail(`a tail call in quiet function ${quiet.index}: its restore would never run`);
    if (d.opcode !== CALL && d.opcode !== CALL_INDIRECT && d.opcode !== CALL_REF) continue;
    if (d.opcode === CALL_INDIRECT && quiet.keepIndirect.includes(indirect++)) {
      kept++;
      continue;
    }
    for (let i = copied; i < at; i++) out.push(bytes[i] as number);
    out.push(...save);
    for (let i = at; i < r.pos; i++) out.push(bytes[i] as number);
    out.push(...restore);
    copied = r.pos;
  }
  if (kept !== quiet.keepIndirect.length)
    r.fail(`quiet function ${quiet.index} has ${indirect} call_indirect, not the ones to keep (${quiet.keepIndirect.join(', ')})`);
  for (let i = copied; i < end; i++) out.push(bytes[i] as number);
  return Uint8Array.from(out);
}
