import { afterAll, describe, expect, it } from 'vitest';
import { JsEngine } from '../../src/engines/javascript/engine.js';
import { prepareCode } from '../../src/engines/javascript/prepare.js';
import type { CandidateOutcome } from '../../src/sandbox-host/protocol.js';
import { jsJob } from './js-job.js';

/**
 * A JavaScript engine serves many candidates from one isolate. Whatever a
 * candidate leaves in that isolate's heap (here a large array kept alive
 * past its context by a FinalizationRegistry's cells) must not count
 * against the next one: the same code gets the same verdict, whatever ran
 * before it.
 */
const engine = new JsEngine();
afterAll(() => engine.dispose());

async function verdicts(code: string): Promise<string[]> {
  const prepared = await prepareCode(code, 'javascript');
  if (!prepared.ok) throw new Error(`did not prepare: ${prepared.error}`);
  const outcome: CandidateOutcome = await engine.run({ ...jsJob(prepared.code, [[1]]), topLevelNames: prepared.topLevelNames ?? [] });
  return outcome.kind === 'ran' ? outcome.tests.map((t) => t.kind) : [outcome.kind];
}

describe('one isolate for many JavaScript candidates', () => {
  it('gives the same code the same verdict, however much the one before it left in the heap', async () => {
    const code =
      'const r = new FinalizationRegistry(() => {});\n' +
      'for (let i = 0; i < 1e4; i++) r.register({ a: i }, i);\n' +
      'globalThis.r = r;\n' +
      'globalThis.big = [];\n' +
      'for (let i = 0; i < 9e6; i++) big.push(i + 0.5);\n' +
      'function f(x) { return x + 1; }';
    const seen: string[][] = [];
    for (let i = 0; i < 4; i++) seen.push(await verdicts(code));
    expect(seen).toEqual(Array.from({ length: 4 }, () => ['returned']));
  }, 120_000);
});
