import { Reader } from './wasm-binary.js';

/**
 * Decodes one instruction at a time from a function body: its length (all
 * immediates skipped exactly) and what it does to control flow, which is
 * all the meter needs to find the straight-line stretches of code. Every
 * opcode of the core specification, reference types, bulk memory, SIMD and
 * relaxed SIMD, threads, tail calls, typed function references and both
 * exception-handling proposals (legacy try/catch and try_table) is known;
 * anything else (the GC proposal's 0xFB prefix among them) throws, so a
 * Pyodide built with features this file does not know fails at transform
 * time instead of being metered wrongly.
 */

export enum Flow {
  /** Does its work and falls through: counted. */
  Plain,
  /** Compiles to nothing (nop): not counted. */
  Nop,
  Block,
  Loop,
  If,
  Else,
  End,
  /** Legacy exception handling: `try`. */
  Try,
  /** Legacy `catch tag` and `catch_all`: the start of a handler. */
  Catch,
  /** Legacy `delegate l`: ends a try, handing its exceptions to an outer one. */
  Delegate,
  /** `try_table` with its catch clauses' labels. */
  TryTable,
  /** Unconditional branch to `label`. */
  Br,
  /** Conditional branch to `label` (br_if, br_on_null, br_on_non_null). */
  BrIf,
  /** `br_table`: unconditional, to one of `labels`. */
  BrTable,
  /** Leaves the function or traps: return, unreachable, throw, rethrow, throw_ref, return_call*. */
  Exit,
}

/** The instruction just decoded; one object reused for all of them, as Pyodide has millions. */
export interface Decoded {
  flow: Flow;
  /** Opcode, or prefix * 2^24 + sub-opcode for the prefixed ones. */
  opcode: number;
  /** Br, BrIf, Delegate: the label. */
  label: number;
  /** BrTable: every target including the default; TryTable: the catch clauses' labels. */
  labels: number[];
}

export function newDecoded(): Decoded {
  return { flow: Flow.Plain, opcode: 0, label: 0, labels: [] };
}

/** A memory immediate: alignment (bit 6 says a memory index follows, multi-memory) and an offset (64 bits for memory64). */
function memarg(r: Reader): void {
  const align = r.u32();
  if ((align & 0x40) !== 0) r.u32();
  r.skipLeb(64);
}

/** A block type: empty (0x40), one value type, or a type index (s33). */
function blockType(r: Reader): void {
  const b = r.bytes[r.pos];
  if (b === 0x40) {
    r.pos++;
    return;
  }
  if (b === 0x63 || b === 0x64) {
    r.valueType();
    return;
  }
  const v = r.s33();
  // Negative values are the one-byte value types (0x7F is -1 ... 0x69 is
  // -23); non-negative ones index the type section.
  if (v < -23) r.fail(`bad block type ${v}`);
}

/** Opcodes without immediates that only compute (counted, fall through). */
function isPlainNoImmediate(op: number): boolean {
  return (
    op === 0x1a || // drop
    op === 0x1b || // select
    (op >= 0x45 && op <= 0xc4) || // numeric, conversions, sign extension
    op === 0xd1 || // ref.is_null
    op === 0xd3 || // ref.eq
    op === 0xd4 // ref.as_non_null
  );
}

