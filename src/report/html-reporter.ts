import { formatValue, styleFor } from '../values/format.js';
import { recordJson } from '../values/wire.js';
import type { RowMetrics } from './aggregate.js';
import { HTML_STYLE, pageScript } from './html-page.js';
import { EFFICIENCY_COLUMNS, type PageDetails, type PageRow } from './page/data.js';
import type { ScoreMean } from './efficiency.js';
import type { RunOutcome } from './reporter.js';
import type { CandidateChange, Delta, RunDiff } from './run-diff.js';
import type { CandidateResult } from './scorecard.js';
import { summaryLine } from './table-reporter.js';
import { meanLabel, passAtKLabel, percent, plural, pointsChange } from './text.js';

export interface HtmlOptions {
  /** Shown as a comparison section: what changed since this run. */
  baseline: RunDiff | null;
}

/** Changed candidates listed in the baseline section; the rest are counted. */
const CHANGES_LISTED = 300;

/**
 * One self-contained HTML file: styles, script and data inline, charts as
 * inline SVG, and a content security policy that allows no network access,
 * so it works from file:// and shows the same offline. Everything a run
 * recorded is hostile text: the page's own markup escapes it, and the data
 * the script renders is JSON inside script elements with every `<` written
 * as `\u003c`, so no value can close the element. The script builds the
 * page with text nodes only.
 *
 * The candidate table holds one small row per candidate and shows a page at
 * a time; each candidate's code and tests are in a second block, one JSON
 * line per candidate, parsed only when the candidate is opened.
 */
