/**
 * The file formats, rendered from runs written to a real run log and read
 * back as `evalrun report` reads them: JUnit XML parsed by a real XML
 * parser and validated against a JUnit schema (with xmllint, when
 * installed), Markdown tables, and hostile values kept inert everywhere.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser, type Document as XmlDocument, type Element as XmlElement } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html-reporter.js';
import { jsonReporter } from '../../src/report/json-reporter.js';
import { renderJunit } from '../../src/report/junit-reporter.js';
import { renderMarkdown } from '../../src/report/markdown-reporter.js';
import { tableReporter } from '../../src/report/table-reporter.js';
import type { RunOutcome } from '../../src/report/reporter.js';
import { fileBeside, parseReporterChoice } from '../../src/report/reporters.js';
import { syntheticRuns, type SyntheticCandidate } from './synthetic-run.js';

const XSD = join(import.meta.dirname, '..', 'fixtures', 'junit.xsd');
const HAS_XMLLINT = spawnSync('xmllint', ['--version']).status === 0;

const HOSTILE = '</script><script>window.__pwned = 1</script><!-- ]]> & "\'\u0001\u0000\ud800';

const syntheticRun = syntheticRuns();

function run(candidates: SyntheticCandidate[], options: Parameters<typeof syntheticRun>[1] = {}): RunOutcome {
  return syntheticRun(candidates, options).outcome;
}

function render(fn: (o: RunOutcome, write: (t: string) => void) => void, outcome: RunOutcome): string {
  let text = '';
  fn(outcome, (t) => (text += t));
  return text;
}

const GRADED: SyntheticCandidate[] = [
  { problem: 'add', model: 'm1', tests: ['pass', 'pass', 'fail'] },
  { problem: 'add', model: 'm2', tests: ['pass', 'error', 'timeout'] },
  { problem: 'sort', model: 'm1', tests: ['pass', 'memory'] },
  { problem: 'sort', model: 'm2', tests: [], status: 'load-error', error: 'SyntaxError: Unexpected token' },
  { problem: 'empty', model: 'm1', tests: [], status: 'no-tests' },
];

function elements(parent: XmlElement | XmlDocument, name: string): XmlElement[] {
  return Array.from(parent.getElementsByTagName(name) as unknown as ArrayLike<XmlElement>);
}

describe('JUnit XML', () => {
  it('has a testsuite per model and problem, a testcase per test with its time, and failure or error elements with the values', () => {
    const xml = render(renderJunit, run(GRADED));
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    const root = doc.documentElement!;
    expect(root.tagName).toBe('testsuites');
    const suites = elements(doc, 'testsuite');
    expect(suites.map((s) => s.getAttribute('name'))).toEqual(['m1/add', 'm2/add', 'm1/sort', 'm2/sort', 'm1/empty']);
    // Counts are the sums of what the suites hold, and match the elements inside them.
    for (const s of suites) {
      const cases = elements(s, 'testcase');
      expect(Number(s.getAttribute('tests'))).toBe(cases.length);
      expect(Number(s.getAttribute('failures'))).toBe(elements(s, 'failure').length);
      expect(Number(s.getAttribute('errors'))).toBe(elements(s, 'error').length);
      expect(Number(s.getAttribute('skipped'))).toBe(elements(s, 'skipped').length);
      for (const c of cases) expect(c.getAttribute('time')).toMatch(/^\d+\.\d{3}$/);
    }
    expect(root.getAttribute('tests')).toBe('10');
    expect(root.getAttribute('failures')).toBe('1');
    expect(root.getAttribute('errors')).toBe('4');
    expect(root.getAttribute('skipped')).toBe('1');
    const failure = elements(doc, 'failure')[0]!;
    expect(failure.getAttribute('message')).toBe('expected 4, got 5');
    expect(failure.textContent).toContain('expected: 4');
    expect(failure.textContent).toContain('actual: 5');
    expect(failure.textContent).toContain('input: {"n": 2}');
    const types = elements(doc, 'error').map((e) => e.getAttribute('type'));
    expect(types).toEqual(['error', 'timeout', 'memory', 'load-error']);
    expect(elements(doc, 'error')[3]!.textContent).toContain('SyntaxError: Unexpected token');
  });

  it("keeps one testsuite per model and problem when a suite's samples come interleaved with other problems, each testcase told apart by sample", () => {
    const interleaved: SyntheticCandidate[] = [
      { problem: 'a', model: 'm', sample: '0', tests: ['pass'] },
      { problem: 'b', model: 'm', sample: '0', tests: ['fail'] },
      { problem: 'c', model: 'm', tests: ['pass'] },
      { problem: 'a', model: 'm', sample: '1', tests: ['fail', 'pass'] },
      { problem: 'b', model: 'm', sample: '1', tests: ['pass'] },
      { problem: 'd', model: 'm', tests: ['error'] },
      { problem: 'b', model: 'm', sample: '2', tests: ['pass'] },
    ];
    const doc = new DOMParser().parseFromString(render(renderJunit, run(interleaved)), 'text/xml');
    const suites = elements(doc, 'testsuite');
    expect(suites.map((s) => s.getAttribute('name'))).toEqual(['m/a', 'm/b', 'm/c', 'm/d']);
    expect(suites.map((s) => `${s.getAttribute('tests')}/${s.getAttribute('failures')}/${s.getAttribute('errors')}`)).toEqual([
      '3/1/0',
      '3/1/0',
      '1/0/0',
      '1/0/1',
    ]);
    const ids = suites.flatMap((s) =>
      elements(s, 'testcase').map((c) => `${s.getAttribute('name')}: ${c.getAttribute('classname')} ${c.getAttribute('name')}`),
    );
    expect(ids).toEqual([
      'm/a: m/a correctness#0 [sample 0]',
      'm/a: m/a correctness#0 [sample 1]',
      'm/a: m/a correctness#1 [sample 1]',
      'm/b: m/b correctness#0 [sample 0]',
      'm/b: m/b correctness#0 [sample 1]',
      'm/b: m/b correctness#0 [sample 2]',
      'm/c: m/c correctness#0',
      'm/d: m/d correctness#0',
    ]);
  });

  it('stays well-formed and valid against a JUnit schema whatever a candidate returns', () => {
    const xml = render(
      renderJunit,
      run(
        [
          {
            problem: `p${HOSTILE}`,
            model: 'm',
            code: HOSTILE,
            tests: ['fail', 'error'],
            values: () => ({ input: { s: HOSTILE }, expected: HOSTILE, actual: `${HOSTILE}x` }),
          },
          { problem: 'q', model: 'm', prompt: 'a', tests: ['pass'] },
          { problem: 'q', model: 'm', prompt: 'b', tests: ['pass'] },
        ],
        { mode: 'grade' },
      ),
    );
    const errors: string[] = [];
    const doc = new DOMParser({ onError: (level, message) => void (level !== 'warning' && errors.push(message)) }).parseFromString(xml, 'text/xml');
    expect(errors).toEqual([]);
    const failure = elements(doc, 'failure')[0]!;
    expect(failure.textContent).toContain('</script><script>window.__pwned = 1</script>');
    // Two candidates in one suite are told apart by prompt.
    expect(
      elements(doc, 'testcase')
        .map((c) => c.getAttribute('name'))
        .slice(-2),
    ).toEqual(['correctness#0 [prompt a]', 'correctness#0 [prompt b]']);
    if (!HAS_XMLLINT) {
      console.warn('xmllint not installed (Debian: libxml2-utils): the XSD validation is skipped; the XML parser check above ran');
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-junit-'));
    writeFileSync(join(dir, 'run.xml'), xml);
    const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'run.xml')], { encoding: 'utf8' });
    expect(lint.stderr).toContain('validates');
    expect(lint.status).toBe(0);
  });

  it('is valid for a self-check too, with one suite per problem', () => {
    const xml = render(
      renderJunit,
      run(
        [
          { problem: 'a', tests: ['pass'] },
          { problem: 'b', tests: ['fail'] },
        ],
        { mode: 'self-check' },
      ),
    );
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    expect(elements(doc, 'testsuite').map((s) => s.getAttribute('name'))).toEqual(['a', 'b']);
    if (HAS_XMLLINT) {
      const file = join(mkdtempSync(join(tmpdir(), 'evalrun-junit-')), 'run.xml');
      writeFileSync(file, xml);
      expect(spawnSync('xmllint', ['--noout', '--schema', XSD, file]).status).toBe(0);
    }
  });
});

describe('the JSON scorecard', () => {
  it('holds every result in plan order, in the file and on stdout alike, when it is written in many pieces', () => {
    // About 3 MB of results: the writer fills and reuses its buffer several times.
    const big = 'x'.repeat(3000);
    const candidates: SyntheticCandidate[] = Array.from({ length: 1000 }, (_, i) => ({ problem: `p${i}`, code: `${big}${i}`, tests: ['pass'] }));
    const outcome = run(candidates);
    const outFile = join(mkdtempSync(join(tmpdir(), 'evalrun-json-')), 'card.json');
    // stdout keeps what it is given and writes it later: keep the pieces themselves, as it would.
    const kept: Uint8Array[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (piece: Uint8Array) => kept.push(piece) > 0;
    try {
      void jsonReporter({ outFile, toStdout: true, log: () => undefined }).onRunEnd?.(outcome);
    } finally {
      process.stdout.write = write;
    }
    const file = readFileSync(outFile, 'utf8');
    expect(kept.length).toBeGreaterThan(3);
    expect(Buffer.concat(kept).toString('utf8')).toBe(file);
    const card = JSON.parse(file) as { candidates: Array<{ problem_id: string; code: string }>; summary: { candidates: number } };
    expect(card.summary.candidates).toBe(1000);
    expect(card.candidates.map((c) => [c.problem_id, c.code])).toEqual(candidates.map((c, i) => [c.problem, `${big}${i}`]));
  });
});

describe('Markdown', () => {
  it('has the summary line, tables per model and tag, pass@k and the first failures with expected and actual', () => {
    const md = render(
      renderMarkdown,
      run(
        [
          { problem: 'add', model: 'm1', sample: '0', tests: ['pass', 'fail'] },
          { problem: 'add', model: 'm1', sample: '1', tests: ['pass', 'pass'] },
          { problem: 'add', model: 'm2', sample: '0', tests: ['pass', 'pass'] },
          { problem: 'add', model: 'm2', sample: '1', tests: ['pass', 'pass'] },
        ],
        { tags: { add: ['arithmetic'] }, passAtK: [1, 2] },
      ),
    );
    expect(md).toMatch(/^## evalrun grading: 87\.5% of tests passed/);
    expect(md).toContain('4 candidates &#124; 8 tests: 7 passed, 1 failed');
    expect(md).toContain('| <code>m1</code> | 2 | 3/4 | 1/1 | 75.0% |');
    expect(md).toContain('### Tags');
    expect(md).toContain('| <code>arithmetic</code> | 4 | 7/8 | 1/1 | 87.5% |');
    expect(md).toContain('| model | tasks | samples per task | pass@1 | pass@2 |');
    expect(md).toContain('| <code>m1</code> | 1 | 2 | 50.0% | 100.0% |');
    expect(md).toContain('### First failing tests (1 of 1)');
    expect(md).toContain(
      '| <code>add</code> | <code>m1 / sample 0</code> | <code>correctness#1</code> | <code>{"n": 1}</code> | <code>2</code> | <code>3</code> |',
    );
  });

  it('keeps hostile values inside their table cell, as text', () => {
    const md = render(
      renderMarkdown,
      run([{ problem: 'p', model: 'm|x', tests: ['fail'], values: () => ({ input: {}, expected: '| a |\n<b>', actual: '`*_[x](y)' }) }]),
    );
    const failureRow = md.split('\n').find((l) => l.startsWith('| <code>p</code>'))!;
    // Seven cells: no pipe, backtick, newline or tag from the values reaches the Markdown.
    expect(failureRow.split(' | ').length).toBe(7);
    expect(failureRow).not.toMatch(/<b>|`|\*|_\[/);
    expect(failureRow).toContain('&#124; a &#124;');
  });
});

describe('the terminal table and Markdown', () => {
  // Clears the screen, colours the text, sets the window's title, rubs out with backspaces, reverses the text after it.
  const ESCAPES = '\u001b[2J\u001b[31mRED\u001b]0;title\u0007\u0000\b\bX\r\u009b1m\u202eevil';
  const outcome = (): RunOutcome =>
    run([{ problem: 'p\u001b[2J', model: 'm', tests: [], status: 'load-error', error: `ValueError: ${ESCAPES}` }], { mode: 'self-check' });

  it.each([
    ['table', (o: RunOutcome, write: (t: string) => void): void => void tableReporter({ write, details: true }).onRunEnd?.(o)],
    ['Markdown', renderMarkdown],
  ] as const)('%s writes the control characters of a candidate and its files as escapes', (_name, fn) => {
    const text = render(fn, outcome());
    expect(text).toContain('\\u001b');
    expect(text).toContain('\\u0007');
    expect(text).toContain('\\u009b');
    expect(text).toContain('\\u202e');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe('HTML', () => {
  it('embeds hostile data so that it can neither close its script element nor inject markup', () => {
    const html = render(
      (o, w) => renderHtml(o, w, { baseline: null }),
      run([
        {
          problem: `p${HOSTILE}`,
          model: `m${HOSTILE}`,
          code: HOSTILE,
          tests: ['fail'],
          values: () => ({ input: { s: HOSTILE }, expected: HOSTILE, actual: HOSTILE }),
        },
      ]),
    );
    // The page's own scripts: the two data blocks and the program. No other script element exists.
    expect(html.match(/<script/g)?.length).toBe(3);
    expect(html.match(/<\/script>/g)?.length).toBe(3);
    expect(html).not.toContain('window.__pwned = 1</script>');
    expect(html).not.toMatch(/<script>window/);
    // No network: a policy that allows nothing from elsewhere, and no URL the page would load.
    expect(html).toContain(`default-src 'none'`);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});

describe('reporter choices', () => {
  it('parses NAME and NAME=FILE and puts file formats beside the scorecard', () => {
    expect(parseReporterChoice('junit')).toEqual({ format: 'junit', file: null });
    expect(parseReporterChoice('html=out/report.html')).toEqual({ format: 'html', file: 'out/report.html' });
    expect(parseReporterChoice('tap')).toEqual({ error: 'unknown reporter "tap" (expected one of table, json, junit, markdown, html)' });
    expect(fileBeside(join('results', 'r1.json'), 'junit')).toBe(join('results', 'r1.xml'));
    expect(fileBeside(join('results', 'r1.json'), 'markdown')).toBe(join('results', 'r1.md'));
    expect(fileBeside(join('results', 'r1.json'), 'html')).toBe(join('results', 'r1.html'));
    expect(fileBeside(join('results', 'r1.json'), 'table')).toBeNull();
  });
});

it('a run log that was cut short reads as an incomplete run with what finished', () => {
  const outcome = run(GRADED, { finished: false, logged: 2 });
  expect(outcome.head.complete).toBe(false);
  expect(outcome.head.summary.candidates).toBe(2);
  expect(existsSync(XSD)).toBe(true);
});
