/**
 * Long-running servers started as child processes (`evalrun serve`, the
 * sandbox peer), for the serve bench and the end-to-end tests that drive
 * the same servers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { packageRoot } from '../src/package-root.js';

/** A port on 127.0.0.1 that was free a moment ago, for a server that must be told its port before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

/** A child that serves until it is stopped; its output is kept for error messages. */
export interface ServiceProcess {
  child: ChildProcess;
  /** The command line, to name the service in errors. */
  command: string;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
}

/** A service that answered its health check. */
export interface Service extends ServiceProcess {
  url: string;
}

export interface SpawnOptions {
  /**
   * Keep only the last this many characters of output. A server under a
   * bench logs for minutes; a test reads its first lines, so keeps it all.
   */
  outputTail?: number;
}

/** Starts `command args` in the package's folder, without waiting for it. */
export function spawnService(command: string, args: readonly string[], options: SpawnOptions = {}): ServiceProcess {
  const child = spawn(command, args, { cwd: packageRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = options.outputTail;
  let output = '';
  const keep = (d: string): void => {
    output = tail === undefined ? output + d : (output + d).slice(-tail);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  // Listened for now, so that an exit before anyone awaits it is not missed.
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, command: [command, ...args].join(' '), output: () => output, exited };
}

function hasExited(service: ServiceProcess): boolean {
  return service.child.exitCode !== null || service.child.signalCode !== null;
}

/** Polls `url`/healthz until it answers 200; fails as soon as the service exits, and at the deadline. */
export async function waitHealthy(service: ServiceProcess, url: string, deadlineMs: number): Promise<void> {
  const health = `${url}/healthz`;
  const deadline = Date.now() + deadlineMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (hasExited(service)) {
      throw new Error(`${service.command} exited (${service.child.exitCode ?? service.child.signalCode}) before ${health} answered 200:\n${service.output()}`);
    }
    try {
      const r = await fetch(health, { signal: AbortSignal.timeout(2_000) });
      if (r.status === 200) return;
      last = `HTTP ${r.status}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${health} did not answer 200 within ${deadlineMs} ms (last: ${last}); ${service.command}:\n${service.output()}`);
}

/**
 * Starts a service that will listen at `url` and waits until it is healthy.
 * One that never gets there is killed, so a caller that gets no service has
 * nothing to stop.
 */
export async function startService(command: string, args: readonly string[], url: string, options: SpawnOptions & { deadlineMs: number }): Promise<Service> {
  const service = spawnService(command, args, options);
  try {
    await waitHealthy(service, url, options.deadlineMs);
  } catch (error) {
    service.child.kill('SIGKILL');
    throw error;
  }
  return { ...service, url };
}

/** SIGTERM, so that the service finishes what it has in flight; SIGKILL if it has not exited after `graceMs`. */
export async function stopService(service: ServiceProcess | undefined, graceMs: number): Promise<void> {
  if (service === undefined || hasExited(service)) return;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), graceMs);
  await service.exited;
  clearTimeout(timer);
}
