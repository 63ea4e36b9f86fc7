import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CandidateResult, TestResult } from '../../src/report/scorecard.js';
import { FAILURES_KEPT } from '../../src/report/failing-tests.js';
import { collectRows, Tally } from '../../src/runner/tally.js';
import { keysOf, RunLog, type RunHeader } from '../../src/runlog/run-log.js';
import { candidateRow } from '../../src/report/rows.js';
import { recordBytes } from '../../src/values/wire.js';
import { quoteKey } from '../../src/runlog/candidate-key.js';

const HEADER: RunHeader = { type: 'run', run_id: 'r', started_at: '2026-01-01T00:00:00.000Z', mode: 'self-check', options: {} };

function test(index: number, pass: boolean): TestResult {
  const base = { index, suite: 'correctness', source: `$.correctness_test_suite[${index}]`, input: { s: `é"\n${index}` }, expected: index, duration_ms: 0 };
  return pass ? { ...base, status: 'pass', actual: index, error: null } : { ...base, status: 'fail', actual: -1, error: 'expected 1, got -1' };
}

function result(problem: string, outcomes: boolean[]): CandidateResult {
  const tests = outcomes.map((pass, i) => test(i, pass));
  const passed = outcomes.filter(Boolean).length;
  return {
    problem_id: problem,
    model_id: 'optimal_solution',
    prompt_id: null,
    sample_id: null,
    language: 'javascript',
    source: `${problem}.json#optimal_solution`,
    raw_code: 'const f = () => "ü";',
    code: 'const f = () => "ü";',
    status: passed === tests.length ? 'passed' : 'failed',
    error: null,
    entry_point: 'name:f',
    passed,
    total: tests.length,
    score: passed / tests.length,
    duration_ms: 1,
    tests,
  };
}

const scratch = (): string => join(mkdtempSync(join(tmpdir(), 'evalrun-store-')), 'run.jsonl');

/** A new log, with the run's candidates in plan order. */
function create(file: string, keys: string[]): Tally {
  const tally = new Tally(RunLog.create(file, HEADER));
  tally.plan(keysOf(keys));
  return tally;
}

/** An existing log reopened for --resume, as a run does. */
function resume(file: string, keys: string[]): { tally: Tally; damagedLines: number } {
  const collected = collectRows();
  const { log, damagedLines } = RunLog.resume(file, collected.visit);
  const tally = new Tally(log, collected.rows);
  tally.plan(keysOf(keys));
  return { tally, damagedLines };
}

/** The records a tally would copy into the scorecard, as text. */
function texts(tally: Pick<Tally, 'resultRecords'>): string[] {
  const found: string[] = [];
  tally.resultRecords((bytes, start, end) => found.push(Buffer.from(bytes.subarray(start, end)).toString('utf8')));
  return found;
}

