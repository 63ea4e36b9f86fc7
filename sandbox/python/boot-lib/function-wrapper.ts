/**
 * Emscripten's convertJsFunctionToWasm, which Pyodide's dynamic linker calls
 * to put a JavaScript function into the function table (a library that takes
 * the address of one), makes a WebAssembly module of exactly this form: one
 * function type, the import of `e.f`, and its export as `f`. It has no code
 * of its own, so the dlopen gate in boot.js compiles it without a digest.
 */

/** The magic number, version 1, and the id of the type section. */
const HEAD = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01];
/** After the type section: the import section (`e` `f`, a function of type 0) and the export section (`f`, function 0). */
const TAIL = [0x02, 0x07, 0x01, 0x01, 0x65, 0x01, 0x66, 0x00, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00];
/** i32, i64, f32, f64, externref. */
const VALUE_TYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x6f]);
/** A function type's tag in the type section. */
const FUNC_TYPE = 0x60;

/** Whether `bytes` is such a wrapper module and nothing else. */
export function isFunctionWrapper(bytes: Uint8Array): boolean {
  const n = bytes.length;
  let at = 0;
  for (; at < HEAD.length; at++) if (bytes[at] !== HEAD[at]) return false;
  /** An unsigned LEB128 of up to 28 bits at `at`, or -1. */
  const leb = (): number => {
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (at >= n) return -1;
      const byte = bytes[at++]!;
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    return -1;
  };
  const size = leb();
  if (size < 0) return false;
  const typesEnd = at + size;
  // One type, a function type.
  if (bytes[at++] !== 0x01 || bytes[at++] !== FUNC_TYPE) return false;
  // Its parameters, then its results.
  for (let list = 0; list < 2; list++) {
    const count = leb();
    if (count < 0) return false;
    for (let i = 0; i < count; i++) if (!VALUE_TYPES.has(bytes[at++]!)) return false;
  }
  if (at !== typesEnd || n - at !== TAIL.length) return false;
  for (let i = 0; i < TAIL.length; i++) if (bytes[at + i] !== TAIL[i]) return false;
  return true;
}
