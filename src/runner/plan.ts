import { basename, extname } from 'node:path';
import { selfCheckPlan, type ProblemSummary } from '../grading/candidate.js';
import { measures } from '../grading/graders.js';
import { selector, type Filters } from '../grading/filters.js';
import { unavailableResults } from '../grading/grade.js';
import { invalid, isInvalidProblemFile, listProblemFiles, splitAndRejectDuplicates } from '../problems/find-files.js';
import type { InvalidProblemFile } from '../problems/prepared.js';
import type { ProblemReport, SkippedSubmissionReport } from '../report/scorecard.js';
import { solutionDiscoveryContext, walkedSolutionFiles } from '../solutions/discover.js';
import { findSolutionFiles } from '../solutions/find-solution-files.js';
import { SampleNumbers, type SampleGroup } from '../solutions/sample-numbers.js';
import type { SubmissionColumns } from '../solutions/submission-columns.js';
import { rangeSource, type SkippedSubmission } from '../solutions/submission.js';
import { NO_STRINGS, SharedLists } from '../interned.js';
import { recordResults, swallowIfInterrupted, type Recorder } from './grade-candidates.js';
import { pathInside, type WalkedFile } from './input-digest.js';
import { quotedSelfCheckKey, selfCheckList, SubmissionPlan, type CandidateList } from './candidate-list.js';
import type { Route } from './route.js';
import type { ItemSource } from '../workers/recovery.js';
import type { RunOptions } from './run-options.js';

/**
 * Has the workers read and check every problem file, while the supervisor
 * only lists them. With `grade` (a self-check), each worker grades a
 * problem's optimal_solution as soon as it has read it.
 */
export async function readProblems(
  dir: string,
  route: Route,
  grade: { record: Recorder; interrupted: () => boolean; listed: (files: number) => void } | null,
): Promise<ReadProblems> {
  const found = await listProblemFiles(dir);
  grade?.listed(found.length);
  const loaded: Array<ProblemSummary | InvalidProblemFile | undefined> = found.map((item) => (typeof item === 'string' ? undefined : item));
  // The files to read, by their place in the listing; each one's item is made when its batch starts.
  const toRead: number[] = [];
  found.forEach((item, index) => typeof item === 'string' && toRead.push(index));
  const items: ItemSource = {
    length: toRead.length,
    at: (k) => {
      const index = toRead[k]!;
      const file = found[index] as string;
      return { index, item: grade === null ? { kind: 'read-problem', file } : { kind: 'self-check', file } };
    },
  };
  const fileAt = (index: number): string => found[index] as string;
  const lists = new SharedLists();
  // A problem names the file it was read from, which is the one listed: the listing's string is kept, not a copy of it per problem.
  // Its tags and warnings are kept for the whole run too: a list that many problems give (none, most often) is held once.
  const ownFile = <P extends ProblemSummary | InvalidProblemFile>(problem: P, index: number): P => {
    problem.file = fileAt(index);
    if (!isInvalidProblemFile(problem)) {
      problem.tags = lists.share(problem.tags);
      if (problem.warnings.length === 0) problem.warnings = NO_STRINGS;
    }
    return problem;
  };
  const work = route.send(items, {
    onMessage: (m, indexOf) => {
      const index = indexOf(0);
      if (m.type === 'problem') {
        loaded[index] = ownFile(m.problem, index);
      } else if (m.type === 'graded' && grade !== null) {
        const problems = m.problems;
        grade.record.graded(
          m,
          (j) => {
            const at = indexOf(j);
            const given = problems?.[j];
            if (given !== undefined && given !== null) loaded[at] = ownFile(given, at);
            const summary = loaded[at];
            return summary !== undefined && !isInvalidProblemFile(summary) ? quotedSelfCheckKey(summary) : null;
          },
          // Graded before the plan: the tally knows it by its place in the listing until the plan says where that is (`PlannedRun.listed`).
          indexOf,
        );
      } else if (m.type === 'failed') {
        const summary = loaded[index];
        if (summary === undefined || isInvalidProblemFile(summary))
          loaded[index] = invalid(fileAt(index), null, [`${fileAt(index)}: evalrun failed to read it: ${m.message}`]);
        else if (grade !== null) {
          const candidate = selfCheckPlan(summary);
          recordResults(grade.record, candidate, unavailableResults(candidate, `internal error in evalrun: ${m.message}`), index);
        }
      }
    },
    // A self-check that had read its problem when its worker failed is graded again as a planned candidate.
    again: (index, item) => {
      const summary = loaded[index];
      return item.kind === 'self-check' && summary !== undefined && !isInvalidProblemFile(summary)
        ? { kind: 'grade', candidate: selfCheckPlan(summary) }
        : item;
    },
    giveUp: (index, _, reason) => {
      loaded[index] = invalid(fileAt(index), null, [`${fileAt(index)}: reading it stopped the sandbox worker: ${reason}`]);
    },
  });
  await (grade === null ? work : swallowIfInterrupted(grade.interrupted, work));
  const unread = loaded.filter((problem) => problem === undefined).length;
  const results = loaded.map((problem, index) => problem ?? invalid(fileAt(index), null, [`${fileAt(index)}: not read (the run was interrupted)`]));
  // Only a shard digests its input: the paths inside the folder are worked out then.
  const walked = (): WalkedFile[] =>
    found.map((item): WalkedFile => {
      const file = typeof item === 'string' ? item : item.file;
      return { path: typeof item === 'string' ? item : null, relative: pathInside(dir, file) };
    });
  const split = splitAndRejectDuplicates(results);
  // The valid problems keep the listing's order, each one the object `loaded` holds.
  const listed = (problems: readonly ProblemSummary[]): number[] => {
    const places: number[] = [];
    for (let index = 0; places.length < problems.length && index < loaded.length; index++) if (loaded[index] === problems[places.length]) places.push(index);
    if (places.length !== problems.length) throw new Error('problems not in the order they were listed');
    return places;
  };
  return { ...split, walked, unread, listed };
}

