/**
 * The native stack limit of each isolate. V8 reads its `--stack-size` flag
 * when a thread first enters an isolate, so a worker started with a stack
 * deep enough for Python (src/sandbox-host/worker-launch.ts) can give
 * JavaScript isolates a shallower one: a JavaScript recursion with no end
 * fills its whole stack before its RangeError, in time and in the worker's
 * resident memory.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's limit when node starts without `--stack-size`, in KiB. */
const V8_DEFAULT_STACK_KIB = 984;

/**
 * The limit of an isolate that does not ask for more, in KiB: a plain
 * JavaScript recursion still goes hundreds of thousands of calls deep.
 */
const ISOLATE_STACK_KIB = 32 * 1024;

let launched: number | undefined;

/**
 * The limit this process was started with, in KiB: the deepest stack its
 * threads are known to hold (the worker's shell passes the flag only once it
 * has raised the operating system's limit above it).
 */
function launchedStackKib(): number {
  if (launched !== undefined) return launched;
  const flag = process.execArgv.findLast((arg) => arg.startsWith('--stack-size='));
  const kib = flag === undefined ? Number.NaN : Number(flag.slice('--stack-size='.length));
  launched = Number.isInteger(kib) && kib > 0 ? kib : V8_DEFAULT_STACK_KIB;
  return launched;
}

/** The limit of isolates that do not ask for more, in KiB. */
function isolateStackKib(): number {
  return Math.min(ISOLATE_STACK_KIB, launchedStackKib());
}

/**
 * Gives the isolates this process enters from now on the default limit
 * (the process's own, when that is lower). A worker calls it once, before
 * any isolate is made.
 */
export function useIsolateStackLimit(): void {
  if (isolateStackKib() < launchedStackKib()) setFlagsFromString(`--stack-size=${isolateStackKib()}`);
}

/**
 * Runs `enter`, which makes an isolate and enters it synchronously, with the
 * whole stack the process was started with as that isolate's limit on this
 * thread, and puts the default back after it. It keeps no state of its own:
 * the worker's engines that are bundled apart each have a copy of this
 * module.
 */
export function withFullStack<T>(enter: () => T): T {
  const full = launchedStackKib();
  if (isolateStackKib() === full) return enter();
  setFlagsFromString(`--stack-size=${full}`);
  try {
    return enter();
  } finally {
    setFlagsFromString(`--stack-size=${isolateStackKib()}`);
  }
}
