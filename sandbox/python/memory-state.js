// The record of an interpreter's state that harness.js writes back (the
// state every candidate starts from, and a measured run's state after
// loading): the memory as runs of pages, the data pages copied, and the
// file system's JavaScript state. A function of boot.js's `shell`, called
// once by harness.js; the host joins it to boot.js like harness.js.
(function (shell) {
  'use strict';

  const ReflectApply = Reflect.apply;
  const ObjectKeys = Object.keys;
  const MathImul = Math.imul;
  const Uint8ArrayCtor = Uint8Array;
  const Int32ArrayCtor = Int32Array;
  const ArrayPush = Array.prototype.push;
  const TypedArraySubarray = Uint8Array.prototype.subarray;
  const WASM_PAGE = 65536;

  // The memory (a whole number of WebAssembly pages) as runs of pages,
  // [start, end, 1 if any byte is not zero else 0] flattened, neighbours of
  // the same kind merged.
  function memoryRuns(bytes) {
    const runs = [];
    for (let page = 0; page < bytes.length; page += WASM_PAGE) {
      const end = page + WASM_PAGE;
      const data = shell.nonZero(page, end) ? 1 : 0;
      const n = runs.length;
      if (n > 0 && runs[n - 1] === data && runs[n - 2] === page) runs[n - 2] = end;
      else ReflectApply(ArrayPush, runs, [page, end, data]);
    }
    return runs;
  }

  // Copies the runs that hold data, one after another, into a buffer of
  // their own (`reuse` when it is large enough), and turns each run's third field into where its bytes start
  // in that buffer (-1 for a zero run). Zero runs take no room.
  function copyDataRuns(bytes, runs, reuse) {
    let total = 0;
    for (let i = 0; i < runs.length; i += 3) if (runs[i + 2] === 1) total += runs[i + 1] - runs[i];
    const data = reuse !== null && reuse.length >= total ? reuse : new Uint8ArrayCtor(total);
    let at = 0;
    for (let i = 0; i < runs.length; i += 3) {
      if (runs[i + 2] !== 1) {
        runs[i + 2] = -1;
        continue;
      }
      data.set(ReflectApply(TypedArraySubarray, bytes, [runs[i], runs[i + 1]]), at);
      runs[i + 2] = at;
      at += runs[i + 1] - runs[i];
    }
    return data;
  }

  // A digest of where the memory holds which non-zero 32-bit words: memory
  // grown and cleared again leaves it as it was, as it should. Enough to
  // tell two memories apart in a test.
  function digestBytes(bytes) {
    const words = new Int32ArrayCtor(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
    let a = 0;
    let b = 0;
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (w === 0) continue;
      a = (a + MathImul(w ^ MathImul(i, 0x9e3779b1), 0x85ebca6b)) | 0;
      b = (b + MathImul(w + MathImul(i, 0x27d4eb2f), 0xc2b2ae35)) | 0;
    }
    return (a >>> 0).toString(16) + (b >>> 0).toString(16);
  }

  function copyProps(from) {
    const out = {};
    for (const key of ObjectKeys(from)) out[key] = from[key];
    return out;
  }

  function putProps(into, saved) {
    for (const key of ObjectKeys(into)) if (!(key in saved)) delete into[key];
    for (const key of ObjectKeys(saved)) into[key] = saved[key];
  }

  function captureFiles(FS) {
    const streams = FS.streams.slice();
    return {
      streams,
      props: streams.map((s) => (s ? { own: copyProps(s), shared: s.shared ? copyProps(s.shared) : null } : null)),
      nameTable: FS.nameTable.slice(),
      currentPath: FS.currentPath,
      nextInode: FS.nextInode,
    };
  }

  // Streams a candidate opened are dropped (only reads were allowed), the
  // ones open at boot get back their position and flags, and the name cache
  // its buckets.
  function restoreFiles(FS, base) {
    const live = FS.streams;
    live.length = base.streams.length;
    for (let fd = 0; fd < base.streams.length; fd++) {
      const stream = base.streams[fd];
      live[fd] = stream;
      const saved = base.props[fd];
      if (!stream || saved === null) continue;
      putProps(stream, saved.own);
      if (saved.shared !== null) putProps(stream.shared, saved.shared);
    }
    const table = FS.nameTable;
    for (let i = 0; i < base.nameTable.length; i++) if (table[i] !== base.nameTable[i]) table[i] = base.nameTable[i];
    FS.currentPath = base.currentPath;
    FS.nextInode = base.nextInode;
  }

  return { memoryRuns, copyDataRuns, digestBytes, captureFiles, restoreFiles };
});
