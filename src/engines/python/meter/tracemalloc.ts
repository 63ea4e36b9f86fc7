import type { QuietFunction } from './quiet.js';

/**
 * tracemalloc's functions in Pyodide's WebAssembly, which the metered
 * module leaves uncounted so that a pass under tracemalloc counts what an
 * untraced pass counts (docs/METERING.md, "One pass"). When tracing,
 * tracemalloc puts hooks in front of the three allocator domains: each
 * calls the allocator it wraps (through a function pointer, a
 * `call_indirect`), then records or forgets the block (a lock, a
 * traceback, hash-table entries allocated with the raw allocator). The
 * wrapped call stays counted; everything else the hooks do, including the
 * shared helpers they call, is not (quiet.ts).
 *
 * The module has no names section, so the functions are known by index,
 * per build of Pyodide (the digest of `pyodide.asm.wasm`). How they were
 * found (CPython's Python/tracemalloc.c, `_PyTraceMalloc_Start`): the one
 * function that calls `PyMem_GetAllocator`, `PyMem_SetAllocator` and
 * `PyRefTracer_SetTracer` (all exported) stores the hooks' table indices
 * in the allocator structs it installs; the element segment maps them to
 * functions. A build not listed here cannot be measured: metering it
 * throws, rather than counting tracemalloc's work as the candidate's.
 */
export interface TracemallocHooks {
  /** The hooks that do tracemalloc's work, each keeping its call into the wrapped allocator counted. */
  quiet: readonly QuietFunction[];
  /** Thin entry points (domain and calloc flags) that only call a quiet hook: no counters of their own. */
  silent: readonly number[];
}

const KNOWN: Readonly<Record<string, TracemallocHooks>> = {
  // Pyodide 314.0.7 (CPython 3.14). Table indices 2109 to 2116.
  cc36e3cab04fdfc9a63ff13eb52eae2b911bf46c025cc7b281f394bd3de1d5e6: {
    quiet: [
      // tracemalloc_free: the wrapped free, then the trace removed and freed.
      { index: 5109, keepIndirect: [0] },
      // _PyTraceMalloc_TraceRef, the reference tracer: all of it (the
      // harness also unsets it for a traced pass, as its call sites count).
      { index: 5116, keepIndirect: [] },
      // tracemalloc_alloc: the wrapped calloc or malloc, then the trace added.
      { index: 5117, keepIndirect: [0, 1] },
      // tracemalloc_realloc: the wrapped realloc, then the traces moved.
      { index: 5118, keepIndirect: [0] },
    ],
    // tracemalloc_{raw_,}{realloc,calloc,malloc}{_gil,}.
    silent: [5110, 5111, 5112, 5113, 5114, 5115],
  },
};

/** The hooks of the Pyodide build whose `pyodide.asm.wasm` has this SHA-256 (hex). */
export function tracemallocHooks(sha256: string): TracemallocHooks {
  const hooks = KNOWN[sha256];
  if (hooks === undefined) {
    throw new Error(
      `tracemalloc's functions are not known for this build of Pyodide (pyodide.asm.wasm ${sha256.slice(0, 16)}); docs/METERING.md says how to find them`,
    );
  }
  return hooks;
}
