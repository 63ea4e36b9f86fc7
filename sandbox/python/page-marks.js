// Restores that copy back only the pages written since the last restore, for
// a metered interpreter whose WebAssembly marks the pages it writes (boot.js,
// "write marks"; docs/METERING.md, "Restores that copy what was written").
// A function of boot.js's `shell`, called once by harness.js; the host joins
// it to boot.js like harness.js.
//
// Records (what a restore writes back) come in two shapes. A full record is
// memory-state.js's: the memory as runs of pages and the bytes of the runs
// that hold data; `pageIndex` gives where each page's bytes start. An
// overlay (the state after a candidate loaded, taken while every write was
// marked) holds only the pages that differ from the full record under it,
// its `base`: -2 in its index sends a page to the base.
(function (shell) {
  'use strict';

  const PAGE_SHIFT = 12;
  const PAGE = 1 << PAGE_SHIFT;
  const ReflectApply = Reflect.apply;
  const Int32ArrayCtor = Int32Array;
  const Uint8ArrayCtor = Uint8Array;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const TypedArraySet = TypedArrayPrototype.set;
  const TypedArrayFill = TypedArrayPrototype.fill;
  const TypedArraySubarray = TypedArrayPrototype.subarray;
  const ArrayPush = Array.prototype.push;

  /** Where each page of a full record starts in its data (-1: a page of zeros). */
  function pageIndex(record) {
    const index = new Int32ArrayCtor(record.size >>> PAGE_SHIFT);
    ReflectApply(TypedArrayFill, index, [-1]);
    const runs = record.runs;
    for (let i = 0; i < runs.length; i += 3) {
      const at = runs[i + 2];
      if (at < 0) continue;
      for (let byte = runs[i]; byte < runs[i + 1]; byte += PAGE) index[byte >>> PAGE_SHIFT] = at + byte - runs[i];
    }
    return index;
  }

  /** Writes page `page` of `record` (through overlays to their base) into the memory. */
  function writePage(heap, page, record) {
    const at = page << PAGE_SHIFT;
    let from = record;
    for (;;) {
      const where = page < from.pages.length ? from.pages[page] : -1;
      if (where === -2) {
        from = from.base;
        continue;
      }
      if (where === -1) ReflectApply(TypedArrayFill, heap, [0, at, at + PAGE]);
      else ReflectApply(TypedArraySet, heap, [ReflectApply(TypedArraySubarray, from.data, [where, where + PAGE]), at]);
      return;
    }
  }

  // One byte for every page a 32-bit memory can have, whatever the memory
  // limit of the run: the map is allocated in the interpreter's heap, and a
  // size that followed --memory could move what is allocated after it, and
  // with that the counts.
  const MAP_LENGTH = 2 ** (32 - PAGE_SHIFT);

  /**
   * The page map of an interpreter whose writes are marked, allocated in its
   * memory (whole pages of its own, so no marked write lands there), or null
   * when the interpreter has no marks.
   */
  function create(Module) {
    if (!shell.marksUsable()) return null;
    const length = MAP_LENGTH;
    const span = ((length + PAGE - 1) >>> PAGE_SHIFT) << PAGE_SHIFT;
    const raw = Module._calloc(span + PAGE, 1);
    if (raw === 0) return null;
    const base = (raw + PAGE - 1) & ~(PAGE - 1);
    shell.setMarksMap(base, length);

    // Pages that may differ from the booted state, when `bootedKnown`: every
    // page written since the last restore to it (or the pages of the overlay
    // a full restore wrote).
    const since = new Uint8ArrayCtor(length);
    let sinceList = [];

    function addSince(pages) {
      for (let i = 0; i < pages.length; i++) {
        const page = pages[i];
        if (since[page] === 0) {
          since[page] = 1;
          ReflectApply(ArrayPush, sinceList, [page]);
        }
      }
    }

    const tracker = {
      bootedKnown: false,

      /** Whether every write since the last restore or capture was marked. */
      complete: () => shell.writesUnmarked() === '',

      /**
       * The pages written since the last restore or capture, ascending, and
       * the map cleared. A marked page stands for itself and the next one (a
       * store that starts near a page's end reaches into the next).
       */
      take(heap) {
        const pages = heap.length >>> PAGE_SHIFT;
        const out = [];
        let last = -1;
        for (let page = 0; page < pages; page++) {
          if (heap[base + page] === 0) continue;
          heap[base + page] = 0;
          if (page > last) ReflectApply(ArrayPush, out, [page]);
          if (page + 1 < pages) ReflectApply(ArrayPush, out, [page + 1]);
          last = page + 1;
        }
        return out;
      },

      /** Zeroes the whole map (before a full capture, which must not keep marks). */
      clear(heap) {
        ReflectApply(TypedArrayFill, heap, [0, base, base + length]);
      },

      /** The pages written since the last restore go back to `record`'s bytes. */
      restorePages(heap, pages, record) {
        for (let i = 0; i < pages.length; i++) writePage(heap, pages[i], record);
      },

      addSince,

      /** Every page that may differ from the booted state goes back to `booted`'s bytes; then none differs. */
      restoreBooted(heap, booted) {
        for (let i = 0; i < sinceList.length; i++) {
          writePage(heap, sinceList[i], booted);
          since[sinceList[i]] = 0;
        }
        sinceList = [];
      },

      /** After a full restore: the pages that may differ from the booted state are `pages` (null: unknown). */
      resetSince(pages) {
        for (let i = 0; i < sinceList.length; i++) since[sinceList[i]] = 0;
        sinceList = [];
        tracker.bootedKnown = pages !== null;
        if (pages !== null) addSince(pages);
      },

      /**
       * The state now as an overlay of `booted`: the pages that may differ
       * from it, copied (into `reuse` when it is large enough).
       */
      overlay(heap, booted, reuse) {
        const pages = new Int32ArrayCtor(heap.length >>> PAGE_SHIFT);
        ReflectApply(TypedArrayFill, pages, [-2]);
        const listed = sinceList.slice().sort((a, b) => a - b);
        const bytes = listed.length * PAGE;
        const data = reuse !== null && reuse.length >= bytes ? reuse : new Uint8ArrayCtor(bytes);
        for (let i = 0; i < listed.length; i++) {
          const at = listed[i] << PAGE_SHIFT;
          ReflectApply(TypedArraySet, data, [ReflectApply(TypedArraySubarray, heap, [at, at + PAGE]), i * PAGE]);
          pages[listed[i]] = i * PAGE;
        }
        return { size: heap.length, base: booted, pages, data, listed };
      },
    };
    return tracker;
  }

  return { create, pageIndex };
});
