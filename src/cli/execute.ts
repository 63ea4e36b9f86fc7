import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ProblemDirectoryError } from '../problems/find-files.js';
import { jsonReporter, ScorecardWriteError } from '../report/json-reporter.js';
import type { Reporter, RunOutcome } from '../report/reporter.js';
import { progressMode, progressReporter } from '../report/progress.js';
import { reporterFor, type ReporterChoice } from '../report/reporters.js';
import { diffRuns } from '../report/run-diff.js';
import { ReportWriteError } from '../report/sink.js';
import { readRun, RunLogError, type ReadRun } from '../runner/read-run.js';
import { RunLog, RunLogWriteError } from '../runlog/run-log.js';
import { locateRunLog, newRunFiles, runIdOfLog, scorecardBeside, type RunFiles } from '../runner/run-files.js';
import { runEvaluation } from '../runner/run.js';
import { TestLimitsFileError } from '../runner/test-limits-file.js';
import { optionsFromRecord, type RunOptions } from '../runner/run-options.js';
import { ShardInputsChanged } from '../runner/shard-plan.js';
import { languageNames } from '../engines/find-language.js';
import type { Language } from '../engines/languages.js';
import type { CliOptions } from './args.js';
import { EXIT } from './exit-codes.js';

class SetupError extends Error {}

