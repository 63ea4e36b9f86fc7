/**
 * What each of the interpreter's imports writes into its linear memory from
 * JavaScript, for the write marks of a metered interpreter
 * (src/engines/python/meter/write-marks.ts, docs/METERING.md "Restores that
 * copy what was written").
 *
 * The marks see every write the interpreter's WebAssembly makes. JavaScript
 * writes into the memory too, and only inside imports while Python runs
 * (Pyodide's calls into Python hand JavaScript values to WebAssembly, which
 * converts them through imports). So boot.js wraps the imports of a marked
 * interpreter by what this file says each one writes:
 *
 * - none: writes nothing into the memory (returns a number or a JavaScript
 *   value, reads the memory, or calls WebAssembly, whose writes are marked);
 * - a named rule: writes a range its arguments or its result give, which
 *   the wrapper marks;
 * - unknown: anything else, including every import not named here. A call
 *   makes the next restore copy the whole memory, as one without marks
 *   does: a Pyodide upgrade that changes an import costs speed, never a
 *   restore that misses a write.
 *
 * Each entry was read in Pyodide's pyodide.asm.mjs of the version the host
 * checks before it writes marks into the metered module (WRITE_POLICY_PYODIDE
 * in src/engines/python/meter/metered-files.ts).
 */
export type WritePolicy = 'none' | 'clock_time_get' | 'random_get' | 'fd_write' | 'js2python_js' | 'unknown';

const WRITES_NOTHING = new Set([
  // Calls a function of the interpreter's table (WebAssembly).
  '_PyEM_TrampolineCall_JS',
  // Reads and clears an interrupt buffer outside the memory (none is set).
  '_Py_CheckEmscriptenSignals_Helper',
  'emscripten_get_now',
  'emscripten_date_now',
  'emscripten_get_heap_max',
  // Grows the memory: the new pages are zero, and a restore clears what was written there.
  'emscripten_resize_heap',
  // Python strings read into JavaScript ones.
  '_python2js_ascii',
  '_python2js_ucs1',
  '_python2js_ucs2',
  '_python2js_ucs4',
  'JsvNoValue_Check',
  'JsvError_Check',
  'JsvArray_Get',
]);

export function writePolicy(name: string): WritePolicy {
  if (WRITES_NOTHING.has(name)) return 'none';
  if (name === 'clock_time_get' || name === 'random_get' || name === 'fd_write' || name === 'js2python_js') return name;
  return 'unknown';
}

/**
 * The range [start, start + length) an import of a named rule wrote, from
 * its arguments and result; `unicodeData(object)` is the interpreter's
 * PyUnicode_Data. Null when it wrote nothing.
 */
export function writtenRange(
  policy: Exclude<WritePolicy, 'none' | 'unknown'>,
  args: ArrayLike<unknown>,
  result: unknown,
  unicodeData: (object: number) => number,
): { start: number; length: number } | null {
  switch (policy) {
    case 'clock_time_get':
      // (clock id, precision, pointer to a u64 of nanoseconds)
      return { start: Number(args[2]) >>> 0, length: 8 };
    case 'random_get':
      return { start: Number(args[0]) >>> 0, length: Number(args[1]) >>> 0 };
    case 'fd_write':
      // (fd, iovecs, count, pointer to the u32 count of bytes written)
      return { start: Number(args[3]) >>> 0, length: 4 };
    case 'js2python_js': {
      // A string is copied into a new str's character data by JavaScript
      // (at most 4 bytes a character); numbers, booleans, None and proxies
      // are made by WebAssembly.
      const value = args[0];
      if (typeof value !== 'string' || typeof result !== 'number' || result === 0) return null;
      return { start: unicodeData(result) >>> 0, length: value.length * 4 };
    }
  }
}

/** Whether an argument to js2python_js is converted by JavaScript writing outside a string's data (a BigInt goes through the stack). */
export function js2pythonWritesElsewhere(value: unknown): boolean {
  return typeof value === 'bigint';
}
