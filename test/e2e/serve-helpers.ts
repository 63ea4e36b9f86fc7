import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'evalrun.js');

export const SERVE_PROBLEMS = join(ROOT, 'test', 'fixtures', 'serve', 'problems');

/** A running `evalrun serve`, started as a user would start it. */
export interface Server {
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `evalrun serve ARGS --port 0` and resolves once it listens and
 * (unless `ready` is false) says its workers are warm.
 */
export function startServer(args: readonly string[], options: { env?: NodeJS.ProcessEnv; ready?: boolean } = {}): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args, '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise<Server>((resolve, reject) => {
    let url: string | null = null;
    const check = (): void => {
      url ??= /listening on (http:\/\/\S+)/.exec(stderr)?.[1] ?? null;
      if (url !== null && (options.ready === false || stderr.includes('workers warm'))) {
        resolve({
          url,
          child,
          stderr: () => stderr,
          exited,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      check();
    });
    child.stdout.resume();
    void exited.then((code) => reject(new Error(`evalrun serve exited (${code}) before it was ready:\n${stderr}`)));
  });
}

/** A POST of JSON; the status, headers and parsed body. */
/** What the service answers: results, or an error's one-line reason. */
export interface ReplyBody {
  results: Array<{
    id: string;
    status: string;
    passed: number;
    total: number;
    score: number;
    tests: Array<{ status: string; expected: unknown; actual: unknown }>;
  }>;
  error: string;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: ReplyBody }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text === '' ? null : JSON.parse(text)) as ReplyBody };
}

/** The value of a metric line (the sum over its labels when `labels` is omitted). */
export async function metric(url: string, name: string, labels?: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    if (labels !== undefined && m[2] !== `{${labels}}`) continue;
    sum += Number(m[3]);
  }
  return sum;
}

/** The pids of a process's sandbox workers (its children that run the worker program). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => /worker(-process)?\.c?js/.test(l))
      .map((l) => Number(l.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** Waits until `condition` holds, checking every 50 ms, for at most `ms`. */
export async function until(condition: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
