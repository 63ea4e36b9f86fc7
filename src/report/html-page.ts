/**
 * The HTML report's style sheet and script, inlined into every report. The
 * script is a TypeScript program of its own (src/report/page/, checked
 * against the DOM's types), which the build bundles into one file
 * (scripts/bundle-page.ts). It reads the data blocks the reporter wrote
 * (see html-reporter.ts and page/data.ts) and builds the candidate table
 * with text nodes only: nothing a candidate returned is ever parsed as
 * markup.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

/** The page's script as the build bundles it, relative to the package's folder. */
export const PAGE_SCRIPT_FILE = join('dist', 'bundle', 'report-page.js');

let script: string | undefined;

/** The page's script, read once: it goes inside a `<script>` element as it is. */
export function pageScript(): string {
  script ??= readPageScript(join(packageRoot(), PAGE_SCRIPT_FILE));
  return script;
}

function readPageScript(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`evalrun: the HTML report's script ${file} cannot be read (npm run build writes it): ${(error as Error).message}`, { cause: error });
  }
  // The bundler writes `</script` in strings as `<\/script`; anything that could end the element or open a comment is refused.
  if (/<\/script|<!--/i.test(text)) throw new Error(`evalrun: ${file} holds text that would end its <script> element`);
  return text;
}

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
