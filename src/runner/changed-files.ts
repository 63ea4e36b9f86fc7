/**
 * What `--resume` grades again: a logged candidate whose problem file or
 * solution file changed after the part of the run that graded it began,
 * so that its verdict is of text the file may no longer hold; and one
 * whose problem is now read from another file than the one it was graded
 * against (two files with one id, the first removed since).
 *
 * A file counts as changed when a time the file system keeps for it is
 * later than the start of that part, less a margin: its status-change time
 * (ctime) and its modification time; those of the link, when the path is a
 * symbolic link (repointing it changes the link, not the old target); and
 * the status-change times of the folders between the file and the folder
 * the run was given (moving a folder into place changes that folder, not
 * the files in it), and of that folder itself when it is a link. Every
 * write, rename, copy or move into place sets a ctime, and no ordinary tool
 * sets one back (`touch -d`, `cp -p`, `rsync -t` and `tar x` set only the
 * modification time). A folder's ctime changes too when a file is added to
 * or removed from it, so its candidates are graded again then, to the same
 * verdicts. Not noticed: the run's own folder replaced by renaming another
 * over it, and clocks that disagree (a network file system's server).
 *
 * The margin covers how the times are kept: Linux stamps files from a clock
 * that trails the precise one by up to a timer tick, and some file systems
 * keep whole seconds (or two), which shows as a time with no fraction of a
 * second. The supervisor pays for this only when it resumes: a few status
 * calls per file of a logged candidate.
 */
import { lstatSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import type { Candidate } from '../grading/candidate.js';
import type { CandidateList } from './candidate-list.js';

/** The margin for a time kept to a fraction of a second: a few timer ticks. */
const FINE_MARGIN_MS = 50;
/** The margin for a time kept in whole seconds, as FAT keeps two. */
const COARSE_MARGIN_MS = 2000;

/** The latest time a file system keeps for a path, and whether it keeps whole seconds. */
interface Stamp {
  at: number;
  coarse: boolean;
}

const GONE: Stamp = { at: Infinity, coarse: false };

export class ChangedFiles {
  private readonly stamps = new Map<string, Stamp>();
  private readonly folders = new Map<string, Stamp>();
  private readonly roots: string[];
  /** The files found changed for a logged candidate, in the order found. */
  readonly found = new Set<string>();

  /** `roots`: the folders the run was given (problems, solutions), under which folders count. */
  constructor(roots: readonly string[]) {
    this.roots = roots.map((root) => resolve(root));
  }

  /** Whether `file` changed after `since` (ms since the epoch; NaN, unknown, counts as before any change). */
  since(file: string, since: number): boolean {
    let stamp = this.stamps.get(file);
    if (stamp === undefined) this.stamps.set(file, (stamp = this.stampOf(file)));
    const changed = !(stamp.at < since - (stamp.coarse ? COARSE_MARGIN_MS : FINE_MARGIN_MS));
    if (changed) this.found.add(file);
    return changed;
  }

  private stampOf(file: string): Stamp {
    let stamp: Stamp;
    try {
      const target = statSync(file);
      const link = lstatSync(file);
      stamp = latest([target.ctimeMs, target.mtimeMs, link.ctimeMs]);
    } catch {
      // Gone or unreadable now: whatever the plan holds of it is not what was graded.
      return GONE;
    }
    const path = resolve(file);
    const root = this.roots.find((r) => path === r || path.startsWith(r.endsWith(sep) ? r : r + sep));
    if (root === undefined) return stamp;
    if (path !== root) {
      for (let folder = dirname(path); folder !== root && folder !== dirname(folder); folder = dirname(folder))
        stamp = later(stamp, this.folderStamp(folder, false));
    }
    return later(stamp, this.folderStamp(root, true));
  }

  /** A folder's status-change time (a root's only when it is a link, whose own time is its target's). */
  private folderStamp(folder: string, root: boolean): Stamp {
    let stamp = this.folders.get(folder);
    if (stamp === undefined) {
      try {
        const link = lstatSync(folder);
        stamp = root && !link.isSymbolicLink() ? { at: -Infinity, coarse: false } : latest([link.ctimeMs]);
      } catch {
        stamp = GONE;
      }
      this.folders.set(folder, stamp);
    }
    return stamp;
  }
}

function latest(times: readonly number[]): Stamp {
  const at = Math.max(...times);
  return { at, coarse: times.some((t) => t % 1000 === 0) };
}

function later(a: Stamp, b: Stamp): Stamp {
  return { at: Math.max(a.at, b.at), coarse: a.coarse || b.coarse };
}

/** The solution file a candidate's code is read from; null for a problem's own optimal_solution. */
export function solutionFile(candidate: Candidate): string | null {
  const submission = candidate.submission;
  if (submission === null) return null;
  return submission.text.kind === 'range' ? submission.text.file : candidate.source;
}

/**
 * Whether the logged line of a planned candidate, by rank, was graded from
 * a file that changed since (its problem's or its solution's), or against
 * another problem file than its problem's now. `partStartedAt`: by key,
 * when the part of the run that logged the candidate's last line began
 * (RunLog.resume's VisitCandidate); `plannedFiles`: each problem's file by
 * id as the log's last plan line lists them (null: none).
 */
export function gradedFromChangedFiles(
  candidates: CandidateList,
  partStartedAt: ReadonlyMap<string, number>,
  plannedFiles: ReadonlyMap<string, string> | null,
  files: ChangedFiles,
): (rank: number) => boolean {
  return (rank) => {
    const since = partStartedAt.get(candidates.key(rank)) ?? NaN;
    const problemFile = candidates.file(rank);
    const before = plannedFiles?.get(candidates.problemId(rank));
    const moved = before !== undefined && before !== problemFile;
    if (moved) files.found.add(before);
    // Every file is asked, so that the warning names each changed one.
    const problem = files.since(problemFile, since);
    const solution = solutionFile(candidates.at(rank));
    return (solution !== null && files.since(solution, since)) || problem || moved;
  };
}
