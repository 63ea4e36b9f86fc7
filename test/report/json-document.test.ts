import { describe, expect, it } from 'vitest';
import { writeDocument } from '../../src/report/json-reporter.js';
import type { RunOutcome } from '../../src/report/reporter.js';

/** The document as the head's JSON.stringify(head, null, 2) makes it, the candidates' records put in place of its closing brace. */
function expected(head: object, records: readonly string[]): string {
  const text = JSON.stringify(head, null, 2);
  const open = `${text.slice(0, text.lastIndexOf('}')).trimEnd()},\n  "candidates": [`;
  return records.length === 0 ? `${open}]\n}\n` : `${open}\n    ${records.join(',\n    ')}\n  ]\n}\n`;
}

function written(head: object, records: readonly string[]): string {
  const outcome = {
    head,
    resultRecords: (visit: (bytes: Uint8Array, start: number, end: number) => void) => {
      for (const record of records) {
        // Each record inside a larger buffer, as the run log's lines hold them.
        const bytes = Buffer.from(`xx${record}yy`);
        visit(bytes, 2, bytes.length - 2);
      }
    },
  } as unknown as RunOutcome;
  const pieces: Buffer[] = [];
  writeDocument(outcome, (bytes) => pieces.push(Buffer.from(bytes)));
  return Buffer.concat(pieces).toString('utf8');
}

describe('writeDocument', () => {
  it('writes the head member by member exactly as JSON.stringify(head, null, 2) writes it whole', () => {
    const report = (i: number) => ({
      problem_id: i % 9 === 0 ? null : `p"${i}\n\u2028é𝄞`,
      file: `/d/p${i}.json`,
      valid: i % 7 !== 0,
      errors: i % 7 === 0 ? [`bad\n${i}`, 'also'] : [],
      warnings: [],
      test_limits: i % 11 === 0 ? { per_test_ms: [1, 2.5, 1e21], source: { nested: [[], {}] } } : undefined,
    });
    const head = {
      evalrun_version: '0.1.0',
      mode: 'self-check',
      complete: true,
      options: { filters: { problem: [], tag: ['a'] }, float_tolerance: { relative: 1e-9 }, languages: ['javascript', 'python'] },
      summary: { problems: 1000, pass_rate: 0.123456789 },
      models: [{ model_id: 'm', pass_rate: 1 }],
      prompts: [],
      // Longer than one slice, and a length that is not a whole number of slices.
      tags: Array.from({ length: 700 }, (_, i) => ({ tag: `t${i}`, candidates: i })),
      pass_at_k: [{ model_id: 'm', values: { 'pass@1': null, 'pass@10': 0.5 } }],
      efficiency: undefined,
      problems: [...Array.from({ length: 1000 }, (_, i) => report(i)), undefined, null, 'text', 7, [[]]],
      skipped_submissions: Array.from({ length: 256 }, (_, i) => ({ source: `s${i}`, reason: 'r' })),
      shard: { index: 1, of: 2 },
    };
    const records = ['{"a":1}', '{"b":[1,2]}', '{"c":"é"}'];
    expect(written(head, records)).toBe(expected(head, records));
    expect(written(head, [])).toBe(expected(head, []));
    expect(JSON.parse(written(head, records))).toEqual({ ...JSON.parse(JSON.stringify(head)), candidates: [{ a: 1 }, { b: [1, 2] }, { c: 'é' }] });
  });

  it('writes a short head, and a member of exactly one slice and one more, the same way', () => {
    for (const length of [0, 1, 255, 256, 257, 512, 513]) {
      const head = { first: Array.from({ length }, (_, i) => ({ i, s: `line\n${i}` })), last: 'x' };
      expect(written(head, ['{}'])).toBe(expected(head, ['{}']));
    }
  });
});
