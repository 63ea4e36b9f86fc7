/**
 * The problems a grading service holds: loaded and checked once, when it
 * starts (a folder, or problems given as objects or text), plus problems
 * that arrive with a request. Each is kept as its JSON text and a summary:
 * the text is what workers grade against (they check it again, with the same
 * loader, and keep the prepared problem for the next candidates), so the
 * supervisor holds no decoded tests. Every check is the one a problem file
 * gets (problems/load.ts), with the same messages: `<name>: $.json.path:
 * what was expected`.
 */
import { createHash } from 'node:crypto';
import { MAX_PROBLEM_FILE_BYTES, readProblemText } from '../problems/file-text.js';
import { invalid, isInvalidProblemFile, listProblemFiles, splitAndRejectDuplicates } from '../problems/find-files.js';
import { loadProblemText } from '../problems/load.js';
import type { InvalidProblemFile, PreparedProblem } from '../problems/prepared.js';
import { languageOfDialect } from '../engines/find-language.js';
import { detectLanguage } from '../solutions/language.js';

/**
 * A problem as JSON text, for callers that have the text: integers written
 * past 2^53, and whether a test's number was written `1` or `1.0`, survive
 * only in text (a parsed object has lost both).
 */
export class ProblemText {
  constructor(readonly text: string) {}
}

/** A problem in the problem-definition format, as a parsed object. */
export type ProblemDocument = Record<string, unknown>;

/** What the service keeps of a valid problem. */
export interface HeldProblem {
  id: string;
  /** Names the problem to the workers (its file, or `inline:<digest>`), and in messages about it. */
  key: string;
  /** Its JSON text, as the workers check and grade it. */
  text: string;
  tags: string[];
  /** Tests of its correctness suite: what a submitted candidate runs. */
  tests: number;
  /** The language its optimal_solution is written in, if it has one. */
  solutionLanguage: string | null;
  /** The ids of its prompts, which a candidate may name as the one it answers. */
  promptIds: string[];
}

/** A problem that could not be used, with every reason. */
export class InvalidProblem extends Error {
  constructor(readonly errors: readonly string[]) {
    super(errors.length === 1 ? errors[0] : `${errors[0]} (and ${errors.length - 1} more)`);
    this.name = 'InvalidProblem';
  }
}

/** Problems sent with requests that are kept checked, by their text's digest, so that a loop that sends one problem many times checks it once. */
const INLINE_KEPT = 256;

export class ProblemSet {
  private readonly byId = new Map<string, HeldProblem>();
  private readonly inline = new Map<string, HeldProblem>();

  private constructor(
    problems: readonly HeldProblem[],
    /** Files (or given problems) that could not be used, with their reasons. */
    readonly invalid: readonly InvalidProblemFile[],
  ) {
    for (const p of problems) this.byId.set(p.id, p);
  }

  /** Reads and checks every problem file under `dir` (throws ProblemDirectoryError as a run does); invalid files are kept in `invalid`. */
  static async fromFolder(dir: string): Promise<ProblemSet> {
    const loaded: Array<HeldProblem | InvalidProblemFile> = [];
    for (const found of await listProblemFiles(dir)) {
      if (typeof found !== 'string') {
        loaded.push(found);
        continue;
      }
      const read = readProblemText(found, MAX_PROBLEM_FILE_BYTES);
      if (!read.ok) {
        loaded.push(invalid(found, null, [`${found}: ${read.message}`]));
        continue;
      }
      loaded.push(hold(loadProblemText(read.text, found, { readWarnings: read.warnings }), read.text, found));
    }
    return ProblemSet.of(loaded);
  }

  /** Checks problems given as objects or text; throws InvalidProblem naming each one that is not valid (`problems[i]`). */
  static fromList(problems: ReadonlyArray<ProblemDocument | ProblemText>): ProblemSet {
    const loaded = problems.map((p, i) => {
      const text = textOf(p);
      return hold(loadProblemText(text, `problems[${i}]`), text, `problems[${i}]`);
    });
    const set = ProblemSet.of(loaded);
    if (set.invalid.length > 0) throw new InvalidProblem(set.invalid.flatMap((p) => p.errors));
    return set;
  }

  private static of(loaded: ReadonlyArray<HeldProblem | InvalidProblemFile>): ProblemSet {
    const { problems, invalid: bad } = splitAndRejectDuplicates(loaded.map((p) => (isInvalidProblemFile(p) ? p : { ...p, file: p.key })));
    return new ProblemSet(problems, bad);
  }

  /** Every valid problem, in load order. */
  list(): HeldProblem[] {
    return [...this.byId.values()];
  }

  get(id: string): HeldProblem | undefined {
    return this.byId.get(id);
  }

  /**
   * A problem sent with a request, checked as a file with its text would be
   * (`name` starts each message); throws InvalidProblem. Kept by digest for
   * the next request that sends the same text.
   */
  fromRequest(problem: ProblemDocument | ProblemText, name = 'problem'): HeldProblem {
    const text = textOf(problem);
    const key = `inline:${createHash('sha256').update(text).digest('hex')}`;
    const kept = this.inline.get(key);
    if (kept !== undefined) {
      this.inline.delete(key);
      this.inline.set(key, kept);
      return kept;
    }
    const held = hold(loadProblemText(text, name), text, key);
    if (isInvalidProblemFile(held)) throw new InvalidProblem(held.errors);
    if (this.inline.size >= INLINE_KEPT) this.inline.delete(this.inline.keys().next().value as string);
    this.inline.set(key, held);
    return held;
  }

  /** Languages of the problems' optimal solutions: the engines worth starting before the first request. */
  solutionLanguages(): string[] {
    return [...new Set(this.list().flatMap((p) => (p.solutionLanguage === null ? [] : [p.solutionLanguage])))];
  }
}

function textOf(problem: ProblemDocument | ProblemText): string {
  if (problem instanceof ProblemText) return problem.text;
  if (typeof problem !== 'object' || problem === null || Array.isArray(problem)) throw new InvalidProblem(['problem: $: expected a JSON object']);
  try {
    return JSON.stringify(problem);
  } catch (e) {
    throw new InvalidProblem([`problem: $: cannot be written as JSON (${e instanceof Error ? e.message : String(e)})`]);
  }
}

function hold(loaded: PreparedProblem | InvalidProblemFile, text: string, key: string): HeldProblem | InvalidProblemFile {
  if (isInvalidProblemFile(loaded)) return loaded;
  const solution = loaded.problem.optimal_solution;
  return {
    id: loaded.id,
    key,
    text,
    tags: loaded.problem.tags ?? [],
    tests: loaded.correctness.tests.length,
    solutionLanguage: typeof solution === 'string' ? languageOfDialect(detectLanguage(solution, { declared: null, fenceLanguage: null })).name : null,
    promptIds: loaded.problem.prompts.map((p) => p.prompt_id),
  };
}
