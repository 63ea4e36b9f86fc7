import { rewriteWithGlobal } from './append-global.js';
import { writeCodeSection } from './emit.js';
import type { MeterMode, MeterStats } from './plan.js';
import type { QuietFunction } from './quiet.js';
import { checkMemory32, countImports, exports, functionParamCounts } from './sections.js';
import { readSections, SECTION, WasmFormatError, type Section } from './wasm-binary.js';

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
  const exportSection = find(SECTION.export);
  const exported = exportSection === undefined ? new Map<string, { kind: number; index: number }>() : exports(input, exportSection);
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
  const params = functionParamCounts(input, find(SECTION.type), find(SECTION.function));
  checkMemory32(input, find(SECTION.import), find(SECTION.memory));

  const stats: MeterStats = { functions: 0, instructions: 0, sites: 0, bulkSites: 0, importedGlobals, features: {} };

  // The new global: (mut i64) initialised to i64.const 0.
  const written = rewriteWithGlobal(input, sections, {
    global: [0x7e, 0x01, 0x42, 0x00, 0x0b],
    exportName,
    writeCode: (section, index, out) => writeCodeSection(input, section, params, { excluded, quiet }, index, mode, stats, out),
  });
  return { bytes: written.bytes, exportName, globalIndex: written.globalIndex, stats };
}
