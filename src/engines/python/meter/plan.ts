/**
 * Where counters go is decided apart from how they are written: this is
 * the only place that knows the counting schemes and what a stretch of
 * code weighs, so a change of scheme touches nothing else.
 */
import { decode, Flow, type Decoded } from './instructions.js';
import { Reader } from './wasm-binary.js';

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
export function planFunction(r: Reader, mode: MeterMode, d: Decoded, sites: number[], weights: number[], bulk: number[], stats: MeterStats): void {
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
