/**
 * What arrives from a sandbox worker is checked where it arrives
 * (workers/messages.ts): well-formed answers pass through unchanged, and
 * anything else is named, never handed on.
 */
import { describe, expect, it } from 'vitest';
import { FrameSplitter } from '../../src/sandbox-host/json-lines.js';
import type { CandidateRow } from '../../src/report/rows.js';
import type { Candidate } from '../../src/grading/candidate.js';
import { NO_FILTERS } from '../../src/grading/filters.js';
import type { SolutionFileOutcome, Submission } from '../../src/solutions/submission.js';
import {
  batchLine,
  GradedAnswers,
  gradedJoined,
  gradedRecords,
  gradedRows,
  itemsAnswered,
  readFromWorker,
  readToWorker,
  solutionsLines,
  SUBMISSIONS_PER_MESSAGE,
  type Batch,
  type FromWorker,
  type GradedMessage,
  type ItemMessage,
} from '../../src/workers/messages.js';

/** A solutions message's part as objects: its submissions (each made from the columns it arrived as) and its skipped solutions. */
function submissionsOf(part: Extract<FromWorker, { type: 'solutions' }>): { submissions: Submission[]; skipped: Array<{ source: string; reason: string }> } {
  return { submissions: Array.from({ length: part.submissions.length }, (_, i) => part.submissions.submission(i)), skipped: part.skipped };
}

const row: CandidateRow = {
  problem_id: 'p',
  model_id: 'm',
  prompt_id: null,
  sample_id: '0',
  language: 'python',
  status: 'failed',
  error: null,
  entry_point: 'f',
  passed: 1,
  total: 2,
  duration_ms: 3,
  counts: { fail: 1, error: 0, timeout: 0, memory: 0, skipped: 0 },
  ran: true,
};
/** The row as a graded message carries it: numbers, its strings by their index in the message's strings (-1: null), its status by its place. */
const strings = ['p', 'm', '0', 'python', 'f'];
const flatRow = [0, 1, -1, 2, 3, -1, 4, 1, 1, 2, 3, 1, 0, 0, 0, 0];
/** A graded message's line, as the worker writes it; its records follow as the payload. */
const graded = { type: 'graded', batch: 1, item: 0, strings, rows: flatRow, rowEnds: [1], recordBytes: [18], payloadBytes: 18 };
/** `graded` with its row's number at `index` replaced. */
const withField = (index: number, value: unknown): unknown => ({ ...graded, rows: flatRow.map((v, i) => (i === index ? value : v)) });
/** `graded` with two rows, as one candidate (rowEnds [2]) or two ([1, 2]). */
const twoRows = (rowEnds: number[]): Record<string, unknown> => ({ ...graded, rows: [...flatRow, ...flatRow], rowEnds });
const record = Buffer.from('{"problem_id":"p"}');
const summary = { id: 'p', file: '/p.json', tags: [], warnings: [], hasOptimalSolution: true, tests: 2 };
/** A `solutions` message as a worker writes it, with one good submission (a text given inline) and nothing skipped. */
const solutions = {
  type: 'solutions',
  batch: 1,
  item: 0,
  more: false,
  strings: ['p', 'm'],
  file: -1,
  problems: [0],
  models: [1],
  prompts: [-1],
  samples: [-1],
  languages: [-1],
  lines: [0],
  starts: [-1],
  ends: [-1],
  digests: [0],
  inline: [['s.py', 'x']],
  skipped: [],
};

