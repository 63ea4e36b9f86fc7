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
// frame writer, the seeded generator); the host joins the two into one
// script. It evaluates to nothing; it leaves `__evalrunBoot(config)` behind,
// which the host calls once. Everything the host later calls is a function
// of the object that boot stores in `__evalrunApi` (the host takes references
// and deletes the global at once).
(function (prelude) {
  'use strict';

  const G = globalThis;
  const now = prelude.now;
  const frame = prelude.frame;
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
  const PromiseResolve = Promise.resolve.bind(Promise);
  const PromiseReject = Promise.reject.bind(Promise);
  const MathMin = Math.min;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const SharedArrayBufferCtor = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
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
  const WASM_PAGE = 65536;
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
      return PromiseResolve({ module, instance: new WasmInstance(module, imports) });
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

  // ---- calls out of WebAssembly ----------------------------------------------
  //
  // Everything the interpreter keeps lives in its WebAssembly memory, which
  // is restored before every candidate (see `reset` below), except what its
  // imports (JavaScript functions) keep on this side: the in-memory file
  // system's nodes and open streams, the random generator above, and the
  // JavaScript objects Python reaches through Pyodide's FFI. Every import is
  // wrapped once, at instantiation, and sorted into one of four kinds by
  // name. The list is closed: an import not named here counts as one that
  // changes state, so a Pyodide upgrade that adds one costs a fresh
  // interpreter after each candidate that calls it, never a leak.
  //
  // - pure: keeps nothing on this side, or only what `reset` restores
  //   (clock, random bytes, memory growth, reads of the file system, the
  //   open-file table);
  // - harness: the FFI calls Pyodide itself makes to hand the harness its
  //   string arguments and to return its string results;
  // - bridge: the rest of the FFI, Python's way to JavaScript objects. Once
  //   the harness is locked down these refuse to run: they throw, which
  //   unwinds the interpreter, and it is replaced;
  // - state: anything else (writes to files, directories, sockets, ctypes
  //   closures, `os.chdir`...). It runs, and the interpreter is replaced
  //   after the candidate instead of restored, since what it changed is not
  //   in the memory.
  const PURE_IMPORTS = new Set([
    '_PyEM_TrampolineCall_JS', '_Py_CheckEmscriptenSignals_Helper', '_Py_emscripten_runtime',
    'clock_time_get', 'clock_res_get', 'emscripten_date_now', 'emscripten_get_now', 'random_get',
    'emscripten_resize_heap', 'emscripten_get_heap_max', 'environ_get', 'environ_sizes_get',
    '_tzset_js', '_localtime_js', '_gmtime_js', '_timegm_js', '_mktime_js', '_emscripten_get_progname',
    '__syscall_getuid32_js', 'getprotobyname',
    '__syscall_getcwd', '__syscall_stat64', '__syscall_lstat64', '__syscall_fstat64', '__syscall_newfstatat',
    '__syscall_getdents64', '__syscall_readlinkat', '__syscall_faccessat', '__syscall_statfs64', '__syscall_fstatfs64',
    'fd_close', 'fd_seek', 'fd_pread', 'fd_fdstat_get', 'fd_sync', '__syscall_fdatasync', '__syscall_fadvise64',
    '__syscall_dup', '__syscall_dup3', '__syscall_fcntl64', '__syscall_poll',
  ]);
  const HARNESS_IMPORTS = new Set([
    'JsvArray_Get', 'js2python_js', 'JsvError_Check', 'JsvNoValue_Check',
    '_python2js_ascii', '_python2js_ucs1', '_python2js_ucs2', '_python2js_ucs4',
  ]);
  const BRIDGE_IMPORT = /^_{0,2}(Jsv|Jsr|JsProxy|JsObjMap|JsArray|JsMap|JsModule|JsBuffer|JsDoubleProxy|JsException|JsObject|js2python|python2js|pyproxy|proxy_cache|destroy_prox|destroy_jsarray|raw_call_js|hiwire|wrap_|jslib|pyodide_js|set_pyodide_module|handle_next_result|is_comlink|new_error|my_dict_converter|syncifyHandler|set_suspender|get_suspender|saveState|restoreState|capture_stderr|restore_stderr|throw_no_gil|create_once_callable|create_promise_handles|array_to_js|get_async_js_call|_?agen_handle|can_run_sync|get_length_|gc_register_proxies|emscripten_asm_const|dlopen_js|emscripten_dlopen|dlsym_js|ffi_|emscripten_promise)/;
  // ioctl requests that only read a terminal's settings (isatty, window size).
  const TCGETS = 0x5401;
  const TIOCGWINSZ = 0x5413;
  // open(2) flags that make a file or change it: O_WRONLY, O_RDWR (the
  // access mode), O_CREAT, O_TRUNC, O_APPEND.
  const OPEN_WRITES = 0o100 | 0o1000 | 0o2000;

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

  function classify(name) {
    if (PURE_IMPORTS.has(name) || HARNESS_IMPORTS.has(name)) return 'pure';
    if (name === '__syscall_openat' || name === 'fd_read' || name === '__syscall_ioctl') return name;
    if (BRIDGE_IMPORT.test(name)) return 'bridge';
    return 'state';
  }

  function watchImports(env) {
    for (const name of ObjectKeys(env)) {
      const fn = env[name];
      if (typeof fn !== 'function') continue;
      const kind = classify(name);
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
      } else {
        wrapped = function () {
          if (sealed && stateTouched === '' && changesState(kind, name, arguments)) stateTouched = name;
          return ReflectApply(fn, this, arguments);
        };
      }
      if (fn.sig !== undefined) wrapped.sig = fn.sig;
      env[name] = wrapped;
    }
  }

  function changesState(kind, name, args) {
    switch (kind) {
      case '__syscall_openat':
        return ((args[2] & 3) !== 0) || ((args[2] & OPEN_WRITES) !== 0);
      case 'fd_read':
        // A terminal's read notes its access time; files' reads keep nothing.
        return streamIsTerminal(args[0]);
      case '__syscall_ioctl':
        return args[1] !== TCGETS && args[1] !== TIOCGWINSZ;
      default:
        return true;
    }
  }

  // Nothing may create new WebAssembly objects once Pyodide runs: memories
  // and tables would escape the caps above, and modules would be new code.
  function sealWebAssembly() {
    for (const name of ['Module', 'Instance', 'Memory', 'Table', 'Global', 'compile', 'instantiate', 'compileStreaming', 'instantiateStreaming', 'validate']) {
      delete W[name];
    }
    for (const Ctor of [WasmModule, WasmInstance, WasmMemory, WasmTable, WasmGlobal]) {
      delete Ctor.prototype.constructor;
    }
  }

  // ---- boot ----------------------------------------------------------------

  function cleanGlobals() {
    for (const name of ObjectGetOwnPropertyNames(G)) {
      if (baselineGlobals.has(name)) continue;
      if (name === 'TextDecoder' || name === 'TextEncoder' || name === 'crypto' || name === 'performance') continue;
      if (!delete G[name]) throw new ErrorCtor('evalrun: cannot remove the global ' + name);
    }
  }

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
      // Candidates' output is dropped in Python; this only sees Pyodide's own.
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
        if (config.makeSnapshot) {
          pyodide.runPython(config.preload);
          return pyodide.makeMemorySnapshot();
        }
        return install(pyodide, config);
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

  // ---- the harness's JavaScript half ---------------------------------------

  // --python-packages: the files the host handed in, written read-only into
  // the in-memory file system, and put on the import path by packages.py.
  function mountPackages(pyodide, packages, source) {
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

  function install(pyodide, config) {
    if (config.packages !== undefined) mountPackages(pyodide, config.packages, config.packagesSource);
    const Module = pyodide._module;
    const harnessGlobals = pyodide.globals.get('dict')();
    pyodide.runPython(config.harnessSource, { globals: harnessGlobals, filename: '<evalrun-harness>' });
    const py = {
      prepare: harnessGlobals.get('prepare'),
      runTest: harnessGlobals.get('run_test'),
    };
    const lockdown = harnessGlobals.get('lockdown');
    // Python may no longer import the JS bridge modules; see harness.py.
    pyodide.unregisterJsModule('js');
    pyodide.unregisterJsModule('pyodide_js');
    lockdown();
    lockdown.destroy();
    harnessGlobals.destroy();

    const HEAP_NOW = () => ReflectApply(ArrayBufferByteLength, Module.HEAP8.buffer, []);
    let progress = [];
    let dead = '';

    // A JS exception out of a Python call means the interpreter itself
    // failed (fatal error, stack exhaustion in wasm, trap, a refused call
    // into the sealed bridge).
    function pythonFailure(e) {
      dead = bridgeRefused !== '' ? 'the JavaScript bridge is sealed (Python called ' + bridgeRefused + ')' : describe(e);
      // A stack overflow is Python recursing deeper than the WebAssembly
      // stack allows, whatever else happened on the way.
      if (/Maximum call stack size exceeded/.test(dead)) return 'c';
      return memoryCapHit && bridgeRefused === '' ? 'M' : 'c';
    }

    const api = {
      // Executes the candidate's module code; returns "ok <entry>", "load-error <msg>" or "m"/"c" + message.
      prepare(code, functionName, seed, memoryMb) {
        if (dead !== '') return 'c' + dead;
        memoryCapHit = false;
        const allowance = memoryMb * 1024 * 1024;
        memoryCapBytes = MathMin(config.memoryCapBytes, HEAP_NOW() + allowance);
        try {
          return StringCtor(py.prepare(code, functionName, seed));
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
            out = StringCtor(py.runTest(tests[i]));
          } catch (e) {
            const kind = pythonFailure(e);
            ReflectApply(ArrayPush, progress, [frame(kind, now() - t0, dead)]);
            break;
          }
          ReflectApply(ArrayPush, progress, [frame(out[0], now() - t0, ReflectApply(String.prototype.slice, out, [1]))]);
          if (now() - start >= budgetMs) break;
        }
        return ReflectApply(ArrayJoin, progress, ['']);
      },
      progress() {
        return ReflectApply(ArrayJoin, progress, ['']);
      },
      // Puts the interpreter back exactly as it was after boot (see below);
      // "clean" when it did, else why it could not and must be replaced.
      reset() {
        return restore();
      },
      memoryBytes() {
        return HEAP_NOW();
      },
    };
    cleanGlobals();
    sealWebAssembly();

    // ---- the state every candidate starts from ------------------------------
    //
    // Taken once, here, when the harness is installed and locked down and
    // no candidate has run: the whole WebAssembly memory (every Python
    // object, module, cache, hook and setting lives there), the stack
    // pointer, and what the imports keep on this side (the open-file table,
    // the file system's name cache, the working directory, the random
    // generator). `restore` writes all of it back before the next
    // candidate; the imports' wrappers above name what it cannot write back,
    // and then the interpreter is replaced instead.
    fileSystem = pyodide.FS;
    const stackPointer = Module.___stack_pointer;
    const baseMemory = new Uint8ArrayCtor(Module.HEAPU8.length);
    baseMemory.set(Module.HEAPU8);
    const baseSize = baseMemory.length;
    const baseStackPointer = stackPointer.value;
    const baseRandom = randomState;
    const baseFiles = captureFiles(fileSystem);

    function restore() {
      if (dead !== '') return 'the interpreter failed: ' + dead;
      if (stateTouched !== '') return 'the candidate called ' + stateTouched + ', which keeps state outside the interpreter memory';
      const heap = Module.HEAPU8;
      const size = heap.length;
      if (size > baseSize + config.regrowSlackBytes) return 'the interpreter memory grew past what a restore clears';
      heap.set(baseMemory);
      // Memory past the boot size was grown by earlier candidates: zero, as
      // it was when first grown (the allocator relies on that), so that no
      // byte a candidate wrote survives.
      if (size > baseSize) heap.fill(0, baseSize);
      stackPointer.value = baseStackPointer;
      restoreFiles(fileSystem, baseFiles);
      randomState = baseRandom;
      memoryCapHit = false;
      progress = [];
      return 'clean';
    }

    sealed = true;
    G.__evalrunApi = api;
    return 'ready';
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
})
