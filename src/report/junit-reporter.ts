import type { CandidateRow } from './rows.js';
import { formatValue, styleFor, type ValueStyle } from '../values/format.js';
import type { RunOutcome } from './reporter.js';
import type { CandidateResult, TestResult } from './scorecard.js';
import { isUnscored, type EfficiencyReport } from './efficiency.js';
import { scoreLabel, shorten } from './text.js';
import { escapeXml } from './xml.js';

/**
 * JUnit XML, as CI systems read it (the Ant/Jenkins/Surefire layout): a
 * `testsuite` per problem in a self-check, per model and problem when
 * grading; a `testcase` per test with its time; `failure` for a wrong answer
 * and `error` for a throw, a timeout or running out of memory, each carrying
 * the input, the expected and actual values and the error text. A candidate
 * that has no tests at all (it could not be prepared, or its problem has
 * none) is one `testcase` of its own, so that it is never missing.
 */
export function renderJunit(outcome: RunOutcome, write: (text: string) => void): void {
  const { head, rows } = outcome;
  const grading = head.mode === 'grade';
  const suiteName = (c: Pick<CandidateResult, 'problem_id' | 'model_id'>): string => (grading ? `${c.model_id}/${c.problem_id}` : c.problem_id);
  // One suite per name, in the order names first appear, its counts known from the rows before its
  // first test. A JSON Lines file may interleave problems: a suite's candidates are then held as text
  // until its last one arrives and every suite before it is written; in input order, nothing waits.
  const suites = new Map<string, Suite>();
  rows.forEach((row, i) => {
    const name = suiteName(row);
    let suite = suites.get(name);
    if (suite === undefined) suites.set(name, (suite = { name, rows: [], counts: emptyCounts(), text: [], open: false, done: 0 }));
    suite.rows.push(i);
    addCounts(suite.counts, row);
  });
  const total = emptyCounts();
  for (const s of suites.values()) for (const key of Object.keys(total) as Array<keyof Counts>) total[key] += s.counts[key];

  write('<?xml version="1.0" encoding="UTF-8"?>\n');
  write(`<testsuites name="${escapeXml(`evalrun ${head.mode} ${head.run_id}`, true)}" ${countAttributes(total)}>\n`);
  const timestamp = head.started_at.replace(/\.\d+Z$|Z$/, '');
  const order = [...suites.values()];
  let next = 0;
  const open = (s: Suite): void => {
    write(`  <testsuite name="${escapeXml(s.name, true)}" ${countAttributes(s.counts)} timestamp="${escapeXml(timestamp, true)}">\n`);
    if (head.efficiency !== undefined) write(efficiencyProperties(head.efficiency, rows, s.rows));
    for (const text of s.text) write(text);
    s.text = [];
    s.open = true;
  };
  for (const result of outcome.results()) {
    const s = suites.get(suiteName(result));
    if (s === undefined) break;
    s.done++;
    if (s === order[next] && !s.open) open(s);
    writeCandidate(result, s.name, s.rows.length > 1, s.open ? write : (text) => s.text.push(text));
    for (let first = order[next]; first !== undefined && first.done === first.rows.length; first = order[++next]) {
      if (!first.open) open(first);
      write('  </testsuite>\n');
    }
  }
  // Suites whose candidates did not all come (the log ended early): what they have, in order.
  for (; next < order.length; next++) {
    const s = order[next]!;
    if (s.done === 0) continue;
    if (!s.open) open(s);
    write('  </testsuite>\n');
  }
  write('</testsuites>\n');
}

interface Suite {
  name: string;
  /** Its candidates' places among the rows. */
  rows: number[];
  counts: Counts;
  /** Its candidates' testcases, held while an earlier suite is still being written. */
  text: string[];
  /** Its head is written, and its testcases go straight out. */
  open: boolean;
  /** Its candidates written or held so far. */
  done: number;
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  /** Milliseconds; written in seconds. */
  time: number;
}

