import { formatValue, styleFor } from '../values/format.js';
import type { PassAtKRow, RowMetrics } from './aggregate.js';
import type { RunOutcome } from './reporter.js';
import { summaryLine } from './table-reporter.js';
import type { EfficiencyGrader } from '../grading/graders.js';
import { reasonCounts, type EfficiencyReport, type ScoreMean } from './efficiency.js';
import { meanLabel, passAtKLabel, percent, printable, shorten } from './text.js';

/** Failing tests listed in detail; the rest are counted. */
const FAILURES_SHOWN = 20;

/**
 * Markdown for a CI job summary (`>> $GITHUB_STEP_SUMMARY`): the summary
 * line, tables per model, prompt and tag, pass@k, and the first failing
 * tests with their expected and actual values. Values and messages are
 * written as HTML-escaped `<code>`, so nothing a candidate returns can add
 * markup or break a table.
 */
export function renderMarkdown(outcome: RunOutcome, write: (text: string) => void): void {
  const { head } = outcome;
  const out: string[] = [];
  const efficiency = head.efficiency;
  const title = head.mode === 'grade' ? 'grading' : 'self-check';
  out.push(`## evalrun ${title}: ${percent(head.summary.pass_rate)} of tests passed${head.complete ? '' : ' (incomplete run)'}`, '');
  out.push(`**${cell(summaryLine(head))}**`, '');
  out.push(`Run ${code(head.run_id)}, evalrun ${cell(head.evalrun_version)}.`, '');
  out.push(
    '### Models',
    '',
    ...metricsTable(
      'model',
      head.models.map((m) => [m.model_id, m]),
      efficiency === undefined ? undefined : { graders: efficiency.graders, of: new Map(efficiency.models.map((m) => [m.model_id, m])) },
    ),
    '',
  );
  if (head.prompts.some((p) => p.prompt_id !== null)) {
    out.push(
      '### Prompts',
      '',
      ...metricsTable(
        'prompt',
        head.prompts.map((p) => [p.prompt_id ?? '(none)', p]),
      ),
      '',
    );
  }
  if (head.tags.length > 0)
    out.push(
      '### Tags',
      '',
      ...metricsTable(
        'tag',
        head.tags.map((t) => [t.tag, t]),
        efficiency === undefined ? undefined : { graders: efficiency.graders, of: new Map(efficiency.tags.map((t) => [t.tag, t])) },
      ),
      '',
    );
  if (efficiency !== undefined) out.push(...efficiencySection(efficiency));
  if (head.pass_at_k.length > 0) out.push('### pass@k', '', ...passAtKTable(head.pass_at_k), '');
  out.push(...failures(outcome));
  out.push(...notRun(outcome));
  const invalid = head.problems.filter((p) => !p.valid);
  if (invalid.length > 0) {
    out.push(`### Invalid problem files (${invalid.length})`, '');
    for (const p of invalid.slice(0, FAILURES_SHOWN)) out.push(`- ${code(p.file)}: ${code(shorten(p.errors.join('; '), 300))}`);
    out.push('');
  }
  if (head.skipped_submissions.length > 0) {
    out.push(`### Skipped submissions (${head.skipped_submissions.length})`, '');
    for (const s of head.skipped_submissions.slice(0, FAILURES_SHOWN)) out.push(`- ${code(s.source)}: ${cell(s.reason)}`);
    out.push('');
  }
  // What candidates and their files wrote, shown as it is (text.ts printable); the report writes no control character itself.
  write(`${printable(out.join('\n'))}\n`);
}

/** A roll-up's efficiency columns: the graders asked, and each group's means by its name. */
interface GroupScores {
  graders: readonly EfficiencyGrader[];
  of: ReadonlyMap<string, Partial<Record<EfficiencyGrader, ScoreMean>>>;
}

function metricsTable(label: string, rows: ReadonlyArray<readonly [string, RowMetrics]>, scores?: GroupScores): string[] {
  const graders = scores?.graders ?? [];
  const extra = (cells: readonly string[]): string => cells.map((c) => ` ${c} |`).join('');
  return [
    `| ${label} | candidates | tests passed | problems solved | pass rate |${extra(graders)}`,
    `| --- | ---: | ---: | ---: | ---: |${extra(graders.map(() => '---:'))}`,
    ...rows.map(
      ([name, m]) =>
        `| ${code(name)} | ${m.candidates} | ${m.passed}/${m.tests} | ${m.problems_solved}/${m.problems} | ${percent(m.pass_rate)} |` +
        extra(graders.map((g) => meanLabel(scores?.of.get(name)?.[g]) || 'n/a')),
    ),
  ];
}