/** Runs what the options ask for and returns the process exit code. */
export async function execute(cli: CliOptions): Promise<number> {
  // With --json, stdout carries only the document.
  const say = (line: string): void => void (cli.json ? process.stderr : process.stdout).write(`${line}\n`);

  let files: RunFiles;
  let options: RunOptions;
  try {
    files = cli.resume === null ? newRunFiles(cli.out, cli.shard) : resumedRunFiles(cli.resume, cli.out);
    options = cli.resume === null ? runOptions(cli) : { ...resumedOptions(files.log), concurrency: cli.concurrency };
    assertWritable(files.scorecard);
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    process.stderr.write(`evalrun: ${e.message}\n`);
    return EXIT.usage;
  }

  let reporters: Reporter[];
  try {
    reporters = chooseReporters(cli, files.scorecard, say);
  } catch (e) {
    if (!(e instanceof SetupError)) throw e;
    process.stderr.write(`evalrun: ${e.message}\n`);
    return EXIT.usage;
  }

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
    const warn = (line: string): void => void process.stderr.write(`evalrun: ${line}\n`);
    outcome = await runEvaluation(options, { runId: files.runId, logFile: files.log, resume: files.resume, signal: interrupt.signal, warn }, reporters);
  } catch (e) {
    if (e instanceof TestLimitsFileError) {
      process.stderr.write(`evalrun: ${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof ProblemDirectoryError) {
      process.stderr.write(`evalrun: --problems ${e.dir}: ${e.reason}\n`);
      return EXIT.usage;
    }
    if (e instanceof ShardInputsChanged) {
      process.stderr.write(`evalrun: --resume ${files.log}: ${e.message}\n`);
      return EXIT.usage;
    }
    if (e instanceof ReportWriteError) {
      process.stderr.write(`evalrun: ${e.message}; every result is in the run log ${files.log} (evalrun report can render it again)\n`);
      return EXIT.cannotWrite;
    }
    if (e instanceof ScorecardWriteError) {
      process.stderr.write(`evalrun: ${e.message}; every result is in the run log: write the scorecard with evalrun --resume ${files.log}\n`);
      return EXIT.cannotWrite;
    }
    if (e instanceof RunLogWriteError) {
      const next = e.resumable
        ? `once there is room, finish the run with: evalrun --resume ${files.log}`
        : 'nothing was graded; run it again once there is room';
      process.stderr.write(`evalrun: ${e.message}; ${next}\n`);
      return EXIT.cannotWrite;
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
    // Four decimals at most, so that the two never read alike (a rate of 28.75% below 28.76%).
    const exact = (rate: number): string => `${Number((rate * 100).toFixed(4))}%`;
    process.stderr.write(`evalrun: pass rate ${exact(outcome.head.summary.pass_rate)} is below --min-pass-rate ${exact(cli.minPassRate)}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

/**
 * Progress first, so that its line is cleared before anything is printed;
 * then the chosen reports; the JSON scorecard is always written.
 */
function chooseReporters(cli: CliOptions, scorecard: string, say: (line: string) => void): Reporter[] {
  const reporters: Reporter[] = [];
  const stdoutJson = cli.json || cli.reporters.some((c) => c.format === 'json' && c.file === null);
  const mode = progressMode({
    enabled: cli.progress,
    stderrIsTty: process.stderr.isTTY === true,
    ci: isCi(process.env.CI),
    jsonOnStdout: stdoutJson,
  });
  if (mode !== 'off') reporters.push(progressReporter({ stream: process.stderr, live: mode === 'live' }));
  const choices = cli.reporters.length > 0 ? cli.reporters : [{ format: 'table' as const, file: null }];
  if (cli.baseline !== null && !choices.some((c) => c.format === 'html')) throw new SetupError('--baseline is used by the html reporter; add --reporter html');
  const baselineRun = cli.baseline === null ? null : readBaseline(cli.baseline);
  for (const choice of choices) {
    // The scorecard itself is written below; --json and a plain `json` reporter print it on stdout as well.
    if (choice.format === 'json' && choice.file === null) continue;
    if (choice.format === 'table' && choice.file === null && cli.json) continue;
    const html = choice.format === 'html' && baselineRun !== null;
    reporters.push(
      html
        ? baselineReporter(choice, scorecard, baselineRun, cli.details, say)
        : reporterFor(choice, scorecard, { details: cli.details, baseline: null, announce: (file) => say(`Report written to ${file}`) }),
    );
  }
  reporters.push(jsonReporter({ outFile: scorecard, toStdout: stdoutJson, log: say }));
  return reporters;
}

/** `CI` set to anything but an empty string, `0` or `false`, as most CI services and tools read it. */
function isCi(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

function readBaseline(run: string): ReadRun {
  try {
    return readRun(run);
  } catch (e) {
    if (e instanceof RunLogError) throw new SetupError(`--baseline ${e.message}`);
    throw e;
  }
}

/** The HTML report of a run compared with a baseline, which is known only once this run ends. */
function baselineReporter(choice: ReporterChoice, scorecard: string, baseline: ReadRun, details: boolean, say: (line: string) => void): Reporter {
  return {
    onRunEnd(outcome) {
      try {
        const diff = diffRuns(baseline.outcome, outcome);
        const reporter = reporterFor(choice, scorecard, { details, baseline: diff, announce: (file) => say(`Report written to ${file}`) });
        return reporter.onRunEnd?.(outcome);
      } finally {
        baseline.close();
      }
    },
  };
}

/** Self-check: success only when every test passed and every problem file was valid. */
export function selfCheckExitCode(outcome: RunOutcome): number {
  const s = outcome.head.summary;
  const cleanRun = s.passed === s.tests && s.invalid_problems === 0;
  if (!cleanRun || !outcome.head.complete) return EXIT.failed;
  const { failed, 'load-error': notLoaded, unsupported } = outcome.statuses;
  return failed + notLoaded + unsupported === 0 ? EXIT.ok : EXIT.failed;
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
    languages: new Set<Language>(languageNames()),
    passAtK: cli.passAtK,
    extractCode: cli.extractCode,
    shard: cli.shard,
    strictTypes: cli.strictTypes,
    pythonPackages: cli.pythonPackages,
    stopOnFirstFailure: cli.stopOnFirstFailure,
    graders: cli.graders,
    repetitions: cli.repetitions,
    ...(cli.timeoutFactor === null ? {} : { timeoutFactor: cli.timeoutFactor, timeoutFloorMs: cli.timeoutFloorMs }),
    ...(cli.testLimits === null ? {} : { testLimitsFile: cli.testLimits }),
  };
}

function resumedRunFiles(run: string, out: string | null): RunFiles {
  let log: string;
  try {
    log = locateRunLog(run);
  } catch (e) {
    throw new SetupError(`--resume ${e instanceof Error ? e.message : String(e)}`);
  }
  return { runId: runIdOfLog(log), log, scorecard: out ?? scorecardBeside(log), resume: true };
}

function resumedOptions(log: string): RunOptions {
  try {
    return optionsFromRecord(RunLog.readHeader(log).options);
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
