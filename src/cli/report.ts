import type yargsFactory from 'yargs';
import { isReportFormat, REPORT_FORMATS, rendererFor } from '../report/reporters.js';
import { diffRuns, type RunDiff } from '../report/run-diff.js';
import { ReportWriteError, writeReport } from '../report/sink.js';
import { readRun, RunLogError, type ReadRun } from '../runner/read-run.js';
import { EXIT } from './exit-codes.js';
import { outFile, UsageError } from './parse.js';
import { subcommandParser } from './subcommand.js';

/**
 * `evalrun report RUN --format NAME [--out FILE]`: renders a run, finished or
 * interrupted, from its run log alone. Nothing is graded again.
 */
export async function reportCommand(argv: readonly string[], yargs: typeof yargsFactory): Promise<number> {
  const parsed = await subcommandParser(yargs, argv, 'evalrun report RUN --format NAME [--out FILE]', (y) =>
    y
      .option('format', { type: 'string', default: 'table', describe: `One of ${REPORT_FORMATS.join(', ')}` })
      .option('out', { type: 'string', describe: 'Write the report here instead of stdout' })
      .option('details', { type: 'boolean', default: false, describe: 'The table lists every candidate and failing test' })
      .option('baseline', { type: 'string', describe: 'The html format compares the run with this one' }),
  );
  if (parsed === null) return 0;
  const { args, runs } = parsed;
  if (runs.length !== 1) throw new UsageError(`report takes one run, got ${runs.length}`);
  const format = String(args.format);
  if (!isReportFormat(format)) throw new UsageError(`--format must be one of ${REPORT_FORMATS.join(', ')}, got ${format}`);
  if (args.baseline !== undefined && format !== 'html') throw new UsageError('--baseline applies to --format html');
  const out = outFile(args.out);

  const opened: ReadRun[] = [];
  try {
    const run = open(runs[0]!, opened);
    let baseline: RunDiff | null = null;
    if (typeof args.baseline === 'string') baseline = diffRuns(open(args.baseline, opened).outcome, run.outcome);
    writeReport(run.outcome, rendererFor(format, { details: args.details === true, baseline }), {
      file: out,
      announce: (file) => process.stderr.write(`Report written to ${file}\n`),
    });
    return 0;
  } catch (e) {
    if (e instanceof RunLogError || e instanceof ReportWriteError) {
      process.stderr.write(`evalrun report: ${e.message}\n`);
      return e instanceof RunLogError ? EXIT.usage : EXIT.cannotWrite;
    }
    throw e;
  } finally {
    for (const r of opened) r.close();
  }
}

function open(run: string, opened: ReadRun[]): ReadRun {
  const r = readRun(run);
  opened.push(r);
  return r;
}
