/**
 * What a sandbox worker inherits from the supervisor's environment. Node
 * reads NODE_EXTRA_CA_CERTS before any JavaScript runs, which costs a
 * worker more than the rest of its start-up, and a worker never uses TLS.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { launchWorker, workerEnvironment, workerScript, type WorkerHandle } from '../../src/sandbox-host/worker-launch.js';
import { WORKER_STDIO, WorkerLink } from '../../src/sandbox-host/worker-link.js';

/** A path Node cannot load certificates from: it then prints a warning, which shows it tried. */
const MISSING_CERTS = join(tmpdir(), 'evalrun-no-such-dir', 'extra-ca.pem');
const CERT_WARNING = /extra certs/i;

/** Everything the worker wrote to stderr from its start until it exited after saying it was ready. */
async function stderrUntilExit({ child, link }: WorkerHandle): Promise<string> {
  const stderr = child.stderr;
  if (stderr === null) throw new Error('the worker has no stderr pipe');
  let text = '';
  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => {
    text += chunk;
  });
  const ended = new Promise<void>((resolve) => stderr.on('end', resolve));
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
  link.onMessage((message) => {
    if ((message as { type?: unknown } | null)?.type === 'ready') link.close();
  });
  await Promise.all([ended, exited]);
  return text;
}

describe('sandbox worker environment', () => {
  const saved = process.env.NODE_EXTRA_CA_CERTS;
  afterEach(() => {
    if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = saved;
  });

  it('drops NODE_EXTRA_CA_CERTS and keeps every other variable, without changing its input', () => {
    const env = { NODE_EXTRA_CA_CERTS: '/etc/ssl/bundle.pem', PATH: '/usr/bin', TMPDIR: '/scratch', NODE_OPTIONS: '--import=x' };
    const copy = workerEnvironment(env);
    expect(copy).toEqual({ PATH: '/usr/bin', TMPDIR: '/scratch', NODE_OPTIONS: '--import=x' });
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/bundle.pem');
  });

  it('a worker started the usual way would load the certificates (the check below can fail)', async () => {
    const child = spawn(process.execPath, ['--no-node-snapshot', workerScript()], {
      stdio: [...WORKER_STDIO],
      env: { ...process.env, NODE_EXTRA_CA_CERTS: MISSING_CERTS },
    });
    expect(await stderrUntilExit({ child, link: new WorkerLink(child) })).toMatch(CERT_WARNING);
  });

  it('launchWorker starts a worker that never sees NODE_EXTRA_CA_CERTS', async () => {
    process.env.NODE_EXTRA_CA_CERTS = MISSING_CERTS;
    expect(await stderrUntilExit(launchWorker())).not.toMatch(CERT_WARNING);
  });
});
