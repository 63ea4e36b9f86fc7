/**
 * WebAssembly for the rewriter tests: modules assembled from text with
 * wabt, and the few WebAssembly API types they use (the project's type
 * library has none).
 */
import wabt from 'wabt';

export interface WasmGlobal {
  value: unknown;
}
export interface WasmMemory {
  buffer: ArrayBuffer;
}
export interface WasmInstance {
  exports: Record<string, unknown>;
}
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => WasmInstance;
  Global: new (descriptor: { value: string; mutable: boolean }, value: unknown) => WasmGlobal;
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The features a test's text may use, as wabt names them. */
export type WatFeatures = Partial<Record<'exceptions' | 'bulk_memory' | 'simd', boolean>>;

/** The binary of a module in text form, checked by wabt; exceptions, bulk memory and SIMD are on unless `features` says otherwise. */
export async function assemble(text: string, features: WatFeatures = {}): Promise<Uint8Array> {
  const tools = await wabt();
  const module = tools.parseWat('test.wat', text, { exceptions: true, bulk_memory: true, simd: true, ...features });
  try {
    module.resolveNames();
    module.validate();
    return new Uint8Array(module.toBinary({ log: false }).buffer);
  } finally {
    module.destroy();
  }
}
