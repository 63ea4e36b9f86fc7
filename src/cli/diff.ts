import Table from 'cli-table3';
import type yargsFactory from 'yargs';
import { formatValue, styleFor } from '../values/format.js';
import { diffRuns, type CandidateChange, type Delta, type RunDiff } from '../report/run-diff.js';
import { percent, plural, pointsChange, shorten } from '../report/text.js';
import { readRun, RunLogError, type ReadRun } from '../runner/read-run.js';
import { UsageError } from './parse.js';
import { subcommandParser } from './subcommand.js';

/** Changed candidates listed by the table unless `--details`; `--json` has them all. */
const LISTED = 50;

/**
 * `evalrun diff RUN_A RUN_B [--json]`: what changed from the first run to the
 * second, read from their run logs: candidates and tests whose verdict
 * changed (new failures first), and each model's pass rate and pass@k.
 */
export async function diffCommand(argv: readonly string[], yargs: typeof yargsFactory): Promise<number> {
  const parsed = await subcommandParser(yargs, argv, 'evalrun diff RUN_A RUN_B [--json]', (y) =>
    y
      .option('json', { type: 'boolean', default: false, describe: 'Print the comparison as JSON' })
      .option('details', { type: 'boolean', default: false, describe: `List every changed candidate (the table lists ${LISTED})` }),
  );
  if (parsed === null) return 0;
  const { args, runs } = parsed;
  if (runs.length !== 2) throw new UsageError(`diff takes two runs (RUN_A RUN_B), got ${runs.length}`);
  const opened: ReadRun[] = [];
  try {
    for (const run of runs) opened.push(readRun(run));
    const diff = diffRuns(opened[0]!.outcome, opened[1]!.outcome);
    process.stdout.write(args.json === true ? `${JSON.stringify(diff, null, 2)}\n` : renderDiffTable(diff, args.details === true));
    return 0;
  } catch (e) {
    if (e instanceof RunLogError) {
      process.stderr.write(`evalrun diff: ${e.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    for (const r of opened) r.close();
  }
}

const PLAIN = { head: [] as string[], border: [] as string[] };

export function renderDiffTable(diff: RunDiff, details: boolean): string {
  const out: string[] = [];
  out.push(
    `Comparing ${diff.before.run_id} (A) with ${diff.after.run_id} (B)${diff.before.complete && diff.after.complete ? '' : ' (an incomplete run is compared as far as it got)'}`,
  );
  const ks = [...new Set(diff.models.flatMap((m) => Object.keys(m.pass_at_k)))];
  const models = new Table({
    head: ['model', 'candidates A/B', 'pass rate A', 'pass rate B', 'change', ...ks.flatMap((k) => [`${k} A`, `${k} B`, 'change'])],
    style: PLAIN,
  });
  for (const m of diff.models) {
    models.push([
      m.model_id,
      `${m.candidates.before ?? '-'}/${m.candidates.after ?? '-'}`,
      ...deltaCells(m.pass_rate),
      ...ks.flatMap((k) => deltaCells(m.pass_at_k[k] ?? { before: null, after: null, change: null })),
    ]);
  }
  out.push(models.toString());
  const c = diff.counts;
  out.push(
    `${plural(c['new-failure'], 'new failure')}, ${c.changed} changed, ${c.fixed} fixed, ${c.added} only in B, ${c.removed} only in A, ${c.unchanged} unchanged`,
  );
  const listed = details ? diff.changes : diff.changes.slice(0, LISTED);
  if (listed.length > 0) {
    const table = new Table({ head: ['change', 'problem', 'model', 'prompt', 'sample', 'A', 'B', 'tests that changed'], style: PLAIN, wordWrap: false });
    for (const change of listed) {
      table.push([
        change.kind,
        change.problem_id,
        change.model_id,
        change.prompt_id ?? '-',
        change.sample_id ?? '-',
        verdict(change.before),
        verdict(change.after),
        testsCell(change),
      ]);
    }
    out.push(table.toString());
    if (listed.length < diff.changes.length) out.push(`… and ${diff.changes.length - listed.length} more (--details lists every one, --json gives them all)`);
  }
  return `${out.join('\n')}\n`;
}

function deltaCells(d: Delta): string[] {
  const show = (v: number | null): string => (v === null ? 'n/a' : percent(v));
  const change = pointsChange(d.change);
  return [show(d.before), show(d.after), change];
}

function verdict(v: CandidateChange['before']): string {
  return v === null ? '-' : `${v.status} ${v.passed}/${v.total}`;
}

function testsCell(change: CandidateChange): string {
  const shown = change.tests.slice(0, 3).map((t) => {
    const style = styleFor(change.language);
    const got = t.after === 'fail' ? ` (expected ${formatValue(t.expected, 20, style)}, got ${formatValue(t.actual, 20, style)})` : '';
    return `${t.suite}#${t.index} ${t.before ?? '-'}→${t.after ?? '-'}${got}`;
  });
  if (change.tests.length > 3) shown.push(`+${change.tests.length - 3} more`);
  return shorten(shown.join('; '), 140);
}
