import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';
import { loadProblems } from '../problems/load.js';
import type { LoadedProblems } from '../problems/prepared.js';
import { combineReporters, type Reporter } from '../report/reporter.js';
import type { CandidateResult, ProblemReport, Scorecard } from '../report/scorecard.js';
import { summarize } from '../report/summary.js';
import { WorkerPool } from '../sandbox-host/pool.js';
import type { Language } from '../sandbox-host/protocol.js';
import { DEFAULT_TOLERANCE, type Tolerance } from '../values/compare.js';
import { selfCheckCandidates, type CandidateSpec } from './candidate.js';
import { gradeCandidate } from './grade-candidate.js';
import { VERSION } from '../version.js';

export interface RunOptions {
  problemsDir: string;
  concurrency: number;
  memoryMb: number;
  timeoutMs: number;
  tolerance: Tolerance;
  seed: number;
  languages: ReadonlySet<Language>;
}

export const DEFAULT_RUN_OPTIONS: Omit<RunOptions, 'problemsDir'> = {
  concurrency: availableParallelism(),
  memoryMb: 128,
  timeoutMs: 2000,
  tolerance: DEFAULT_TOLERANCE,
  seed: 1,
  languages: new Set<Language>(['javascript', 'python']),
};

/** Loads the problems, grades every candidate with at most `concurrency` at once, and reports. */
export async function runSelfCheck(options: RunOptions, reporters: readonly Reporter[]): Promise<Scorecard> {
  const startedAt = new Date();
  const reporter = combineReporters(reporters);
  const loaded = await loadProblems(options.problemsDir);
  const specs = selfCheckCandidates(loaded.problems);
  await reporter.onRunStart({
    problems: loaded.problems.length + loaded.invalid.length,
    invalidProblems: loaded.invalid.length,
    candidates: specs.length,
  });

  const results = await gradeAll(specs, options, reporter.onCandidateResult);

  const scorecard: Scorecard = {
    evalrun_version: VERSION,
    mode: 'self-check',
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    complete: true,
    options: {
      problems: options.problemsDir,
      concurrency: options.concurrency,
      memory_mb: options.memoryMb,
      timeout_ms: options.timeoutMs,
      float_tolerance: options.tolerance,
      seed: options.seed,
    },
    summary: summarize(results, []),
    candidates: results,
    problems: problemReports(loaded),
  };
  scorecard.summary = summarize(results, scorecard.problems);
  await reporter.onRunEnd(scorecard);
  return scorecard;
}

async function gradeAll(
  specs: readonly CandidateSpec[],
  options: RunOptions,
  onResult: (results: readonly CandidateResult[]) => Promise<void>,
): Promise<CandidateResult[]> {
  const pool = new WorkerPool({ size: options.concurrency });
  const limit = pLimit(options.concurrency);
  const bySpec: CandidateResult[][] = new Array(specs.length);
  try {
    await Promise.all(
      specs.map((spec, i) =>
        limit(async () => {
          const results = await gradeCandidate(pool, spec, spec.raw, {
            limits: { memoryMb: options.memoryMb, timeoutMs: options.timeoutMs, seed: options.seed },
            tolerance: options.tolerance,
            languages: options.languages,
          });
          bySpec[i] = results;
          await onResult(results);
        }),
      ),
    );
  } finally {
    await pool.close();
  }
  // Reported in input order whatever order they finished in, so runs are comparable.
  return bySpec.flat();
}

function problemReports(loaded: LoadedProblems): ProblemReport[] {
  const reports: ProblemReport[] = [
    ...loaded.problems.map((p) => ({
      problem_id: p.id,
      file: p.file,
      valid: true,
      errors: [],
      warnings: p.warnings,
    })),
    ...loaded.invalid.map((p) => ({
      problem_id: p.id,
      file: p.file,
      valid: false,
      errors: p.errors,
      warnings: [],
    })),
  ];
  return reports.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