export interface ReadProblems {
  problems: ProblemSummary[];
  invalid: InvalidProblemFile[];
  /** Every entry the walk of the problems folder found, for a shard's input digest. */
  walked: () => WalkedFile[];
  /** Files no worker read (the run was interrupted first): the run is not complete. */
  unread: number;
  /** The places in the listing of some of `problems`, given in the order they are there. */
  listed: (problems: readonly ProblemSummary[]) => number[];
}

/** The run's candidates, what was skipped, and the solution files found (none for a self-check). */
export interface PlannedRun {
  candidates: CandidateList;
  skipped: SkippedSubmissionReport[];
  walked: WalkedFile[] | null;
  /** A self-check's: each candidate's problem's place in the listing, by which it was recorded if it was graded as it was read. */
  listed: number[] | null;
}

export async function planCandidates(
  options: RunOptions,
  loaded: ReadProblems,
  selected: readonly ProblemSummary[],
  modelSelected: (id: string) => boolean,
  route: Route,
): Promise<PlannedRun> {
  if (options.solutionsDir === null) {
    const checked = selected.filter((p) => p.hasOptimalSolution);
    const listed = loaded.listed(checked);
    return { candidates: selfCheckList(checked), skipped: [], walked: null, listed };
  }

  const byId = new Map(selected.map((p) => [p.id, p] as const));
  const valid = new Set(loaded.problems.map((p) => p.id));
  const invalidFiles = new Map<string, string>();
  for (const bad of loaded.invalid) {
    // A file that could not be read as far as its identifier (not JSON at all) is taken to be the problem its name says,
    // so that a submission for it is skipped because that file is invalid, rather than as an unknown problem.
    const id = bad.id ?? basename(bad.file, extname(bad.file));
    if (!valid.has(id) && !invalidFiles.has(id)) invalidFiles.set(id, bad.file);
  }
  const known = new Set([...valid, ...invalidFiles.keys()]);

  const prompts = new Map<string, readonly string[]>();
  for (const p of loaded.problems) if (p.promptIds !== undefined) prompts.set(p.id, p.promptIds);
  const found = await readSolutionsInWorkers(route, options.solutionsDir, known, prompts);
  const skipped: SkippedSubmissionReport[] = found.skipped.map((s) => ({ source: s.source, reason: s.reason }));
  const candidates = new SubmissionPlan(options.extractCode);
  planSubmissions(found.parts, { invalidFiles, byId, modelSelected }, candidates, skipped);
  candidates.finish();
  if (measures(options.graders)) {
    // Efficiency is scored against each problem's optimal solution, graded on the same route and tests; after the submissions, so theirs keep their places.
    const submitted = candidates.submittedProblems();
    candidates.addReferences(selected.filter((p) => submitted.has(p.id)));
  }
  return { candidates, skipped, walked: found.files, listed: null };
}

/**
 * Plans the submissions of `parts` (in walk order): each numbered among its
 * (problem, prompt, model)'s samples, over every submission found, before
 * any is left out; then one of an invalid problem skipped with the reason,
 * one the filters leave out dropped, and the rest planned.
 */
