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
 * - `--no-liftoff`: WebAssembly (Pyodide) is compiled once, when a
 *   worker first instantiates it, by V8's optimizing compiler (TurboFan),
 *   and never again. Otherwise V8 runs it as baseline code (Liftoff) and
 *   compiles a function again with TurboFan once it has run long enough;
 *   that code is shared by every isolate of the process, so a candidate's
 *   verdict hung on what ran before it in the worker: TurboFan's frames of
 *   the interpreter's loop are larger, and recursion through C code went a
 *   third less deep after the recompile (a memoized recursion that passed
 *   in a worker's first sample failed in the next ones). One tier makes the
 *   depth the same for every candidate, and it is the faster tier, paid
 *   for once per worker process. docs/PERFORMANCE.md has the measurements.
 */
const WORKER_NODE_FLAGS: readonly string[] = ['--no-node-snapshot', '--no-liftoff'];

/**
 * The native stack a worker's interpreters recurse on, in KiB. Python keeps
 * its own frames on the heap, but a call that passes through C (a
 * `functools.cache`d function, `sum` or `max` over a generator, a class's
 * `__init__`) recurses on the thread's stack, and Pyodide's frames there are
 * several times CPython's. At V8's default limit (under 1 MiB) such
 * recursion stopped a few hundred levels deep, where CPython goes thousands
 * deep (3.13 stops it at a few thousand, 3.11 at tens of thousands). The
 * limit is also what a runaway recursion fills before it ends, in time and
 * in the worker's resident memory, so it is no larger than that asks.
 *
 * The worker's V8 limit is `V8_STACK_KIB`, under an operating-system limit
 * of `OS_STACK_KIB`, up to which the main thread's stack grows (and from
 * which its other threads' stacks are sized); pages are only used as deep
 * recursion touches them. Where the system will not raise its limit (a lower
 * hard limit, or no POSIX shell), V8's default stays, since a V8 limit
 * beyond the real stack would crash.
 */
const V8_STACK_KIB = 32 * 1024;
const OS_STACK_KIB = 48 * 1024;

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
