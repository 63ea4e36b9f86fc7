import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ProblemDirectoryError } from '../problems/find-files.js';
import { jsonReporter, ScorecardWriteError } from '../report/json-reporter.js';
import type { Reporter, RunOutcome } from '../report/reporter.js';
import { tableReporter } from '../report/table-reporter.js';
import { ResultsStore } from '../runner/results-store.js';
import { optionsFromRecord, runEvaluation, type RunOptions } from '../runner/run.js';
import type { Language } from '../sandbox-host/protocol.js';
import type { CliOptions } from './args.js';
import { EXIT } from './main.js';

/** Where a run's files go. */
interface RunFiles {
  runId: string;
  log: string;
  scorecard: string;
  resume: boolean;
}

class SetupError extends Error {}

/** Runs what the options ask for and returns the process exit code. */
export async function execute(cli: CliOptions): Promise<number> {
  // With --json, stdout carries only the document.
  const say = (line: string): void => void (cli.json ? process.stderr : process.stdout).write(`${line}\n`);

  let files: RunFiles;
  let options: RunOptions;
  try {
    files = cli.resume === null ? newRunFiles(cli.out) : resumedRunFiles(cli.resume, cli.out);
    options = cli.resume === null ? runOptions(cli) : { ...resumedOptions(files.log), concurrency: cli.concurrency };
    assertWritable(files.scorecard);
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    process.stderr.write(`evalrun: ${e.message}\n`);
    return EXIT.usage;
  }

  const reporters: Reporter[] = [];
  if (!cli.json) reporters.push(tableReporter({ write: (text) => process.stdout.write(text), details: cli.details }));
  reporters.push(jsonReporter({ outFile: files.scorecard, toStdout: cli.json, log: say }));

  // First Ctrl-C: stop grading, keep what finished, write an incomplete scorecard. Second: leave now.
  const interrupt = new AbortController();
  const onSigint = (): void => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    process.stderr.write('\nevalrun: interrupted; writing the results so far (Ctrl-C again to quit at once)\n');
    interrupt.abort();
  };
  process.on('SIGINT', onSigint);

  let outcome: RunOutcome;
  try {
    outcome = await runEvaluation(
      options,
      { runId: files.runId, logFile: files.log, resume: files.resume, signal: interrupt.signal },
      reporters,
    );
  } catch (e) {
    if (e instanceof ProblemDirectoryError) {
      process.stderr.write(`evalrun: --problems ${e.dir}: ${e.reason}\n`);
      return EXIT.usage;
    }
    if (e instanceof ScorecardWriteError) {
      process.stderr.write(`evalrun: ${e.message}; every result is in the run log ${files.log}\n`);
      return EXIT.failed;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }

  if (!outcome.head.complete) {
    process.stderr.write(`evalrun: run incomplete; finish it with: evalrun --resume ${files.log}\n`);
    return EXIT.interrupted;
  }
  if (options.solutionsDir === null) return selfCheckExitCode(outcome);
  if (cli.minPassRate !== null && outcome.head.summary.pass_rate < cli.minPassRate) {
    const rate = (outcome.head.summary.pass_rate * 100).toFixed(1);
    process.stderr.write(`evalrun: pass rate ${rate}% is below --min-pass-rate ${(cli.minPassRate * 100).toFixed(1)}%\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

/** Self-check: success only when every test passed and every problem file was valid. */
export function selfCheckExitCode(outcome: RunOutcome): number {
  const s = outcome.head.summary;
  const cleanRun = s.passed === s.tests && s.invalid_problems === 0;
  const everyCandidateRan = outcome.rows.every((c) => c.status === 'passed' || c.status === 'no-tests');
  return cleanRun && everyCandidateRan && outcome.head.complete ? EXIT.ok : EXIT.failed;
}

function runOptions(cli: CliOptions): RunOptions {
  return {
    problemsDir: cli.problems,
    solutionsDir: cli.solutions,
    filters: cli.filters,
    concurrency: cli.concurrency,
    memoryMb: cli.memoryMb,
    timeoutMs: cli.timeoutMs,
    tolerance: cli.floatTolerance,
    seed: cli.seed,
    languages: new Set<Language>(['javascript', 'python']),
    passAtK: cli.passAtK,
    extractCode: cli.extractCode,
    strictTypes: cli.strictTypes,
    pythonPackages: cli.pythonPackages,
  };
}

function runIdFor(now: Date): string {
  return now.toISOString().replace(/:/g, '-');
}

/** `results/<run>.json` and `.jsonl`; with `--out FILE`, the log sits beside FILE. */
function newRunFiles(out: string | null): RunFiles {
  const runId = runIdFor(new Date());
  if (out === null) {
    return { runId, log: join('results', `${runId}.jsonl`), scorecard: join('results', `${runId}.json`), resume: false };
  }
  return { runId, log: logBeside(out), scorecard: out, resume: false };
}

function logBeside(scorecard: string): string {
  return scorecard.endsWith('.json') ? `${scorecard}l` : `${scorecard}.jsonl`;
}

function resumedRunFiles(run: string, out: string | null): RunFiles {
  const log = existsSync(run) ? run : join('results', run.endsWith('.jsonl') ? run : `${run}.jsonl`);
  if (!existsSync(log)) throw new SetupError(`--resume ${run}: no run log at ${log}`);
  const base = log.endsWith('.jsonl') ? log.slice(0, -1) : `${log}.json`;
  const runId = (log.split(/[\\/]/).pop() ?? log).replace(/\.jsonl$/, '');
  return { runId, log, scorecard: out ?? base, resume: true };
}

function resumedOptions(log: string): RunOptions {
  try {
    return optionsFromRecord(ResultsStore.readHeader(log).options);
  } catch (e) {
    throw new SetupError(`--resume: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Fails before any work is done when the scorecard could not be written,
 * rather than after an hour of grading.
 */
function assertWritable(file: string): void {
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    if (existsSync(file)) {
      if (statSync(file).isDirectory()) throw new Error('it is a folder');
      accessSync(file, constants.W_OK);
    }
  } catch (e) {
    throw new SetupError(`--out ${file}: cannot write there (${e instanceof Error ? e.message : String(e)})`);
  }
}