function planSubmissions(
  parts: SolutionsRead['parts'],
  select: { invalidFiles: ReadonlyMap<string, string>; byId: ReadonlyMap<string, ProblemSummary>; modelSelected: (id: string) => boolean },
  plan: SubmissionPlan,
  skipped: SkippedSubmissionReport[],
): void {
  // Every submission found may be planned: the plan's columns are made for that many at once.
  plan.expect(parts.reduce((n, { submissions }) => n + submissions.length, 0));
  const numbers = new SampleNumbers();
  const groups: SampleGroup[] = [];
  for (const { submissions: part } of parts)
    for (let i = 0; i < part.length; i++) groups.push(numbers.note(part.problemId(i), part.modelId(i), part.promptId(i), part.sampleId(i)));
  let next = 0;
  for (const { file, submissions: part } of parts) {
    for (let i = 0; i < part.length; i++) {
      const sample = numbers.number(groups[next++]!, part.sampleId(i));
      const problemId = part.problemId(i);
      const invalidFile = select.invalidFiles.get(problemId);
      if (invalidFile !== undefined) {
        const range = part.range(i);
        skipped.push({
          source: range === null ? part.inlineSource(i)! : rangeSource({ file, line: range.line }),
          reason: `problem "${problemId}" is invalid (${invalidFile})`,
        });
        continue;
      }
      const problem = select.byId.get(problemId);
      // Filtered out by --problem, --tag or --model: not run, and not an error.
      if (problem !== undefined && select.modelSelected(part.modelId(i))) plan.addFrom(problem, part, i, sample);
    }
  }
}

/** What the workers found in the solutions folder: each file's submissions in parts, in walk order, and what was skipped. */
interface SolutionsRead {
  parts: Array<{ file: string; submissions: SubmissionColumns }>;
  skipped: SkippedSubmission[];
  files: WalkedFile[];
}

/**
 * Finds the submissions as `discoverSubmissions` does, the supervisor only
 * walking the folder: the workers read the files, which grows with the
 * candidates, and know the problem ids from the run's context. Each file's
 * submissions come in parts, kept as the columns they arrive as.
 */
async function readSolutionsInWorkers(
  route: Route,
  dir: string,
  known: ReadonlySet<string>,
  prompts: ReadonlyMap<string, readonly string[]>,
): Promise<SolutionsRead> {
  const found = await findSolutionFiles(dir);
  const context = solutionDiscoveryContext(dir, known);
  const knownProblemIds = [...known];
  route.setContext({ knownProblemIds, promptIds: knownProblemIds.map((id) => prompts.get(id) ?? null), solutionsRootName: context.rootName });
  // By file: the parts so far of the attempt (its batch) that sent them, or why the file was skipped (`done`: nothing more of it is taken).
  const read: Array<{ batch: number; parts: SubmissionColumns[]; skipped: SkippedSubmission[]; done: boolean }> = found.files.map(() => ({
    batch: -1,
    parts: [],
    skipped: [],
    done: false,
  }));
  const skip = (index: number, batch: number, reason: string): void => {
    read[index] = { batch, parts: [], skipped: [{ source: found.files[index]!.source, reason }], done: true };
  };
  await route.send(
    found.files.map((file, index) => ({ index, item: { kind: 'read-solutions', file } })),
    {
      onMessage: (m, indexOf) => {
        const index = indexOf(0);
        if (m.type === 'solutions') {
          // Parts from an attempt that a worker fault cut short are dropped when the file is read again.
          const file = read[index]!.batch === m.batch ? read[index]! : (read[index] = { batch: m.batch, parts: [], skipped: [], done: false });
          if (file.done) return;
          const other = m.submissions.rangeFile();
          if (other !== null && other !== found.files[index]!.source) return skip(index, m.batch, `unreadable: evalrun read ${other} instead`);
          file.parts.push(m.submissions);
          file.skipped.push(...m.skipped);
        } else if (m.type === 'failed') {
          skip(index, m.batch, `unreadable: evalrun failed to read it: ${m.message}`);
        }
      },
      giveUp: (index, _, reason) => skip(index, -1, `unreadable: reading it stopped the sandbox worker: ${reason}`),
    },
  );
  return {
    parts: read.flatMap((file, index) => file.parts.map((submissions) => ({ file: found.files[index]!.source, submissions }))),
    skipped: [...found.skipped, ...read.flatMap((file) => file.skipped)],
    files: walkedSolutionFiles(found),
  };
}

export function reportProblems(selected: readonly ProblemSummary[], invalid: readonly InvalidProblemFile[], filters: Filters): ProblemReport[] {
  // A broken file is always reported, unless a --problem glob rules out its id.
  const byId = selector({ problems: filters.problems, tags: [], models: [] });
  const reports: ProblemReport[] = [
    ...selected.map((p) => ({ problem_id: p.id, file: p.file, valid: true, errors: [], warnings: [...p.warnings] })),
    ...invalid
      .filter((p) => p.id === null || byId.problem(p.id, []))
      .map((p) => ({ problem_id: p.id, file: p.file, valid: false, errors: p.errors, warnings: [] })),
  ];
  return reports.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
