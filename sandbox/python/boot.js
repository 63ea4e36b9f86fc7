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
// frame writer, the seeded generator) and of harness.js (the harness's
// JavaScript half, handed `shell` below); the host joins the three into one
// script. It evaluates to nothing; it leaves `__evalrunBoot(config)` behind,
// which the host calls once. Everything the host later calls is a function
// of the object that boot stores in `__evalrunApi` (the host takes references
// and deletes the global at once).
(function (prelude, makeHarness) {
  'use strict';

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
      const instance = new WasmInstance(module, imports);
      if (module === pyodideWasm) pyodideMemory = instance.exports.memory;
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
  // digests, see src/python/packages.ts), Instance instantiates only what
  // that gate compiled, and Global makes only the i32 cells the linker keeps
  // addresses in. (Module also compiles the linker's own function wrappers,
  // see isFunctionWrapper.) No memory or table can be made: a library lives in the
  // interpreter's memory and function table, whose growth stays capped
  // above. A dlopen leaves state outside the memory (the linker's registry
  // of libraries, table entries, symbol cells), so the interpreter is
  // replaced after the candidate that called it (see `classify`).
  const approvedLibraries = new Set();
  const gatedModules = new WeakSet();
  let dlopenDepth = 0;
  const MathFloor = Math.floor;
  const Uint32ArrayCtor = Uint32Array;
  const NumberToString = Number.prototype.toString;
  const SHA256_K = new Uint32ArrayCtor([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  // One 64-byte block of `bytes` at `at` into the state `h`; `w` is scratch.
  function sha256Block(h, w, bytes, at) {
    for (let i = 0; i < 16; i++, at += 4) w[i] = (bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3];
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
    h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
  }
  function sha256Hex(bytes) {
    const h = new Int32ArrayCtor([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
    const w = new Int32ArrayCtor(64);
    const n = bytes.length;
    const whole = n - (n % 64);
    for (let at = 0; at < whole; at += 64) sha256Block(h, w, bytes, at);
    // The rest, a 1 bit, zeros, and the length in bits (big-endian, 64 bits).
    const tail = new Uint8ArrayCtor(n % 64 < 56 ? 64 : 128);
    for (let i = whole; i < n; i++) tail[i - whole] = bytes[i];
    tail[n - whole] = 0x80;
    const high = MathFloor(n / 0x20000000);
    const low = (n * 8) >>> 0;
    const end = tail.length;
    tail[end - 8] = high >>> 24; tail[end - 7] = high >>> 16; tail[end - 6] = high >>> 8; tail[end - 5] = high;
    tail[end - 4] = low >>> 24; tail[end - 3] = low >>> 16; tail[end - 2] = low >>> 8; tail[end - 1] = low;
    for (let at = 0; at < end; at += 64) sha256Block(h, w, tail, at);
    let hex = '';
    for (let i = 0; i < 8; i++) hex += ReflectApply(NumberToString, (h[i] >>> 0) + 0x100000000, [16]).slice(1);
    return hex;
  }

  // Emscripten's convertJsFunctionToWasm, which the linker calls to put a
  // JavaScript function into the table (a library that takes the address of
  // one), makes a module of exactly this form: one function type, the
  // import of `e.f`, and its export as `f`. It has no code of its own.
  const WRAPPER_HEAD = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01];
  const WRAPPER_TAIL = [0x02, 0x07, 0x01, 0x01, 0x65, 0x01, 0x66, 0x00, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00];
  const VALUE_TYPES = new Set([0x7f, 0x7e, 0x7d, 0x7c, 0x6f]);
  function isFunctionWrapper(bytes) {
    const n = bytes.length;
    let at = 0;
    for (; at < WRAPPER_HEAD.length; at++) if (bytes[at] !== WRAPPER_HEAD[at]) return false;
    function leb() {
      let value = 0;
      for (let shift = 0; shift < 28; shift += 7) {
        if (at >= n) return -1;
        const byte = bytes[at++];
        value |= (byte & 0x7f) << shift;
        if ((byte & 0x80) === 0) return value;
      }
      return -1;
    }
    const size = leb();
    if (size < 0) return false;
    const typesEnd = at + size;
    if (bytes[at++] !== 0x01 || bytes[at++] !== 0x60) return false;
    // The parameters, then the results.
    for (let list = 0; list < 2; list++) {
      const count = leb();
      if (count < 0) return false;
      for (let i = 0; i < count; i++) if (!VALUE_TYPES.has(bytes[at++])) return false;
    }
    if (at !== typesEnd || n - at !== WRAPPER_TAIL.length) return false;
    for (let i = 0; i < WRAPPER_TAIL.length; i++) if (bytes[at + i] !== WRAPPER_TAIL[i]) return false;
    return true;
  }

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
  //   closures, `os.chdir`, dlopen and dlsym of an extension module...). It
  //   runs, and the interpreter is replaced after the candidate instead of
  //   restored, since what it changed is not in the memory. dlopen runs
  //   with the gates of the section above.
  const PURE_IMPORTS = new Set([
    '_PyEM_TrampolineCall_JS', '_Py_CheckEmscriptenSignals_Helper', '_Py_emscripten_runtime',
    'clock_time_get', 'clock_res_get', 'emscripten_date_now', 'emscripten_get_now', 'random_get',
    'emscripten_resize_heap', 'emscripten_get_heap_max', 'environ_get', 'environ_sizes_get',
    '_tzset_js', '_localtime_js', '_gmtime_js', '_timegm_js', '_mktime_js', '_emscripten_get_progname',
    '__syscall_getuid32_js', 'getprotobyname',
    '__syscall_getcwd', '__syscall_stat64', '__syscall_lstat64', '__syscall_fstat64', '__syscall_newfstatat',
    '__syscall_getdents64', '__syscall_readlinkat', '__syscall_faccessat', '__syscall_statfs64', '__syscall_fstatfs64',
    'fd_close', 'fd_seek', 'fd_pread', 'fd_fdstat_get', 'fd_sync', '__syscall_fdatasync', '__syscall_fadvise64',
    '__syscall_dup', '__syscall_dup3', '__syscall_fcntl64',
  ]);
  const HARNESS_IMPORTS = new Set([
    'JsvArray_Get', 'js2python_js', 'JsvError_Check', 'JsvNoValue_Check',
    '_python2js_ascii', '_python2js_ucs1', '_python2js_ucs2', '_python2js_ucs4',
  ]);
  const BRIDGE_IMPORT = /^_{0,2}(Jsv|Jsr|JsProxy|JsObjMap|JsArray|JsMap|JsModule|JsBuffer|JsDoubleProxy|JsException|JsObject|js2python|python2js|pyproxy|proxy_cache|destroy_prox|destroy_jsarray|raw_call_js|hiwire|wrap_|jslib|pyodide_js|set_pyodide_module|handle_next_result|is_comlink|new_error|my_dict_converter|syncifyHandler|set_suspender|get_suspender|saveState|restoreState|capture_stderr|restore_stderr|throw_no_gil|create_once_callable|create_promise_handles|array_to_js|get_async_js_call|_?agen_handle|can_run_sync|get_length_|gc_register_proxies|emscripten_asm_const|emscripten_dlopen|ffi_|emscripten_promise)/;
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
    if (name === '__syscall_openat' || name === 'fd_read' || name === '__syscall_ioctl' || name === '_dlopen_js') return name;
    // Pure as well (it keeps nothing), but it sleeps when it has no file to wait for.
    if (name === '__syscall_poll') return name;
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

  // A WebAssembly function z(start, end) of the interpreter's memory: 1 when
  // a byte in [start, end) is not zero, else 0 (both multiples of 64; four
  // 16-byte loads per step, or-ed together, `v128.any_true`). Built by hand;
  // its text form is in docs/ISOLATION.md.
  const NON_ZERO_WASM = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32, i32) -> i32
    0x02, 0x08, 0x01, 0x01, 0x6d, 0x01, 0x6d, 0x02, 0x00, 0x01, // import "m" "m": memory, at least 1 page
    0x03, 0x02, 0x01, 0x00, // one function of that type
    0x07, 0x05, 0x01, 0x01, 0x7a, 0x00, 0x00, // export it as "z"
    0x0a, 0x43, 0x01, 0x41, 0x00, // code: one body, no locals
    0x02, 0x40, 0x03, 0x40, // block, loop
    0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01, // if start >= end, leave the block
    0x20, 0x00, 0xfd, 0x00, 0x04, 0x00, 0x20, 0x00, 0xfd, 0x00, 0x04, 0x10, 0xfd, 0x50, // load [0,16) | [16,32)
    0x20, 0x00, 0xfd, 0x00, 0x04, 0x20, 0x20, 0x00, 0xfd, 0x00, 0x04, 0x30, 0xfd, 0x50, // load [32,48) | [48,64)
    0xfd, 0x50, 0xfd, 0x53, 0x04, 0x40, 0x41, 0x01, 0x0f, 0x0b, // or both; any bit set: return 1
    0x20, 0x00, 0x41, 0xc0, 0x00, 0x6a, 0x21, 0x00, 0x0c, 0x00, // start += 64, loop again
    0x0b, 0x0b, 0x41, 0x00, 0x0b, // end loop, end block, return 0
  ];
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
  const harness = makeHarness(prelude, shell);

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

})
