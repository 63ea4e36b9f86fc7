/**
 * What `--resume` grades again: a logged candidate whose problem file or
 * solution file changed after the part of the run that graded it began,
 * so that its verdict is of text the file may no longer hold.
 *
 * A file counts as changed when its status-change time (ctime) or its
 * modification time is later than the start of that part, less a margin.
 * Every write, rename, copy or move into place sets the ctime, and no
 * ordinary tool sets it back (`touch -d`, `cp -p`, `rsync -t` and `tar x`
 * set only the modification time). The margin covers how the times are
 * kept: Linux stamps files from a clock that trails the precise one by up
 * to a timer tick, and some file systems keep whole seconds (or two), which
 * shows as a time with no fraction of a second. Its cost is grading again a
 * file changed just before the run began. A file touched and left as it
 * was is graded again too, to the same verdict. The supervisor pays for
 * this only when it resumes: one status call per file of a logged candidate.
 */
import { statSync } from 'node:fs';
import type { Candidate } from '../grading/candidate.js';
import type { CandidateList } from './candidate-list.js';

/** The margin for a time kept to a fraction of a second: a few timer ticks. */
const FINE_MARGIN_MS = 50;
/** The margin for a time kept in whole seconds, as FAT keeps two. */
const COARSE_MARGIN_MS = 2000;

export class ChangedFiles {
  private readonly changedAt = new Map<string, number>();
  /** The files found changed for a logged candidate, in the order found. */
  readonly found = new Set<string>();

  /** Whether `file` changed after `since` (ms since the epoch; NaN, unknown, counts as before any change). */
  since(file: string, since: number): boolean {
    let at = this.changedAt.get(file);
    if (at === undefined) {
      try {
        const stat = statSync(file);
        at = Math.max(stat.ctimeMs, stat.mtimeMs);
      } catch {
        // Gone or unreadable now: whatever the plan holds of it is not what was graded.
        at = Infinity;
      }
      this.changedAt.set(file, at);
    }
    const margin = at % 1000 === 0 ? COARSE_MARGIN_MS : FINE_MARGIN_MS;
    const changed = !(at < since - margin);
    if (changed) this.found.add(file);
    return changed;
  }
}

/** The solution file a candidate's code is read from; null for a problem's own optimal_solution. */
export function solutionFile(candidate: Candidate): string | null {
  const submission = candidate.submission;
  if (submission === null) return null;
  return submission.text.kind === 'range' ? submission.text.file : candidate.source;
}

/**
 * Whether the logged line of a planned candidate, by rank, was graded from
 * a file that changed since (its problem's or its solution's).
 * `partStartedAt`: by key, when the part of the run that logged the
 * candidate's last line began (RunLog.resume's VisitCandidate).
 */
export function gradedFromChangedFiles(candidates: CandidateList, partStartedAt: ReadonlyMap<string, number>, files: ChangedFiles): (rank: number) => boolean {
  return (rank) => {
    const since = partStartedAt.get(candidates.key(rank)) ?? NaN;
    // Both files are asked, so that the warning names every changed one.
    const problem = files.since(candidates.file(rank), since);
    const solution = solutionFile(candidates.at(rank));
    return (solution !== null && files.since(solution, since)) || problem;
  };
}
