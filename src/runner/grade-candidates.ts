import { candidateKey, type QuotedKey } from '../runlog/candidate-key.js';
import type { Candidate } from '../grading/candidate.js';
import { unavailableResults } from '../grading/grade.js';
import type { TestLimits } from '../grading/test-limits.js';
import { candidateRow, type CandidateRow } from '../report/rows.js';
import type { CandidateResult } from '../report/scorecard.js';
import { recordBytes } from '../values/wire.js';
import type { GradedMessage } from '../workers/messages.js';
import type { CandidateList } from './candidate-list.js';
import type { Route } from './route.js';
import type { ItemSource } from '../workers/recovery.js';

// Shared by the run loop and a self-check's reading of the problems (plan.ts),
// whose workers grade each problem as they read it.

/** Appends graded candidates, by their keys, to the run log and tells the reporters. */
export interface Recorder {
  /**
   * One candidate's rows and records (results made in the supervisor: a
   * worker's failure, a candidate given up); `rank`: its place in the plan,
   * or null when there is no plan yet.
   */
  candidate(key: string, rows: readonly CandidateRow[], records: readonly Uint8Array[], rank: number | null): void;
  /**
   * The candidates of a worker's graded message: candidate j by its key as
   * the log writes it, `keyOf(j)` (quoteKey), none when that is null, of
   * rank `rankOf(j)` (null: no plan yet).
   */
  graded(message: GradedMessage, keyOf: (j: number) => QuotedKey | null, rankOf: ((j: number) => number) | null): void;
}

/**
 * Grades the planned candidates `ranks` (places in `candidates`): a worker reads each one's problem file (candidates of one
 * problem come one after another, so it reads it once for them) and
 * answers with its records. `limitsOf`: a candidate's problem's limit per
 * test, sent with it (--timeout-factor).
 */
export async function gradeAll(
  route: Route,
  planned: { candidates: CandidateList; ranks: readonly number[] },
  record: Recorder,
  interrupted: () => boolean,
  limitsOf: (candidate: Candidate) => TestLimits | undefined = () => undefined,
): Promise<void> {
  const { candidates } = planned;
  const ranks = groupedByFile(planned.ranks, candidates);
  const items: ItemSource = {
    length: ranks.length,
    at: (k) => {
      const rank = ranks[k]!;
      const candidate = candidates.at(rank);
      const limits = limitsOf(candidate);
      return { index: rank, item: limits === undefined ? { kind: 'grade', candidate } : { kind: 'grade', candidate, limits } };
    },
  };
  await swallowIfInterrupted(
    interrupted,
    route.send(items, {
      onMessage: (m, indexOf) => {
        if (m.type === 'graded') {
          // Each key is made as its line is written, and not kept.
          record.graded(m, (j) => candidates.quotedKey(indexOf(j)), indexOf);
        } else if (m.type === 'failed') {
          const rank = indexOf(0);
          const candidate = candidates.at(rank);
          recordResults(record, candidate, unavailableResults(candidate, `internal error in evalrun: ${m.message}`), rank);
        }
      },
      giveUp: (rank, _, reason) => {
        const candidate = candidates.at(rank);
        recordResults(record, candidate, unavailableResults(candidate, reason), rank);
      },
    }),
  );
}

/**
 * The ranks with those of one problem file together, in the order the
 * files first come: a worker then reads a problem once for all
 * of a batch's candidates, however the solutions were laid out (a JSON
 * Lines file per model interleaves the problems). Only the order they are
 * sent in changes; the scorecard keeps the plan's.
 */
function groupedByFile(ranks: readonly number[], candidates: CandidateList): number[] {
  const byFile = new Map<string, number[]>();
  for (const rank of ranks) {
    const file = candidates.file(rank);
    const group = byFile.get(file);
    if (group === undefined) byFile.set(file, [rank]);
    else group.push(rank);
  }
  return [...byFile.values()].flat();
}

/** Records results made in the supervisor; `rank`: the candidate's place in the plan (null: no plan yet). */
export function recordResults(record: Recorder, candidate: Candidate, results: readonly CandidateResult[], rank: number | null): void {
  record.candidate(candidateKey(candidate), results.map(candidateRow), results.map(recordBytes), rank);
}

/** An interrupted run stops its workers, which fails the batches in flight: that is no error of the run. */
export async function swallowIfInterrupted(interrupted: () => boolean, work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (e) {
    if (!interrupted()) throw e;
  }
}
