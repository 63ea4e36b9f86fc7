/**
 * The interpreter's imports (the JavaScript functions its WebAssembly calls),
 * sorted by name into what a call to each leaves behind.
 *
 * Everything the interpreter keeps lives in its WebAssembly memory, which is
 * restored before every candidate (harness.js, `restore`), except what its
 * imports keep on the JavaScript side: the in-memory file system's nodes and
 * open streams, the seeded random generator, and the JavaScript objects
 * Python reaches through Pyodide's FFI. boot.js wraps every import once, at
 * instantiation, by its kind here. The list is closed: an import not named
 * here counts as one that changes state, so a Pyodide upgrade that adds one
 * costs a fresh interpreter after each candidate that calls it, never a leak.
 *
 * - pure: keeps nothing on that side, or only what a restore writes back
 *   (clock, random bytes, memory growth, reads of the file system, the
 *   open-file table); the harness's own FFI calls (Pyodide handing the
 *   harness its string arguments and taking back its string results) too;
 * - bridge: the rest of the FFI, Python's way to JavaScript objects. Once
 *   the harness is locked down these refuse to run;
 * - state: anything else (writes to files, directories, sockets, ctypes
 *   closures, `os.chdir`...). It runs, and the interpreter is replaced after
 *   the candidate instead of restored;
 * - a few by their own name, whose arguments decide (`changesState`), or
 *   which boot.js runs otherwise: poll(2) sleeps, dlopen runs with gates.
 *
 * docs/ISOLATION.md, section 1, has the table.
 */

const PURE_IMPORTS = new Set([
  '_PyEM_TrampolineCall_JS',
  '_Py_CheckEmscriptenSignals_Helper',
  '_Py_emscripten_runtime',
  'clock_time_get',
  'clock_res_get',
  'emscripten_date_now',
  'emscripten_get_now',
  'random_get',
  'emscripten_resize_heap',
  'emscripten_get_heap_max',
  'environ_get',
  'environ_sizes_get',
  '_tzset_js',
  '_localtime_js',
  '_gmtime_js',
  '_timegm_js',
  '_mktime_js',
  '_emscripten_get_progname',
  '__syscall_getuid32_js',
  'getprotobyname',
  '__syscall_getcwd',
  '__syscall_stat64',
  '__syscall_lstat64',
  '__syscall_fstat64',
  '__syscall_newfstatat',
  '__syscall_getdents64',
  '__syscall_readlinkat',
  '__syscall_faccessat',
  '__syscall_statfs64',
  '__syscall_fstatfs64',
  'fd_close',
  'fd_seek',
  'fd_pread',
  'fd_fdstat_get',
  'fd_sync',
  '__syscall_fdatasync',
  '__syscall_fadvise64',
  '__syscall_dup',
  '__syscall_dup3',
  '__syscall_fcntl64',
]);
/** The FFI calls Pyodide itself makes to hand the harness its strings and return its results. */
const HARNESS_IMPORTS = new Set([
  'JsvArray_Get',
  'js2python_js',
  'JsvError_Check',
  'JsvNoValue_Check',
  '_python2js_ascii',
  '_python2js_ucs1',
  '_python2js_ucs2',
  '_python2js_ucs4',
]);
const BRIDGE_IMPORT =
  /^_{0,2}(Jsv|Jsr|JsProxy|JsObjMap|JsArray|JsMap|JsModule|JsBuffer|JsDoubleProxy|JsException|JsObject|js2python|python2js|pyproxy|proxy_cache|destroy_prox|destroy_jsarray|raw_call_js|hiwire|wrap_|jslib|pyodide_js|set_pyodide_module|handle_next_result|is_comlink|new_error|my_dict_converter|syncifyHandler|set_suspender|get_suspender|saveState|restoreState|capture_stderr|restore_stderr|throw_no_gil|create_once_callable|create_promise_handles|array_to_js|get_async_js_call|_?agen_handle|can_run_sync|get_length_|gc_register_proxies|emscripten_asm_const|emscripten_dlopen|ffi_|emscripten_promise)/;

/** Imports whose arguments decide whether a call changes state. */
type CheckedImport = '__syscall_openat' | 'fd_read' | '__syscall_ioctl';
export type ImportKind = 'pure' | 'bridge' | 'state' | CheckedImport | '_dlopen_js' | '__syscall_poll';

export function classifyImport(name: string): ImportKind {
  if (PURE_IMPORTS.has(name) || HARNESS_IMPORTS.has(name)) return 'pure';
  if (name === '__syscall_openat' || name === 'fd_read' || name === '__syscall_ioctl' || name === '_dlopen_js') return name;
  // Pure as well (it keeps nothing), but it sleeps when it has no file to wait for.
  if (name === '__syscall_poll') return name;
  if (BRIDGE_IMPORT.test(name)) return 'bridge';
  return 'state';
}

/** ioctl requests that only read a terminal's settings (isatty, window size). */
const TCGETS = 0x5401;
const TIOCGWINSZ = 0x5413;
/** open(2)'s access mode (O_WRONLY or O_RDWR when not 0). */
const ACCESS_MODE = 3;
/** open(2) flags that make a file or change it: O_CREAT, O_TRUNC, O_APPEND. */
const OPEN_WRITES = 0o100 | 0o1000 | 0o2000;

/**
 * Whether a call of an import of kind `kind` ('state' or one whose
 * arguments decide) with `args` changes state a restore does not write
 * back. `isTerminal(fd)`: whether a file descriptor is a terminal (or
 * none), whose reads note their access time.
 */
export function changesState(kind: ImportKind, args: ArrayLike<number>, isTerminal: (fd: number) => boolean): boolean {
  switch (kind) {
    case '__syscall_openat':
      return (args[2]! & ACCESS_MODE) !== 0 || (args[2]! & OPEN_WRITES) !== 0;
    case 'fd_read':
      // A terminal's read notes its access time; files' reads keep nothing.
      return isTerminal(args[0]!);
    case '__syscall_ioctl':
      return args[1] !== TCGETS && args[1] !== TIOCGWINSZ;
    default:
      return true;
  }
}
