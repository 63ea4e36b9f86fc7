/**
 * A candidate's job after its worker fails. A worker that dies or stops
 * answering for a reason not shown to be the candidate's (killed from
 * outside, a crash, a hang of the machinery) costs time, not verdicts: the
 * same job goes to a fresh worker, up to FAULT_RETRIES times. A worker that
 * V8 aborted for running out of memory, or a job that fails on every
 * attempt, is sent again to run its tests one at a time, each in a fresh
 * context, the worker saying which test it starts: a test that kills its
 * worker again is the one at fault, and gets `memory` (out of memory) or an
 * error naming the failure (once it has failed on FAULT_RETRIES + 1
 * workers); every other test still gets its real verdict.
 */
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import { FAULT_RETRIES, isSandboxFault } from '../sandbox-host/sandbox-errors.js';

/** What grading needs of the worker pool (sandbox-host/pool.ts): a job in, its reply out, or a fault thrown. */
export interface GradesJobs {
  /** `onTest` hears which test a job sent one test at a time is starting. */
  grade(job: GradeJob, onTest?: (test: number) => void): Promise<GradeReply>;
}

export async function gradeWithRecovery(pool: GradesJobs, job: GradeJob): Promise<GradeReply> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await pool.grade(job);
    } catch (e) {
      if (!isSandboxFault(e)) throw e;
      if (outOfMemory(e) || attempt >= FAULT_RETRIES) break;
    }
  }
  const settled = new Map<number, Verdict>();
  const faults = new Map<number, number>();
  for (;;) {
    let running: number | null = null;
    try {
      return await pool.grade({ ...job, oneByOne: { settled: [...settled] } }, (test) => {
        running = test;
      });
    } catch (e) {
      if (!isSandboxFault(e)) throw e;
      // A worker that died before it said which test it started held the first one still to run.
      const test = running ?? firstUnsettled(job.tests.length, settled);
      if (test === null) throw e;
      const tries = (faults.get(test) ?? 0) + 1;
      faults.set(test, tries);
      const memory = outOfMemory(e);
      if (!memory && tries <= FAULT_RETRIES) continue;
      const message = tries > 1 ? `${e.message} (on each of ${tries} workers)` : e.message;
      settled.set(test, memory ? { status: 'memory', message } : { status: 'error', message, durationMs: null });
    }
  }
}

function outOfMemory(e: Error): boolean {
  return 'outOfMemory' in e && e.outOfMemory === true;
}

function firstUnsettled(tests: number, settled: ReadonlyMap<number, Verdict>): number | null {
  for (let i = 0; i < tests; i++) if (!settled.has(i)) return i;
  return null;
}