export function decode(r: Reader, out: Decoded): void {
  const op = r.byte();
  out.opcode = op;
  out.flow = Flow.Plain;
  if (isPlainNoImmediate(op)) return;
  switch (op) {
    case 0x00: // unreachable
      out.flow = Flow.Exit;
      return;
    case 0x01:
      out.flow = Flow.Nop;
      return;
    case 0x02:
      blockType(r);
      out.flow = Flow.Block;
      return;
    case 0x03:
      blockType(r);
      out.flow = Flow.Loop;
      return;
    case 0x04:
      blockType(r);
      out.flow = Flow.If;
      return;
    case 0x05:
      out.flow = Flow.Else;
      return;
    case 0x06:
      blockType(r);
      out.flow = Flow.Try;
      return;
    case 0x07: // catch tag
      r.u32();
      out.flow = Flow.Catch;
      return;
    case 0x08: // throw tag
      r.u32();
      out.flow = Flow.Exit;
      return;
    case 0x09: // rethrow label (a try's depth, not a branch)
      r.u32();
      out.flow = Flow.Exit;
      return;
    case 0x0a: // throw_ref
      out.flow = Flow.Exit;
      return;
    case 0x0b:
      out.flow = Flow.End;
      return;
    case 0x0c:
      out.label = r.u32();
      out.flow = Flow.Br;
      return;
    case 0x0d:
      out.label = r.u32();
      out.flow = Flow.BrIf;
      return;
    case 0x0e: {
      const n = r.u32();
      out.labels = [];
      for (let i = 0; i <= n; i++) out.labels.push(r.u32());
      out.flow = Flow.BrTable;
      return;
    }
    case 0x0f: // return
      out.flow = Flow.Exit;
      return;
    case 0x10: // call
    case 0x14: // call_ref
      r.u32();
      return;
    case 0x11: // call_indirect type table
      r.u32();
      r.u32();
      return;
    case 0x12: // return_call
    case 0x15: // return_call_ref
      r.u32();
      out.flow = Flow.Exit;
      return;
    case 0x13: // return_call_indirect
      r.u32();
      r.u32();
      out.flow = Flow.Exit;
      return;
    case 0x18: // delegate label
      out.label = r.u32();
      out.flow = Flow.Delegate;
      return;
    case 0x19: // catch_all
      out.flow = Flow.Catch;
      return;
    case 0x1c: {
      // typed select
      const n = r.u32();
      for (let i = 0; i < n; i++) r.valueType();
      return;
    }
    case 0x1f: {
      // try_table bt (catch kind tag? label)*
      blockType(r);
      const n = r.u32();
      out.labels = [];
      for (let i = 0; i < n; i++) {
        const kind = r.byte();
        if (kind === 0x00 || kind === 0x01) r.u32();
        else if (kind !== 0x02 && kind !== 0x03) r.fail(`unknown try_table catch kind ${kind}`);
        out.labels.push(r.u32());
      }
      out.flow = Flow.TryTable;
      return;
    }
    case 0x20:
    case 0x21:
    case 0x22:
    case 0x23:
    case 0x24:
    case 0x25:
    case 0x26:
    case 0xd2: // ref.func
      r.u32();
      return;
    case 0x3f: // memory.size
    case 0x40: // memory.grow
      r.u32();
      return;
    case 0x41:
      r.skipLeb(32);
      return;
    case 0x42:
      r.skipLeb(64);
      return;
    case 0x43:
      r.skip(4);
      return;
    case 0x44:
      r.skip(8);
      return;
    case 0xd0: // ref.null
      r.heapType();
      return;
    case 0xd5: // br_on_null
    case 0xd6: // br_on_non_null
      out.label = r.u32();
      out.flow = Flow.BrIf;
      return;
    case 0xfc:
      decodeFC(r, out);
      return;
    case 0xfd:
      decodeFD(r, out);
      return;
    case 0xfe:
      decodeFE(r, out);
      return;
    default:
      if (op >= 0x28 && op <= 0x3e) {
        memarg(r);
        return;
      }
      r.fail(`unknown opcode 0x${op.toString(16)}`);
  }
}

/** 0xFC: saturating truncation, bulk memory, table operations. */
function decodeFC(r: Reader, out: Decoded): void {
  const sub = r.u32();
  out.opcode = 0xfc * 0x1000000 + sub;
  if (sub <= 7) return; // trunc_sat
  switch (sub) {
    case 8: // memory.init data mem
    case 10: // memory.copy mem mem
    case 12: // table.init elem table
    case 14: // table.copy table table
      r.u32();
      r.u32();
      return;
    case 9: // data.drop
    case 11: // memory.fill mem
    case 13: // elem.drop
    case 15: // table.grow
    case 16: // table.size
    case 17: // table.fill
      r.u32();
      return;
    default:
      r.fail(`unknown 0xFC sub-opcode ${sub}`);
  }
}

/** 0xFD: SIMD and relaxed SIMD. */
function decodeFD(r: Reader, out: Decoded): void {
  const sub = r.u32();
  out.opcode = 0xfd * 0x1000000 + sub;
  if (sub <= 11 || sub === 92 || sub === 93) {
    memarg(r); // loads, stores, load32_zero, load64_zero
    return;
  }
  if (sub === 12 || sub === 13) {
    r.skip(16); // v128.const, i8x16.shuffle
    return;
  }
  if (sub >= 21 && sub <= 34) {
    r.skip(1); // extract_lane / replace_lane
    return;
  }
  if (sub >= 84 && sub <= 91) {
    memarg(r); // load_lane / store_lane
    r.skip(1);
    return;
  }
  // Everything else up to 0xFF (the numeric SIMD operations; a few numbers
  // are unassigned and fail when compiled, not here) and relaxed SIMD
  // (0x100..0x113) has no immediate.
  if (sub <= 0xff || (sub >= 0x100 && sub <= 0x113)) return;
  r.fail(`unknown 0xFD sub-opcode ${sub}`);
}

/** 0xFE: threads (atomics). */
function decodeFE(r: Reader, out: Decoded): void {
  const sub = r.u32();
  out.opcode = 0xfe * 0x1000000 + sub;
  if (sub === 0x03) {
    // atomic.fence
    if (r.byte() !== 0) r.fail('atomic.fence takes a zero byte');
    return;
  }
  if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) {
    memarg(r);
    return;
  }
  r.fail(`unknown 0xFE sub-opcode ${sub}`);
}
