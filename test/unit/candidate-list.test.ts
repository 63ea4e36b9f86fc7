/**
 * A plan kept in columns (runner/candidate-list.ts) gives back each
 * candidate as planning it one object at a time would have made it.
 */
import { describe, expect, it } from 'vitest';
import { candidateKey, escapedTwice, quotedKey, quotedKeyOf, quoteKey, unquoteKey } from '../../src/runlog/candidate-key.js';
import { referencePlans, selfCheckPlan, submissionPlan, type ProblemSummary } from '../../src/grading/candidate.js';
import { quotedSelfCheckKey, selfCheckList, subList, SubmissionPlan, type CandidateList } from '../../src/runner/candidate-list.js';
import { rangeSource, type Submission } from '../../src/solutions/submission.js';
import { Rng } from '../../bench/rng.js';

const problem = (id: string, tests: number): ProblemSummary => ({ id, file: `/p/${id}.json`, tags: [], warnings: [], hasOptimalSolution: true, tests });
const add = problem('add', 3);
const gcd = problem('gcd "quoted" é', 5);

const submissions: Array<[ProblemSummary, Submission]> = [
  [
    add,
    {
      problemId: 'add',
      modelId: 'm1',
      promptId: null,
      sampleId: null,
      source: '/s/add.py',
      text: { kind: 'inline', raw: 'def add(a, b): return a + b' },
      declaredLanguage: 'python',
    },
  ],
  [
    gcd,
    {
      problemId: gcd.id,
      modelId: 'm2',
      promptId: 'brief',
      sampleId: '0',
      source: '/s/m2.jsonl:1',
      text: { kind: 'range', file: '/s/m2.jsonl', start: 0, end: 120, digest: 0xabab_abab_abab, line: 1 },
      declaredLanguage: null,
    },
  ],
  [
    gcd,
    {
      problemId: gcd.id,
      modelId: 'm2',
      promptId: 'brief',
      sampleId: '1',
      source: '/s/m2.jsonl:2',
      text: { kind: 'range', file: '/s/m2.jsonl', start: 120, end: 120, digest: 0xcdcd_cdcd_cdcd, line: 2 },
      declaredLanguage: null,
    },
  ],
];

/** Every accessor of a list, rank by rank, against the candidates it should hold. */
function expectList(list: CandidateList, expected: ReturnType<typeof submissionPlan>[]): void {
  expect(list.length).toBe(expected.length);
  expected.forEach((candidate, rank) => {
    expect(list.at(rank)).toEqual(candidate);
    expect(list.problemId(rank)).toBe(candidate.problemId);
    expect(list.modelId(rank)).toBe(candidate.modelId);
    expect(list.file(rank)).toBe(candidate.file);
    expect(list.tests(rank)).toBe(candidate.tests);
    expect(list.key(rank)).toBe(candidateKey(candidate));
    expect(list.quotedKey(rank)).toBe(JSON.stringify(candidateKey(candidate)));
  });
}

describe('a plan in columns', () => {
  it('gives back each submission as submissionPlan makes it, then the references', () => {
    for (const extract of [false, true]) {
      const plan = new SubmissionPlan(extract);
      for (const [p, s] of submissions) plan.add(p, s);
      expect([...plan.submittedProblems()]).toEqual(['add', gcd.id]);
      plan.addReferences([add, gcd]);
      expectList(plan, [...submissions.map(([p, s]) => submissionPlan(p, s, extract)), ...referencePlans([add, gcd])]);
      expect(() => plan.at(plan.length)).toThrow(RangeError);
    }
  });

  it("plans a self-check from its problems, each key the same as its candidate's", () => {
    expectList(selfCheckList([add, gcd]), [selfCheckPlan(add), selfCheckPlan(gcd)]);
    expect(quotedSelfCheckKey(gcd)).toBe(JSON.stringify(candidateKey(selfCheckPlan(gcd))));
  });

  it('takes a part of a plan by rank', () => {
    const all = submissions.map(([p, s]) => submissionPlan(p, s, false));
    const plan = new SubmissionPlan(false);
    for (const [p, s] of submissions) plan.add(p, s);
    expectList(subList(plan, [2, 0]), [all[2]!, all[0]!]);
  });
});

describe('a key as the log writes it, made from its parts', () => {
  it('is JSON.stringify of the key, for generated names of any characters', () => {
    const rng = new Rng(11);
    const next = (n: number): number => rng.int(0, n - 1);
    // Quotes, backslashes, control characters, line separators, lone and paired surrogates, colons and digits; or none of those.
    const any = ['a', 'é', '"', '\\', '\n', '\u0000', '\u001f', '\u2028', '\ud800', '\udfff', '😀', ':', '7', '/', ' ', '\u007f'];
    const plain = ['a', 'é', ':', '7', '/', ' ', '\u007f', '\u2028', '#', '_'];
    const text = (): string => {
      const alphabet = next(2) === 0 ? any : plain;
      return Array.from({ length: next(12) }, () => alphabet[next(alphabet.length)]!).join('');
    };
    for (let i = 0; i < 3000; i++) {
      const ids = { problemId: text(), modelId: text(), promptId: next(3) === 0 ? null : text(), sampleId: next(3) === 0 ? null : text() };
      const file = text();
      const line = 1 + next(100_000);
      const source = text();
      expect(quotedKey({ ...ids, source })).toBe(JSON.stringify(candidateKey({ ...ids, source })));
      expect(quotedKeyOf(ids, rangeSource({ file: escapedTwice(file), line }))).toBe(
        JSON.stringify(candidateKey({ ...ids, source: rangeSource({ file, line }) })),
      );
      const checked = { ...add, id: ids.problemId, file };
      expect(quotedSelfCheckKey(checked)).toBe(JSON.stringify(candidateKey(selfCheckPlan(checked))));
      expect(unquoteKey(quoteKey(source))).toBe(source);
    }
  });
});
