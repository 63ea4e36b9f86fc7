/**
 * Efficiency scores in every report, from synthetic measured records
 * written to a real run log and read back as `evalrun report` reads it: the
 * scores come from the log alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser, type Element as XmlElement } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html-reporter.js';
import { renderJunit } from '../../src/report/junit-reporter.js';
import { renderMarkdown } from '../../src/report/markdown-reporter.js';
import type { RunOutcome } from '../../src/report/reporter.js';
import { tableReporter } from '../../src/report/table-reporter.js';
import { syntheticRuns, type SyntheticCandidate } from './synthetic-run.js';

const syntheticRun = syntheticRuns();

function run(candidates: SyntheticCandidate[], options: Parameters<typeof syntheticRun>[1] = {}): RunOutcome {
  return syntheticRun(candidates, { grade: ['correctness', 'performance', 'memory'], ...options }).outcome;
}

const m = (cost: number, memory: number): SyntheticCandidate['measure'] => ({ cost, memory, load_cost: 1, load_memory: 2 });

// add: m1 scores 0.5 / 0.25, m2 fails a test; sort: m1 passed but was not measured (so scores 0), m2 scores 1 / 1
// (leaner than the optimal).
const MEASURED: SyntheticCandidate[] = [
  { problem: 'add', model: 'm1', tests: ['pass', 'pass'], measure: m(200, 400) },
  { problem: 'add', model: 'm2', tests: ['pass', 'fail'], measure: null, measureError: 'did not pass every test' },
  { problem: 'sort', model: 'm1', tests: ['pass'], measure: null, measureError: 'the engine did not measure' },
  { problem: 'sort', model: 'm2', tests: ['pass'], measure: m(50, 10) },
  { problem: 'add', model: 'optimal_solution', reference: true, tests: ['pass', 'pass'], measure: m(100, 100) },
  { problem: 'sort', model: 'optimal_solution', reference: true, tests: ['pass'], measure: m(100, 100) },
];
const TAGS = { add: ['math'], sort: ['lists'] };

function text(fn: (o: RunOutcome, write: (t: string) => void) => void, outcome: RunOutcome): string {
  let out = '';
  fn(outcome, (t) => (out += t));
  return out;
}

describe('the scorecard head', () => {
  it('scores each candidate from the run log, referencing it by its index in candidates', () => {
    const outcome = run(MEASURED, { tags: TAGS });
    const efficiency = outcome.head.efficiency!;
    expect(efficiency.graders).toEqual(['performance', 'memory']);
    expect(efficiency.candidates.map((c) => [c.index, c.performance, c.memory, c.reason])).toEqual([
      [0, 0.5, 0.25, null],
      [1, null, null, 'not all tests passed'],
      [2, 0, 0, 'scored 0, passed but not measured: the engine did not measure'],
      [3, 1, 1, null],
      [4, 1, 1, null],
      [5, 1, 1, null],
    ]);
    expect(efficiency.candidates[0]).toMatchObject({ cost: 200, memory_bytes: 400, optimal_cost: 100, optimal_memory_bytes: 100 });
    expect(efficiency.models).toEqual([
      { model_id: 'm1', candidates: 2, performance: { mean: 0.25, scored: 2 }, memory: { mean: 0.125, scored: 2 } },
      { model_id: 'm2', candidates: 2, performance: { mean: 1, scored: 1 }, memory: { mean: 1, scored: 1 } },
      { model_id: 'optimal_solution', candidates: 2, performance: { mean: 1, scored: 2 }, memory: { mean: 1, scored: 2 } },
    ]);
    expect(efficiency.tags.map((t) => [t.tag, t.performance])).toEqual([
      ['lists', { mean: 2 / 3, scored: 3 }],
      ['math', { mean: 0.75, scored: 2 }],
    ]);
    // The head's key order: the scores after pass@k, before the problems.
    const keys = Object.keys(outcome.head);
    expect(keys.indexOf('efficiency')).toBe(keys.indexOf('pass_at_k') + 1);
  });

  it('has no efficiency section when it was not asked', () => {
    const outcome = run(MEASURED, { grade: ['correctness'] });
    expect('efficiency' in outcome.head).toBe(false);
  });
});

describe('the table', () => {
  it('adds a column per grader to the model and tag tables, and says why candidates are n/a', async () => {
    let out = '';
    await tableReporter({ write: (t) => (out += t), details: false }).onRunEnd?.(run(MEASURED, { tags: TAGS }));
    const modelHeader = out.split('\n').find((l) => l.includes('model') && l.includes('pass rate'))!;
    expect(modelHeader).toMatch(/pass rate\s*│\s*performance\s*│\s*memory/);
    expect(out.split('\n').find((l) => l.includes(' m1 '))).toMatch(/0\.250 \(2\)\s*│\s*0\.125 \(2\)/);
    expect(out.split('\n').find((l) => l.includes(' math '))).toMatch(/0\.750 \(2\)/);
    expect(out).toContain('n/a: 1 not all tests passed; 1 scored 0, passed but not measured: the engine did not measure');
  });

  it('lists each candidate’s scores with --details', async () => {
    let out = '';
    await tableReporter({ write: (t) => (out += t), details: true }).onRunEnd?.(run(MEASURED));
    const line = out.split('\n').find((l) => l.includes(' add ') && l.includes(' m1 '))!;
    expect(line).toMatch(/0\.500\s*│\s*0\.250/);
    expect(out.split('\n').find((l) => l.includes(' add ') && l.includes(' m2 '))).toMatch(/n\/a\s*│\s*n\/a/);
  });
});

describe('Markdown', () => {
  it('adds the columns and an efficiency section', () => {
    const md = text(renderMarkdown, run(MEASURED, { tags: TAGS }));
    expect(md).toContain('| model | candidates | tests passed | problems solved | pass rate | performance | memory |');
    expect(md).toContain('| ---: | ---: |');
    expect(md).toMatch(/\| <code>m1<\/code> \|[^\n]*\| 0\.250 \(2\) \| 0\.125 \(2\) \|/);
    expect(md).toContain('### Efficiency');
    expect(md).toContain('- n/a: not all tests passed (1)');
    expect(md).toContain('- scored 0, passed but not measured: the engine did not measure (1)');
  });
});

describe('JUnit XML', () => {
  it('gives each suite its candidates’ scores as properties, valid against the JUnit schema', () => {
    const xml = text(renderJunit, run(MEASURED));
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const suites = Array.from(doc.getElementsByTagName('testsuite') as unknown as ArrayLike<XmlElement>);
    const props = (suite: string): Record<string, string> => {
      const s = suites.find((x) => x.getAttribute('name') === suite)!;
      const list = Array.from(s.getElementsByTagName('property') as unknown as ArrayLike<XmlElement>);
      return Object.fromEntries(list.map((p) => [p.getAttribute('name')!, p.getAttribute('value')!]));
    };
    expect(props('m1/add')).toEqual({
      'evalrun.performance': '0.500',
      'evalrun.memory': '0.250',
      'evalrun.cost': '200',
      'evalrun.memory_bytes': '400',
      'evalrun.optimal_cost': '100',
      'evalrun.optimal_memory_bytes': '100',
    });
    expect(props('m2/add')).toMatchObject({ 'evalrun.performance': 'n/a', 'evalrun.efficiency_na': 'not all tests passed' });
    expect(props('m1/sort')).toEqual({
      'evalrun.performance': '0.000',
      'evalrun.memory': '0.000',
      'evalrun.efficiency_note': 'scored 0, passed but not measured: the engine did not measure',
      'evalrun.optimal_cost': '100',
      'evalrun.optimal_memory_bytes': '100',
    });
    if (spawnSync('xmllint', ['--version']).status === 0) {
      const dir = mkdtempSync(join(tmpdir(), 'evalrun-junit-'));
      writeFileSync(join(dir, 'run.xml'), xml);
      const xsd = join(import.meta.dirname, '..', 'fixtures', 'junit.xsd');
      const lint = spawnSync('xmllint', ['--noout', '--schema', xsd, join(dir, 'run.xml')], { encoding: 'utf8' });
      expect(lint.stderr).toContain('validates');
    }
  });

  it('has no properties when efficiency was not asked', () => {
    expect(text(renderJunit, run(MEASURED, { grade: ['correctness'] }))).not.toContain('<properties>');
  });
});

describe('HTML', () => {
  it('adds a chart per grader and the score columns; each row carries its scores and reason', () => {
    const html = text((o, w) => renderHtml(o, w, { baseline: null }), run(MEASURED));
    expect(html).toContain('id="chart-performance"');
    expect(html).toContain('id="chart-memory"');
    expect(html).toContain('<th data-col="8" tabindex="0" class="num">performance</th><th data-col="9" tabindex="0" class="num">memory</th>');
    const rows = JSON.parse(/<script type="application\/json" id="rows">(.*?)<\/script>/s.exec(html)![1]!) as unknown[][];
    expect(rows[0]!.slice(10)).toEqual([0.5, 0.25, null]);
    expect(rows[1]!.slice(10)).toEqual([null, null, 'not all tests passed']);
    expect(html).toContain('measured: cost 200 (loading 1), memory 400 bytes');
  });

  it('is unchanged when efficiency was not asked', () => {
    const html = text((o, w) => renderHtml(o, w, { baseline: null }), run(MEASURED, { grade: ['correctness'] }));
    expect(html).not.toContain('chart-performance');
    expect(html).not.toContain('data-col="8"');
  });
});