/** How the efficiency columns are computed, and why candidates were not scored. */
function efficiencySection(efficiency: EfficiencyReport): string[] {
  const reasons = reasonCounts(efficiency);
  const lines = [
    '### Efficiency',
    '',
    `${cell(efficiency.graders.join(', '))}: the mean over the candidates scored (their count) of min(1, optimal / candidate), ` +
      'each side totalled over the tests, against the optimal solution of the problem in the same language.',
    '',
  ];
  if (reasons.length > 0) {
    for (const r of reasons) lines.push(`- ${r.zero ? '' : 'n/a: '}${cell(r.reason)} (${r.count})`);
    lines.push('');
  }
  return lines;
}

function passAtKTable(rows: readonly PassAtKRow[]): string[] {
  const ks = Object.keys(rows[0]?.values ?? {});
  return [
    `| model | tasks | samples per task | ${ks.join(' | ')} |`,
    `| --- | ---: | ---: | ${ks.map(() => '---:').join(' | ')} |`,
    ...rows.map((r) => {
      const samples = r.min_samples === r.max_samples ? `${r.min_samples}` : `${r.min_samples}-${r.max_samples}`;
      return `| ${code(r.model_id)} | ${r.tasks} | ${samples} | ${ks.map((k) => passAtKLabel(r.values[k] ?? null)).join(' | ')} |`;
    }),
  ];
}

function failures(outcome: RunOutcome): string[] {
  const { shown, total } = outcome.failures;
  if (total === 0) return [];
  const listed = shown.slice(0, FAILURES_SHOWN);
  const out = [
    `### First failing tests (${listed.length} of ${total})`,
    '',
    '| problem | model | test | input | expected | actual | verdict |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const { candidate: c, test: t } of listed) {
    const who = [c.model_id, c.prompt_id, c.sample_id === null ? null : `sample ${c.sample_id}`].filter((x) => x !== null).join(' / ');
    out.push(
      `| ${code(c.problem_id)} | ${code(who)} | ${code(`${t.suite}#${t.index}`)} | ${code(formatValue(t.input, 80, styleFor(c.language)))} | ${code(formatValue(t.expected, 80, styleFor(c.language)))} | ` +
        `${t.status === 'fail' ? code(formatValue(t.actual, 80, styleFor(c.language))) : '—'} | ${t.error === null ? t.status : `${t.status}: ${code(shorten(t.error, 120))}`} |`,
    );
  }
  if (total > listed.length) out.push('', `…and ${total - listed.length} more failing tests; every one is in the JSON scorecard.`);
  out.push('');
  return out;
}

/** Candidates whose tests never ran (their code did not load, or is in a language evalrun does not run): no failing test names them. */
function notRun(outcome: RunOutcome): string[] {
  const total = outcome.statuses['load-error'] + outcome.statuses.unsupported;
  if (total === 0) return [];
  const out = [`### Candidates that did not run (${total})`, ''];
  let listed = 0;
  for (const c of outcome.eachRow()) {
    if (c.status !== 'load-error' && c.status !== 'unsupported') continue;
    const who = [c.model_id, c.prompt_id, c.sample_id === null ? null : `sample ${c.sample_id}`].filter((x) => x !== null).join(' / ');
    out.push(`- ${code(c.problem_id)} ${code(who)}: ${c.status}${c.error === null ? '' : `: ${code(shorten(c.error, 200))}`}`);
    if (++listed === FAILURES_SHOWN) break;
  }
  if (total > listed) out.push('', `…and ${total - listed} more; every one is in the JSON scorecard.`);
  out.push('');
  return out;
}

/** Text as inline code that no character can break out of, inside a table cell too. */
function code(text: string): string {
  return `<code>${cell(text)}</code>`;
}

/** Plain text for a table cell: HTML-escaped, on one line, pipes kept out of the table's syntax. */
function cell(text: string): string {
  return text.replace(/[&<>|`*_[\]\\]/g, (c) => `&#${c.charCodeAt(0)};`).replace(/\r?\n/g, ' ');
}
