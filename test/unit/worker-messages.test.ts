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
import { batchLine, endsItem, gradedFrame, readFromWorker, readToWorker, type Batch, type FromWorker, type ItemMessage } from '../../src/workers/messages.js';

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
/** The row as a graded message carries it: its fields by position, `ran` left out (it follows from the status). */
const wireRow = ['p', 'm', null, '0', 'python', 'failed', null, 'f', 1, 2, 3, 1, 0, 0, 0, 0];
/** A graded message's line, as the worker writes it; its records follow as the payload. */
const graded = { type: 'graded', batch: 1, item: 0, rows: [wireRow], recordBytes: [18], payloadBytes: 18 };
/** `graded` with its row's field at `index` replaced. */
const withField = (index: number, value: unknown): unknown => ({ ...graded, rows: [wireRow.map((v, i) => (i === index ? value : v))] });
const record = Buffer.from('{"problem_id":"p"}');
const summary = { id: 'p', file: '/p.json', tags: [], warnings: [], hasOptimalSolution: true, tests: 2 };

describe('batchLine and readToWorker', () => {
  it('give the worker back every item of a batch as the supervisor had it', () => {
    const range = { kind: 'range' as const, file: '/s/model.jsonl', start: 10, end: 90, digest: '00ff00ff00ff00ff' };
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
    // The repeated names and paths go once.
    expect(line.split('/s/model.jsonl"').length - 1).toBe(1);
    expect(readToWorker({ type: 'context', context: { knownProblemIds: [], solutionsRootName: 's' } })).toEqual({
      type: 'context',
      context: { knownProblemIds: [], solutionsRootName: 's' },
    });
    expect(readToWorker({ type: 'batch', id: -1, batch: { strings: [], items: [] } })).toBeNull();
    expect(readToWorker({ type: 'nope' })).toBeNull();
    expect(() =>
      readToWorker({ type: 'batch', id: 1, batch: { strings: [], items: [{ kind: 'grade', candidate: [0, 0, 0, -1, null, 's', 1, 0, null] }] } }),
    ).toThrow(/names string 0 of 0/);
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
      { type: 'solutions', batch: 1, item: 0, outcomes: [{ kind: 'skipped', skipped: { source: 'a.txt', reason: 'not a solution file' } }] },
      {
        type: 'solutions',
        batch: 1,
        item: 1,
        outcomes: [
          {
            kind: 'submission',
            submission: {
              problemId: 'p',
              modelId: 'm',
              promptId: null,
              sampleId: null,
              source: 's.py',
              text: { kind: 'inline', raw: 'x' },
              declaredLanguage: 'python',
            },
          },
          {
            kind: 'submission',
            submission: {
              problemId: 'p',
              modelId: 'm',
              promptId: null,
              sampleId: '2',
              source: 's.jsonl:3',
              text: { kind: 'range', file: 's.jsonl', start: 10, end: 52, digest: '0123456789abcdef' },
              declaredLanguage: null,
            },
          },
        ],
      },
      { type: 'answered', batch: 1, item: 0, reply: { kind: 'load-error', message: 'no' } },
      { type: 'failed', batch: 1, item: 0, message: 'bug' },
    ];
    for (const message of good) expect(readFromWorker(message)).toEqual(message);
  });

  it('cuts the records of a graded message out of its payload, byte for byte, as the worker framed them', () => {
    const texts = ['{"problem_id":"p","s":"é漢🙂"}', '{"problem_id":"p","n":2}'];
    const { line, payload } = gradedFrame(4, 2, [row, row], texts);
    const frames = new FrameSplitter().push(Buffer.concat([Buffer.from(line), payload]));
    expect(frames).toHaveLength(1);
    const read = readFromWorker(frames[0]!.message, frames[0]!.payload);
    expect(read).toEqual({
      type: 'graded',
      batch: 4,
      item: 2,
      rows: [row, row],
      records: texts.map((t) => Buffer.from(t)),
      joined: Buffer.from(texts.join(',')),
    });
  });

  it("carries a self-check's problem in its graded message when the worker sends one", () => {
    const texts = ['{"problem_id":"p"}'];
    const { line, payload } = gradedFrame(4, 2, [row], texts, summary);
    const frames = new FrameSplitter().push(Buffer.concat([Buffer.from(line), payload]));
    const read = readFromWorker(frames[0]!.message, frames[0]!.payload);
    expect(read).toMatchObject({ type: 'graded', batch: 4, item: 2, problem: summary, rows: [row] });
    expect(endsItem(read as ItemMessage)).toBe(true);
  });

  it('names what is wrong with anything else', () => {
    const bad: Array<[unknown, RegExp]> = [
      [null, /not an object/],
      [[graded], /not an object/],
      [{ type: 'graded', item: 0, rows: [wireRow], recordBytes: [2] }, /without its batch and item/],
      [{ ...graded, batch: -1 }, /without its batch and item/],
      [{ ...graded, item: 1.5 }, /without its batch and item/],
      [withField(5, 'won'), /malformed rows/],
      [withField(8, 3), /malformed rows/],
      [withField(11, -1), /malformed rows/],
      [withField(0, null), /malformed rows/],
      [withField(10, '3'), /malformed rows/],
      [{ ...graded, rows: [wireRow.slice(0, 15)] }, /malformed rows/],
      [{ ...graded, rows: [row] }, /malformed rows/],
      [{ ...graded, payloadBytes: undefined }, /one record per row/],
      [{ ...graded, problem: { ...summary, tests: 'two' } }, /graded" message with a malformed problem/],
      [{ ...graded, problem: { file: '/q.json', id: null, errors: ['/q.json: not valid JSON'] } }, /graded" message with a malformed problem/],
      [{ type: 'failed', batch: 1, item: 0, message: 'bug', payloadBytes: 2 }, /with a payload/],
      [{ type: 'problem', batch: 1, item: 0, problem: { ...summary, tests: -1 }, grading: false }, /malformed problem/],
      [{ type: 'problem', batch: 1, item: 0, problem: summary }, /malformed problem/],
      [{ type: 'solutions', batch: 1, item: 0, outcomes: [{ kind: 'submission', submission: { problemId: 'p' } }] }, /malformed outcomes/],
      ...[
        { kind: 'inline' },
        { kind: 'range', file: 's.py', start: 0, end: 4 },
        { kind: 'range', file: 's.py', start: 5, end: 4, digest: 'x' },
        { kind: 'range', file: 's.py', start: -1, end: 4, digest: 'x' },
        { kind: 'file', file: 's.py', start: 0, end: 4, digest: 'x' },
        'def f(): pass',
      ].map((text): [unknown, RegExp] => [
        {
          type: 'solutions',
          batch: 1,
          item: 0,
          outcomes: [
            { kind: 'submission', submission: { problemId: 'p', modelId: 'm', promptId: null, sampleId: null, source: 's.py', text, declaredLanguage: null } },
          ],
        },
        /malformed outcomes/,
      ]),
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
      [{ ...graded, recordBytes: [7, 7] }, '{"a":1}\n{"b":2}'],
      [{ ...graded, recordBytes: [7, 7] }, '{"a":1}{"b":2}'],
      [{ ...graded, recordBytes: [7, 7] }, '{"a":1};{"b":2}'],
      [{ ...graded, recordBytes: [7, 6] }, '{"a":1},{"b":2}'],
      [{ ...graded, recordBytes: [1.5] }, '{}'],
    ];
    for (const [message, payload] of bad) expect(readFromWorker(message, Buffer.from(payload))).toMatch(/one record per row/);
  });

  it('says which answers end their item: all but a self-check that goes on to grade', () => {
    const problem = (grading: boolean): FromWorker => ({ type: 'problem', batch: 1, item: 0, problem: summary, grading });
    expect(endsItem(problem(true) as ItemMessage)).toBe(false);
    expect(endsItem(problem(false) as ItemMessage)).toBe(true);
    expect(endsItem({ type: 'graded', batch: 1, item: 0, rows: [], records: [], joined: Buffer.alloc(0) })).toBe(true);
  });
});

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
