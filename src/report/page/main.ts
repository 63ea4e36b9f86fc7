/**
 * The HTML report's script (html-reporter.ts writes the page; the build
 * bundles this folder into the one script the page inlines). It reads the
 * `rows` block and shows the candidate table a page at a time, filtered by
 * words, status and model, sorted by any column; a click on a row opens
 * the candidate (details.ts). When the table is first drawn, the body is
 * marked `data-ready`.
 */

import { EFFICIENCY_COLUMNS, type PageRow } from './data.js';
import { detailRow } from './details.js';
import { byId, el, statusBadge } from './dom.js';

/** Rows shown per page. */
const PAGE = 100;
/** The filter applies once typing pauses for this many milliseconds. */
const FILTER_DELAY_MS = 120;
/** An error in a row is cut to this many characters; the opened candidate shows it whole. */
const ROW_ERROR_CHARS = 90;
/** The columns of a row, by name; the table's `data-col` numbers the columns shown (6: passed, 7: time). */
const C = {
  problem: 0,
  model: 1,
  prompt: 2,
  sample: 3,
  language: 4,
  status: 5,
  passed: 6,
  total: 7,
  ms: 8,
  error: 9,
  performance: 10,
  memory: 11,
  efficiencyNa: 12,
} as const;
/** The efficiency columns the reporter wrote (only those asked), as [data-col, place in a row]. */
const scoreColumns = (
  [
    [EFFICIENCY_COLUMNS.performance, C.performance],
    [EFFICIENCY_COLUMNS.memory, C.memory],
  ] as const
).filter(([col]) => document.querySelector('#candidate-table th[data-col="' + col + '"]') !== null);

const rows = JSON.parse(byId('rows').textContent) as PageRow[];
const haystack = rows.map((r) =>
  [r[C.problem], r[C.model], r[C.prompt] ?? '', r[C.sample] ?? '', r[C.language], r[C.status], r[C.error] ?? ''].join('\u0001').toLowerCase(),
);
const all = rows.map((_, i) => i);
let view = all;
let page = 0;
let sortCol = -1;
let sortDir = 1;
let opened = -1;
const tbody = document.querySelector<HTMLTableSectionElement>('#candidate-table tbody')!;
const filterInput = byId<HTMLInputElement>('filter');
const statusSelect = byId<HTMLSelectElement>('status-filter');
const modelSelect = byId<HTMLSelectElement>('model-filter');

function applyFilter(): void {
  const words = filterInput.value.toLowerCase().split(/\s+/).filter(Boolean);
  const status = statusSelect.value;
  const model = modelSelect.value;
  view = all.filter((i) => {
    const r = rows[i]!;
    if (status === 'not-passed' ? r[C.status] === 'passed' : status && r[C.status] !== status) return false;
    if (model && r[C.model] !== model) return false;
    return words.every((word) => haystack[i]!.includes(word));
  });
  sortView();
  page = 0;
  render();
}

/** What a row sorts by in the sorted column: the share of tests passed, the time, or the text shown. */
function key(i: number): string | number {
  const r = rows[i]!;
  if (sortCol === 6) return r[C.total] === 0 ? -1 : r[C.passed] / r[C.total];
  if (sortCol === 7) return r[C.ms];
  // A score sorts as itself; n/a below every score.
  for (const [col, at] of scoreColumns) if (sortCol === col) return r[at] ?? -1;
  const cell = r[sortCol];
  return cell === null ? '' : String(cell);
}

/** A column's keys are all numbers or all text. */
function less(x: string | number, y: string | number): boolean {
  return typeof x === 'number' && typeof y === 'number' ? x < y : String(x) < String(y);
}

function sortView(): void {
  if (sortCol < 0) return;
  view = view.slice().sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (less(x, y)) return -sortDir;
    if (less(y, x)) return sortDir;
    return a - b;
  });
}

function render(): void {
  const pages = Math.max(1, Math.ceil(view.length / PAGE));
  if (page >= pages) page = pages - 1;
  const frag = document.createDocumentFragment();
  for (const i of view.slice(page * PAGE, page * PAGE + PAGE)) {
    const r = rows[i]!;
    const tr = el('tr', 'row' + (i === opened ? ' open' : ''));
    tr.dataset.index = String(i);
    tr.appendChild(el('td', '', r[C.problem]));
    tr.appendChild(el('td', '', r[C.model]));
    tr.appendChild(el('td', '', r[C.prompt] ?? '—'));
    tr.appendChild(el('td', '', r[C.sample] ?? '—'));
    tr.appendChild(el('td', '', r[C.language]));
    const status = el('td');
    status.appendChild(statusBadge(r[C.status]));
    const error = r[C.error];
    if (error) {
      status.appendChild(document.createTextNode(' '));
      status.appendChild(el('span', 'note', error.slice(0, ROW_ERROR_CHARS)));
    }
    tr.appendChild(status);
    tr.appendChild(el('td', 'num', r[C.passed] + '/' + r[C.total]));
    const ms = r[C.ms];
    tr.appendChild(el('td', 'num', ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(2) + ' s'));
    for (const [, at] of scoreColumns) {
      const score = r[at];
      const td = el('td', 'num', typeof score === 'number' ? score.toFixed(3) : 'n/a');
      const why = r[C.efficiencyNa];
      if (typeof score !== 'number' && why) td.title = why;
      tr.appendChild(td);
    }
    frag.appendChild(tr);
    if (i === opened) frag.appendChild(detailRow(i));
  }
  tbody.textContent = '';
  tbody.appendChild(frag);
  byId('shown-count').textContent = view.length + ' of ' + rows.length + ' candidates';
  byId('page').textContent = 'page ' + (page + 1) + ' of ' + pages;
  byId<HTMLButtonElement>('prev').disabled = page === 0;
  byId<HTMLButtonElement>('next').disabled = page >= pages - 1;
}

tbody.addEventListener('click', (e) => {
  const tr = (e.target as Element).closest<HTMLElement>('tr.row');
  if (!tr) return;
  const i = Number(tr.dataset.index);
  opened = opened === i ? -1 : i;
  render();
});
const headers = document.querySelectorAll<HTMLElement>('#candidate-table th');
headers.forEach((th) => {
  function sort(): void {
    const col = Number(th.dataset.col);
    sortDir = sortCol === col ? -sortDir : 1;
    sortCol = col;
    headers.forEach((h) => h.classList.remove('sorted-asc', 'sorted-desc'));
    th.classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
    sortView();
    render();
  }
  th.addEventListener('click', sort);
  th.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') sort();
  });
});
let pending: number | undefined;
filterInput.addEventListener('input', () => {
  clearTimeout(pending);
  pending = setTimeout(applyFilter, FILTER_DELAY_MS);
});
statusSelect.addEventListener('change', applyFilter);
modelSelect.addEventListener('change', applyFilter);
byId('prev').addEventListener('click', () => {
  page--;
  render();
});
byId('next').addEventListener('click', () => {
  page++;
  render();
});
render();
document.body.dataset.ready = 'true';
