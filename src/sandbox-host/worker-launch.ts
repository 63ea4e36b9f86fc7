import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { ProgressCell } from './progress-cell.js';
import { workerStdio, WorkerLink } from './worker-link.js';

/** Where `npm run build` writes the bundled CLI and worker (scripts/bundle.ts). */
export const BUNDLE_DIR = join('dist', 'bundle');

/**
 * The worker's bundle in BUNDLE_DIR. Beside it, the engines it requires only
 * when it first needs them: `worker-<language>.cjs` (scripts/bundle.ts).
 */
export const WORKER_BUNDLES = { main: 'worker.cjs' } as const;

let script: string | null = null;

/**
 * The program a sandbox worker process runs: the bundle, which starts in a
 * fraction of the time, or the module graph tsc wrote when there is none.
 */
export function workerScript(): string {
  if (script !== null) return script;
  const bundled = join(packageRoot(), BUNDLE_DIR, WORKER_BUNDLES.main);
  script = existsSync(bundled) ? bundled : join(packageRoot(), 'dist', 'src', 'workers', 'worker-process.js');
  return script;
}

/** A sandbox worker process, the link that carries its messages, and its progress cell. */
export interface WorkerHandle {
  child: ChildProcess;
  link: WorkerLink;
  progress: ProgressCell;
}

/**
 * Node's flags for a worker process.
 *
 * - `--no-node-snapshot`: isolated-vm needs it on Node 20 and later.
 * - `--wasm-tiering-budget`: how much WebAssembly code a function runs as
 *   V8's baseline code (Liftoff) before it is compiled again with the
 *   optimizing compiler (TurboFan). At V8's default, grading small Python
 *   candidates sends hundreds of Pyodide's functions to TurboFan, whose
 *   compile time is CPU the candidates never win back. A thousand times the
 *   default keeps that compile for the functions that run for a long time,
 *   such as the interpreter's loop in a candidate that computes for seconds.
 *   Which tier runs does not change a verdict: recursion depth is bounded by
 *   CPython's own check, below the native stack limit (`V8_STACK_KIB`).
 *   docs/PERFORMANCE.md has the measurements.
 */
const WORKER_NODE_FLAGS: readonly string[] = ['--no-node-snapshot', '--wasm-tiering-budget=1800000000'];

/**
 * The native stack a worker's interpreters recurse on, in KiB.
 *
 * Python keeps its frames on the heap, but a call that passes through C (a
 * `functools.cache`d function, `sum` over a generator, the repr or `==` of a
 * nested list) recurses twice: on Pyodide's own C stack, in WebAssembly
 * memory, which CPython measures and ends with a `RecursionError` once it is
 * nearly full, and on the thread's native stack, where each level's frames
 * are many times larger and their size depends on the tier V8 compiled the
 * code with (and that code is shared by every isolate of the process, so it
 * changes with what ran before). Only CPython's check is the same for every
 * candidate, so the native limit is set well above the native stack that
 * any recursion uses by the time CPython stops it, in either tier: a
 * candidate then recurses as deep as Pyodide's C stack allows, gets the
 * `RecursionError` CPython raises (which it may catch), and keeps its
 * interpreter. V8's limit is the fallback for what CPython does not check.
 *
 * Pages are only used as deep recursion touches them, and stay in the
 * worker's resident memory (beyond `--memory`). This is the limit of the
 * process and of Python's isolates; JavaScript's isolates get a shallower
 * one (src/engines/stack-limit.ts), since a JavaScript recursion with no end
 * fills its whole limit before its RangeError.
 *
 * The worker's V8 limit is `V8_STACK_KIB`, under an operating-system limit
 * of `OS_STACK_KIB`, up to which the main thread's stack grows (and from
 * which its other threads' stacks are sized, as address space). Where the
 * system will not raise its limit (a lower hard limit, or no POSIX shell),
 * V8's default stays, since a V8 limit beyond the real stack would crash.
 */
const V8_STACK_KIB = 256 * 1024;
const OS_STACK_KIB = 288 * 1024;

let shell: boolean | undefined;

/** Whether there is a POSIX shell to raise the stack limit with (a minimal container may have none). */
function hasShell(): boolean {
  shell ??= existsSync('/bin/sh');
  return shell;
}

/** The command that starts a worker: node with its flags, through a shell that raises the stack limit first. */
function workerCommand(script: string): { file: string; args: string[] } {
  const node = [...WORKER_NODE_FLAGS, script];
  if (process.platform === 'win32' || !hasShell()) return { file: process.execPath, args: node };
  const raise = `ulimit -s ${OS_STACK_KIB} 2>/dev/null && exec "$0" --stack-size=${V8_STACK_KIB} "$@"; exec "$0" "$@"`;
  return { file: '/bin/sh', args: ['-c', raise, process.execPath, ...node] };
}

/** Starts one sandbox worker process: evalrun's worker program, or `script` (a test's stand-in that speaks the same protocol). */
export function launchWorker(script: string = workerScript()): WorkerHandle {
  const progress = new ProgressCell();
  const { file, args } = workerCommand(script);
  const child = spawn(file, args, { stdio: workerStdio(progress.fd) });
  // The worker has its own descriptor for the cell; this one is kept for reading, until the worker is gone.
  child.once('exit', () => setImmediate(() => progress.close()));
  return { child, link: new WorkerLink(child), progress };
}

/** A worker started before any pool existed, and whether it has said it is ready. */
export interface LaunchedWorker extends WorkerHandle {
  ready: boolean;
}

const prestarted: LaunchedWorker[] = [];

/**
 * Starts `count` workers now, for the pool that the run will create later.
 * A worker takes a few hundred milliseconds to start and the CLI about as
 * long to parse its arguments and load the runner, so doing both at once
 * takes that much off every run. Until a pool adopts them they do not keep
 * this process alive: if the run never happens (a usage error), the
 * process exits as usual and they exit with it.
 */
export function prestartWorkers(count: number): void {
  for (let i = 0; i < count; i++) {
    const entry: LaunchedWorker = { ...launchWorker(), ready: false };
    // The worker's one "ready" comes before any pool listens: remember it.
    entry.link.onMessage((message) => {
      if ((message as { type?: unknown } | null)?.type === 'ready') entry.ready = true;
    });
    setHeld(entry, false);
    prestarted.push(entry);
  }
}

/** A prestarted worker that is still alive, now held by its caller, or undefined. */
export function adoptPrestarted(): LaunchedWorker | undefined {
  for (let entry = prestarted.shift(); entry !== undefined; entry = prestarted.shift()) {
    const { child, link } = entry;
    link.onMessage(() => undefined);
    if (child.exitCode !== null || child.signalCode !== null || !link.open) {
      child.kill('SIGKILL');
      continue;
    }
    setHeld(entry, true);
    return entry;
  }
  return undefined;
}

/** Whether the worker (its process, its link and its stderr pipe) keeps this process's event loop alive. */
function setHeld({ child, link }: WorkerHandle, held: boolean): void {
  const stderr = child.stderr as Socket | null;
  link.hold(held);
  if (held) {
    child.ref();
    stderr?.ref();
  } else {
    child.unref();
    stderr?.unref();
  }
}
