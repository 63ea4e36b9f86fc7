/**
 * Sample ids for the submissions of a folder: whenever several share
 * (problem, prompt, model), those without a sample id get `0`, `1`, `2`, …
 * in discovery order, stepping around ids given explicitly; a lone
 * submission keeps a null sample id. Two passes over the submissions in the
 * same order (walk order: files as found, then lines within each file):
 * `note` each, then ask each one's `sampleId`.
 */
export class SampleNumbers {
  // By problem, then model, then prompt: maps of the ids as they are, rather than one map of a key made per submission.
  private readonly byProblem = new Map<string, Map<string, Map<string | null, SampleGroup>>>();

  /** First pass: counts a submission in its group, which it returns for the second. */
  note(problemId: string, modelId: string, promptId: string | null, sampleId: string | null): SampleGroup {
    let byModel = this.byProblem.get(problemId);
    if (byModel === undefined) this.byProblem.set(problemId, (byModel = new Map<string, Map<string | null, SampleGroup>>()));
    let byPrompt = byModel.get(modelId);
    if (byPrompt === undefined) byModel.set(modelId, (byPrompt = new Map<string | null, SampleGroup>()));
    let group = byPrompt.get(promptId);
    if (group === undefined) byPrompt.set(promptId, (group = { size: 0, taken: null, next: 0 }));
    group.size++;
    if (sampleId !== null) (group.taken ??= new Set()).add(sampleId);
    return group;
  }

  /** Second pass, in the same order: the sample id of a submission of `group` that came with `sampleId`. */
  sampleId(group: SampleGroup, sampleId: string | null): string | null {
    const number = this.number(group, sampleId);
    return number < 0 ? sampleId : String(number);
  }

  /** The same as a number: `n` for the sample id `String(n)` it gets; -1 when it keeps the one it came with. */
  number(group: SampleGroup, sampleId: string | null): number {
    if (sampleId !== null || group.size < 2) return -1;
    const taken = group.taken;
    while (taken !== null && taken.has(String(group.next))) group.next++;
    return group.next++;
  }
}

/** One (problem, prompt, model)'s submissions: how many, the sample ids they came with, the next number to give. */
export interface SampleGroup {
  size: number;
  taken: Set<string> | null;
  next: number;
}