function emptyCounts(): Counts {
  return { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
}

/** A candidate's share of its suite's counts, from its row alone (the results stay on disk until written). */
function addCounts(counts: Counts, row: CandidateRow): void {
  counts.time += row.duration_ms;
  if (row.total === 0) {
    counts.tests += 1;
    if (row.status === 'no-tests') counts.skipped += 1;
    else counts.errors += 1;
    return;
  }
  counts.tests += row.total;
  counts.failures += row.counts.fail;
  counts.errors += row.counts.error + row.counts.timeout + row.counts.memory;
  counts.skipped += row.counts.skipped;
}

/**
 * A suite's efficiency scores as properties, which CI systems show beside
 * its tests: per candidate of the suite, each grader's score (`n/a` with
 * the reason) and the measured figures. A suite of several candidates
 * names each by its prompt and sample, or its place in the run.
 */
function efficiencyProperties(efficiency: EfficiencyReport, rows: readonly CandidateRow[], places: readonly number[]): string {
  const lines: string[] = [];
  const several = places.length > 1;
  for (const i of places) {
    const scored = efficiency.candidates[i];
    const row = rows[i];
    if (scored === undefined || row === undefined) continue;
    const who = several ? ` [${rowLabel(row, i)}]` : '';
    const property = (name: string, value: string): void => {
      lines.push(`      <property name="${escapeXml(`evalrun.${name}${who}`, true)}" value="${escapeXml(value, true)}"/>\n`);
    };
    for (const g of efficiency.graders) property(g, scoreLabel(scored[g]));
    if (scored.reason !== null) property(isUnscored(scored, efficiency.graders) ? 'efficiency_na' : 'efficiency_note', scored.reason);
    if (scored.cost !== null) property('cost', String(scored.cost));
    if (scored.memory_bytes !== null) property('memory_bytes', String(scored.memory_bytes));
    if (scored.optimal_cost !== null) property('optimal_cost', String(scored.optimal_cost));
    if (scored.optimal_memory_bytes !== null) property('optimal_memory_bytes', String(scored.optimal_memory_bytes));
  }
  return lines.length === 0 ? '' : `    <properties>\n${lines.join('')}    </properties>\n`;
}

function rowLabel(row: CandidateRow, index: number): string {
  const parts: string[] = [];
  if (row.prompt_id !== null) parts.push(`prompt ${row.prompt_id}`);
  if (row.sample_id !== null) parts.push(`sample ${row.sample_id}`);
  return parts.length === 0 ? `candidate ${index}` : parts.join(', ');
}

function countAttributes(c: Counts): string {
  return `tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${seconds(c.time)}"`;
}

function seconds(ms: number | null): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/** What tells one candidate of a suite from another: its prompt and sample. */
function candidateLabel(c: CandidateResult): string {
  const parts: string[] = [];
  if (c.prompt_id !== null) parts.push(`prompt ${c.prompt_id}`);
  if (c.sample_id !== null) parts.push(`sample ${c.sample_id}`);
  return parts.length === 0 ? c.source : parts.join(', ');
}

function writeCandidate(c: CandidateResult, suite: string, several: boolean, write: (text: string) => void): void {
  const label = several ? ` [${candidateLabel(c)}]` : '';
  const classname = escapeXml(suite, true);
  if (c.tests.length === 0) {
    const name = escapeXml(`${c.status}${label}`, true);
    if (c.status === 'no-tests') {
      write(
        `    <testcase name="${name}" classname="${classname}" time="${seconds(c.duration_ms)}">\n      <skipped message="the problem has no tests"/>\n    </testcase>\n`,
      );
      return;
    }
    const message = c.error ?? c.status;
    write(
      `    <testcase name="${name}" classname="${classname}" time="${seconds(c.duration_ms)}">\n` +
        `      <error type="${escapeXml(c.status, true)}" message="${escapeXml(shorten(message, 300), true)}">${escapeXml(`${message}\n\ncode:\n${c.code}`)}</error>\n` +
        '    </testcase>\n',
    );
    return;
  }
  const style = styleFor(c.language);
  for (const t of c.tests) {
    const name = escapeXml(`${t.suite}#${t.index}${label}`, true);
    const open = `    <testcase name="${name}" classname="${classname}" time="${seconds(t.duration_ms)}"`;
    if (t.status === 'pass') {
      write(`${open}/>\n`);
      continue;
    }
    if (t.status === 'skipped') {
      write(`${open}>\n      <skipped message="not run: an earlier test did not pass (stop on first failure)"/>\n    </testcase>\n`);
      continue;
    }
    const element = t.status === 'fail' ? 'failure' : 'error';
    write(
      `${open}>\n      <${element} type="${t.status}" message="${escapeXml(shorten(verdictMessage(t, style), 300), true)}">` +
        `${escapeXml(verdictText(t, style))}</${element}>\n    </testcase>\n`,
    );
  }
}

function verdictMessage(t: TestResult, style: ValueStyle): string {
  if (t.status === 'fail') return `expected ${formatValue(t.expected, 100, style)}, got ${formatValue(t.actual, 100, style)}`;
  return t.error ?? t.status;
}

function verdictText(t: TestResult, style: ValueStyle): string {
  const lines = [
    `input: ${formatValue(t.input, Infinity, style)}`,
    `expected: ${formatValue(t.expected, Infinity, style)}`,
    `actual: ${t.status === 'fail' ? formatValue(t.actual, Infinity, style) : '(none)'}`,
  ];
  if (t.error !== null) lines.push(`${t.status === 'fail' ? 'difference' : t.status}: ${t.error}`);
  lines.push(`test: ${t.source}`);
  return lines.join('\n');
}