describe('batchLine and readToWorker', () => {
  it('give the worker back every item of a batch as the supervisor had it', () => {
    const range = { kind: 'range' as const, file: '/s/model.jsonl', start: 10, end: 90, digest: 2 ** 53 - 1, line: 2 };
    const candidate = (over: Partial<Candidate>): Candidate => ({
      problemId: 'p',
      file: '/p/p.json',
      modelId: 'm',
      promptId: 'base',
      sampleId: '3',
      source: '/s/model.jsonl:2',
      tests: 5,
      submission: { text: range, declaredLanguage: 'python' },
      extract: true,
      ...over,
    });
    const batch: Batch = {
      options: {
        grade: { limits: { timeoutMs: 1000, memoryMb: 64, seed: 1 }, tolerance: { relative: 1e-9, absolute: 1e-9 }, languages: ['python'] },
        extractCode: true,
        filters: NO_FILTERS,
        answerWithinMs: 250,
      },
      items: [
        { kind: 'grade', candidate: candidate({}) },
        {
          kind: 'grade',
          candidate: candidate({
            sampleId: null,
            promptId: null,
            submission: { text: { kind: 'inline', raw: 'def f():\n  return "é"' }, declaredLanguage: null },
          }),
        },
        { kind: 'grade', candidate: { ...candidate({ modelId: 'optimal_solution', submission: null, extract: false }), correctnessOnly: true } },
        {
          kind: 'grade',
          candidate: { ...candidate({ submission: null }), correctnessOnly: false },
          oneByOne: [[1, { status: 'memory', message: 'out of memory' }]],
        },
        { kind: 'grade', candidate: candidate({ sampleId: '4' }), limits: { testTimeoutsMs: [5, 6, 7, 8, 9] } as never },
        { kind: 'self-check', file: '/p/q.json' },
        { kind: 'read-problem', file: '/p/r.json' },
      ],
    };
    const line = batchLine(7, batch);
    expect(line.endsWith('\n')).toBe(true);
    expect(readToWorker(JSON.parse(line))).toEqual({ type: 'batch', id: 7, batch });
    // The repeated names and paths go once; a source that is its range's file and line is not written at all.
    expect(line.split('/s/model.jsonl"').length - 1).toBe(1);
    // (Of the five candidates with that source, only the three without a range carry it, and it is held once for them.)
    expect(line.split('"/s/model.jsonl:2"').length - 1).toBe(1);
    // A grade item with nothing else to say is its candidate's row alone.
    expect((JSON.parse(line) as { batch: { items: unknown[] } }).batch.items.slice(0, 3)).toEqual([0, 1, 2]);
    expect(readToWorker({ type: 'context', context: { knownProblemIds: [], solutionsRootName: 's' } })).toEqual({
      type: 'context',
      context: { knownProblemIds: [], solutionsRootName: 's' },
    });
    expect(readToWorker({ type: 'batch', id: -1, batch: { strings: [], items: [] } })).toBeNull();
    expect(readToWorker({ type: 'nope' })).toBeNull();
    const row = [0, 0, 0, -1, -1, 0, 1, 0, 0, -1, -1, -1, -1, -1, -1];
    const batchOf = (candidates: unknown, items: unknown[], strings: string[] = ['s']) => ({ type: 'batch', id: 1, batch: { strings, candidates, items } });
    expect(readToWorker(batchOf(row, [0]))).toMatchObject({
      batch: { items: [{ kind: 'grade', candidate: { problemId: 's', source: 's', submission: null } }] },
    });
    expect(() => readToWorker(batchOf(row, [0], []))).toThrow(/names string 0 of 0/);
    // Numbers that are not whole, rows cut short, rows it does not hold: not a batch.
    expect(
      readToWorker(
        batchOf(
          row.map((n, i) => (i === 6 ? 1.5 : n)),
          [0],
        ),
      ),
    ).toBeNull();
    expect(readToWorker(batchOf(row.slice(1), [0]))).toBeNull();
    expect(readToWorker(batchOf(row, [1]))).toBeNull();
    expect(readToWorker(batchOf(row, [-1]))).toBeNull();
    expect(readToWorker(batchOf(row, [{ kind: 'grade', candidate: 3 }]))).toBeNull();
    expect(readToWorker(batchOf('0,1', [0]))).toBeNull();
    // Fields that cannot be: a kind of submission, a negative count of tests, a range that ends before it starts, no source.
    const changed = (place: number, value: number) => row.map((n, i) => (i === place ? value : n));
    expect(() => readToWorker(batchOf(changed(8, 3), [0]))).toThrow(/submission of kind 3/);
    expect(() => readToWorker(batchOf(changed(6, -1), [0]))).toThrow(/-1 tests/);
    expect(() => readToWorker(batchOf(changed(5, -1), [0]))).toThrow(/without its source/);
    const backwards = [0, 0, 0, -1, -1, -1, 1, 0, 2, -1, 0, 10, 5, 0, 1];
    expect(() => readToWorker(batchOf(backwards, [0]))).toThrow(/not one/);
    // A range's digest is a whole number below 2^53, carried in its row.
    const rangeRow = [0, 0, 0, -1, -1, -1, 1, 0, 2, -1, 0, 5, 10, 2 ** 53 - 1, 1];
    expect(readToWorker(batchOf(rangeRow, [0]))).toMatchObject({ batch: { items: [{ candidate: { submission: { text: { digest: 2 ** 53 - 1 } } } }] } });
    for (const digest of [-1, 2 ** 53])
      expect(() =>
        readToWorker(
          batchOf(
            rangeRow.map((n, i) => (i === 13 ? digest : n)),
            [0],
          ),
        ),
      ).toThrow(/not one/);
  });
});

