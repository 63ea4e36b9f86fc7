/**
 * `evalrun merge LOG... [--out FILE]`: combines the run logs or scorecards
 * of a sharded run's shards into one scorecard (see merge/merge-shards.ts),
 * printed as a table (or, with --json, as the JSON document) and written to
 * FILE, with the merged run log beside it.
 *
 * Exit codes: as a single run of the whole would have returned when every
 * shard is there and finished (a self-check: 0 only when every test passed
 * and every problem file was valid; grading: 0); 1 when shards are missing
 * or unfinished (the scorecard is written, marked incomplete); 2 for a
 * usage error or shards that cannot be merged; 3 when the scorecard cannot
 * be written.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type yargsFactory from 'yargs';
import { MergeRefused, mergeShards } from '../merge/merge-shards.js';
import { RunLogWriteError } from '../runlog/run-log.js';
import { jsonReporter, ScorecardWriteError } from '../report/json-reporter.js';
import { combineReporters, type Reporter } from '../report/reporter.js';
import { tableReporter } from '../report/table-reporter.js';
import { DEFAULTS } from '../defaults.js';
import { logBeside, runIdFor } from '../runner/run-files.js';
import { outFile, UsageError } from './parse.js';
import { selfCheckExitCode } from './execute.js';
import { EXIT } from './exit-codes.js';
import { subcommandParser } from './subcommand.js';

interface MergeCli {
  inputs: string[];
  out: string | null;
  json: boolean;
  details: boolean;
}

export async function mergeCommand(argv: readonly string[], yargs: typeof yargsFactory): Promise<number> {
  let cli: MergeCli | null;
  try {
    cli = await parseMergeArgs(argv, yargs);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`evalrun merge: ${e.message} (see evalrun merge --help)\n`);
    return EXIT.usage;
  }
  if (cli === null) return EXIT.ok;
  const say = (line: string): void => void (cli.json ? process.stderr : process.stdout).write(`${line}\n`);

  const runId = `${runIdFor(new Date())}.merged`;
  const scorecard = cli.out ?? join(DEFAULTS.resultsDir, `${runId}.json`);
  const logFile = logBeside(scorecard);
  let merged: ReturnType<typeof mergeShards>;
  try {
    // As the main command does: the results folder (or --out's) is made when it is not there yet.
    mkdirSync(dirname(logFile), { recursive: true });
  } catch (e) {
    process.stderr.write(`evalrun merge: cannot write ${logFile} (${e instanceof Error ? e.message : String(e)})\n`);
    return EXIT.cannotWrite;
  }
  try {
    merged = mergeShards({ inputs: cli.inputs, runId, logFile });
  } catch (e) {
    if (e instanceof RunLogWriteError) {
      process.stderr.write(`evalrun merge: ${e.message}\n`);
      return EXIT.cannotWrite;
    }
    if (!(e instanceof MergeRefused)) throw e;
    process.stderr.write(`evalrun merge: ${e.message}\n`);
    return EXIT.usage;
  }
  const reporters: Reporter[] = [];
  if (!cli.json) reporters.push(tableReporter({ write: (text) => process.stdout.write(text), details: cli.details }));
  reporters.push(jsonReporter({ outFile: scorecard, toStdout: cli.json, log: say }));
  try {
    await combineReporters(reporters).onRunEnd(merged.outcome);
  } catch (e) {
    if (!(e instanceof ScorecardWriteError)) throw e;
    process.stderr.write(`evalrun merge: ${e.message}; the merged results are in ${logFile}\n`);
    return EXIT.cannotWrite;
  } finally {
    merged.close();
  }
  for (const warning of merged.warnings) process.stderr.write(`evalrun merge: ${warning}\n`);
  const { outcome } = merged;
  if (!outcome.head.complete) return EXIT.failed;
  return outcome.head.mode === 'self-check' ? selfCheckExitCode(outcome) : EXIT.ok;
}

async function parseMergeArgs(argv: readonly string[], yargs: typeof yargsFactory): Promise<MergeCli | null> {
  const parsed = await subcommandParser(
    yargs,
    argv,
    "Usage:\n  evalrun merge LOG... [--out FILE]   combine the run logs (or scorecards) of a sharded run's shards into one scorecard",
    (y) =>
      y
        .option('out', { type: 'string', describe: 'Write the merged scorecard here instead of results/<timestamp>.merged.json (its run log goes beside it)' })
        .option('json', { type: 'boolean', default: false, describe: 'Print the JSON scorecard on stdout instead of the table' })
        .option('details', { type: 'boolean', default: false, describe: 'List every candidate and failing test' }),
  );
  if (parsed === null) return null;
  const { args, runs: inputs } = parsed;
  if (inputs.length === 0) throw new UsageError('give the run logs (or scorecards) of the shards to merge');
  return { inputs, out: outFile(args.out), json: args.json === true, details: args.details === true };
}
