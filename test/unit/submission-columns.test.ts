/**
 * Submissions kept as columns: each one given back as the object it was
 * given as, as the columns grow and after their spare room is given back.
 * (Columns as a message brings them: worker-messages.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { SubmissionColumns } from '../../src/solutions/submission-columns.js';
import type { Submission } from '../../src/solutions/submission.js';

const range = (line: number, digest: number): Submission => ({
  problemId: `p${line % 3}`,
  modelId: line % 2 === 0 ? 'm' : 'n',
  promptId: line % 4 === 0 ? null : 'brief',
  sampleId: line % 5 === 0 ? null : `s${line}`,
  source: `/s/a.jsonl:${line}`,
  text: { kind: 'range', file: '/s/a.jsonl', start: line * 100, end: line * 100 + 99, digest, line },
  declaredLanguage: line % 3 === 0 ? 'python' : null,
});
const inline: Submission = {
  problemId: 'p1',
  modelId: 'm',
  promptId: null,
  sampleId: null,
  source: '/s/m/p1.py',
  text: { kind: 'inline', raw: 'def f(x):\n    return x\n' },
  declaredLanguage: 'python',
};

describe('SubmissionColumns', () => {
  // Digests at the edges of what a double holds exactly, and across the 32-bit lines of an integer.
  const digests = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 52 + 1, 2 ** 53 - 1];
  const given = [
    ...digests.map((d, i) => range(i + 1, d)),
    inline,
    ...Array.from({ length: 200 }, (_, i) => range(i + 10, (i * 2654435761 * 65537) % 2 ** 53)),
  ];

  it('gives back every submission as it was added, the ranges with their digests to the digit', () => {
    const columns = new SubmissionColumns(2);
    for (const s of given) columns.add(s);
    expect(columns.length).toBe(given.length);
    expect(Array.from({ length: columns.length }, (_, i) => columns.submission(i))).toStrictEqual(given);
  });

  it('gives a submission with another sample id when asked, and keeps every one once trimmed', () => {
    const columns = new SubmissionColumns();
    for (const s of given) columns.add(s);
    columns.trim();
    expect(Array.from({ length: columns.length }, (_, i) => columns.submission(i, i % 2 === 0 ? String(i) : null))).toStrictEqual(
      given.map((s, i) => ({ ...s, sampleId: i % 2 === 0 ? String(i) : null })),
    );
  });

  it('refuses a digest that digestOf could not make, and adds nothing', () => {
    const columns = new SubmissionColumns();
    for (const digest of [-1, 0.5, 2 ** 53, Number.NaN, Infinity, '0123456789abcdef' as unknown as number]) {
      expect(() => columns.add(range(1, digest))).toThrow(/not a whole number from 0 below 2\^53/);
    }
    expect(columns.length).toBe(0);
  });
});
