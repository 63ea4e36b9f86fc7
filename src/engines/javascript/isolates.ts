/**
 * The isolate a JavaScript engine keeps (an isolate per 50 candidates), its
 * compiled harness, and the context prepared for the next candidate; in a
 * measured run, the harness with the meter in front of it
 * (sandbox/meter.js), compiled once per isolate when first needed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ivm from 'isolated-vm';
import { packageRoot } from '../../package-root.js';
import { withPrelude } from '../prelude.js';

const HARNESS_TEXT = readFileSync(join(packageRoot(), 'sandbox', 'harness.js'), 'utf8');
const HARNESS_SOURCE = withPrelude(HARNESS_TEXT);

let meteredSource: string | null = null;

/**
 * The meter's object and the three names the instrumented code calls, as
 * constants of the context's global scope (see sandbox/meter.js), then the
 * harness given the meter.
 */
function meteredHarnessSource(): string {
  if (meteredSource !== null) return meteredSource;
  const meter = readFileSync(join(packageRoot(), 'sandbox', 'meter.js'), 'utf8')
    .trim()
    .replace(/;$/, '');
  meteredSource =
    `const __evalrun_k = ${meter};\n` +
    'const __evalrun_c = __evalrun_k.tick, __evalrun_s = __evalrun_k.spread, __evalrun_r = __evalrun_k.rest, ' +
    '__evalrun_o = __evalrun_k.copied, __evalrun_n = __evalrun_k.created;\n' +
    withPrelude(HARNESS_TEXT, '__evalrun_k');
  return meteredSource;
}

export type Install = ivm.Reference<(seed: number, epoch: number) => unknown>;

/** A context nobody has used yet, with the harness evaluated in it but not installed. */
interface Spare {
  isolate: ivm.Isolate;
  context: ivm.Context;
  install: Install;
}

/** The current isolate, its compiled harness, and the context prepared for the next candidate. */
export class Isolates {
  isolate: ivm.Isolate | null = null;
  private harness: ivm.Script | null = null;
  private memoryMb = 0;
  /** Candidates this isolate has served. */
  served = 0;
  private spare: Spare | null = null;
  private metered: ivm.Script | null = null;

  warm(memoryMb: number): void {
    const { isolate, harness } = this.ensureIsolate(memoryMb);
    if (this.spare !== null && this.spare.isolate === isolate) return;
    this.dropSpare();
    this.spare = { isolate, ...this.freshContext(isolate, harness) };
  }

  ensureIsolate(memoryMb: number): { isolate: ivm.Isolate; harness: ivm.Script } {
    if (this.isolate === null || this.isolate.isDisposed || this.memoryMb !== memoryMb || this.harness === null) {
      this.discard();
      this.isolate = new ivm.Isolate({ memoryLimit: memoryMb });
      this.harness = this.isolate.compileScriptSync(HARNESS_SOURCE, { filename: 'evalrun-harness.js' });
      this.memoryMb = memoryMb;
      this.served = 0;
    }
    return { isolate: this.isolate, harness: this.harness };
  }

  discard(): void {
    this.dropSpare();
    if (this.isolate !== null && !this.isolate.isDisposed) this.isolate.dispose();
    this.isolate = null;
    this.harness = null;
    this.metered = null;
  }

  private dropSpare(): void {
    const spare = this.spare;
    this.spare = null;
    if (spare === null || spare.isolate.isDisposed) return;
    spare.install.release();
    spare.context.release();
  }

  /** The compiled harness is evaluated in every new context, so it captures its intrinsics before any candidate runs there. */
  private freshContext(isolate: ivm.Isolate, harness: ivm.Script): { context: ivm.Context; install: Install } {
    const context = isolate.createContextSync();
    const install = harness.runSync(context, { reference: true }) as Install;
    return { context, install };
  }

  /** A new context of this isolate with the meter and the harness evaluated in it (never the spare: that has no meter). */
  meteredContext(isolate: ivm.Isolate): { context: ivm.Context; install: Install } {
    this.metered ??= isolate.compileScriptSync(meteredHarnessSource(), { filename: 'evalrun-metered-harness.js' });
    const context = isolate.createContextSync();
    const install = this.metered.runSync(context, { reference: true }) as Install;
    return { context, install };
  }

  /** The prepared context when it belongs to this isolate, else a new one. */
  takeContext(isolate: ivm.Isolate, harness: ivm.Script): { context: ivm.Context; install: Install } {
    const spare = this.spare;
    if (spare !== null && spare.isolate === isolate && !isolate.isDisposed) {
      this.spare = null;
      return spare;
    }
    this.dropSpare();
    return this.freshContext(isolate, harness);
  }
}
