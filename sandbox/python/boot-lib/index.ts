/**
 * What boot.js takes from code checked and built like the rest of evalrun:
 * scripts/build-python-sandbox.ts bundles this module (with its
 * dependencies) into one function expression that the host passes to
 * boot.js beside the prelude and harness.js. It runs inside the isolate,
 * before Pyodide, and keeps no global.
 */
import nonZeroWasm from './non-zero.wat';

export { isFunctionWrapper } from './function-wrapper.js';
export { changesState, classifyImport, type ImportKind } from './imports.js';
export { sha256Hex } from './library-digest.js';
export { js2pythonWritesElsewhere, writePolicy, writtenRange, type WritePolicy } from './write-policy.js';

/** The binary of non-zero.wat: z(start, end) over the interpreter's memory. */
export const NON_ZERO_WASM: Uint8Array = nonZeroWasm;
