import Table from 'cli-table3';
import type { FailureRow } from './failing-tests.js';
import type { CandidateRow } from './rows.js';
import { formatValue, styleFor } from '../values/format.js';
import type { PassAtKRow, RowMetrics } from './aggregate.js';
import type { Reporter, RunOutcome } from './reporter.js';
import type { ScorecardHead } from './scorecard.js';
import { reasonCounts, type CandidateEfficiency, type EfficiencyReport, type ScoreMean } from './efficiency.js';
import type { EfficiencyGrader } from '../grading/graders.js';
import { formatDuration, meanLabel, passAtKLabel, percent, printable, scoreLabel, shorten } from './text.js';

export interface TableReporterOptions {
  write: (text: string) => void;
  /** List every candidate (and, when grading, every failing test), not just the roll-ups. */
  details: boolean;
  /** At most this many failing tests are shown in detail; the JSON has them all. */
  maxFailures?: number;
  /**
   * Above this many candidates (default 100), only those that did not pass
   * are listed unless `details` is set: a few hundred passing rows would
   * push the failures and the summary off the screen, and rendering them
   * costs more than anything else the supervisor does in a run.
   */
  maxCandidateRows?: number;
}

const PLAIN = { head: [] as string[], border: [] as string[] };

/**
 * The human-readable scorecard. A self-check lists candidates and failing
 * tests (past `maxCandidateRows` candidates: a roll-up per tag and only the
 * candidates that did not pass); grading shows roll-ups per model, prompt
 * and tag (and pass@k), with the per-candidate tables behind `--details`.
 * Both end with one summary line.
 */
export function tableReporter(options: TableReporterOptions): Reporter {
  const maxFailures = options.maxFailures ?? 25;
  const maxCandidateRows = options.maxCandidateRows ?? 100;
  return {
    onRunEnd(outcome: RunOutcome) {
      const { head } = outcome;
      const out: string[] = [];
      const grading = head.mode === 'grade';
      if (!grading || options.details) {
        const listed = candidateRowsToList(outcome, options.details, maxCandidateRows);
        // In place of a long list of passes, the per-tag roll-up says where they are.
        if (listed.hidden > 0 && !grading && head.tags.length > 0)
          out.push(
            metricsTable(
              'tag',
              head.tags.map((t) => [t.tag, t]),
            ),
          );
        if (listed.rows.length > 0) out.push(candidateTable(listed.rows, efficiencyOf(outcome)));
        if (listed.hidden > 0) out.push(`(${listed.hidden} passing candidates not listed; --details lists every one)`);
        const { shown, total } = outcome.failures;
        if (total > 0) out.push(failureTable(shown.slice(0, maxFailures), total));
      }
      if (grading) out.push(...rollUps(head));
      out.push(...problemsWithoutWork(outcome, options.details));
      out.push(...invalidFiles(head));
      out.push(...skippedSubmissions(head));
      out.push(summaryLine(head));
      // Ids, messages and file names come from candidates and their files; the table itself writes no control character.
      options.write(`${printable(out.join('\n'))}\n`);
    },
  };
}

/** A row to list, and its place among the run's rows (where its efficiency scores are). */
interface ListedRow {
  row: CandidateRow;
  index: number;
}

/**
 * The rows to list, read once: all of them, or past `max` only those that
 * did not pass; a run's passing rows are counted, not kept. A long run in
 * which every row passed lists none, and is not read at all.
 */
function candidateRowsToList(outcome: Pick<RunOutcome, 'eachRow' | 'statuses'>, details: boolean, max: number): { rows: readonly ListedRow[]; hidden: number } {
  const passed = outcome.statuses.passed;
  const total = Object.values(outcome.statuses).reduce((n, count) => n + count, 0);
  if (!details && total > max && passed === total) return { rows: [], hidden: total };
  let listed: ListedRow[] = [];
  let all = true;
  let hidden = 0;
  let index = 0;
  for (const row of outcome.eachRow()) {
    if (all && !details && index === max) {
      all = false;
      const kept = listed.filter((r) => r.row.status !== 'passed');
      hidden = listed.length - kept.length;
      listed = kept;
    }
    if (all || row.status !== 'passed') listed.push({ row, index });
    else hidden++;
    index++;
  }
  return { rows: listed, hidden };
}

