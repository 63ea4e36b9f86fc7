import { Aggregator } from '../report/aggregate.js';
import { CANDIDATE_STATUSES, summaryOf, type CandidateRow } from '../report/rows.js';
import { scoreEfficiency } from '../report/efficiency.js';
import { efficiencyGraders } from '../grading/graders.js';
import { gradersFromRecord } from './run-options.js';
import type { RunOutcome } from '../report/reporter.js';
import type { CandidateStatus, ProblemReport, ScorecardHead, SkippedSubmissionReport } from '../report/scorecard.js';
import { VERSION } from '../version.js';
import type { RunHeader } from '../runlog/run-log.js';
import type { Tally } from './tally.js';
import type { ShardCardRecord } from './shard-records.js';

export interface OutcomeParts {
  header: Pick<RunHeader, 'mode' | 'run_id' | 'started_at' | 'options'>;
  finishedAt: string;
  complete: boolean;
  problems: ProblemReport[];
  tagsByProblem: ReadonlyMap<string, readonly string[]>;
  skipped: SkippedSubmissionReport[];
  passAtK: readonly number[];
  /** A sharded run's part (`--shard`), or null. */
  shard?: ShardCardRecord | null;
}

/**
 * The outcome the reporters see, from the run's planned candidates: the
 * same whether the run just ended here or its log is read back later.
 */
export function outcomeOf(store: Tally, parts: OutcomeParts): RunOutcome {
  // The roll-ups, the summary and the counts by status read each row once, in one pass over the kept numbers, and make none;
  // the rows as one array are made only if a reporter asks for them.
  let rows: CandidateRow[] | null = null;
  const allRows = (): CandidateRow[] => (rows ??= store.rows());
  const invalid = parts.problems.filter((p) => !p.valid).length;
  const rollUps = new Aggregator();
  const counts = store.countRows(rollUps);
  const statuses = Object.fromEntries(CANDIDATE_STATUSES.map((status, i) => [status, counts.byStatus[i]!])) as Record<CandidateStatus, number>;
  // Scored from the rows, which come from the records: the same after --resume, in `evalrun report` and in a merge.
  const graders = efficiencyGraders(gradersFromRecord(parts.header.options).graders);
  const head: ScorecardHead = {
    evalrun_version: VERSION,
    mode: parts.header.mode,
    run_id: parts.header.run_id,
    started_at: parts.header.started_at,
    finished_at: parts.finishedAt,
    complete: parts.complete,
    options: parts.header.options,
    summary: summaryOf(counts, parts.problems.length, invalid),
    ...rollUps.result({ tagsByProblem: parts.tagsByProblem, ks: parts.passAtK }),
    ...(graders.length === 0
      ? {}
      : { efficiency: scoreEfficiency(allRows(), graders, parts.tagsByProblem, { shard: parts.header.options.shard !== undefined }) }),
    problems: parts.problems,
    skipped_submissions: parts.skipped,
    ...(parts.shard === undefined || parts.shard === null ? {} : { shard: parts.shard }),
  };
  return {
    head,
    get rows() {
      return allRows();
    },
    eachRow: () => rows ?? store.eachRow(),
    statuses,
    hasRows: (problemId) => rollUps.has(problemId),
    failures: store.failingTests(),
    results: () => store.results(),
    resultRecords: (visit) => store.resultRecords(visit),
  };
}
