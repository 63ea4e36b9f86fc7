import { jsonReporter, ScorecardWriteError } from '../report/json-reporter.js';
import type { Reporter } from '../report/reporter.js';
import type { Scorecard } from '../report/scorecard.js';
import { tableReporter } from '../report/table-reporter.js';
import { runSelfCheck } from '../runner/run.js';
import type { Language } from '../sandbox-host/protocol.js';
import type { CliOptions } from './args.js';
import { EXIT } from './main.js';

/** Runs what the options ask for and returns the process exit code. */
export async function execute(options: CliOptions): Promise<number> {
  if (options.solutions !== null) {
    process.stderr.write('evalrun: --solutions is not supported yet\n');
    return EXIT.usage;
  }
  const log = (line: string): void => {
    // With --json, stdout carries only the document.
    (options.json ? process.stderr : process.stdout).write(`${line}\n`);
  };
  const reporters: Reporter[] = [];
  if (!options.json) reporters.push(tableReporter({ write: (text) => process.stdout.write(text) }));
  reporters.push(jsonReporter({ outFile: options.out ?? undefined, toStdout: options.json, log }));

  let scorecard: Scorecard;
  try {
    scorecard = await runSelfCheck(
      {
        problemsDir: options.problems,
        concurrency: options.concurrency,
        memoryMb: options.memoryMb,
        timeoutMs: options.timeoutMs,
        tolerance: options.floatTolerance,
        seed: options.seed,
        languages: new Set<Language>(['javascript', 'python']),
      },
      reporters,
    );
  } catch (e) {
    if (e instanceof ScorecardWriteError) {
      process.stderr.write(`evalrun: ${e.message}\n`);
      return EXIT.failed;
    }
    throw e;
  }
  return selfCheckExitCode(scorecard);
}

/** Self-check: success only when every test passed and every problem file was valid. */
export function selfCheckExitCode(scorecard: Scorecard): number {
  const s = scorecard.summary;
  const cleanRun = s.passed === s.tests && s.invalid_problems === 0;
  const everyCandidateRan = scorecard.candidates.every((c) => c.status === 'passed' || c.status === 'no-tests');
  return cleanRun && everyCandidateRan && scorecard.complete ? EXIT.ok : EXIT.failed;
}