describe('readFromWorker', () => {
  it('passes well-formed answers through as they are', () => {
    const good: unknown[] = [
      { type: 'ready' },
      { type: 'warmed', errors: [] },
      { type: 'warmed', errors: ['python: the interpreter could not start'] },
      { type: 'problem', batch: 2, item: 3, problem: summary, grading: true },
      { type: 'problem', batch: 2, item: 4, problem: { file: '/q.json', id: null, errors: ['/q.json: not valid JSON'] }, grading: false },
      { type: 'answered', batch: 1, item: 0, reply: { kind: 'load-error', message: 'no' } },
      { type: 'failed', batch: 1, item: 0, message: 'bug' },
    ];
    for (const message of good) expect(readFromWorker(message)).toEqual(message);
  });

  it("gives back a solution file's outcomes as the worker read them: its submissions, then its skipped solutions, each in the file's order", () => {
    const submission = (over: Partial<Submission>): SolutionFileOutcome => ({
      kind: 'submission',
      submission: {
        problemId: 'p',
        modelId: 'm',
        promptId: null,
        sampleId: null,
        source: 's.py',
        text: { kind: 'inline', raw: 'x' },
        declaredLanguage: 'python',
        ...over,
      },
    });
    const skipped = (source: string): SolutionFileOutcome => ({ kind: 'skipped', skipped: { source, reason: `${source} is not a solution` } });
    const range = { kind: 'range' as const, file: '/s/samples.jsonl', start: 10, end: 52, digest: 2 ** 32 + 7, line: 3 };
    const outcomes = [
      skipped('a.txt'),
      submission({}),
      submission({ promptId: 'brief', sampleId: '2', source: '/s/samples.jsonl:3', text: range, declaredLanguage: null }),
      skipped('/s/samples.jsonl:4'),
      submission({ problemId: 'q', modelId: 'other', source: '/s/samples.jsonl:5', text: { ...range, start: 52, end: 52, line: 5 } }),
      submission({ source: '/s/samples.jsonl:6', text: { ...range, start: 53, end: 60, line: 6 } }),
    ];
    const lines = solutionsLines(3, 4, outcomes);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    // A range's source is its file and line: the file goes once, the submissions' sources not at all (the skipped line's does).
    for (const at of [3, 5, 6]) expect(line).not.toContain(`/s/samples.jsonl:${at}`);
    expect(line).toContain('/s/samples.jsonl:4');
    // Made from each other where the file is read: a range's submission with another source is a mistake of the caller.
    expect(() => solutionsLines(3, 4, [submission({ source: 'elsewhere.jsonl:3', text: range })])).toThrow(/elsewhere\.jsonl:3 is not at line 3/);
    const read = readFromWorker(JSON.parse(line));
    expect(read).toMatchObject({ type: 'solutions', batch: 3, item: 4, more: false });
    // Every field as read, the source too: a range's is made from its file and line when it is asked for.
    expect(typeof read !== 'string' && read.type === 'solutions' ? submissionsOf(read) : null).toStrictEqual({
      submissions: [outcomes[1], outcomes[2], outcomes[4], outcomes[5]].map((o) => (o!.kind === 'submission' ? o!.submission : null)),
      skipped: [outcomes[0], outcomes[3]].map((o) => (o!.kind === 'skipped' ? o!.skipped : null)),
    });
    const empty = solutionsLines(3, 5, []);
    expect(empty).toHaveLength(1);
    const readEmpty = readFromWorker(JSON.parse(empty[0]!));
    expect(typeof readEmpty !== 'string' && readEmpty.type === 'solutions' ? submissionsOf(readEmpty) : null).toStrictEqual({ submissions: [], skipped: [] });
  });

  it("sends a long file's submissions in parts, the last of which alone answers the item, and gives them back in the file's order", () => {
    const count = 2 * SUBMISSIONS_PER_MESSAGE + 5;
    const outcomes: SolutionFileOutcome[] = [{ kind: 'skipped', skipped: { source: '/s/a.jsonl:1', reason: 'bad line' } }];
    for (let line = 2; line < count + 2; line++) {
      const text = {
        kind: 'range' as const,
        file: '/s/a.jsonl',
        start: line * 10,
        end: line * 10 + 7,
        digest: ((line * 7919 * 2 ** 32) % 2 ** 53) + line,
        line,
      };
      outcomes.push({
        kind: 'submission',
        submission: {
          problemId: `p${line % 3}`,
          modelId: 'm',
          promptId: null,
          sampleId: line % 5 === 0 ? `s${line}` : null,
          source: `/s/a.jsonl:${line}`,
          text,
          declaredLanguage: null,
        },
      });
    }
    const parts = solutionsLines(7, 0, outcomes).map((line) => readFromWorker(JSON.parse(line)));
    expect(parts).toHaveLength(3);
    const read = parts.map((p) => (typeof p !== 'string' && p.type === 'solutions' ? p : null));
    expect(read.map((p) => p?.more)).toEqual([true, true, false]);
    expect(read.map((p) => (p === null ? null : itemsAnswered(p)))).toEqual([0, 0, 1]);
    const all = read.map((p) => submissionsOf(p!));
    expect(all.flatMap((p) => p.submissions)).toStrictEqual(outcomes.slice(1).map((o) => (o.kind === 'submission' ? o.submission : null)));
    expect(all.map((p) => p.skipped.length)).toEqual([0, 0, 1]);
  });

  it('refuses a solutions message whose columns are not well formed', () => {
    const range = {
      ...solutions,
      strings: ['p', 'm', '/s/a.jsonl'],
      file: 2,
      lines: [1],
      starts: [0],
      ends: [9],
      digests: [2 ** 52 + 3],
      inline: [],
    };
    expect(readFromWorker(solutions)).toMatchObject({ type: 'solutions', more: false });
    expect(readFromWorker(range)).toMatchObject({ type: 'solutions', more: false });
    const bad: Array<Record<string, unknown>> = [
      { ...range, digests: ['0123456789abcdef'] },
      { ...range, digests: [-1] },
      { ...range, digests: [0.5] },
      { ...range, digests: [2 ** 53] },
      { ...range, digests: [1, 2] },
      { ...range, digests: 7 },
      { ...range, lines: [-1] },
      { ...range, lines: [1.5] },
      { ...range, starts: [10] },
      { ...range, starts: [-1] },
      { ...range, ends: [0.5] },
      { ...range, problems: [3] },
      { ...range, problems: [-1] },
      { ...range, models: [1, 1] },
      { ...range, prompts: [-2] },
      { ...range, samples: ['0'] },
      { ...range, languages: [null] },
      { ...range, file: 3 },
      { ...range, file: -1 },
      { ...range, inline: [['s.py', 'x']] },
      { ...solutions, inline: [] },
      { ...solutions, inline: [['s.py']] },
      { ...solutions, inline: [['s.py', 7]] },
      { ...solutions, starts: [0] },
    ];
    for (const message of bad) expect(readFromWorker(message), JSON.stringify(message)).toMatch(/malformed submissions/);
    expect(readFromWorker({ ...range, more: 'no' })).toMatch(/malformed outcomes/);
    expect(readFromWorker({ ...range, problems: 'p' })).toMatch(/malformed outcomes/);
  });

  it("carries graded candidates as one message and gives back each one's rows, records and joined records byte for byte", () => {
    const measured: CandidateRow = {
      ...row,
      problem_id: 'q',
      status: 'passed',
      passed: 2,
      counts: { ...row.counts, fail: 0 },
      efficiency: { suite: 'performance', reference: false, cost: 1.5, memory: null, error: null },
    };
    const texts = ['{"problem_id":"p","s":"é漢🙂"}', '{"problem_id":"p","n":2}'];
    const answers = new GradedAnswers(4, 2);
    answers.add([row, row], texts);
    expect(answers.follows(4, 3)).toBe(true);
    expect(answers.follows(4, 4)).toBe(false);
    expect(answers.follows(5, 3)).toBe(false);
    answers.add([], []);
    answers.add([measured], ['{"problem_id":"q"}']);
    const { line, payload } = answers.frame();
    const frames = new FrameSplitter().push(Buffer.concat([Buffer.from(line), payload]));
    expect(frames).toHaveLength(1);
    const read = readFromWorker(frames[0]!.message, frames[0]!.payload) as GradedMessage;
    expect(read).toMatchObject({ type: 'graded', batch: 4, item: 2, count: 3, problems: null });
    expect(itemsAnswered(read)).toBe(3);
    expect([0, 1, 2].map((j) => gradedRows(read, j))).toEqual([[row, row], [], [measured]]);
    expect([0, 1, 2].map((j) => gradedRecords(read, j).map((r) => r.toString()))).toEqual([texts, [], ['{"problem_id":"q"}']]);
    expect([0, 1, 2].map((j) => gradedJoined(read, j).toString())).toEqual([texts.join(','), '', '{"problem_id":"q"}']);
  });

  it("carries a self-check's problem in its graded message when the worker sends one", () => {
    const answers = new GradedAnswers(4, 2);
    answers.add([row], ['{"problem_id":"p"}']);
    answers.add([row], ['{"problem_id":"p"}'], summary);
    const { line, payload } = answers.frame();
    const frames = new FrameSplitter().push(Buffer.concat([Buffer.from(line), payload]));
    const read = readFromWorker(frames[0]!.message, frames[0]!.payload) as GradedMessage;
    expect(read).toMatchObject({ type: 'graded', batch: 4, item: 2, count: 2, problems: [null, summary] });
    expect(gradedRows(read, 1)).toEqual([row]);
  });

  it('names what is wrong with anything else', () => {
    const bad: Array<[unknown, RegExp]> = [
      [null, /not an object/],
      [[graded], /not an object/],
      [{ type: 'graded', item: 0, strings, rows: flatRow, rowEnds: [1], recordBytes: [2] }, /without its batch and item/],
      [{ ...graded, batch: -1 }, /without its batch and item/],
      [{ ...graded, item: 1.5 }, /without its batch and item/],
      [withField(7, 5), /malformed rows/],
      [withField(7, -1), /malformed rows/],
      [withField(8, 3), /malformed rows/],
      [withField(11, -1), /malformed rows/],
      [withField(12, 0.5), /malformed rows/],
      [withField(12, 2 ** 31), /malformed rows/],
      [withField(9, 2 ** 31), /malformed rows/],
      [withField(0, -1), /malformed rows/],
      [withField(4, 5), /malformed rows/],
      [withField(2, -2), /malformed rows/],
      [withField(1, 0.5), /malformed rows/],
      [withField(10, '3'), /malformed rows/],
      [withField(10, null), /malformed rows/],
      [{ ...graded, rows: flatRow.slice(0, 15) }, /malformed rows/],
      [{ ...graded, rows: [row] }, /malformed rows/],
      [{ ...graded, strings: ['p', 'm', 0, 'python', 'f'] }, /malformed rows/],
      [{ ...graded, rowEnds: [] }, /malformed rows/],
      [{ ...graded, rowEnds: [0] }, /malformed rows/],
      [{ ...graded, rowEnds: [2] }, /malformed rows/],
      [twoRows([2, 1]), /malformed rows/],
      [{ ...graded, rowEnds: [1.5] }, /malformed rows/],
      [{ ...graded, payloadBytes: undefined }, /one record per row/],
      [{ ...graded, problems: [{ ...summary, tests: 'two' }] }, /graded" message with a malformed problem/],
      [{ ...graded, problems: [{ file: '/q.json', id: null, errors: ['/q.json: not valid JSON'] }] }, /graded" message with a malformed problem/],
      [{ ...graded, problems: [summary, summary] }, /graded" message with a malformed problem/],
      [{ ...graded, problems: summary }, /graded" message with a malformed problem/],
      [{ ...graded, efficiency: [[1, ['performance', false, 1, null, null]]] }, /malformed efficiency/],
      [{ ...graded, efficiency: [[0, ['performance', false, -1, null, null]]] }, /malformed efficiency/],
      [{ ...graded, efficiency: [[0, ['performance', false, 1, null]]] }, /malformed efficiency/],
      [{ ...graded, efficiency: [0, ['performance', false, 1, null, null]] }, /malformed efficiency/],
      [{ type: 'failed', batch: 1, item: 0, message: 'bug', payloadBytes: 2 }, /with a payload/],
      [{ type: 'problem', batch: 1, item: 0, problem: { ...summary, tests: -1 }, grading: false }, /malformed problem/],
      [{ type: 'problem', batch: 1, item: 0, problem: summary }, /malformed problem/],
      [{ type: 'solutions', batch: 1, item: 0, outcomes: [] }, /"solutions" message with malformed outcomes/],
      [{ ...solutions, strings: [1] }, /"solutions" message with malformed outcomes/],
      [{ ...solutions, skipped: [['a.txt']] }, /malformed skipped solution/],
      [{ ...solutions, skipped: [['a.txt', 2]] }, /malformed skipped solution/],
      [{ type: 'answered', batch: 1, item: 0, reply: { kind: 'maybe' } }, /without a reply/],
      [{ type: 'failed', batch: 1, item: 0 }, /without its reason/],
      [{ type: 'warmed' }, /"warmed" message without its errors/],
      [{ type: 'warmed', errors: [1] }, /"warmed" message without its errors/],
      [{ type: 'started', batch: 1, item: 0, test: 0 }, /unknown message type "started"/],
    ];
    for (const [message, why] of bad) {
      const read = readFromWorker(message, isObject(message) && typeof message.payloadBytes === 'number' ? record : null);
      expect(typeof read, JSON.stringify(message)).toBe('string');
      expect(read).toMatch(why);
    }
  });

  it('refuses a graded payload that is not one record per row', () => {
    const bad: Array<[unknown, string]> = [
      [{ ...graded, recordBytes: [] }, '{"problem_id":"p"}'],
      [{ ...graded, recordBytes: [3] }, '[1]'],
      [{ ...graded, recordBytes: [17] }, '{"problem_id":"p"}'],
      [{ ...graded, recordBytes: [1.5] }, '{}'],
      [{ ...graded, recordBytes: [18, 1] }, '{"problem_id":"p"}'],
      [{ ...twoRows([2]), recordBytes: [7, 7] }, '{"a":1}\n{"b":2}'],
      [{ ...twoRows([2]), recordBytes: [7, 7] }, '{"a":1}{"b":2}'],
      [{ ...twoRows([2]), recordBytes: [7, 7] }, '{"a":1};{"b":2}'],
      [{ ...twoRows([2]), recordBytes: [7, 6] }, '{"a":1},{"b":2}'],
      // Two candidates' records follow one another with nothing between them.
      [{ ...twoRows([1, 2]), recordBytes: [7, 7] }, '{"a":1},{"b":2}'],
      [{ ...twoRows([1, 2]), recordBytes: [7, 7] }, '{"a":1}\n{"b":2}'],
    ];
    for (const [message, payload] of bad) expect(readFromWorker(message, Buffer.from(payload))).toMatch(/one record per row/);
    // The same bytes, cut as the message says, pass.
    expect(readFromWorker({ ...twoRows([2]), recordBytes: [7, 7] }, Buffer.from('{"a":1},{"b":2}'))).toMatchObject({ count: 1 });
    expect(readFromWorker({ ...twoRows([1, 2]), recordBytes: [7, 7] }, Buffer.from('{"a":1}{"b":2}'))).toMatchObject({ count: 2 });
  });

  it('says how many items an answer ends: none for a self-check that goes on to grade, a graded message its count, any other one', () => {
    const problem = (grading: boolean): FromWorker => ({ type: 'problem', batch: 1, item: 0, problem: summary, grading });
    expect(itemsAnswered(problem(true) as ItemMessage)).toBe(0);
    expect(itemsAnswered(problem(false) as ItemMessage)).toBe(1);
    expect(itemsAnswered({ type: 'failed', batch: 1, item: 0, message: 'bug' })).toBe(1);
    const answers = new GradedAnswers(1, 0);
    for (let i = 0; i < 3; i++) answers.add([row], ['{"problem_id":"p"}']);
    const { line, payload } = answers.frame();
    const read = readFromWorker(JSON.parse(line), payload) as GradedMessage;
    expect(itemsAnswered(read)).toBe(3);
  });
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