/** The run's efficiency scores by row, with its graders; null when efficiency was not asked. */
function efficiencyOf(outcome: RunOutcome): { graders: EfficiencyGrader[]; of: (index: number) => CandidateEfficiency | undefined } | null {
  const efficiency = outcome.head.efficiency;
  if (efficiency === undefined) return null;
  return { graders: efficiency.graders, of: (index) => efficiency.candidates[index] };
}

function candidateTable(rows: readonly ListedRow[], scores: ReturnType<typeof efficiencyOf>): string {
  const samples = rows.some((r) => r.row.sample_id !== null);
  const graders = scores?.graders ?? [];
  const table = new Table({
    head: ['problem', 'model', 'prompt', ...(samples ? ['sample'] : []), 'passed', 'time', ...graders, 'status'],
    style: PLAIN,
    colAligns: ['left', 'left', 'left', ...(samples ? ['left' as const] : []), 'right', 'right', ...graders.map(() => 'right' as const), 'left'],
  });
  for (const { row: c, index } of rows) {
    const scored = scores?.of(index);
    table.push([
      c.problem_id,
      c.model_id,
      c.prompt_id ?? '-',
      ...(samples ? [c.sample_id ?? '-'] : []),
      `${c.passed}/${c.total}`,
      formatDuration(c.duration_ms),
      ...graders.map((g) => scoreLabel(scored?.[g])),
      c.error === null ? c.status : `${c.status}: ${shorten(c.error, 60)}`,
    ]);
  }
  return table.toString();
}

function failureTable(failures: readonly FailureRow[], total: number): string {
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
      formatValue(test.input, 40, styleFor(candidate.language)),
      formatValue(test.expected, 30, styleFor(candidate.language)),
      test.status === 'fail' ? formatValue(test.actual, 30, styleFor(candidate.language)) : '-',
      test.error === null ? test.status : `${test.status}: ${shorten(test.error, 50)}`,
    ]);
  }
  const more = total > failures.length ? `\n… and ${total - failures.length} more failing tests (all are in the JSON scorecard)` : '';
  return `Failing tests (${total}):\n${table.toString()}${more}`;
}

function rollUps(head: ScorecardHead): string[] {
  const out: string[] = [];
  const efficiency = head.efficiency;
  out.push(
    metricsTable(
      'model',
      head.models.map((m) => [m.model_id, m]),
      efficiency === undefined ? undefined : { graders: efficiency.graders, of: new Map(efficiency.models.map((m) => [m.model_id, m])) },
    ),
  );
  if (head.prompts.some((p) => p.prompt_id !== null)) {
    out.push(
      metricsTable(
        'prompt',
        head.prompts.map((p) => [p.prompt_id ?? '-', p]),
      ),
    );
  }
  if (head.tags.length > 0)
    out.push(
      metricsTable(
        'tag',
        head.tags.map((t) => [t.tag, t]),
        efficiency === undefined ? undefined : { graders: efficiency.graders, of: new Map(efficiency.tags.map((t) => [t.tag, t])) },
      ),
    );
  if (efficiency !== undefined) out.push(efficiencyNote(efficiency));
  const askedForK = JSON.stringify(head.options.pass_at_k) !== '[1]';
  if (askedForK || head.pass_at_k.some((row) => row.max_samples > 1)) out.push(passAtKTable(head.pass_at_k));
  return out;
}

/** A roll-up's efficiency columns: the graders asked, and each group's means by its name. */
interface GroupScores {
  graders: readonly EfficiencyGrader[];
  of: ReadonlyMap<string, Partial<Record<EfficiencyGrader, ScoreMean>>>;
}

function metricsTable(label: string, rows: ReadonlyArray<readonly [string, RowMetrics]>, scores?: GroupScores): string {
  const graders = scores?.graders ?? [];
  const table = new Table({
    head: [label, 'candidates', 'tests passed', 'problems solved', 'pass rate', ...graders],
    style: PLAIN,
    colAligns: ['left', 'right', 'right', 'right', 'right', ...graders.map(() => 'right' as const)],
  });
  for (const [name, m] of rows) {
    const group = scores?.of.get(name);
    table.push([
      name,
      String(m.candidates),
      `${m.passed}/${m.tests}`,
      `${m.problems_solved}/${m.problems}`,
      percent(m.pass_rate),
      ...graders.map((g) => meanLabel(group?.[g]) || 'n/a'),
    ]);
  }
  return table.toString();
}

