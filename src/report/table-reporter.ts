import Table from 'cli-table3';
import { formatValue } from '../values/format.js';
import type { Reporter } from './reporter.js';
import type { CandidateResult, Scorecard, TestResult } from './scorecard.js';

export interface TableReporterOptions {
  write: (text: string) => void;
  /** At most this many failing tests are shown in detail; the JSON has them all. */
  maxFailures?: number;
}

const PLAIN = { head: [] as string[], border: [] as string[] };

/** The human-readable scorecard: a table per candidate, failing tests, and a summary line. */
export function tableReporter(options: TableReporterOptions): Reporter {
  const maxFailures = options.maxFailures ?? 25;
  return {
    onRunEnd(scorecard: Scorecard) {
      const out: string[] = [];
      if (scorecard.candidates.length > 0) out.push(candidateTable(scorecard.candidates));
      const failures = failingTests(scorecard.candidates);
      if (failures.length > 0) out.push(failureTable(failures.slice(0, maxFailures), failures.length));
      const invalid = scorecard.problems.filter((p) => !p.valid);
      if (invalid.length > 0) {
        out.push(`Invalid problem files (${invalid.length}):`);
        for (const p of invalid) for (const e of p.errors) out.push(`  ${e}`);
      }
      const idle = scorecard.problems.filter((p) => p.valid && !scorecard.candidates.some((c) => c.problem_id === p.problem_id));
      if (idle.length > 0) {
        out.push(`Nothing to run for ${idle.length} problem${idle.length === 1 ? '' : 's'}: ${idle.map((p) => p.problem_id).join(', ')}`);
      }
      out.push(summaryLine(scorecard));
      options.write(`${out.join('\n')}\n`);
    },
  };
}

function candidateTable(candidates: readonly CandidateResult[]): string {
  const table = new Table({
    head: ['problem', 'model', 'prompt', 'passed', 'time', 'status'],
    style: PLAIN,
    colAligns: ['left', 'left', 'left', 'right', 'right', 'left'],
  });
  for (const c of candidates) {
    table.push([
      c.problem_id,
      c.model_id,
      c.prompt_id ?? '-',
      `${c.passed}/${c.total}`,
      formatDuration(c.duration_ms),
      c.error === null ? c.status : `${c.status}: ${shorten(c.error, 60)}`,
    ]);
  }
  return table.toString();
}

interface Failure {
  candidate: CandidateResult;
  test: TestResult;
}

function failingTests(candidates: readonly CandidateResult[]): Failure[] {
  const failures: Failure[] = [];
  for (const candidate of candidates) {
    // A candidate that never ran has one reason for all its tests; the candidate table shows it.
    if (candidate.status === 'load-error' || candidate.status === 'unsupported') continue;
    for (const test of candidate.tests) if (test.status !== 'pass') failures.push({ candidate, test });
  }
  return failures;
}

function failureTable(failures: readonly Failure[], total: number): string {
  const table = new Table({
    head: ['problem', 'model', 'test', 'input', 'expected', 'actual', 'verdict'],
    style: PLAIN,
    wordWrap: false,
  });
  for (const { candidate, test } of failures) {
    table.push([
      candidate.problem_id,
      candidate.prompt_id === null ? candidate.model_id : `${candidate.model_id} / ${candidate.prompt_id}`,
      `${test.suite}#${test.index}`,
      formatValue(test.input, 40),
      formatValue(test.expected, 30),
      test.status === 'fail' ? formatValue(test.actual, 30) : '-',
      test.error === null ? test.status : `${test.status}: ${shorten(test.error, 50)}`,
    ]);
  }
  const more = total > failures.length ? `\n… and ${total - failures.length} more failing tests (all are in the JSON scorecard)` : '';
  return `Failing tests (${total}):\n${table.toString()}${more}`;
}

export function summaryLine(scorecard: Scorecard): string {
  const s = scorecard.summary;
  const seconds = (Date.parse(scorecard.finished_at) - Date.parse(scorecard.started_at)) / 1000;
  const parts = [
    `${s.problems} problem${s.problems === 1 ? '' : 's'}${s.invalid_problems > 0 ? ` (${s.invalid_problems} invalid)` : ''}`,
    `${s.candidates} candidate${s.candidates === 1 ? '' : 's'}`,
    `${s.tests} tests: ${s.passed} passed, ${s.failed} failed, ${s.errored} errors, ${s.timed_out} timeouts, ${s.memory_exceeded} over memory`,
    `pass rate ${(s.pass_rate * 100).toFixed(1)}%`,
    `${seconds.toFixed(2)} s`,
  ];
  return `${scorecard.complete ? '' : 'INCOMPLETE: '}${parts.join(' | ')}`;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
