/**
 * The measured run of --grade performance and memory: a candidate that
 * passed every test is graded a second time as a measured job (the engine
 * counts the work of loading the code and of each test, each test run from
 * the state right after loading), and its figures go into its results. The
 * first run's verdicts stand; the second must agree with them, or its
 * figures are not used.
 */
import type { CandidateMeasure, TestMeasureRecord } from '../report/scorecard.js';
import type { GradeJob, GradeReply, Verdict } from '../sandbox-host/grade-protocol.js';
import type { TestMeasure } from '../sandbox-host/protocol.js';

/** Why a candidate of a measured run has no figures: the words the scorecard's `measure_error` uses. */
export const NOT_MEASURED = {
  notPassed: 'did not pass every test',
  engine: 'the engine did not measure',
  oneByOne: 'not measured: its tests ran one at a time after it stopped a sandbox worker',
} as const;

/** The figures of a measured run, by the job's test index, or why there are none. */
export type MeasureOutcome = { ok: true; load: TestMeasure; tests: TestMeasure[] } | { ok: false; error: string };

/** What a measured run needs of the jobs' runner (grade.ts's RunsJobs). */
interface RunsJobs {
  run(job: GradeJob): Promise<GradeReply>;
}

/**
 * Runs `job` measured, `repetitions` times per test, after its first run
 * (`first`) passed every test.
 */
export async function measureRun(jobs: RunsJobs, job: GradeJob, repetitions: number): Promise<MeasureOutcome> {
  // The first run's settings that change how tests run are not the measured run's: it runs every test, whole.
  const { oneByOne: _settled, stopOnFirstFailure: _stop, ...plain } = job;
  let reply: GradeReply;
  try {
    reply = await jobs.run({ ...plain, measure: { repetitions } });
  } catch (e) {
    return { ok: false, error: `the measured run failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  return figuresOf(reply, job.tests.length);
}

/** The figures a measured job's reply holds, checked against the first run (which passed all `tests`). */
export function figuresOf(reply: GradeReply, tests: number): MeasureOutcome {
  if (reply.kind === 'load-error') return { ok: false, error: `the measured run disagreed with the first: the code did not load (${reply.message})` };
  const measured: TestMeasure[] = [];
  let unmeasured = reply.load === undefined;
  for (let i = 0; i < tests; i++) {
    const verdict: Verdict | undefined = reply.verdicts[i];
    if (verdict?.status !== 'pass') {
      return { ok: false, error: `the measured run disagreed with the first: test ${i} ${verdict === undefined ? 'had no verdict' : `was ${verdict.status}`}` };
    }
    if (verdict.measure === undefined) unmeasured = true;
    else measured.push(verdict.measure);
  }
  if (unmeasured || reply.load === undefined) return { ok: false, error: NOT_MEASURED.engine };
  return { ok: true, load: reply.load, tests: measured };
}

export function testMeasureRecord(m: TestMeasure): TestMeasureRecord {
  return { cost: m.cost, memory: m.memory, wall_ms: [...m.wallMs], cpu_ms: [...m.cpuMs] };
}

/** A suite's totals: the loading's cost plus its tests' costs; the sum of its tests' peaks. */
export function candidateMeasure(load: TestMeasure, tests: readonly TestMeasure[]): CandidateMeasure {
  let cost = load.cost;
  let memory = 0;
  for (const t of tests) {
    cost += t.cost;
    memory += t.memory;
  }
  return { cost, memory, load_cost: load.cost, load_memory: load.memory };
}
