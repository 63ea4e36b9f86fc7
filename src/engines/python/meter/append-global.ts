import { ByteWriter } from './emit.js';
import { appendToVector, countImports, exports } from './sections.js';
import { encodeName, encodeU32, HEADER, Reader, SECTION, sectionRank, WasmFormatError, type Section } from './wasm-binary.js';

/**
 * The frame both rewrites share (the meter's counter, the write marks'
 * page map): one new mutable global appended after all others, imported
 * and defined, so that no index moves; exported under `exportName`; and
 * the code section written by `writeCode`, every other section copied.
 */
export interface AppendedGlobal {
  /** The global's type and initialiser, as the global section encodes them. */
  global: readonly number[];
  exportName: string;
  writeCode: (section: Section, globalIndex: number, out: ByteWriter) => void;
}

export function rewriteWithGlobal(input: Uint8Array, sections: readonly Section[], appended: AppendedGlobal): { bytes: Uint8Array; globalIndex: number } {
  const find = (id: number): Section | undefined => sections.find((s) => s.id === id);
  const importedGlobals = countImports(input, find(SECTION.import), 0x03);
  const globalSection = find(SECTION.global);
  const definedGlobals = globalSection === undefined ? 0 : new Reader(input, globalSection.start, globalSection.end).u32();
  const globalIndex = importedGlobals + definedGlobals;
  const exportSection = find(SECTION.export);
  if (exportSection !== undefined && exports(input, exportSection).has(appended.exportName)) {
    throw new WasmFormatError(`the module already exports ${JSON.stringify(appended.exportName)}`, exportSection.start);
  }
  const newExport = [...encodeName(appended.exportName), 0x03, ...encodeU32(globalIndex)];

  const out = new ByteWriter(input.length + (input.length >> 2));
  out.bytes(HEADER);
  const pending = new Map<number, () => void>();
  if (globalSection === undefined) pending.set(SECTION.global, () => out.section(SECTION.global, [...encodeU32(1), ...appended.global]));
  if (exportSection === undefined) pending.set(SECTION.export, () => out.section(SECTION.export, [...encodeU32(1), ...newExport]));
  // A missing section goes where the specification's order puts it: before
  // the first section that must follow it.
  const flushBefore = (id: number): void => {
    for (const [missing, write] of [...pending]) {
      if (sectionRank(missing) < sectionRank(id)) {
        write();
        pending.delete(missing);
      }
    }
  };
  for (const section of sections) {
    if (section.id !== SECTION.custom) flushBefore(section.id);
    if (section === globalSection) out.section(SECTION.global, appendToVector(input, section, [...appended.global]));
    else if (section === exportSection) out.section(SECTION.export, appendToVector(input, section, newExport));
    else if (section.id === SECTION.code) appended.writeCode(section, globalIndex, out);
    else out.section(section.id, input.subarray(section.start, section.end));
  }
  for (const write of pending.values()) write();
  return { bytes: out.result(), globalIndex };
}
