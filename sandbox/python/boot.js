// evalrun's Python boot script. It runs inside a fresh isolated-vm context
// BEFORE Pyodide's own two scripts (pyodide.asm.js, pyodide.js, both turned
// into plain scripts by the host), and turns the bare context into the
// "shell" environment Pyodide expects:
//
// - files come from `__evalrunInput`, handed in by the host as buffers; there
//   is no file system, network or host callback behind `readbuffer`;
// - the context has no TextEncoder/TextDecoder/crypto/performance, so small
//   local versions are provided (the text codecs in text-codecs.js, which
//   the host runs first);
// - async WebAssembly.compile/instantiate may never settle inside an isolate,
//   so they are replaced by wrappers around the synchronous constructors;
// - WebAssembly memory is not counted by the isolate's heap limit, so
//   Memory.prototype.grow and Table.prototype.grow are capped here;
// - after boot every global this script or Pyodide's loader added is
//   removed, together with every way to build new WebAssembly objects.
//
// This file is a function of the prelude's object (sandbox/prelude.js: the
// frame writer, the seeded generator), of harness.js (the harness's
// JavaScript half, handed `shell` below) and of the boot library (built by
// `npm run build` from sandbox/python/boot-lib/: the SHA-256 of the dlopen
// gate, the parser of the linker's function wrappers, the imports' kinds and
// the WebAssembly function of non-zero.wat, the imports' writes) and of
// memory-state.js and page-marks.js (handed to harness.js); the host joins them into one
// script. It evaluates to nothing; it leaves `__evalrunBoot(config)` behind,
// which the host calls once. Everything the host later calls is a function
// of the object that boot stores in `__evalrunApi` (the host takes references
// and deletes the global at once).
(function (prelude, makeHarness, makeBootLib, makeMemoryState, makePageMarks) {
  'use strict';

  const lib = makeBootLib();
  const sha256Hex = lib.sha256Hex;
  const isFunctionWrapper = lib.isFunctionWrapper;
  const classifyImport = lib.classifyImport;
  const changesState = lib.changesState;
  const writePolicy = lib.writePolicy;
  const writtenRange = lib.writtenRange;
  const js2pythonWritesElsewhere = lib.js2pythonWritesElsewhere;
  const NON_ZERO_WASM = lib.NON_ZERO_WASM;

  const G = globalThis;
  const now = prelude.now;
  const randomStep = prelude.randomStep;
  const randomBits = prelude.randomBits;
  const ReflectApply = Reflect.apply;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
  const ObjectKeys = Object.keys;
  const StringCtor = String;
  const ErrorCtor = Error;
  const RangeErrorCtor = RangeError;
  const TypeErrorCtor = TypeError;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const Uint8ArrayCtor = Uint8Array;
  const Int32ArrayCtor = Int32Array;
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const TypedArraySet = TypedArrayPrototype.set;
  const TypedArrayFill = TypedArrayPrototype.fill;
  const TypedArraySubarray = TypedArrayPrototype.subarray;
  const ArrayBufferCtor = ArrayBuffer;
  const SharedArrayBufferCtor = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
  const Float64ArrayCtor = Float64Array;
  const AtomicsObject = Atomics;
  const AtomicsWait = Atomics.wait;
  const ArrayPush = Array.prototype.push;
  const ArrayJoin = Array.prototype.join;
  const StringCharCodeAt = String.prototype.charCodeAt;

  // Globals of the bare context: everything else is removed after boot.
  const baselineGlobals = new Set(ObjectGetOwnPropertyNames(G));
  for (const name of ['__evalrunInput', '__evalrunStdlib', '__evalrunSnapshot']) baselineGlobals.delete(name);

  const input = G.__evalrunInput;
  const files = input.files;
  files['/pyodide/python_stdlib.zip'] = new Uint8ArrayCtor(G.__evalrunStdlib);
  if (G.__evalrunSnapshot !== undefined) files.__snapshot = new Uint8ArrayCtor(G.__evalrunSnapshot);
  delete G.__evalrunInput;
  delete G.__evalrunStdlib;
  delete G.__evalrunSnapshot;
  const pyodideWasm = input.wasm;
  /** The interpreter's WebAssembly memory, once Pyodide has instantiated its module. */
  let pyodideMemory = null;
  let memoryCapBytes = input.memoryCapBytes;
  let memoryCapHit = false;

  // ---- files ---------------------------------------------------------------

  G.readbuffer = (path) => {
    const file = files[path];
    if (file === undefined) throw new ErrorCtor('evalrun: no such boot file: ' + path);
    return file;
  };
  // The loader only tests that these exist to recognise a "shell".
  G.read = (path) => {
    throw new ErrorCtor('evalrun: no file reads in this sandbox: ' + path);
  };
  G.load = () => {
    throw new ErrorCtor('evalrun: no script loading in this sandbox');
  };

  // ---- randomness and clock ------------------------------------------------

  // Seeded, so that everything Pyodide derives from "urandom" (hash secret,
  // the random module's first seed, tempfile names) is reproducible.
  let randomState = input.seed >>> 0;
  function nextRandom() {
    randomState = randomStep(randomState);
    return randomBits(randomState);
  }
  G.crypto = {
    getRandomValues(view) {
      const bytes = new Uint8ArrayCtor(view.buffer, view.byteOffset, view.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = nextRandom() & 0xff;
      return view;
    },
  };
  const clockOrigin = now();
  G.performance = { now: () => now() - clockOrigin };

  // The bytes of an ArrayBuffer or a view (a WebAssembly source, below).
  function asBytes(input) {
    if (input === undefined) return new Uint8ArrayCtor(0);
    if (input instanceof ArrayBufferCtor || input instanceof SharedArrayBufferCtor) return new Uint8ArrayCtor(input);
    return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
  }

  // ---- WebAssembly ---------------------------------------------------------

  const W = G.WebAssembly;
  const WasmModule = W.Module;
  const WasmInstance = W.Instance;
  const WasmMemory = W.Memory;
  const WasmTable = W.Table;
  const WasmGlobal = W.Global;
  const MemoryGrow = W.Memory.prototype.grow;
  const MemoryBuffer = ObjectGetOwnPropertyDescriptor(W.Memory.prototype, 'buffer').get;
  const TableGrow = W.Table.prototype.grow;
  const TableLength = ObjectGetOwnPropertyDescriptor(W.Table.prototype, 'length').get;
  const ArrayBufferByteLength = ObjectGetOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
  const GlobalValue = ObjectGetOwnPropertyDescriptor(W.Global.prototype, 'value').get;
  const GlobalSetValue = ObjectGetOwnPropertyDescriptor(W.Global.prototype, 'value').set;
  const ModuleExports = W.Module.exports;
  const WASM_PAGE = 65536;
  // A metered interpreter (src/engines/python/meter/meter.ts) exports its
  // work counter, a mutable i64 global, under this name. It lives outside
  // the linear memory, so nothing Python can address reaches it, and only
  // this file and harness.js (through `shell.meterCount`) read it.
  const METER_EXPORT = 'evalrun_meter';
  let meterCounter = null;
  // tracemalloc registers a reference tracer that the interpreter calls on
  // every object it creates and frees; the call sites are counted code, so
  // a metered pass under tracemalloc unsets it (it only dates objects'
  // blocks, which no figure uses) to count what an untraced pass counts.
  let setRefTracer = null;
  // Function tables only grow when libraries load; this bound is generous.
  const TABLE_CAP = 1 << 20;

  // The boot file named pyodide.asm.wasm is a placeholder (the loader reads
  // it, then copies it): the host hands in the module compiled once per
  // process instead of its bytes.
  const PLACEHOLDER = 'evalrun:pyodide.asm.wasm';
  function isPlaceholder(source) {
    const bytes = asBytes(source);
    if (bytes.length !== PLACEHOLDER.length) return false;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] !== ReflectApply(StringCharCodeAt, PLACEHOLDER, [i])) return false;
    return true;
  }
  function toModule(source) {
    if (source instanceof WasmModule) return source;
    if (isPlaceholder(source)) return pyodideWasm;
    return new WasmModule(source);
  }
  function compile(source) {
    try {
      return PromiseResolve(toModule(source));
    } catch (e) {
      return PromiseReject(e);
    }
  }
  function instantiate(source, imports) {
    try {
      if (source instanceof WasmModule) return PromiseResolve(new WasmInstance(source, imports));
      const module = toModule(source);
      if (module === pyodideWasm && imports && imports.env) watchImports(imports.env);
      const marked = module === pyodideWasm && imports && hasMarks(module);
      if (marked) markImports(imports);
      const instance = new WasmInstance(module, imports);
      if (module === pyodideWasm) {
        pyodideMemory = instance.exports.memory;
        if (marked) {
          marksGlobal = instance.exports[MARKS_EXPORT];
          unicodeData = instance.exports.PyUnicode_Data;
        }
        const counter = instance.exports[METER_EXPORT];
        if (counter instanceof WasmGlobal) {
          meterCounter = counter;
          setRefTracer = instance.exports.PyRefTracer_SetTracer;
        }
      }
      return PromiseResolve({ module, instance });
    } catch (e) {
      return PromiseReject(e);
    }
  }
  ObjectDefineProperty(W, 'compile', { value: compile, writable: true, configurable: true });
  ObjectDefineProperty(W, 'instantiate', { value: instantiate, writable: true, configurable: true });
  ObjectDefineProperty(W.Memory.prototype, 'grow', {
    value: function grow(delta) {
      const current = ReflectApply(ArrayBufferByteLength, ReflectApply(MemoryBuffer, this, []), []);
      if (current + delta * WASM_PAGE > memoryCapBytes) {
        memoryCapHit = true;
        throw new RangeErrorCtor('evalrun: WebAssembly memory limit reached');
      }
      return ReflectApply(MemoryGrow, this, [delta]);
    },
    writable: true,
    configurable: true,
  });
  ObjectDefineProperty(W.Table.prototype, 'grow', {
    value: function grow(delta, init) {
      if (sealed && stateTouched === '') stateTouched = 'WebAssembly.Table.grow';
      if (ReflectApply(TableLength, this, []) + delta > TABLE_CAP) {
        throw new RangeErrorCtor('evalrun: WebAssembly table limit reached');
      }
      return ReflectApply(TableGrow, this, arguments.length > 1 ? [delta, init] : [delta]);
    },
    writable: true,
    configurable: true,
  });

  const TableSet = W.Table.prototype.set;
  ObjectDefineProperty(W.Table.prototype, 'set', {
    value: function set() {
      if (sealed && stateTouched === '') stateTouched = 'WebAssembly.Table.set';
      return ReflectApply(TableSet, this, arguments);
    },
    writable: true,
    configurable: true,
  });

  // ---- compiled extension modules (--python-packages) -----------------------
  //
  // CPython imports an extension module (a .so file) with dlopen, and the
  // dynamic linker in pyodide.asm.js compiles and instantiates it as a
  // WebAssembly side module through the global WebAssembly.Module, Instance
  // and Global, which sealWebAssembly removes. They come back for the length
  // of one `_dlopen_js` call only, and as gates, never as the constructors:
  // Module compiles nothing but the exact bytes of a shared library from the
  // operator's --python-packages folders (the host hands in their SHA-256
  // digests, see src/engines/python/packages.ts; the gate hashes its private
  // copy of the bytes, the one it then compiles, inside this isolate),
  // Instance instantiates only what that gate compiled, and Global makes
  // only the i32 cells the linker keeps addresses in. (Module also compiles
  // the linker's own function wrappers, see boot-lib/function-wrapper.ts.)
  // No memory or table can be made: a library lives in the interpreter's
  // memory and function table, whose growth stays capped above. A dlopen
  // leaves state outside the memory (the linker's registry of libraries,
  // table entries, symbol cells), so the interpreter is replaced after the
  // candidate that called it (boot-lib/imports.ts).
  const approvedLibraries = new Set();
  const gatedModules = new WeakSet();
  let dlopenDepth = 0;
  function refuse(what) {
    throw new ErrorCtor('evalrun: refused to ' + what);
  }
  function GatedModule(source) {
    if (new.target === undefined) throw new TypeErrorCtor('WebAssembly.Module must be called with new');
    // A private copy: what is hashed is what is compiled.
    const bytes = new Uint8ArrayCtor(asBytes(source));
    if (!isFunctionWrapper(bytes)) {
      const digest = sha256Hex(bytes);
      if (!approvedLibraries.has(digest)) {
        refuse('load WebAssembly code that is not one of the shared libraries (.so) of --python-packages (sha-256 ' + digest + ')');
      }
    }
    const module = new WasmModule(bytes);
    gatedModules.add(module);
    return module;
  }
  GatedModule.prototype = WasmModule.prototype;
  GatedModule.customSections = WasmModule.customSections;
  function GatedInstance(module, imports) {
    if (new.target === undefined) throw new TypeErrorCtor('WebAssembly.Instance must be called with new');
    if (!gatedModules.has(module)) refuse('instantiate a WebAssembly module that is not a shared library of --python-packages');
    return new WasmInstance(module, imports);
  }
  GatedInstance.prototype = WasmInstance.prototype;
  function GatedGlobal(descriptor, value) {
    if (new.target === undefined) throw new TypeErrorCtor('WebAssembly.Global must be called with new');
    if (descriptor === null || typeof descriptor !== 'object' || descriptor.value !== 'i32') refuse('make a WebAssembly global that is not an i32');
    return new WasmGlobal({ value: 'i32', mutable: descriptor.mutable === true }, value);
  }
  GatedGlobal.prototype = WasmGlobal.prototype;
  const GATES = { Module: GatedModule, Instance: GatedInstance, Global: GatedGlobal };

  /** Runs the linker's dlopen with the gates in place of the constructors, and removes them after. */
  function withGates(fn, self, args) {
    if (dlopenDepth === 0) {
      for (const name of ObjectKeys(GATES)) ObjectDefineProperty(W, name, { value: GATES[name], writable: true, configurable: true });
    }
    dlopenDepth++;
    try {
      return ReflectApply(fn, self, args);
    } finally {
      dlopenDepth--;
      if (dlopenDepth === 0) for (const name of ObjectKeys(GATES)) delete W[name];
    }
  }

  /** The digests (lowercase hex SHA-256) of the shared libraries the operator supplied. */
  function approveLibraries(digests) {
    for (const digest of digests) approvedLibraries.add(StringCtor(digest).toLowerCase());
  }

  // ---- sleeping ------------------------------------------------------------
  //
  // The harness's time.sleep (harness.py) waits in poll(2) with no file
  // descriptors, the classic way to sleep, and this is where that wait
  // happens: Atomics.wait on a cell of a private SharedArrayBuffer that
  // nothing ever notifies, so the isolate's thread blocks for the time asked
  // without using the CPU, and isolated-vm's timeout still interrupts it.
  // (CPython's own sleep spins on the clock here: Emscripten without threads
  // has nothing to block on.) The wait reads no memory and returns nothing
  // but poll's 0, so it is a sleep and nothing else, whoever calls it.
  //
  // The host cannot tell a test that slept from one that waited for a core
  // of a busy machine, so the time slept is written where it can read it
  // without a call into the isolate: a SharedArrayBuffer it hands in at
  // boot, [ms slept in finished waits, Date.now() when the current wait
  // began or 0]. The host clears it before every call.
  const sleepCell = new Int32ArrayCtor(new SharedArrayBufferCtor(4));
  const sleepRecord = new Float64ArrayCtor(input.sleepRecord !== undefined ? input.sleepRecord : new SharedArrayBufferCtor(16));

  /** Blocks for `ms` milliseconds (for ever when negative, until the call's timeout). */
  function sleep(ms) {
    const start = now();
    sleepRecord[1] = start;
    ReflectApply(AtomicsWait, AtomicsObject, [sleepCell, 0, 0, ms < 0 ? Infinity : ms]);
    sleepRecord[1] = 0;
    sleepRecord[0] += now() - start;
  }

  // ---- calls out of WebAssembly ----------------------------------------------
  //
  // Every import of the interpreter is wrapped once, at instantiation, by
  // its kind (boot-lib/imports.ts says which kinds there are and why):
  // pure ones run as they are; bridge ones refuse once the harness is
  // locked down (they throw, which unwinds the interpreter, and it is
  // replaced); state-changing ones run and are noted, and the interpreter is
  // replaced after the candidate instead of restored, since what they
  // changed is not in the memory; poll(2) sleeps (above), and dlopen runs
  // with the gates of "compiled extension modules".

  /** After lockdown: the bridge refuses, and state-changing calls are noted. */
  let sealed = false;
  /** The first state-changing import a candidate called since the last restore ('' if none). */
  let stateTouched = '';
  /** Why a sealed bridge import was refused, for the crash report. */
  let bridgeRefused = '';
  /** The file system, once Pyodide has made it (for the checks of reads and opens). */
  let fileSystem = null;

  function streamIsTerminal(fd) {
    const stream = fileSystem === null ? null : fileSystem.streams[fd];
    return !stream || !!stream.tty;
  }

  function watchImports(env) {
    for (const name of ObjectKeys(env)) {
      const fn = env[name];
      if (typeof fn !== 'function') continue;
      const kind = classifyImport(name);
      if (kind === 'pure') continue;
      let wrapped;
      if (kind === 'bridge') {
        wrapped = function () {
          if (sealed) {
            bridgeRefused = name;
            throw new ErrorCtor('evalrun: the JavaScript bridge is sealed (' + name + ')');
          }
          return ReflectApply(fn, this, arguments);
        };
      } else if (kind === '__syscall_poll') {
        wrapped = function (fds, nfds, timeout) {
          if (nfds !== 0 || timeout === 0) return ReflectApply(fn, this, arguments);
          sleep(timeout);
          return 0;
        };
      } else if (kind === '_dlopen_js') {
        wrapped = function () {
          if (!sealed) return ReflectApply(fn, this, arguments);
          if (stateTouched === '') stateTouched = name;
          return withGates(fn, this, arguments);
        };
      } else {
        wrapped = function () {
          if (sealed && stateTouched === '' && changesState(kind, arguments, streamIsTerminal)) stateTouched = name;
          return ReflectApply(fn, this, arguments);
        };
      }
      if (fn.sig !== undefined) wrapped.sig = fn.sig;
      env[name] = wrapped;
    }
  }

  // ---- write marks (metered interpreters) -------------------------------------
  //
  // A metered interpreter's WebAssembly marks every page it writes in a map
  // in its memory (src/engines/python/meter/write-marks.ts), so that
  // harness.js can restore only those pages. JavaScript writes into the
  // memory only inside imports while Python runs: each import of a marked
  // interpreter is wrapped by what it writes (boot-lib/write-policy.ts),
  // and either marks its range or makes the next restore copy everything
  // (`writesUnmarked`). A library loaded at run time brings code that
  // marks nothing: from then on every restore copies everything.
  const MARKS_EXPORT = 'evalrun_marks';
  const MARK_SHIFT = 12;
  /** The interpreter's map address global (null when it has no marks). */
  let marksGlobal = null;
  let marksBase = 0;
  let marksLength = 0;
  let unicodeData = null;
  /** The import that last wrote without marks since `clearWritesUnmarked` ('' if none). */
  let unmarkedBy = '';
  let librariesLoaded = false;

  function hasMarks(module) {
    const list = ReflectApply(ModuleExports, WasmModule, [module]);
    for (let i = 0; i < list.length; i++) if (list[i].name === MARKS_EXPORT) return true;
    return false;
  }

  function markRange(start, length) {
    if (length === 0 || marksBase === 0) return;
    const last = (start + length - 1) >>> MARK_SHIFT;
    if (last >= marksLength) {
      unmarkedBy = 'a write past the page map';
      return;
    }
    const heap = new Uint8ArrayCtor(pyodideMemory.buffer);
    for (let page = start >>> MARK_SHIFT; page <= last; page++) heap[marksBase + page] = 1;
  }

  function markImports(imports) {
    for (const space of ['env', 'wasi_snapshot_preview1']) {
      const table = imports[space];
      if (!table) continue;
      for (const name of ObjectKeys(table)) {
        const fn = table[name];
        if (typeof fn !== 'function') continue;
        const policy = writePolicy(name);
        if (policy === 'none') continue;
        let wrapped;
        if (policy === 'unknown') {
          const loadsCode = name === '_dlopen_js';
          wrapped = function () {
            unmarkedBy = name;
            if (loadsCode) librariesLoaded = true;
            return ReflectApply(fn, this, arguments);
          };
        } else {
          wrapped = function () {
            if (policy === 'js2python_js' && js2pythonWritesElsewhere(arguments[0])) unmarkedBy = name;
            const result = ReflectApply(fn, this, arguments);
            const range = writtenRange(policy, arguments, result, unicodeData);
            if (range !== null) markRange(range.start, range.length);
            return result;
          };
        }
        if (fn.sig !== undefined) wrapped.sig = fn.sig;
        table[name] = wrapped;
      }
    }
  }

  // Nothing may create new WebAssembly objects once Pyodide runs: memories
  // and tables would escape the caps above, and modules would be new code.
  // The one way back is the gates of a dlopen call (see "compiled extension
  // modules"), which hold their own references to the constructors.
  function sealWebAssembly() {
    for (const name of ['Module', 'Instance', 'Memory', 'Table', 'Global', 'compile', 'instantiate', 'compileStreaming', 'instantiateStreaming', 'validate']) {
      delete W[name];
    }
    for (const Ctor of [WasmModule, WasmInstance, WasmMemory, WasmTable, WasmGlobal]) {
      delete Ctor.prototype.constructor;
    }
  }

  // ---- pages never written -------------------------------------------------
  //
  // The operating system backs a page of a new WebAssembly memory only when
  // it is first written; until then reading it costs no memory traffic. So
  // the snapshot is written page by page, skipping pages of zeros, and a
  // restore checks each page that was zero at boot and clears only those
  // that are not (harness.js). The stack and the free heap, most of which a
  // candidate never reaches, then cost a restore almost nothing, where
  // clearing them wrote them in full every time.

  // nonZero(start, end): whether a byte of [start, end) of the interpreter's
  // memory is not zero, by the WebAssembly function of boot-lib/non-zero.wat,
  // made on first use (before WebAssembly's constructors are removed).
  let nonZeroScan = null;

  function nonZero(start, end) {
    if (nonZeroScan === null) {
      const module = new WasmModule(new Uint8ArrayCtor(NON_ZERO_WASM));
      nonZeroScan = new WasmInstance(module, { m: { m: pyodideMemory } }).exports.z;
    }
    return nonZeroScan(start, end) !== 0;
  }

  /** Zeroes the pages of [start, end) that hold anything (whole WebAssembly pages). */
  function clearWrittenPages(heap, start, end) {
    for (let page = start; page < end; page += WASM_PAGE) {
      if (nonZero(page, page + WASM_PAGE)) ReflectApply(TypedArrayFill, heap, [0, page, page + WASM_PAGE]);
    }
  }

  // Pyodide's restoreSnapshot calls this instead of `HEAP8.set(bytes)`.
  G.__evalrunWriteMemory = function writeMemory(heap, bytes) {
    delete G.__evalrunWriteMemory;
    if (bytes.length > heap.length || bytes.length % WASM_PAGE !== 0 || pyodideMemory === null) {
      ReflectApply(TypedArraySet, heap, [bytes]);
      return;
    }
    const words = new Int32ArrayCtor(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
    for (let page = 0; page < bytes.length; page += WASM_PAGE) {
      const end = page + WASM_PAGE;
      let data = false;
      for (let w = page >> 2; w < end >> 2; w++) {
        if (words[w] !== 0) {
          data = true;
          break;
        }
      }
      if (data) ReflectApply(TypedArraySet, heap, [ReflectApply(TypedArraySubarray, bytes, [page, end]), page]);
      else if (nonZero(page, end)) ReflectApply(TypedArrayFill, heap, [0, page, end]);
    }
  };

  // ---- boot ----------------------------------------------------------------

  function cleanGlobals() {
    for (const name of ObjectGetOwnPropertyNames(G)) {
      if (baselineGlobals.has(name)) continue;
      if (name === 'TextDecoder' || name === 'TextEncoder' || name === 'crypto' || name === 'performance') continue;
      if (!delete G[name]) throw new ErrorCtor('evalrun: cannot remove the global ' + name);
    }
  }

  // What harness.js may reach of this file's state, and nothing else.
  const shell = {
    describe,
    approveLibraries,
    cleanGlobals,
    sealWebAssembly,
    /** A candidate's memory cap (the hit flag starts clear). */
    setMemoryCap(bytes) {
      memoryCapBytes = bytes;
      memoryCapHit = false;
    },
    memoryCapHit: () => memoryCapHit,
    clearMemoryCapHit() {
      memoryCapHit = false;
    },
    nonZero,
    clearWrittenPages,
    /** The metered interpreter's work count so far (a BigInt), or null when it is not metered. */
    meterCount: () => (meterCounter === null ? null : ReflectApply(GlobalValue, meterCounter, [])),
    /** Unsets the interpreter's reference tracer (metered interpreters only); false when there is none to unset. */
    dropRefTracer() {
      if (setRefTracer === null) return false;
      setRefTracer(0, 0);
      return true;
    },
    /** Whether the interpreter marks its writes and no library has loaded code that does not. */
    marksUsable: () => marksGlobal !== null && !librariesLoaded,
    /** Where harness.js put the page map (`length` bytes, one per page): marking starts now. */
    setMarksMap(base, length) {
      marksBase = base;
      marksLength = length;
      ReflectApply(GlobalSetValue, marksGlobal, [base]);
    },
    /** What wrote into the memory without marks since the last `clearWritesUnmarked` ('' if nothing). */
    writesUnmarked: () => (librariesLoaded ? 'a library loaded at run time' : unmarkedBy),
    clearWritesUnmarked() {
      unmarkedBy = '';
    },
    stateTouched: () => stateTouched,
    bridgeRefused: () => bridgeRefused,
    randomState: () => randomState,
    setRandomState(state) {
      randomState = state;
    },
    /** Lockdown is over: the bridge refuses from now on, and state-changing imports are noted. */
    seal(FS) {
      fileSystem = FS;
      sealed = true;
    },
  };
  const harness = makeHarness(prelude, shell, makeMemoryState, makePageMarks);

  G.__evalrunBoot = function boot(config) {
    delete G.__evalrunBoot;
    const createPyodideModule = G.__evalrunCreatePyodideModule;
    const loadPyodide = G.__evalrunLoadPyodide;
    const stderr = [];
    // Pyodide reports some boot failures only through console.warn.
    const log = (...args) => {
      if (stderr.length < 50) ReflectApply(ArrayPush, stderr, [ReflectApply(ArrayJoin, args, [' '])]);
    };
    const quietConsole = G.console;
    G.console = { log, warn: log, error: log, info: log, debug: log };
    const options = {
      indexURL: '/pyodide/',
      stdLibURL: '/pyodide/python_stdlib.zip',
      lockFileContents: config.lockText,
      createPyodideModule,
      jsglobals: {},
      env: { PYTHONHASHSEED: '0', PYTHONDONTWRITEBYTECODE: '1' },
      // Candidates' output is dropped in Python; this only sees Pyodide's own,
      // and what a candidate writes to descriptor 1 or 2 itself. Descriptor 0
      // is at its end, as /dev/null would be (harness.py, _Stream).
      stdin: () => null,
      stdout: () => {},
      stderr: (line) => {
        if (stderr.length < 50) ReflectApply(ArrayPush, stderr, [StringCtor(line)]);
      },
      checkAPIVersion: true,
    };
    const snapshot = files.__snapshot;
    // Released once Pyodide has copied it into its memory.
    delete files.__snapshot;
    if (snapshot !== undefined) options._loadSnapshot = snapshot;
    else if (config.makeSnapshot) options._makeSnapshot = true;

    return loadPyodide(options).then(
      (pyodide) => {
        G.console = quietConsole;
        // The snapshot's buffer is shared with the other interpreters of
        // this process (boot.ts): nothing here keeps a reference to it.
        const pyodideConfig = pyodide._api !== undefined ? pyodide._api.config : undefined;
        if (pyodideConfig !== undefined) delete pyodideConfig._loadSnapshot;
        delete options._loadSnapshot;
        if (config.makeSnapshot) {
          pyodide.runPython(config.preload);
          harness.defineHarness(pyodide, config.harnessSource, config.ctypesSource);
          return pyodide.makeMemorySnapshot();
        }
        // The writers given to loadPyodide keep a line's bytes until its
        // newline comes, in this isolate's heap: bytes a candidate writes to
        // descriptor 1 or 2 without one would count against its memory limit,
        // and exceed it or not by when the collector ran. From here on
        // Pyodide's own messages are past, and every byte is dropped as it comes.
        const drop = { write: (buffer) => buffer.length };
        pyodide.setStdout(drop);
        pyodide.setStderr(drop);
        G.__evalrunApi = harness.install(pyodide, config);
        return 'ready';
      },
      (e) => {
        throw new ErrorCtor('Pyodide failed to boot: ' + describe(e) + (stderr.length ? '\n' + ReflectApply(ArrayJoin, stderr, ['\n']) : ''));
      },
    );
  };

  function describe(e) {
    try {
      if (e && typeof e === 'object' && typeof e.message === 'string') return (e.name ? e.name + ': ' : '') + e.message;
      return StringCtor(e);
    } catch {
      return 'unprintable error';
    }
  }
});
