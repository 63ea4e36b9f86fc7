// The JavaScript half of evalrun's Python harness (harness.py is the
// other): it puts the harness into a snapshot, installs it in an
// interpreter booted from one, records the state every candidate starts
// from, and holds the functions the host calls (prepare, runTests,
// progress, reset, memoryBytes) and the restore behind `reset`.
//
// The host joins this file to boot.js: it is a function of the prelude's
// object and of boot.js's `shell`, the one way to the state boot.js keeps
// for the interpreter's imports and WebAssembly (the memory cap, the state
// and bridge marks, the random generator, sealing). boot.js calls it once,
// before Pyodide loads, so everything bound here is still pristine.
// `makeMemoryState` is memory-state.js: the record `restore` writes back;
// `makePageMarks` is page-marks.js: restores of only the pages written.
(function (prelude, shell, makeMemoryState, makePageMarks) {
  'use strict';

  const { memoryRuns, copyDataRuns, digestBytes, captureFiles, restoreFiles } = makeMemoryState(shell);
  const pageMarks = makePageMarks(shell);

  const now = prelude.now;
  const frame = prelude.frame;
  const ReflectApply = Reflect.apply;
  const StringCtor = String;
  const StringSlice = String.prototype.slice;
  const MathMin = Math.min;
  const ArrayPush = Array.prototype.push;
  const ArrayJoin = Array.prototype.join;
  const TypedArraySubarray = Uint8Array.prototype.subarray;
  const ArrayBufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;

  // --python-packages: the files the host handed in, written read-only into
  // the in-memory file system, and put on the import path by packages.py.
  function mountPackages(pyodide, packages, source) {
    shell.approveLibraries(packages.sharedLibraries);
    const FS = pyodide.FS;
    const folders = new Set();
    for (const file of packages.files) {
      const slash = file.path.lastIndexOf('/');
      const folder = file.path.slice(0, slash);
      FS.mkdirTree(folder);
      FS.writeFile(file.path, file.bytes);
      FS.chmod(file.path, 0o444);
      for (let at = folder; at.length > 1; at = at.slice(0, at.lastIndexOf('/'))) folders.add(at);
    }
    for (const path of packages.paths) {
      if (!path.endsWith('.whl')) {
        FS.mkdirTree(path);
        folders.add(path);
      }
    }
    for (const folder of folders) FS.chmod(folder, 0o555);
    const space = pyodide.globals.get('dict')();
    pyodide.runPython(source, { globals: space, filename: '<evalrun-packages>' });
    const install = space.get('install');
    install(pyodide.toPy(packages.paths), pyodide.toPy(packages.platformWheels));
    install.destroy();
    space.destroy();
  }

  // The harness is compiled and run once, when the snapshot is made, as a
  // module every interpreter booted from the snapshot already holds; the
  // collector freezes what exists by then, so each boot's lockdown walks
  // only what the boot itself made.
  const HARNESS_MODULE = '__evalrun_harness__';
  // The data-only ctypes (ctypes_facade.py), kept under this name until
  // lockdown makes it sys.modules['ctypes'] (harness.py).
  const CTYPES_MODULE = '__evalrun_ctypes__';

  function defineHarness(pyodide, source, ctypesSource) {
    const space = pyodide.globals.get('dict')();
    const facade = pyodide.runPython(
      "import sys, types\nfrom importlib.machinery import ModuleSpec\nfacade = types.ModuleType('ctypes')\n" +
        "facade.__spec__ = ModuleSpec('ctypes', None, origin='evalrun')\nsys.modules['" +
        CTYPES_MODULE +
        "'] = facade\nfacade.__dict__",
      { globals: space },
    );
    pyodide.runPython(ctypesSource, { globals: facade, filename: '<evalrun-ctypes>' });
    facade.destroy();
    const namespace = pyodide.runPython(
      "import sys, types\nharness = types.ModuleType('" + HARNESS_MODULE + "')\nsys.modules[harness.__name__] = harness\nharness.__dict__",
      { globals: space },
    );
    pyodide.runPython(source, { globals: namespace, filename: '<evalrun-harness>' });
    namespace.destroy();
    pyodide.runPython('import gc\ngc.collect()\ngc.freeze()', { globals: space });
    space.destroy();
  }

  // The harness's namespace, taken out of sys.modules: from here on only
  // this script holds it.
  function takeHarness(pyodide) {
    const space = pyodide.globals.get('dict')();
    const namespace = pyodide.runPython("import sys\nsys.modules.pop('" + HARNESS_MODULE + "').__dict__", { globals: space });
    space.destroy();
    return namespace;
  }

  // Built-in modules that importlib's BuiltinImporter would make afresh for
  // anyone who asks, with no import event (create_module(spec)): the
  // bridge's C module, ctypes' and signal's. Their names in CPython's table
  // of built-in modules get a first byte that no module name (UTF-8) can
  // hold, so no spec matches them again. The table is in the interpreter's
  // memory, so the change is part of the state every candidate starts from;
  // the modules already imported (signal's, tracemalloc's functions the
  // harness holds) keep working.
  const UNCREATABLE = ['_pyodide_core', '_ctypes', '_signal', '_tracemalloc'];
  const INITTAB_ENTRY_BYTES = 8; // struct _inittab on wasm32: a name pointer and an init function

  function forgetBuiltins(Module) {
    const heap = Module.HEAPU8;
    const view = new DataView(heap.buffer);
    const table = view.getUint32(Module._PyImport_Inittab, true);
    const found = [];
    for (let entry = table; ; entry += INITTAB_ENTRY_BYTES) {
      const name = view.getUint32(entry, true);
      if (name === 0) break;
      let end = name;
      while (heap[end] !== 0) end++;
      const text = String.fromCharCode(...heap.subarray(name, end));
      if (UNCREATABLE.includes(text)) {
        heap[name] = 0xff;
        found.push(text);
      }
    }
    if (found.length !== UNCREATABLE.length) {
      throw new Error('evalrun: built-in modules not found in the interpreter: ' + UNCREATABLE.filter((n) => !found.includes(n)).join(', '));
    }
  }

  function install(pyodide, config) {
    if (config.packages !== undefined) mountPackages(pyodide, config.packages, config.packagesSource);
    const Module = pyodide._module;
    const harnessGlobals = takeHarness(pyodide);
    const py = {
      beginLoad: harnessGlobals.get('begin_load'),
      endLoad: harnessGlobals.get('end_load'),
      beginTest: harnessGlobals.get('begin_test'),
      endTest: harnessGlobals.get('end_test'),
      // Called from here, not from the harness, so that no harness frame is under the candidate's.
      call: harnessGlobals.get('call_candidate'),
      traceStart: harnessGlobals.get('trace_start'),
      tracePeak: harnessGlobals.get('trace_peak'),
    };
    const lockdown = harnessGlobals.get('lockdown');
    // Python may no longer import the JS bridge modules; see harness.py.
    pyodide.unregisterJsModule('js');
    pyodide.unregisterJsModule('pyodide_js');
    lockdown();
    lockdown.destroy();
    harnessGlobals.destroy();
    forgetBuiltins(Module);

    const HEAP_NOW = () => ReflectApply(ArrayBufferByteLength, Module.HEAP8.buffer, []);
    let progress = [];
    let dead = '';
    // A measured run's state right after the candidate's code loaded
    // (`capture`), which every measured test starts from; null otherwise.
    let loaded = null;
    // The buffer of the last such state, kept for the next candidate's:
    // allocating tens of MB afresh for every measured candidate cost more
    // than the copy into it.
    let spare = null;

    // The candidate's call in one pass of a measured run (docs/METERING.md):
    // 'counted' reads the metered interpreter's counter right around it, so
    // the harness's own work (reading arguments, encoding results) is left
    // out; 'both' does that under tracemalloc, whose hooks the metered
    // module leaves uncounted (src/engines/python/meter/tracemalloc.ts), and
    // answers "<count>/<peak>". The figure as text, '-' when there is none.
    function measuredCall(pass) {
      if (pass === 'both') {
        py.traceStart();
        shell.dropRefTracer();
      }
      const before = shell.meterCount();
      py.call();
      const after = shell.meterCount();
      const count = before === null ? '-' : StringCtor(after - before);
      return pass === 'both' ? count + '/' + StringCtor(py.tracePeak()) : count;
    }

    // A JS exception out of a Python call means the interpreter itself
    // failed (fatal error, stack exhaustion in wasm, trap, a refused call
    // into the sealed bridge).
    function pythonFailure(e) {
      const refused = shell.bridgeRefused();
      dead = refused !== '' ? 'the JavaScript bridge is sealed (Python called ' + refused + ')' : shell.describe(e);
      // A stack overflow is Python recursing deeper than the WebAssembly
      // stack allows, whatever else happened on the way.
      if (/Maximum call stack size exceeded/.test(dead)) return 'c';
      return shell.memoryCapHit() && refused === '' ? 'M' : 'c';
    }

    const api = {
      // Executes the candidate's module code; returns "ok <entry>", "load-error <msg>" or "m"/"c" + message.
      // In a measured run's pass ('counted' or 'both') the answer other
      // than "c"/"M" starts with the figure and a space; a measured load
      // that succeeded is the state every measured test starts from.
      prepare(code, functionName, seed, memoryMb, pass) {
        if (dead !== '') return 'c' + dead;
        loaded = null;
        const allowance = memoryMb * 1024 * 1024;
        // Counted from the size every candidate starts from, not from the size now: a restored interpreter keeps
        // the memory an earlier candidate grew (zeroed), and counted from there, this candidate would have that much more.
        shell.setMemoryCap(MathMin(config.memoryCapBytes, booted.size + allowance));
        try {
          const begun = StringCtor(py.beginLoad(code, functionName, seed));
          if (begun !== '') return pass === '' ? begun : '- ' + begun;
          let figure = '';
          if (pass === '') py.call();
          else figure = measuredCall(pass) + ' ';
          const ended = StringCtor(py.endLoad());
          if (pass !== '' && ended.startsWith('ok ')) loaded = captureLoaded();
          return figure + ended;
        } catch (e) {
          const kind = pythonFailure(e);
          return kind + dead;
        }
      },
      // Runs tests in order until all are done or `budgetMs` has passed.
      runTests(tests, budgetMs) {
        progress = [];
        if (dead !== '') return frame('c', 0, dead);
        const start = now();
        for (let i = 0; i < tests.length; i++) {
          const t0 = now();
          let out;
          try {
            out = StringCtor(py.beginTest(tests[i]));
            if (out === '') {
              py.call();
              out = StringCtor(py.endTest());
            }
          } catch (e) {
            const kind = pythonFailure(e);
            ReflectApply(ArrayPush, progress, [frame(kind, now() - t0, dead)]);
            break;
          }
          ReflectApply(ArrayPush, progress, [frame(out[0], now() - t0, ReflectApply(StringSlice, out, [1]))]);
          if (now() - start >= budgetMs) break;
        }
        return ReflectApply(ArrayJoin, progress, ['']);
      },
      progress() {
        return ReflectApply(ArrayJoin, progress, ['']);
      },
      // One pass of one measured test, from the state `restoreLoaded` put
      // back: "<figure> <outcome>" (the outcome as end_test answers it), or
      // "c"/"M" + message when the interpreter failed.
      measureTest(test, pass) {
        if (dead !== '') return 'c' + dead;
        try {
          const begun = StringCtor(py.beginTest(test));
          if (begun !== '') return '- ' + begun;
          const figure = measuredCall(pass);
          return figure + ' ' + StringCtor(py.endTest());
        } catch (e) {
          const kind = pythonFailure(e);
          return kind + dead;
        }
      },
      // Puts back the state right after the candidate's code loaded in a
      // measured pass: "clean", else why not (then the test runs unmeasured).
      restoreLoaded() {
        if (loaded === null) return 'no measured load';
        return restoreTo(loaded);
      },
      // Puts the interpreter back exactly as it was after boot (see below);
      // "clean" when it did, else why it could not and must be replaced.
      reset() {
        loaded = null;
        return restoreTo(booted);
      },
      memoryBytes() {
        return HEAP_NOW();
      },
    };
    // Tests only (booted with `diagnostics`, which grading never sets): a
    // digest of every byte of the memory, to check that a restore is exact.
    if (config.diagnostics === true) {
      api.memoryDigest = () => digestBytes(Module.HEAPU8);
      // How the last restore was made: "marked" (the pages written), or "full" and why.
      api.lastRestore = () => lastRestore;
    }
    shell.cleanGlobals();
    shell.sealWebAssembly();

    // ---- the state every candidate starts from ------------------------------
    //
    // Taken once, here, when the harness is installed and locked down and
    // no candidate has run: the whole WebAssembly memory (every Python
    // object, module, cache, hook and setting lives there), the stack
    // pointer, and what the imports keep on this side (the open-file table,
    // the file system's name cache, the working directory, the random
    // generator). `restore` writes all of it back before the next
    // candidate; the imports' wrappers in boot.js name what it cannot write
    // back, and then the interpreter is replaced instead.
    //
    // A measured run takes the same record once more, right after the
    // candidate's code loaded, and writes it back before every test.
    const fileSystem = pyodide.FS;
    const stackPointer = Module.___stack_pointer;
    const baseSize = Module.HEAPU8.length;
    // A metered interpreter marks the pages it writes: its restores copy
    // back only those (page-marks.js); null for every other interpreter.
    const marks = pageMarks.create(Module);
    const booted = capture(null);
    if (marks !== null) {
      booted.pages = pageMarks.pageIndex(booted);
      marks.resetSince([]);
      shell.clearWritesUnmarked();
    }
    // The buffer of the last overlay state after loading, reused like `spare`.
    let spareOverlay = null;
    let lastRestore = '';

    // `reuse`: a buffer to copy into when it is large enough.
    function capture(reuse) {
      const heap = Module.HEAPU8;
      const runs = memoryRuns(heap);
      const data = copyDataRuns(heap, runs, reuse);
      return { size: heap.length, runs, data, stackPointer: stackPointer.value, random: shell.randomState(), files: captureFiles(fileSystem) };
    }

    // The state right after a measured load: an overlay of the booted state
    // when every write since it was restored was marked, else a full record.
    function captureLoaded() {
      const heap = Module.HEAPU8;
      let state;
      if (marks !== null && marks.complete() && marks.bootedKnown) {
        marks.addSince(marks.take(heap));
        state = marks.overlay(heap, booted, spareOverlay);
        spareOverlay = state.data;
        state.stackPointer = stackPointer.value;
        state.random = shell.randomState();
        state.files = captureFiles(fileSystem);
      } else {
        if (marks !== null) marks.clear(heap);
        state = capture(spare);
        spare = state.data;
        if (marks !== null) {
          state.pages = pageMarks.pageIndex(state);
          marks.resetSince(null);
        }
      }
      if (marks !== null) shell.clearWritesUnmarked();
      return state;
    }

    function restoreTo(state) {
      if (dead !== '') return 'the interpreter failed: ' + dead;
      const touched = shell.stateTouched();
      if (touched !== '') return 'the candidate called ' + touched + ', which keeps state outside the interpreter memory';
      const heap = Module.HEAPU8;
      const size = heap.length;
      if (size > baseSize + config.regrowSlackBytes) return 'the interpreter memory grew past what a restore clears';
      if (marks !== null && marks.complete() && (state !== booted || marks.bootedKnown)) {
        lastRestore = 'marked';
        const written = marks.take(heap);
        marks.addSince(written);
        if (state === booted) marks.restoreBooted(heap, booted);
        else marks.restorePages(heap, written, state);
      } else {
        lastRestore =
          marks === null ? 'full' : 'full: ' + (marks.complete() ? 'the pages that differ from the booted state are not known' : shell.writesUnmarked());
        fullRestore(heap, size, state.base === undefined ? state : state.base);
        if (state.base !== undefined) marks.restorePages(heap, state.listed, state);
        if (marks !== null) {
          marks.clear(heap);
          marks.resetSince(state === booted ? [] : state.base !== undefined ? state.listed : null);
        }
      }
      stackPointer.value = state.stackPointer;
      restoreFiles(fileSystem, state.files);
      shell.setRandomState(state.random);
      shell.clearMemoryCapHit();
      if (marks !== null) shell.clearWritesUnmarked();
      progress = [];
      return 'clean';
    }

    function fullRestore(heap, size, state) {
      const baseRuns = state.runs;
      const baseData = state.data;
      // Every byte goes back: runs that held data at boot are copied; in the
      // zero runs (the unused stack, free heap) every page is checked and
      // the ones written since are cleared (boot.js, "pages never written").
      // Memory past the recorded size was grown since: zero, as when first
      // grown (the allocator relies on that).
      for (let i = 0; i < baseRuns.length; i += 3) {
        const start = baseRuns[i];
        const end = baseRuns[i + 1];
        const at = baseRuns[i + 2];
        if (at >= 0) heap.set(ReflectApply(TypedArraySubarray, baseData, [at, at + end - start]), start);
        else shell.clearWrittenPages(heap, start, end);
      }
      if (size > state.size) shell.clearWrittenPages(heap, state.size, size);
    }

    shell.seal(fileSystem);
    return api;
  }

  return { defineHarness, install };
});
