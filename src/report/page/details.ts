/**
 * An opened candidate: its source, code and every test, read from the
 * `details` block only when a candidate is first opened. A failed test's
 * expected and actual values are shown with their difference marked.
 */

import type { PageDetails } from './data.js';
import { byId, cellPre, el, statusBadge } from './dom.js';

/** Past this many pairs of lines a diff keeps only the common start and end, rather than the longest common subsequence. */
const MAX_DIFF_CELLS = 250000;
/** The note under a verdict is cut to this many characters. */
const NOTE_CHARS = 300;

let detailLines: string[] | null = null;

function detailsOf(i: number): PageDetails {
  detailLines ??= byId('details')
    .textContent.split('\n')
    .filter((l) => l.length > 0);
  return JSON.parse(detailLines[i]!) as PageDetails;
}

/** The table row that shows candidate `i` opened, below its own row. */
export function detailRow(i: number): HTMLTableRowElement {
  const d = detailsOf(i);
  const tr = el('tr', 'detail-row');
  const td = el('td', 'detail');
  td.colSpan = document.querySelectorAll('#candidate-table th').length;
  td.appendChild(el('div', 'note', 'source: ' + d.source + (d.entry ? ' · entry point: ' + d.entry : '')));
  if (d.measure) td.appendChild(el('div', 'note', d.measure));
  if (d.error) {
    td.appendChild(el('strong', 'bad', 'Error'));
    td.appendChild(el('pre', '', d.error));
  }
  td.appendChild(el('strong', '', 'Code'));
  td.appendChild(el('pre', 'code', d.code));
  if (d.raw !== null) {
    const raw = el('details');
    raw.appendChild(el('summary', '', 'As submitted'));
    raw.appendChild(el('pre', '', d.raw));
    td.appendChild(raw);
  }
  td.appendChild(el('strong', '', 'Tests (' + d.tests.length + ')'));
  const table = el('table', 'tests');
  const cols = el('colgroup');
  for (const c of ['test', 'verdict', 'value', 'value', 'value', 'time']) cols.appendChild(el('col', 'col-' + c));
  table.appendChild(cols);
  const head = el('tr');
  for (const h of ['test', 'verdict', 'input', 'expected', 'actual', 'time']) head.appendChild(el('th', '', h));
  table.appendChild(head);
  // A Python candidate's values come already written as Python's repr writes them.
  const shown: (value: unknown) => string = d.repr ? String : show;
  for (const [suite, index, status, input, expectedValue, actualValue, error, ms] of d.tests) {
    const row = el('tr');
    row.appendChild(el('td', '', suite + '#' + index));
    const verdict = el('td');
    verdict.appendChild(statusBadge(status));
    if (error) verdict.appendChild(el('div', 'note', error.length > NOTE_CHARS ? error.slice(0, NOTE_CHARS - 1) + '…' : error));
    row.appendChild(verdict);
    row.appendChild(cellPre(shown(input)));
    const expected = shown(expectedValue);
    const actual = status === 'error' || status === 'timeout' || status === 'memory' || status === 'skipped' ? null : shown(actualValue);
    if (status === 'fail' && actual !== null && (expected.includes('\n') || actual.includes('\n'))) {
      const both = el('td');
      both.colSpan = 2;
      both.appendChild(diffBlock(expected, actual));
      row.appendChild(both);
    } else if (status === 'fail' && actual !== null) {
      const [expectedCell, actualCell] = markDifference(expected, actual);
      row.appendChild(expectedCell);
      row.appendChild(actualCell);
    } else {
      row.appendChild(cellPre(expected));
      row.appendChild(actual === null ? el('td', 'note', '—') : cellPre(actual));
    }
    row.appendChild(el('td', 'num', ms === null ? '—' : ms + ' ms'));
    table.appendChild(row);
  }
  td.appendChild(table);
  tr.appendChild(td);
  return tr;
}

/** A JavaScript value as JSON: on one line with a space after each comma and colon, unless that is too long to read. */
function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  const pretty = JSON.stringify(value, null, 2) as string | undefined;
  if (pretty === undefined) return Object.prototype.toString.call(value);
  const one = pretty.replace(/,\n\s*/g, ', ').replace(/\n\s*/g, '');
  return one.length <= 80 ? one : pretty;
}

type DiffLine = ['same' | 'del' | 'ins', string];

/** Lines of the expected and actual values, matched by a longest common subsequence. */
function lineDiff(a: string, b: string): DiffLine[] {
  const x = a.split('\n');
  const y = b.split('\n');
  const out: DiffLine[] = [];
  if (x.length * y.length > MAX_DIFF_CELLS) {
    let p = 0;
    while (p < x.length && p < y.length && x[p] === y[p]) p++;
    let s = 0;
    while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
    for (const l of x.slice(0, p)) out.push(['same', l]);
    for (const l of x.slice(p, x.length - s)) out.push(['del', l]);
    for (const l of y.slice(p, y.length - s)) out.push(['ins', l]);
    for (const l of x.slice(x.length - s)) out.push(['same', l]);
    return out;
  }
  const n = x.length;
  const m = y.length;
  // t[i][j]: the length of the longest common subsequence of x[i..] and y[j..].
  const t: Int32Array[] = [];
  for (let i = 0; i <= n; i++) t.push(new Int32Array(m + 1));
  const at = (i: number, j: number): number => t[i]![j]!;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) t[i]![j] = x[i] === y[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push(['same', x[i]!]);
      i++;
      j++;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      out.push(['del', x[i]!]);
      i++;
    } else {
      out.push(['ins', y[j]!]);
      j++;
    }
  }
  while (i < n) out.push(['del', x[i++]!]);
  while (j < m) out.push(['ins', y[j++]!]);
  return out;
}

function diffBlock(expected: string, actual: string): HTMLPreElement {
  const pre = el('pre', 'diff');
  pre.appendChild(el('span', 'legend', '- expected   + actual'));
  for (const [kind, line] of lineDiff(expected, actual)) {
    pre.appendChild(el('span', kind, (kind === 'del' ? '- ' : kind === 'ins' ? '+ ' : '  ') + line));
  }
  return pre;
}

/** One-line values: what lies between their common start and common end is marked in each. */
function markDifference(a: string, b: string): [HTMLTableCellElement, HTMLTableCellElement] {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  function cell(text: string, cls: string): HTMLTableCellElement {
    const td = el('td');
    const pre = el('pre');
    pre.appendChild(document.createTextNode(text.slice(0, p)));
    pre.appendChild(el('mark', cls, text.slice(p, text.length - s)));
    pre.appendChild(document.createTextNode(text.slice(text.length - s)));
    td.appendChild(pre);
    return td;
  }
  return [cell(a, 'del'), cell(b, 'ins')];
}
