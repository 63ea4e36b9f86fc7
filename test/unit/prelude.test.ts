/**
 * The in-isolate prelude (sandbox/prelude.js) is the one copy of what the
 * JavaScript harness and Python's boot script share, and Python's snapshot
 * key covers it with everything else booted into the snapshot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { withPrelude } from '../../src/engines/prelude.js';
import { loadPyodideFiles } from '../../src/engines/python/pyodide-files.js';

const SANDBOX = join(import.meta.dirname, '..', '..', 'sandbox');
const read = (...path: string[]): string => readFileSync(join(SANDBOX, ...path), 'utf8');

/** mulberry32, written out here independently of the prelude. */
function reference(seed: number, count: number): number[] {
  let state = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push(((t ^ (t >>> 14)) >>> 0) / 4294967296);
  }
  return out;
}

describe('the in-isolate prelude', () => {
  it('gives the JavaScript harness its seeded Math.random and its frames', () => {
    const context: Record<string, unknown> = {};
    const install = runInNewContext(withPrelude(read('harness.js')), context) as (seed: number, epoch: number) => Array<(...args: string[]) => string>;
    const [run] = install(42, 0);
    expect(runInNewContext('[Math.random(), Math.random(), Math.random()]', context)).toEqual(reference(42, 3));
    runInNewContext('function twice(x) { return 2 * x; }', context);
    expect(run!('twice', '[]', '[[2],[3]]')).toMatch(/^P17,declaration:twicer\d+,1,4r\d+,1,6$/);
  });

  it("is part of Python's boot script, with the text codecs and the harness's JavaScript half: the script the snapshot key is made from", () => {
    const files = loadPyodideFiles();
    // Expression files go in without the semicolon that ends them as statements.
    const expression = (text: string): string => text.trim().replace(/;$/, '');
    expect(files.bootScript).toContain(expression(read('prelude.js')));
    expect(files.bootScript).toContain(read('python', 'text-codecs.js').trim());
    expect(files.bootScript).toContain(expression(read('python', 'boot.js')));
    expect(files.bootScript).toContain(expression(read('python', 'harness.js')));
    expect(files.snapshotKey).toMatch(/^[0-9a-f]{64}$/);
  });
});