/** What the efficiency columns mean, and how many candidates were not scored and why. */
function efficiencyNote(efficiency: EfficiencyReport): string {
  const reasons = reasonCounts(efficiency);
  const unscored = reasons.filter((r) => !r.zero).map((r) => `${r.count} ${r.reason}`);
  const zeros = reasons.filter((r) => r.zero).map((r) => `; ${r.count} ${r.reason}`);
  return (
    `${efficiency.graders.join(', ')}: mean of min(1, optimal / candidate) over the candidates scored (their count), ` +
    `against the optimal solution in the same language` +
    (unscored.length === 0 ? '' : `; n/a: ${unscored.join('; ')}`) +
    zeros.join('')
  );
}

function passAtKTable(rows: readonly PassAtKRow[]): string {
  const ks = Object.keys(rows[0]?.values ?? {});
  const table = new Table({
    head: ['model', 'tasks', 'samples per task', ...ks],
    style: PLAIN,
    colAligns: ['left', 'right', 'right', ...ks.map(() => 'right' as const)],
  });
  for (const row of rows) {
    const samples = row.min_samples === row.max_samples ? `${row.min_samples}` : `${row.min_samples}-${row.max_samples}`;
    table.push([row.model_id, String(row.tasks), samples, ...ks.map((k) => passAtKLabel(row.values[k] ?? null))]);
  }
  return `pass@k (unbiased estimator; "n/a" where a task has fewer samples than k):\n${table.toString()}`;
}

/** Problems a self-check had nothing to run for are named up to this many, unless --details is given. */
const IDLE_NAMED = 10;

function problemsWithoutWork(outcome: RunOutcome, details: boolean): string[] {
  if (outcome.head.mode === 'grade') return [];
  const idle = outcome.head.problems.filter((p) => p.valid && p.problem_id !== null && !outcome.hasRows(p.problem_id));
  if (idle.length === 0 || !outcome.head.complete) return [];
  const named = details ? idle : idle.slice(0, IDLE_NAMED);
  const more = idle.length - named.length;
  const rest = more === 0 ? '' : `, and ${more} more (--details names every one)`;
  return [
    `Nothing to run for ${idle.length} problem${idle.length === 1 ? '' : 's'} (no optimal_solution): ${named.map((p) => p.problem_id).join(', ')}${rest}`,
  ];
}

function invalidFiles(head: ScorecardHead): string[] {
  const invalid = head.problems.filter((p) => !p.valid);
  if (invalid.length === 0) return [];
  return [`Invalid problem files (${invalid.length}):`, ...invalid.flatMap((p) => p.errors.map((e) => `  ${e}`))];
}

const MAX_SKIPPED_LINES = 20;

function skippedSubmissions(head: ScorecardHead): string[] {
  const skipped = head.skipped_submissions;
  if (skipped.length === 0) return [];
  const lines = skipped.slice(0, MAX_SKIPPED_LINES).map((s) => `  ${s.source}: ${s.reason}`);
  if (skipped.length > MAX_SKIPPED_LINES) lines.push(`  … and ${skipped.length - MAX_SKIPPED_LINES} more (all are in the JSON scorecard)`);
  return [`Skipped submissions (${skipped.length}):`, ...lines];
}

export function summaryLine(head: ScorecardHead): string {
  const s = head.summary;
  const seconds = (Date.parse(head.finished_at) - Date.parse(head.started_at)) / 1000;
  const parts = [
    `${s.problems} problem${s.problems === 1 ? '' : 's'}${s.invalid_problems > 0 ? ` (${s.invalid_problems} invalid)` : ''}`,
    `${s.candidates} candidate${s.candidates === 1 ? '' : 's'}`,
    `${s.tests} tests: ${s.passed} passed, ${s.failed} failed, ${s.errored} errors, ${s.timed_out} timeouts, ${s.memory_exceeded} over memory${s.skipped > 0 ? `, ${s.skipped} skipped` : ''}`,
    `pass rate ${percent(s.pass_rate)}`,
    `${seconds.toFixed(2)} s`,
  ];
  return `${head.complete ? '' : 'INCOMPLETE: '}${parts.join(' | ')}`;
}