describe('the run log', () => {
  it('gives back, in planned order, exactly what was recorded, as objects and as text', () => {
    const file = scratch();
    const store = create(file, ['ka', 'kb', 'kc']);
    const a = result('a', [true, false, true]);
    const b = result('b', [true]);
    const c = result('c', [false, false]);
    store.recordResults('kc', [c]);
    store.recordResults('ka', [a]);
    store.recordResults('kb', [b]);
    expect([...store.results()]).toEqual([a, b, c]);
    expect(texts(store).map((t) => JSON.parse(t) as unknown)).toEqual([a, b, c]);
    expect(texts(store)).toEqual([a, b, c].map((r) => JSON.stringify(r)));
    // Failing tests in input order, whatever order the candidates finished in.
    expect(store.failingTests().shown.map((f) => [f.candidate.problem_id, f.test.index])).toEqual([
      ['a', 1],
      ['c', 0],
      ['c', 1],
    ]);
    expect(store.failingTests().total).toBe(3);
    store.log.close();
    // Every line of the log is JSON of its own.
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['run', 'candidate', 'candidate', 'candidate']);
  });

  it('reads a log back for --resume and gives the same results and failures', () => {
    const file = scratch();
    const first = create(file, ['ka', 'kb']);
    const a = result('a', [false, true]);
    const b = result('b', [true, true]);
    first.recordResults('ka', [a]);
    first.log.close();
    const { tally: store } = resume(file, ['ka', 'kb']);
    expect(store.has('ka')).toBe(true);
    expect(store.has('kb')).toBe(false);
    store.recordResults('kb', [b]);
    expect(texts(store)).toEqual([a, b].map((r) => JSON.stringify(r)));
    expect(store.failingTests().shown.map((f) => [f.candidate.problem_id, f.test.index])).toEqual([['a', 0]]);
    store.log.close();
  });

  it('counts the planned candidates not yet logged, whether they were logged before or after the plan', () => {
    const file = scratch();
    const store = new Tally(RunLog.create(file, HEADER));
    // A streaming self-check logs candidates before its plan is known, some the plan then leaves out.
    store.recordResults('ka', [result('a', [true])]);
    store.recordResults('kx', [result('x', [true])]);
    store.plan(keysOf(['ka', 'kb', 'kc']));
    expect(store.missing()).toBe(2);
    store.recordResults('kb', [result('b', [false])]);
    store.recordResults('ky', [result('y', [true])]);
    expect(store.missing()).toBe(1);
    store.recordResults('kc', [result('c', [true])]);
    expect(store.missing()).toBe(0);
    // Planned again (a resumed run plans once its log is read): the same count.
    store.plan(keysOf(['kc', 'kd', 'ka']));
    expect(store.missing()).toBe(1);
    store.log.close();
  });

  it('gives the same records and finds the same lines with room made for the candidates it expects, before, between and after they are logged, and after --resume', () => {
    const keys = Array.from({ length: 700 }, (_, i) => `k${i}`);
    const run = (expected: number | null): { texts: string[]; missing: number; found: boolean[] } => {
      const file = scratch();
      const tally = create(file, keys);
      if (expected !== null) tally.expect(expected);
      keys.slice(0, 400).forEach((key, i) => tally.recordResults(key, [result(`p${i}`, [i % 3 !== 0, true])]));
      tally.log.close();
      const again = resume(file, keys).tally;
      if (expected !== null) again.expect(expected);
      keys.slice(400, 650).forEach((key, i) => again.recordResults(key, [result(`q${i}`, [i % 2 === 0])]));
      const outcome = { texts: texts(again), missing: again.missing(), found: keys.map((key) => again.has(key)) };
      again.log.close();
      return outcome;
    };
    const plain = run(null);
    expect(plain.missing).toBe(50);
    for (const expected of [0, 1, 256, 257, 700, 5000]) expect(run(expected)).toEqual(plain);
  });

  it('finds the candidates recorded before the plan by the ranks they were recorded with, when the plan gives them', () => {
    const store = new Tally(RunLog.create(scratch(), HEADER));
    const [a, b, c] = [result('a', [true]), result('b', [false, true]), result('c', [true])];
    // A self-check records each problem by its place in the listing as it reads it: the files at 7, 2 and 4 here, the one at 4 left out by the plan.
    const record = (key: string, r: CandidateResult, listed: number): void => store.record(key, [candidateRow(r)], [recordBytes(r)], listed);
    record('ka', a, 7);
    record('kc', c, 4);
    record('kb', b, 2);
    store.plan(keysOf(['kb', 'ka', 'kd']), [2, 7, 9]);
    expect([...store.results()]).toEqual([b, a]);
    expect(store.rows().map((row) => row.problem_id)).toEqual(['b', 'a']);
    expect(store.missing()).toBe(1);
    expect(store.failingTests().shown.map((f) => f.candidate.problem_id)).toEqual(['b']);
    expect([0, 1, 2].map((rank) => store.isLogged(rank))).toEqual([true, true, false]);
    store.log.close();
  });

  it('sets aside a last line torn by a kill, and starts the next record on a line of its own', () => {
    const file = scratch();
    const first = create(file, ['ka', 'kb']);
    const a = result('a', [true]);
    const b = result('b', [true, false]);
    first.recordResults('ka', [a]);
    first.log.close();
    appendFileSync(file, '{"type":"candidate","key":"kb","results":[{"problem_');
    const { tally: store, damagedLines } = resume(file, ['ka', 'kb']);
    expect(damagedLines).toBe(0);
    expect(store.has('kb')).toBe(false);
    expect(store.missing()).toBe(1);
    store.recordResults('kb', [b]);
    store.log.close();
    const { tally: again } = resume(file, ['ka', 'kb']);
    expect([...again.results()]).toEqual([a, b]);
    expect(again.missing()).toBe(0);
    again.log.close();
  });

  it('keeps every line whole: many candidates, several results to a line, lines longer than what waits to be written, non-ASCII keys', () => {
    const file = scratch();
    const keys = Array.from({ length: 700 }, (_, i) => `k-${i}-${'é'.repeat(i % 3)}-"${i % 5}"`);
    const store = create(file, keys);
    const expected: CandidateResult[][] = [];
    // Recorded in reverse, as worker records (bytes, joined by commas), one in 50 with code longer than the 64 kB that wait to be written.
    for (let i = keys.length - 1; i >= 0; i--) {
      const results = Array.from({ length: 1 + (i % 3) }, (_, j) => {
        const r = result(`p${i}`, [j % 2 === 0]);
        return i % 50 === 0 ? { ...r, code: 'x'.repeat(70_000) } : r;
      });
      expected[i] = results;
      const records = results.map((r) => Buffer.from(JSON.stringify(r), 'utf8'));
      if (i % 2 === 0) {
        // As a worker's graded message holds them: joined by commas, between other candidates' bytes.
        const before = Buffer.from(`{"other":${i}},`);
        const bytes = Buffer.concat([before, ...records.flatMap((r, j) => (j > 0 ? [Buffer.from(','), r] : [r])), Buffer.from(',{"after":1}')]);
        const recordEnds = [7, 8];
        let at = before.length;
        records.forEach((r) => {
          at += r.length;
          recordEnds.push(at);
          at += 1;
        });
        store.log.appendJoined(quoteKey(keys[i]!), bytes, before.length, at - 1, recordEnds, 2, 2 + records.length);
      } else {
        store.log.appendCandidate(quoteKey(keys[i]!), records);
      }
    }
    // Appended to the log itself, not through the tally: read back by each line's slot, as the tally reads the lines it records.
    const slots = keys.map((key) => store.log.slotOf(key));
    expect([...store.log.results(keys[123]!)]).toEqual(expected[123]);
    expect(slots.flatMap((slot) => store.log.resultsAt(slot))).toEqual(expected.flat());
    expect(texts({ resultRecords: (visit) => store.log.visitResults(slots, visit) })).toEqual(expected.flat().map((r) => JSON.stringify(r)));
    store.log.close();
    // The same lines read back from the file alone.
    const { tally } = resume(file, keys);
    expect(tally.missing()).toBe(0);
    expect(texts(tally)).toEqual(expected.flat().map((r) => JSON.stringify(r)));
    tally.log.close();
  });

  it('finds a line this process wrote by its key, which it reads back from the line: any key, any number of results, a key logged twice', () => {
    const file = scratch();
    const keys = ['plain', 'quote " and \\ back', 'emoji 😀 é', 'lone \ud800 surrogate', '["json","array",null]', 'none', 'twice'];
    const log = RunLog.create(file, HEADER);
    const one = result('p', [true]);
    const two = [result('p', [true]), result('q', [false])];
    keys.forEach((key, i) => log.appendCandidate(quoteKey(key), key === 'none' ? [] : (i % 2 === 0 ? [one] : two).map((r) => Buffer.from(JSON.stringify(r)))));
    const lastTwice = log.appendCandidate(quoteKey('twice'), [Buffer.from(JSON.stringify(one))]);
    // Asked before and after the lines are on disk; the second time from the index made the first time.
    for (let round = 0; round < 2; round++) {
      for (const [i, key] of keys.entries()) {
        expect(log.has(key)).toBe(true);
        const expected = key === 'none' ? [] : key === 'twice' ? [one] : i % 2 === 0 ? [one] : two;
        expect(log.results(key)).toEqual(expected);
      }
      expect(log.slotOf('twice')).toBe(lastTwice);
      expect(log.has('lone \udc00 surrogate')).toBe(false);
      expect(log.slotOf('missing')).toBe(-1);
      log.flush();
    }
    // A line appended after the index is made is found too.
    log.appendCandidate(quoteKey('later'), [Buffer.from(JSON.stringify(one))]);
    expect(log.results('later')).toEqual([one]);
    log.close();
  });

  it('writes the plan line that JSON.stringify makes of the plan, however many keys it has', () => {
    const file = scratch();
    const keys = Array.from({ length: 6000 }, (_, i) => `["p${i}","m",null,"s${i % 7}","f é \u2028 "${i}"#1"]`);
    const problems = [{ problem_id: 'p0', file: 'p0.json', valid: true, errors: [], warnings: ['w'] }];
    const log = RunLog.create(file, HEADER);
    log.notePlan({ keys: keysOf(keys), problems, tags: new Map([['p0', ['a']]]), skipped_submissions: [{ source: 's', reason: 'r' }] });
    log.notePlan({ keys: keysOf([]), problems: [], tags: new Map(), skipped_submissions: [] });
    log.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[1]).toBe(JSON.stringify({ type: 'plan', keys, problems, tags: { p0: ['a'] }, skipped_submissions: [{ source: 's', reason: 'r' }] }));
    expect(lines[2]).toBe(JSON.stringify({ type: 'plan', keys: [], problems: [], tags: {}, skipped_submissions: [] }));
    expect(lines[1]!.length).toBeGreaterThan(3 * (1 << 16));
  });

  it('writes the plan line member by member exactly as JSON.stringify writes the whole plan', () => {
    const file = scratch();
    // Many problems and tags, so that members and elements cross the pieces the line is written in.
    const problems: unknown[] = Array.from({ length: 3000 }, (_, i) => ({
      problem_id: i % 5 === 0 ? null : `p"${i}\u2028é`,
      file: `/d/p${i}.json`,
      valid: i % 7 !== 0,
      errors: i % 7 === 0 ? [`bad\n${i}`] : [],
      warnings: [],
      // Left out by JSON, as a member of an object
      test_limits: undefined,
    }));
    // Array elements JSON leaves out are written as null; a date and a boxed string by their own rules.
    problems.push(undefined, new Date(0), Object.assign(Object.create(null) as object, { x: 1 }));
    // Tags are written as the object Object.fromEntries makes of them: keys that are array indexes first, in ascending order.
    const ids = ['b', '10', 'a', '2', '01', '4294967295', '4294967294', '1e3', '-1', '0', ' 7', '٣', 'gone'];
    for (let i = 0; i < 3000; i++) ids.push(i % 3 === 0 ? String(3000 - i) : `q${i}`);
    const tags = new Map(ids.map((id, i) => [id, id === 'gone' ? undefined : [`tag ${i % 13}`, i % 2 === 0 ? 'even' : 'odd']] as [string, string[]]));
    const plan = { problems, tags, skipped_submissions: [{ source: 's', reason: 'r' }], note: new String('boxed'), later: undefined };
    const log = RunLog.create(file, HEADER);
    log.notePlan({ keys: keysOf(['k']), ...plan } as unknown as Parameters<RunLog['notePlan']>[0]);
    log.close();
    const line = readFileSync(file, 'utf8').split('\n')[1]!;
    expect(line).toBe(JSON.stringify({ type: 'plan', keys: ['k'], ...plan, tags: Object.fromEntries(tags) }));
    expect(line.length).toBeGreaterThan(3 * (1 << 16));
  });

  it('tells --resume when the part of the run that logged each line began: the header, then each plan line that says', () => {
    const file = scratch();
    const log = RunLog.create(file, HEADER);
    const plan = { problems: [], tags: new Map<string, string[]>(), skipped_submissions: [] };
    log.appendCandidate(quoteKey('a'), [recordBytes(result('a', [true]))]);
    log.notePlan({ keys: keysOf(['a', 'b']), ...plan, part_started_at: '2026-01-02T00:00:00.000Z' });
    log.appendCandidate(quoteKey('b'), [recordBytes(result('b', [true]))]);
    // A plan line without the field (an older log's, or merge's) leaves the part as it was.
    log.notePlan({ keys: keysOf(['a', 'b']), ...plan });
    log.appendCandidate(quoteKey('c'), [recordBytes(result('c', [true]))]);
    log.noteEnd({ finished_at: '2026-01-03T00:00:00.000Z', complete: true });
    log.notePlan({ keys: keysOf(['a', 'b']), ...plan, part_started_at: '2026-01-04T00:00:00.000Z' });
    log.appendCandidate(quoteKey('a'), [recordBytes(result('a', [false]))]);
    log.close();
    const seen: Array<[string, string]> = [];
    RunLog.resume(file, (key, _results, at) => seen.push([key, new Date(at).toISOString()])).log.close();
    expect(seen).toEqual([
      ['a', '2026-01-01T00:00:00.000Z'],
      ['b', '2026-01-02T00:00:00.000Z'],
      ['c', '2026-01-02T00:00:00.000Z'],
      ['a', '2026-01-04T00:00:00.000Z'],
    ]);
  });

  it('keeps at most FAILURES_KEPT failing tests in memory but counts them all', () => {
    const store = create(scratch(), ['km']);
    const many = result(
      'm',
      Array.from({ length: FAILURES_KEPT + 30 }, () => false),
    );
    store.recordResults('km', [many]);
    expect(store.failingTests().shown).toHaveLength(FAILURES_KEPT);
    expect(store.failingTests().total).toBe(FAILURES_KEPT + 30);
    store.log.close();
  });
});