export function renderHtml(outcome: RunOutcome, write: (text: string) => void, options: HtmlOptions): void {
  const { head } = outcome;
  const s = head.summary;
  const title = `evalrun ${head.mode === 'grade' ? 'grading' : 'self-check'} ${head.run_id}`;
  write(
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n` +
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">\n` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${esc(title)}</title>\n<style>${HTML_STYLE}</style>\n</head>\n<body>\n`,
  );
  write(`<header><h1>evalrun <span class="mode">${esc(head.mode === 'grade' ? 'grading' : 'self-check')}</span></h1>`);
  write(`<p class="meta">Run <code>${esc(head.run_id)}</code> · evalrun ${esc(head.evalrun_version)} · started ${esc(head.started_at)}`);
  write(head.complete ? '' : ' · <strong class="bad">incomplete run</strong>');
  write(`</p></header>\n<main>\n`);

  write('<section class="cards" id="summary">');
  const card = (id: string, label: string, value: string, cls = ''): string =>
    `<div class="card ${cls}"><div class="value" id="${id}">${esc(value)}</div><div class="label">${esc(label)}</div></div>`;
  write(card('count-pass-rate', 'tests passed', percent(s.pass_rate), s.pass_rate === 1 ? 'good' : s.pass_rate < 0.5 ? 'bad' : 'warn'));
  write(card('count-candidates', 'candidates', String(s.candidates)));
  write(card('count-problems', 'problems', String(s.problems)));
  write(card('count-tests', 'tests', String(s.tests)));
  write(card('count-passed', 'passed', String(s.passed), 'good'));
  write(card('count-failed', 'failed', String(s.failed), s.failed > 0 ? 'bad' : ''));
  write(card('count-errored', 'errors', String(s.errored), s.errored > 0 ? 'bad' : ''));
  write(card('count-timed-out', 'timeouts', String(s.timed_out), s.timed_out > 0 ? 'bad' : ''));
  write(card('count-memory', 'over memory', String(s.memory_exceeded), s.memory_exceeded > 0 ? 'bad' : ''));
  write(`</section>\n<p class="summary-line">${esc(summaryLine(head))}</p>\n`);

  write('<section class="charts">');
  write(
    chart(
      'Pass rate per model',
      'chart-models',
      head.models.map((m) => [m.model_id, m]),
    ),
  );
  if (head.tags.length > 0)
    write(
      chart(
        'Pass rate per tag',
        'chart-tags',
        head.tags.map((t) => [t.tag, t]),
      ),
    );
  for (const g of head.efficiency?.graders ?? []) {
    const rows = head.efficiency!.models.map((m): [string, ScoreMean] => [m.model_id, m[g] ?? { mean: null, scored: 0 }]);
    write(scoreChart(`${g === 'performance' ? 'Performance' : 'Memory'} per model (mean score, candidates scored)`, `chart-${g}`, rows));
  }
  write('</section>\n');

  if (head.pass_at_k.length > 0) write(passAtKSection(outcome));
  if (options.baseline !== null) write(baselineSection(options.baseline));
  write(problemsSection(outcome));

  write(
    `<section id="candidates"><h2>Candidates</h2>\n<div class="controls">` +
      `<input id="filter" type="search" placeholder="Filter by problem, model, prompt, language or error" aria-label="filter">` +
      `<select id="status-filter" aria-label="status"><option value="">every status</option>` +
      `<option value="passed">passed</option><option value="not-passed">not passed</option><option value="failed">failed</option>` +
      `<option value="load-error">load-error</option><option value="unsupported">unsupported</option><option value="no-tests">no-tests</option></select>` +
      `<select id="model-filter" aria-label="model"><option value="">every model</option>` +
      head.models.map((m) => `<option value="${esc(m.model_id)}">${esc(m.model_id)}</option>`).join('') +
      `</select><span id="shown-count" class="shown"></span></div>\n` +
      `<table id="candidate-table"><thead><tr>` +
      ['problem', 'model', 'prompt', 'sample', 'language', 'status', 'passed', 'time']
        .map((c, i) => `<th data-col="${i}" tabindex="0" class="${i >= 6 ? 'num' : ''}">${c}</th>`)
        .join('') +
      (head.efficiency?.graders ?? []).map((g) => `<th data-col="${EFFICIENCY_COLUMNS[g]}" tabindex="0" class="num">${g}</th>`).join('') +
      `</tr></thead><tbody></tbody></table>\n<div class="pager"><button id="prev">‹ previous</button><span id="page"></span><button id="next">next ›</button></div></section>\n`,
  );
  write('<noscript><p>The candidate table needs JavaScript; every result is also in the JSON scorecard.</p></noscript>\n');

  // The two blocks the page's script reads (page/data.ts): a row per candidate, and a line of details per candidate.
  write('<script type="application/json" id="rows">[');
  outcome.rows.forEach((r, i) => {
    const row: PageRow = [
      r.problem_id,
      r.model_id,
      r.prompt_id,
      r.sample_id,
      r.language,
      r.status,
      r.passed,
      r.total,
      r.duration_ms,
      r.error === null ? null : r.error.slice(0, 200),
    ];
    const scored = head.efficiency?.candidates[i];
    if (scored !== undefined) row.push(scored.performance ?? null, scored.memory ?? null, scored.reason);
    write(`${i === 0 ? '' : ','}${scriptJson(row)}`);
  });
  write(']</script>\n<script type="application/x-ndjson" id="details">\n');
  for (const result of outcome.results()) write(`${scriptJson(detailsOf(result))}\n`);
  write(`</script>\n<script>${pageScript()}</script>\n</main>\n</body>\n</html>\n`);
}

/** What the page shows when a candidate is opened. */
function detailsOf(r: CandidateResult): PageDetails {
  // Python's values are written here as its repr writes them; the page renders JavaScript's as JSON.
  const repr = styleFor(r.language) === 'python';
  const shown = (value: unknown): unknown => (repr ? formatValue(value, Infinity, 'python') : value);
  const details: PageDetails = {
    source: r.source,
    entry: r.entry_point,
    error: r.error,
    code: r.code,
    raw: r.raw_code === r.code ? null : r.raw_code,
    repr,
    tests: r.tests.map((t) => [t.suite, t.index, t.status, shown(t.input), shown(t.expected), shown(t.actual), t.error, t.duration_ms]),
  };
  if (r.measure === undefined) return details;
  const m = r.measure;
  const measure =
    m === null
      ? `not measured: ${r.measure_error ?? 'no figures'}`
      : `measured: cost ${m.cost} (loading ${m.load_cost}), memory ${m.memory} bytes (the sum of the tests' peaks; loading kept ${m.load_memory})`;
  // Before the tests, as in the record.
  const { tests, ...head } = details;
  return { ...head, measure, tests };
}

/** JSON that can sit inside a script element: nothing in it can end the element or open a comment. */
function scriptJson(value: unknown): string {
  return recordJson(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const BAR = { label: 150, bar: 300, height: 24, value: 120 };

/** A horizontal bar per row: the share of its tests that passed. */
function chart(title: string, id: string, rows: ReadonlyArray<readonly [string, RowMetrics]>): string {
  const width = BAR.label + BAR.bar + BAR.value;
  const height = rows.length * BAR.height + 8;
  const bars = rows
    .map(([name, m], i) => {
      const y = 4 + i * BAR.height;
      const w = Math.round(m.pass_rate * BAR.bar);
      const shown = name.length > 22 ? `${name.slice(0, 21)}…` : name;
      const color = m.pass_rate >= 0.9 ? '#2da44e' : m.pass_rate >= 0.5 ? '#d29922' : '#cf222e';
      return (
        `<g><title>${esc(`${name}: ${percent(m.pass_rate)} of ${m.tests} tests, ${m.problems_solved}/${m.problems} problems solved`)}</title>` +
        `<text x="${BAR.label - 8}" y="${y + 16}" text-anchor="end" class="bar-label">${esc(shown)}</text>` +
        `<rect x="${BAR.label}" y="${y + 3}" width="${BAR.bar}" height="${BAR.height - 8}" rx="3" class="track"/>` +
        `<rect x="${BAR.label}" y="${y + 3}" width="${w}" height="${BAR.height - 8}" rx="3" fill="${color}"/>` +
        `<text x="${BAR.label + BAR.bar + 8}" y="${y + 16}" class="bar-value">${esc(`${percent(m.pass_rate)} · ${m.passed}/${m.tests}`)}</text></g>`
      );
    })
    .join('');
  return (
    `<figure class="chart" id="${id}"><figcaption>${esc(title)}</figcaption>` +
    `<svg role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">${bars}</svg></figure>`
  );
}

/** A horizontal bar per row: its mean efficiency score (0 to 1), and how many candidates it is over. */
function scoreChart(title: string, id: string, rows: ReadonlyArray<readonly [string, ScoreMean]>): string {
  const width = BAR.label + BAR.bar + BAR.value;
  const height = rows.length * BAR.height + 8;
  const bars = rows
    .map(([name, m], i) => {
      const y = 4 + i * BAR.height;
      const w = Math.round((m.mean ?? 0) * BAR.bar);
      const shown = name.length > 22 ? `${name.slice(0, 21)}…` : name;
      const color = m.mean === null ? '#8c959f' : m.mean >= 0.9 ? '#2da44e' : m.mean >= 0.5 ? '#d29922' : '#cf222e';
      return (
        `<g><title>${esc(`${name}: ${meanLabel(m)}, the mean over ${plural(m.scored, 'candidate')} scored`)}</title>` +
        `<text x="${BAR.label - 8}" y="${y + 16}" text-anchor="end" class="bar-label">${esc(shown)}</text>` +
        `<rect x="${BAR.label}" y="${y + 3}" width="${BAR.bar}" height="${BAR.height - 8}" rx="3" class="track"/>` +
        `<rect x="${BAR.label}" y="${y + 3}" width="${w}" height="${BAR.height - 8}" rx="3" fill="${color}"/>` +
        `<text x="${BAR.label + BAR.bar + 8}" y="${y + 16}" class="bar-value">${esc(meanLabel(m))}</text></g>`
      );
    })
    .join('');
  return (
    `<figure class="chart" id="${id}"><figcaption>${esc(title)}</figcaption>` +
    `<svg role="img" aria-label="${esc(title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">${bars}</svg></figure>`
  );
}

function passAtKSection(outcome: RunOutcome): string {
  const rows = outcome.head.pass_at_k;
  const ks = Object.keys(rows[0]?.values ?? {});
  const body = rows
    .map((r) => {
      const samples = r.min_samples === r.max_samples ? `${r.min_samples}` : `${r.min_samples}–${r.max_samples}`;
      return `<tr><td>${esc(r.model_id)}</td><td class="num">${r.tasks}</td><td class="num">${samples}</td>${ks.map((k) => `<td class="num">${passAtKLabel(r.values[k] ?? null)}</td>`).join('')}</tr>`;
    })
    .join('');
  return (
    `<section id="pass-at-k"><h2>pass@k</h2><p class="note">Unbiased estimator (Chen et al., 2021) averaged over each model's tasks; n/a where a task has fewer samples than k.</p>` +
    `<table class="small"><thead><tr><th>model</th><th class="num">tasks</th><th class="num">samples per task</th>${ks.map((k) => `<th class="num">${esc(k)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table></section>\n`
  );
}

function deltaCells(d: Delta): string {
  const v = (x: number | null): string => (x === null ? 'n/a' : percent(x));
  const change = pointsChange(d.change);
  const cls = d.change === null || Math.abs(d.change) < 1e-12 ? '' : d.change > 0 ? 'good' : 'bad';
  return `<td class="num">${v(d.before)}</td><td class="num">${v(d.after)}</td><td class="num ${cls}">${change}</td>`;
}

function baselineSection(diff: RunDiff): string {
  const ks = [...new Set(diff.models.flatMap((m) => Object.keys(m.pass_at_k)))];
  const models = diff.models
    .map(
      (m) =>
        `<tr><td>${esc(m.model_id)}</td>${deltaCells(m.pass_rate)}${ks.map((k) => deltaCells(m.pass_at_k[k] ?? { before: null, after: null, change: null })).join('')}</tr>`,
    )
    .join('');
  const c = diff.counts;
  const listed = diff.changes.slice(0, CHANGES_LISTED);
  const changes = listed.map(changeRow).join('');
  return (
    `<section id="baseline"><h2>Compared with ${esc(diff.before.run_id)}</h2>` +
    `<p id="baseline-counts"><span class="pill bad">${plural(c['new-failure'], 'new failure')}</span> <span class="pill warn">${c.changed} changed</span> ` +
    `<span class="pill good">${c.fixed} fixed</span> <span class="pill">${c.added} only in this run</span> <span class="pill">${c.removed} only in the baseline</span> ` +
    `<span class="pill">${c.unchanged} unchanged</span></p>` +
    `<table class="small"><thead><tr><th>model</th><th class="num">pass rate before</th><th class="num">now</th><th class="num">change</th>` +
    ks.map((k) => `<th class="num">${esc(k)} before</th><th class="num">now</th><th class="num">change</th>`).join('') +
    `</tr></thead><tbody>${models}</tbody></table>` +
    (listed.length === 0
      ? ''
      : `<table class="small" id="changes"><thead><tr><th>change</th><th>problem</th><th>model</th><th>prompt</th><th>sample</th><th>before</th><th>now</th><th>tests</th></tr></thead><tbody>${changes}</tbody></table>`) +
    (diff.changes.length > listed.length ? `<p class="note">…and ${diff.changes.length - listed.length} more; evalrun diff --json lists every one.</p>` : '') +
    '</section>\n'
  );
}

function changeRow(change: CandidateChange): string {
  const verdict = (v: CandidateChange['before']): string => (v === null ? '—' : `${v.status} ${v.passed}/${v.total}`);
  const cls = change.kind === 'new-failure' ? 'bad' : change.kind === 'fixed' ? 'good' : 'warn';
  const tests = change.tests
    .slice(0, 5)
    .map((t) => `${t.suite}#${t.index}: ${t.before ?? '—'} → ${t.after ?? '—'}`)
    .join('; ');
  const more = change.tests.length > 5 ? ` (+${change.tests.length - 5})` : '';
  return (
    `<tr><td><span class="pill ${cls}">${esc(change.kind)}</span></td><td>${esc(change.problem_id)}</td><td>${esc(change.model_id)}</td>` +
    `<td>${esc(change.prompt_id ?? '—')}</td><td>${esc(change.sample_id ?? '—')}</td><td>${esc(verdict(change.before))}</td><td>${esc(verdict(change.after))}</td><td>${esc(tests + more)}</td></tr>`
  );
}

function problemsSection(outcome: RunOutcome): string {
  const { head } = outcome;
  const invalid = head.problems.filter((p) => !p.valid);
  const skipped = head.skipped_submissions;
  if (invalid.length === 0 && skipped.length === 0) return '';
  let html = '<section id="problems">';
  if (invalid.length > 0) {
    html += `<h2>Invalid problem files (${invalid.length})</h2><ul>${invalid.map((p) => `<li><code>${esc(p.file)}</code>: ${esc(p.errors.join('; '))}</li>`).join('')}</ul>`;
  }
  if (skipped.length > 0) {
    html += `<details><summary>Skipped submissions (${skipped.length})</summary><ul>${skipped.map((x) => `<li><code>${esc(x.source)}</code>: ${esc(x.reason)}</li>`).join('')}</ul></details>`;
  }
  return `${html}</section>\n`;
}
