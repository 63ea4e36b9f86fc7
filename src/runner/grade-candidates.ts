import { candidateKey, type Candidate } from '../grading/candidate.js';
import { unavailableResults } from '../grading/grade.js';
import type { TestLimits } from '../grading/test-limits.js';
import { candidateRow, type CandidateRow } from '../report/rows.js';
import type { CandidateResult } from '../report/scorecard.js';
import { recordBytes } from '../values/wire.js';
import type { GradedMessage } from '../workers/messages.js';
import type { Route } from './route.js';

// Shared by the run loop and a self-check's reading of the problems (plan.ts),
// whose workers grade each problem as they read it.

/** Appends graded candidates, by their keys, to the run log and tells the reporters. */
export interface Recorder {
  /** One candidate's rows and records (results made in the supervisor: a worker's failure, a candidate given up). */
  candidate(key: string, rows: readonly CandidateRow[], records: readonly Uint8Array[]): void;
  /** The candidates of a worker's graded message: candidate j by `keyOf(j)`, none when that is null. */
  graded(message: GradedMessage, keyOf: (j: number) => string | null): void;
}

/**
 * Grades the planned candidates: a worker reads each one's problem file
 * (candidates of one problem come one after another, so it reads it once
 * for them) and answers with its records. `limitsOf`: a candidate's
 * problem's limit per test, sent with it (--timeout-factor).
 */
export async function gradeAll(
  route: Route,
  todo: ReadonlyArray<{ candidate: Candidate; key: string }>,
  record: Recorder,
  interrupted: () => boolean,
  limitsOf: (candidate: Candidate) => TestLimits | undefined = () => undefined,
): Promise<void> {
  const itemOf = (candidate: Candidate) => {
    const limits = limitsOf(candidate);
    return limits === undefined ? { kind: 'grade' as const, candidate } : { kind: 'grade' as const, candidate, limits };
  };
  await swallowIfInterrupted(
    interrupted,
    route.send(
      groupedByFile(todo.map((t) => t.candidate)).map((index) => ({ index, item: itemOf(todo[index]!.candidate) })),
      {
        onMessage: (m, indexOf) => {
          if (m.type === 'graded') {
            record.graded(m, (j) => todo[indexOf(j)]!.key);
          } else if (m.type === 'failed') {
            const { candidate } = todo[indexOf(0)]!;
            recordResults(record, candidate, unavailableResults(candidate, `internal error in evalrun: ${m.message}`));
          }
        },
        giveUp: (index, _, reason) => recordResults(record, todo[index]!.candidate, unavailableResults(todo[index]!.candidate, reason)),
      },
    ),
  );
}

/**
 * The candidates' indexes with those of one problem file together, in the
 * order the files first come: a worker then reads a problem once for all
 * of a batch's candidates, however the solutions were laid out (a JSON
 * Lines file per model interleaves the problems). Only the order they are
 * sent in changes; the scorecard keeps the plan's.
 */
function groupedByFile(todo: readonly Candidate[]): number[] {
  const byFile = new Map<string, number[]>();
  todo.forEach((candidate, index) => {
    const group = byFile.get(candidate.file);
    if (group === undefined) byFile.set(candidate.file, [index]);
    else group.push(index);
  });
  return [...byFile.values()].flat();
}

export function recordResults(record: Recorder, candidate: Candidate, results: readonly CandidateResult[]): void {
  record.candidate(candidateKey(candidate), results.map(candidateRow), results.map(recordBytes));
}

/** An interrupted run stops its workers, which fails the batches in flight: that is no error of the run. */
export async function swallowIfInterrupted(interrupted: () => boolean, work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (e) {
    if (!interrupted()) throw e;
  }
}
