import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/** Where `npm run build` writes the bundled CLI and worker (scripts/bundle.ts). */
export const BUNDLE_DIR = join('dist', 'bundle');

let script: string | null = null;

/**
 * The program a sandbox worker process runs: the bundle, which starts in a
 * fraction of the time, or the module graph tsc wrote when there is none.
 */
export function workerScript(): string {
  if (script !== null) return script;
  const bundled = join(packageRoot(), BUNDLE_DIR, 'worker.js');
  script = existsSync(bundled) ? bundled : join(packageRoot(), 'dist', 'src', 'sandbox-host', 'worker-process.js');
  return script;
}

/**
 * Variables a sandbox worker is started without. NODE_EXTRA_CA_CERTS makes
 * Node read and parse a certificate bundle before any of our code runs: a
 * system bundle of 220 KB costs a worker 55 ms of CPU (measured), more than
 * its own start-up, and a worker never opens a TLS connection.
 */
const WORKER_ENV_OMITTED: readonly string[] = ['NODE_EXTRA_CA_CERTS'];

/** This process's environment without the variables in WORKER_ENV_OMITTED. */
export function workerEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = { ...env };
  for (const name of WORKER_ENV_OMITTED) delete copy[name];
  return copy;
}

/** Starts one sandbox worker process. */
export function launchWorker(): ChildProcess {
  return fork(workerScript(), [], {
    // isolated-vm needs this on Node 20+; it is the reason isolates live in these processes.
    execArgv: ['--no-node-snapshot'],
    env: workerEnvironment(),
    // Every message is plain data, and JSON costs each side about a third
    // less per message than the structured clone (measured). Values that JSON
    // cannot hold travel as wire text (src/values/wire.ts).
    serialization: 'json',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
}

/** A worker started before any pool existed, and whether it has said it is ready. */
export interface LaunchedWorker {
  child: ChildProcess;
  ready: boolean;
}

interface Prestarted extends LaunchedWorker {
  listener: (message: unknown) => void;
}

const prestarted: Prestarted[] = [];

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
    const child = launchWorker();
    const entry: Prestarted = { child, ready: false, listener: () => undefined };
    // The worker's one "ready" comes before any pool listens: remember it.
    entry.listener = (message) => {
      if ((message as { type?: unknown } | null)?.type === 'ready') entry.ready = true;
    };
    child.on('message', entry.listener);
    setHeld(child, false);
    prestarted.push(entry);
  }
}

/** A prestarted worker that is still alive, now held by its caller, or undefined. */
export function adoptPrestarted(): LaunchedWorker | undefined {
  for (let entry = prestarted.shift(); entry !== undefined; entry = prestarted.shift()) {
    const { child } = entry;
    child.off('message', entry.listener);
    if (child.exitCode !== null || child.signalCode !== null || !child.connected) {
      child.kill('SIGKILL');
      continue;
    }
    setHeld(child, true);
    return { child, ready: entry.ready };
  }
  return undefined;
}

/** Whether the child (its process, IPC channel and stderr pipe) keeps this process's event loop alive. */
function setHeld(child: ChildProcess, held: boolean): void {
  const stderr = child.stderr as Socket | null;
  if (held) {
    child.ref();
    child.channel?.ref();
    stderr?.ref();
  } else {
    child.unref();
    child.channel?.unref();
    stderr?.unref();
  }
}
