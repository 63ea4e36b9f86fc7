/**
 * The graders a run asks for (`--grade correctness,performance,memory`, the
 * reference framework's names). Correctness is always graded; performance
 * and memory need a measured run of each candidate that passes every test
 * (grading/grade.ts) and are scored at the end of the run
 * (report/efficiency.ts).
 */

export const GRADERS = ['correctness', 'performance', 'memory'] as const;
export type Grader = (typeof GRADERS)[number];
/** The graders scored against the optimal solution. */
export type EfficiencyGrader = Exclude<Grader, 'correctness'>;

/** How often a measured run repeats each test for its times (cost and memory are the same on every repetition). */
export const DEFAULT_REPETITIONS = 3;

/** A list of grader names that is not one: `message` says which name and what the names are. */
export class GraderNameError extends Error {}

/**
 * Reads the names, given as one comma-separated text or a list of them (a
 * repeated flag), into the canonical list: every grader once, in the order
 * of GRADERS, correctness always first.
 */
export function parseGraders(given: string | readonly string[]): Grader[] {
  const names = (typeof given === 'string' ? [given] : given).flatMap((text) => text.split(',')).map((name) => name.trim());
  const chosen = new Set<Grader>(['correctness']);
  for (const name of names) {
    if (name === '') continue;
    if (!isGrader(name)) throw new GraderNameError(`unknown grader "${name}"; the graders are ${GRADERS.join(', ')}`);
    chosen.add(name);
  }
  return GRADERS.filter((grader) => chosen.has(grader));
}

export function isGrader(name: string): name is Grader {
  return (GRADERS as readonly string[]).includes(name);
}

/** The efficiency graders among `graders`, in canonical order. */
export function efficiencyGraders(graders: readonly Grader[] | undefined): EfficiencyGrader[] {
  return (graders ?? []).filter((g): g is EfficiencyGrader => g !== 'correctness');
}

/** True when a run measures its candidates. */
export function measures(graders: readonly Grader[] | undefined): boolean {
  return efficiencyGraders(graders).length > 0;
}
