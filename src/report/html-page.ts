/**
 * The HTML report's style sheet and script, inlined into every report. The
 * script reads the data blocks the reporter wrote (see html-reporter.ts)
 * and builds the candidate table with text nodes only: nothing a candidate
 * returned is ever parsed as markup.
 */

export const HTML_STYLE = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; --good: #1a7f37; --bad: #cf222e; --warn: #9a6700; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg); background: #fff; }
header { padding: 20px 32px 8px; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { margin: 0; font-size: 22px; } h1 .mode { color: var(--muted); font-weight: 400; }
h2 { font-size: 17px; margin: 28px 0 10px; }
.meta { margin: 4px 0 8px; color: var(--muted); }
main { padding: 8px 32px 40px; max-width: 1400px; }
code, pre { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 16px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 110px; background: #fff; }
.card .value { font-size: 22px; font-weight: 600; } .card .label { color: var(--muted); font-size: 12px; }
.card.good .value, td.good, .good { color: var(--good); } .card.bad .value, td.bad, .bad { color: var(--bad); } .card.warn .value, .warn { color: var(--warn); }
.summary-line { color: var(--muted); }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
.chart { margin: 0; } .chart figcaption { font-weight: 600; margin: 16px 0 6px; }
.chart svg { max-width: 100%; height: auto; } .bar-label, .bar-value { font-size: 12px; fill: var(--fg); } .track { fill: #eaeef2; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg); font-weight: 600; white-space: nowrap; }
table.small { width: auto; } .num { text-align: right; font-variant-numeric: tabular-nums; }
#candidate-table th { cursor: pointer; user-select: none; } #candidate-table th:hover { color: var(--accent); }
#candidate-table th.sorted-asc::after { content: " ▲"; } #candidate-table th.sorted-desc::after { content: " ▼"; }
#candidate-table tbody tr.row { cursor: pointer; } #candidate-table tbody tr.row:hover { background: #f0f6ff; }
#candidate-table tr.open { background: #f0f6ff; }
.status { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.status.passed, .status.pass { background: #dafbe1; color: var(--good); }
.status.failed, .status.fail, .status.error, .status.timeout, .status.memory, .status.load-error { background: #ffebe9; color: var(--bad); }
.status.unsupported, .status.no-tests, .status.skipped { background: #fff8c5; color: var(--warn); }
.pill { display: inline-block; border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; margin-right: 4px; }
.controls { display: flex; gap: 8px; align-items: center; margin-bottom: 8px; flex-wrap: wrap; }
.controls input { flex: 1 1 320px; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px; font: inherit; }
.controls select, .pager button { padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; font: inherit; }
.shown { color: var(--muted); }
.pager { display: flex; gap: 12px; align-items: center; margin-top: 8px; }
td.detail { background: #fbfcfd; padding: 12px 16px; }
.detail pre { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px; overflow: auto; max-height: 360px; margin: 4px 0 10px; white-space: pre-wrap; word-break: break-word; }
.detail table.tests { table-layout: fixed; width: 100%; } .col-test { width: 120px; } .col-verdict { width: 230px; } .col-time { width: 64px; }
.detail table td { font-size: 12.5px; } .detail td .note { word-break: break-word; } .detail td pre { max-height: 200px; margin: 0; }
mark.del { background: #ffcecb; color: inherit; } mark.ins { background: #aceebb; color: inherit; }
.diff .legend { display: block; color: var(--muted); border-bottom: 1px solid var(--line); margin-bottom: 4px; }
.diff .del { background: #ffebe9; display: block; } .diff .ins { background: #dafbe1; display: block; } .diff .same { color: var(--muted); display: block; }
.note { color: var(--muted); font-size: 12.5px; }
`;

export const HTML_SCRIPT = `
(function () {
  'use strict';
  var PAGE = 100;
  var rows = JSON.parse(document.getElementById('rows').textContent);
  var detailLines = null;
  var C = { problem: 0, model: 1, prompt: 2, sample: 3, language: 4, status: 5, passed: 6, total: 7, ms: 8, error: 9 };
  var haystack = rows.map(function (r) {
    return [r[0], r[1], r[2] || '', r[3] || '', r[4], r[5], r[9] || ''].join('\\u0001').toLowerCase();
  });
  var all = rows.map(function (_, i) { return i; });
  var view = all;
  var page = 0, sortCol = -1, sortDir = 1, opened = -1;
  var tbody = document.querySelector('#candidate-table tbody');
  var filterInput = document.getElementById('filter');
  var statusSelect = document.getElementById('status-filter');
  var modelSelect = document.getElementById('model-filter');

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function detailsOf(i) {
    if (detailLines === null) detailLines = document.getElementById('details').textContent.split('\\n').filter(function (l) { return l.length > 0; });
    return JSON.parse(detailLines[i]);
  }

  function applyFilter() {
    var words = filterInput.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var status = statusSelect.value, model = modelSelect.value;
    view = all.filter(function (i) {
      var r = rows[i];
      if (status === 'not-passed' ? r[C.status] === 'passed' : status && r[C.status] !== status) return false;
      if (model && r[C.model] !== model) return false;
      for (var w = 0; w < words.length; w++) if (haystack[i].indexOf(words[w]) < 0) return false;
      return true;
    });
    sortView();
    page = 0;
    render();
  }

  function key(i) {
    var r = rows[i];
    if (sortCol === 6) return r[C.total] === 0 ? -1 : r[C.passed] / r[C.total];
    if (sortCol === 7) return r[C.ms];
    return r[sortCol] === null ? '' : String(r[sortCol]);
  }

  function sortView() {
    if (sortCol < 0) return;
    view = view.slice().sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x < y) return -sortDir;
      if (x > y) return sortDir;
      return a - b;
    });
  }

  function statusBadge(s) { return el('span', 'status ' + s, s); }

  function render() {
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    if (page >= pages) page = pages - 1;
    var frag = document.createDocumentFragment();
    view.slice(page * PAGE, page * PAGE + PAGE).forEach(function (i) {
      var r = rows[i];
      var tr = el('tr', 'row' + (i === opened ? ' open' : ''));
      tr.dataset.index = String(i);
      tr.appendChild(el('td', '', r[C.problem]));
      tr.appendChild(el('td', '', r[C.model]));
      tr.appendChild(el('td', '', r[C.prompt] === null ? '—' : r[C.prompt]));
      tr.appendChild(el('td', '', r[C.sample] === null ? '—' : r[C.sample]));
      tr.appendChild(el('td', '', r[C.language]));
      var st = el('td'); st.appendChild(statusBadge(r[C.status]));
      if (r[C.error]) { st.appendChild(document.createTextNode(' ')); st.appendChild(el('span', 'note', r[C.error].slice(0, 90))); }
      tr.appendChild(st);
      tr.appendChild(el('td', 'num', r[C.passed] + '/' + r[C.total]));
      tr.appendChild(el('td', 'num', r[C.ms] < 1000 ? r[C.ms] + ' ms' : (r[C.ms] / 1000).toFixed(2) + ' s'));
      frag.appendChild(tr);
      if (i === opened) frag.appendChild(detailRow(i));
    });
    tbody.textContent = '';
    tbody.appendChild(frag);
    document.getElementById('shown-count').textContent = view.length + ' of ' + rows.length + ' candidates';
    document.getElementById('page').textContent = 'page ' + (page + 1) + ' of ' + pages;
    document.getElementById('prev').disabled = page === 0;
    document.getElementById('next').disabled = page >= pages - 1;
  }

  function show(value) {
    if (value === undefined) return 'undefined';
    var pretty = JSON.stringify(value, null, 2);
    if (pretty === undefined) return String(value);
    // One line with a space after each comma and colon, unless that is too long to read.
    var one = pretty.replace(/,\\n\\s*/g, ', ').replace(/\\n\\s*/g, '');
    return one.length <= 80 ? one : pretty;
  }

  /** Lines of the expected and actual values, matched by a longest common subsequence. */
  function lineDiff(a, b) {
    var x = a.split('\\n'), y = b.split('\\n');
    var out = [];
    if (x.length * y.length > 250000) {
      var p = 0; while (p < x.length && p < y.length && x[p] === y[p]) p++;
      var s = 0; while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
      x.slice(0, p).forEach(function (l) { out.push(['same', l]); });
      x.slice(p, x.length - s).forEach(function (l) { out.push(['del', l]); });
      y.slice(p, y.length - s).forEach(function (l) { out.push(['ins', l]); });
      x.slice(x.length - s).forEach(function (l) { out.push(['same', l]); });
      return out;
    }
    var n = x.length, m = y.length, t = [];
    for (var i = 0; i <= n; i++) { t.push(new Int32Array(m + 1)); }
    for (i = n - 1; i >= 0; i--) for (var j = m - 1; j >= 0; j--) t[i][j] = x[i] === y[j] ? t[i + 1][j + 1] + 1 : Math.max(t[i + 1][j], t[i][j + 1]);
    i = 0; j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) { out.push(['same', x[i]]); i++; j++; }
      else if (t[i + 1][j] >= t[i][j + 1]) { out.push(['del', x[i]]); i++; }
      else { out.push(['ins', y[j]]); j++; }
    }
    while (i < n) out.push(['del', x[i++]]);
    while (j < m) out.push(['ins', y[j++]]);
    return out;
  }

  function diffBlock(expected, actual) {
    var pre = el('pre', 'diff');
    pre.appendChild(el('span', 'legend', '- expected   + actual'));
    lineDiff(expected, actual).forEach(function (d) {
      pre.appendChild(el('span', d[0], (d[0] === 'del' ? '- ' : d[0] === 'ins' ? '+ ' : '  ') + d[1]));
    });
    return pre;
  }

  function detailRow(i) {
    var d = detailsOf(i);
    var tr = el('tr', 'detail-row');
    var td = el('td', 'detail'); td.colSpan = 8;
    td.appendChild(el('div', 'note', 'source: ' + d.source + (d.entry ? ' · entry point: ' + d.entry : '')));
    if (d.error) { td.appendChild(el('strong', 'bad', 'Error')); td.appendChild(el('pre', '', d.error)); }
    td.appendChild(el('strong', '', 'Code'));
    td.appendChild(el('pre', 'code', d.code));
    if (d.raw !== null) {
      var raw = el('details'); raw.appendChild(el('summary', '', 'As submitted')); raw.appendChild(el('pre', '', d.raw)); td.appendChild(raw);
    }
    td.appendChild(el('strong', '', 'Tests (' + d.tests.length + ')'));
    var table = el('table', 'tests');
    var cols = el('colgroup');
    ['test', 'verdict', 'value', 'value', 'value', 'time'].forEach(function (c) { cols.appendChild(el('col', 'col-' + c)); });
    table.appendChild(cols);
    var head = el('tr');
    ['test', 'verdict', 'input', 'expected', 'actual', 'time'].forEach(function (h) { head.appendChild(el('th', '', h)); });
    table.appendChild(head);
    d.tests.forEach(function (t) {
      var row = el('tr');
      row.appendChild(el('td', '', t[0] + '#' + t[1]));
      var v = el('td'); v.appendChild(statusBadge(t[2])); if (t[6]) v.appendChild(el('div', 'note', t[6].length > 300 ? t[6].slice(0, 299) + '…' : t[6])); row.appendChild(v);
      // A Python candidate's values come already written as Python's repr writes them.
      var view = d.repr ? String : show;
      row.appendChild(cellPre(view(t[3])));
      var expected = view(t[4]);
      var actual = t[2] === 'error' || t[2] === 'timeout' || t[2] === 'memory' || t[2] === 'skipped' ? null : view(t[5]);
      if (t[2] === 'fail' && actual !== null && (expected.indexOf('\\n') >= 0 || actual.indexOf('\\n') >= 0)) {
        var both = el('td'); both.colSpan = 2; both.appendChild(diffBlock(expected, actual)); row.appendChild(both);
      } else if (t[2] === 'fail' && actual !== null) {
        var marked = markDifference(expected, actual);
        row.appendChild(marked[0]);
        row.appendChild(marked[1]);
      } else {
        row.appendChild(cellPre(expected));
        row.appendChild(actual === null ? el('td', 'note', '—') : cellPre(actual));
      }
      row.appendChild(el('td', 'num', t[7] === null ? '—' : t[7] + ' ms'));
      table.appendChild(row);
    });
    td.appendChild(table);
    tr.appendChild(td);
    return tr;
  }

  /** One-line values: what lies between their common start and common end is marked in each. */
  function markDifference(a, b) {
    var p = 0; while (p < a.length && p < b.length && a[p] === b[p]) p++;
    var s = 0; while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
    function cell(text, cls) {
      var td = el('td'), pre = el('pre');
      pre.appendChild(document.createTextNode(text.slice(0, p)));
      pre.appendChild(el('mark', cls, text.slice(p, text.length - s)));
      pre.appendChild(document.createTextNode(text.slice(text.length - s)));
      td.appendChild(pre);
      return td;
    }
    return [cell(a, 'del'), cell(b, 'ins')];
  }

  function cellPre(text) { var td = el('td'); td.appendChild(el('pre', '', text)); return td; }

  tbody.addEventListener('click', function (e) {
    var tr = e.target.closest('tr.row');
    if (!tr) return;
    var i = Number(tr.dataset.index);
    opened = opened === i ? -1 : i;
    render();
  });
  document.querySelectorAll('#candidate-table th').forEach(function (th) {
    function sort() {
      var col = Number(th.dataset.col);
      sortDir = sortCol === col ? -sortDir : 1;
      sortCol = col;
      document.querySelectorAll('#candidate-table th').forEach(function (h) { h.classList.remove('sorted-asc', 'sorted-desc'); });
      th.classList.add(sortDir > 0 ? 'sorted-asc' : 'sorted-desc');
      sortView();
      render();
    }
    th.addEventListener('click', sort);
    th.addEventListener('keydown', function (e) { if (e.key === 'Enter') sort(); });
  });
  var pending = null;
  filterInput.addEventListener('input', function () { clearTimeout(pending); pending = setTimeout(applyFilter, 120); });
  statusSelect.addEventListener('change', applyFilter);
  modelSelect.addEventListener('change', applyFilter);
  document.getElementById('prev').addEventListener('click', function () { page--; render(); });
  document.getElementById('next').addEventListener('click', function () { page++; render(); });
  render();
  document.body.dataset.ready = 'true';
})();
`;