describe("the run log's values", () => {
  it('records Python kinds with the wire tags and reads them back unchanged, after --resume too', async () => {
    const { floatTag } = await import('../../src/values/py-tags.js');
    const { parseExactJson } = await import('../../src/problems/exact-json.js');
    const big = 10n ** 30n + 7n;
    const value = [
      big,
      -(2n ** 70n),
      floatTag(3),
      floatTag(-0),
      floatTag(Number.NaN),
      floatTag(Number.NEGATIVE_INFINITY),
      2.5,
      { $evalrun: 'tuple', items: [1, 'a'] },
      { $evalrun: 'set', items: [1, 2] },
      {
        $evalrun: 'dict',
        entries: [
          ['7', 'later key first'],
          ['1', 'x'],
          [big, floatTag(1e16)],
        ],
      },
    ];
    const c = result('kinds', [true]);
    const t = c.tests[0]!;
    const recorded: CandidateResult = { ...c, language: 'python', tests: [{ ...t, expected: value as never, actual: value as never }] };
    const file = scratch();
    const store = create(file, ['k']);
    store.recordResults('k', [recorded]);
    const [text] = texts(store);
    expect(text).toContain('{"$evalrun":"int","value":"1000000000000000000000000000007"}');
    expect(text).toContain('{"$evalrun":"float","value":"-0.0"}');
    expect(text).toContain('{"$evalrun":"float","value":"NaN"}');
    expect(text).toContain('[["7","later key first"],["1","x"]');
    // Read back as --resume, report, diff and merge read a log: the same values, and the same text.
    const { tally } = resume(file, ['k']);
    const [again] = [...tally.results()];
    expect(again!.tests[0]!.actual).toEqual(value);
    expect(again!.tests[0]!.expected).toEqual(value);
    expect(texts(tally)).toEqual([text]);
    expect(parseExactJson(text!)).toEqual(again);
  });
});
