/**
 * Reads one shard of a sharded run for `evalrun merge`: its run log
 * (`.jsonl`) or its JSON scorecard. Only where each candidate's results
 * are is kept; they are read again, one candidate at a time, when the
 * merged log is written.
 *
 * A run log is read through runlog/ as `--resume` and `evalrun report` read
 * it: the candidates that have a complete line count (a line cut short by a
 * kill is ignored, and a later line for the same candidate wins), so a
 * shard that was interrupted and resumed reads as the whole shard. A scorecard lists results in its plan order; its `shard`
 * block gives each listed candidate's rank in the whole run's plan, and the
 * consecutive results with one `source` are one candidate's (a self-check
 * reports a solution once per suite).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parseExactJson } from '../problems/exact-json.js';
import type { CandidateResult, ProblemReport, Scorecard, ScorecardHead, SkippedSubmissionReport, TestLimitsReport } from '../report/scorecard.js';
import { candidateKey } from '../runlog/candidate-key.js';
import { readLines, RunLog } from '../runlog/run-log.js';
import { decodeRanks, type ShardRecord } from '../runner/shard-plan.js';

/** A shard that cannot be merged: a message naming the file and what is wrong. */
export class MergeRefused extends Error {}

/** Where one candidate's results are in a shard's file. */
export type ResultsAt =
  /** A candidate of a run log, read back through the log. */
  | { kind: 'log'; key: string }
  /** Consecutive scorecard lines, one result each (with a trailing comma but the last). */
  | { kind: 'card-lines'; lines: Array<{ offset: number; length: number }> }
  /** Results of a scorecard not written in evalrun's own layout, parsed whole. */
  | { kind: 'parsed'; results: CandidateResult[] };

export interface ShardCandidate {
  /** Its position in the whole run's plan: the merged scorecard's order. */
  rank: number;
  key: string;
  at: ResultsAt;
}

export interface ShardInput {
  file: string;
  kind: 'log' | 'scorecard';
  mode: ScorecardHead['mode'];
  options: Record<string, unknown>;
  startedAt: string;
  /** Null for a run log, which does not record when its run ended. */
  finishedAt: string | null;
  record: ShardRecord;
  problems: ProblemReport[];
  skipped: SkippedSubmissionReport[];
  /** Candidates this shard planned. */
  planned: number;
  /** Those it finished, in its plan order. */
  candidates: ShardCandidate[];
  /** The test limits it graded under (--timeout-factor), by problem id. */
  limits: ReadonlyMap<string, TestLimitsReport>;
  /** One candidate's results, read back from where they were found. */
  results(at: ResultsAt): CandidateResult[];
  /** Lets go of the file. */
  close(): void;
}

export function readShard(file: string): ShardInput {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new MergeRefused(`${file}: cannot read it (${e instanceof Error ? e.message : String(e)})`);
  }
  // A scorecard's results are read from this descriptor when the merge writes them; a log reads through its RunLog.
  let keep = false;
  try {
    const size = fstatSync(fd).size;
    if (size === 0) throw new MergeRefused(`${file}: empty file, not a run log or scorecard`);
    // A run log's header line starts so; anything else is read as a scorecard.
    if (readBytes(file, fd, 0, Math.min(size, LOG_START.length)) === LOG_START) return readLog(file);
    const shard = readScorecard(file, fd, size);
    keep = true;
    return shard;
  } finally {
    if (!keep) closeSync(fd);
  }
}

function readBytes(file: string, fd: number, offset: number, length: number): string {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, offset + read);
    if (n === 0) throw new MergeRefused(`${file}: changed while it was merged (it ends early at byte ${offset + read})`);
    read += n;
  }
  return buffer.toString('utf8');
}

function readLog(file: string): ShardInput {
  let read: ReturnType<typeof RunLog.read>;
  try {
    read = RunLog.read(file, () => undefined);
  } catch (e) {
    throw new MergeRefused(e instanceof Error ? e.message : String(e));
  }
  const { log, header, logged, limits } = read;
  try {
    const shard = header.shard;
    if (shard === undefined) throw notSharded(file, 'run log');
    const rankOf = new Map(shard.planned.map(([rank, key]) => [key, rank] as const));
    const found = new Map<string, ShardCandidate>();
    for (const key of logged) {
      const rank = rankOf.get(key);
      if (rank === undefined) throw new MergeRefused(`${file}: holds a candidate its shard did not plan (${key})`);
      found.set(key, { rank, key, at: { kind: 'log', key } });
    }
    const { planned: plan, problems, skipped_submissions: skipped, ...record } = shard;
    return {
      file,
      kind: 'log',
      mode: header.mode,
      options: header.options,
      startedAt: header.started_at,
      finishedAt: null,
      record,
      problems,
      skipped,
      planned: plan.length,
      // In plan order, whatever order they finished in.
      candidates: plan.flatMap(([, key]) => found.get(key) ?? []),
      limits,
      results: (at) => (at.kind === 'log' ? log.results(at.key) : []),
      close: () => log.close(),
    };
  } catch (e) {
    log.close();
    throw e;
  }
}

const LOG_START = '{"type":"run"';
const CANDIDATES_LINE = '  "candidates": [';

/**
 * A scorecard evalrun wrote has its head first and then one result per
 * line; only the head is parsed here. Any other layout of the same JSON is
 * parsed whole.
 */
function readScorecard(file: string, fd: number, size: number): ShardInput {
  let headText = '';
  const resultLines: Array<{ offset: number; length: number; text: string }> = [];
  let inCandidates = false;
  for (const line of readLines(fd, size)) {
    if (!inCandidates) {
      if (line.text.startsWith(CANDIDATES_LINE)) {
        inCandidates = true;
        headText += '  "candidates": []\n}\n';
      } else headText += line.text;
    } else if (line.text.startsWith('    {')) resultLines.push(line);
  }
  let head: Scorecard;
  let parsed: CandidateResult[] | null = null;
  try {
    if (inCandidates) head = JSON.parse(headText) as Scorecard;
    else {
      head = JSON.parse(readBytes(file, fd, 0, size)) as Scorecard;
      parsed = head.candidates;
    }
  } catch (e) {
    throw new MergeRefused(`${file}: not a run log or a JSON scorecard (${e instanceof Error ? e.message : String(e)})`);
  }
  if (head.shard === undefined) throw notSharded(file, 'scorecard');
  // Which results belong together: consecutive ones with one source. Each line is parsed once, here, for its identity.
  const metas = parsed !== null ? parsed.map((r) => identity(r, head.mode)) : resultLines.map((l) => identity(parseResultLine(file, l.text), head.mode));
  const groups: number[][] = [];
  metas.forEach((meta, i) => {
    if (i > 0 && meta.source === metas[i - 1]!.source) groups[groups.length - 1]!.push(i);
    else groups.push([i]);
  });
  let ranks: number[];
  try {
    ranks = decodeRanks(head.shard.ranks);
  } catch (e) {
    throw new MergeRefused(`${file}: shard.ranks: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (ranks.length !== groups.length) {
    throw new MergeRefused(`${file}: lists ${groups.length} candidates but its shard block ranks ${ranks.length}`);
  }
  const candidates = groups.map((indexes, g): ShardCandidate => {
    const at: ResultsAt =
      parsed !== null
        ? { kind: 'parsed', results: indexes.map((i) => parsed[i]!) }
        : { kind: 'card-lines', lines: indexes.map((i) => ({ offset: resultLines[i]!.offset, length: resultLines[i]!.length })) };
    return { rank: ranks[g]!, key: metas[indexes[0]!]!.key, at };
  });
  const { ranks: _ranks, ...record } = head.shard;
  return {
    file,
    kind: 'scorecard',
    mode: head.mode,
    options: head.options,
    startedAt: head.started_at,
    finishedAt: head.finished_at,
    record,
    problems: head.problems,
    skipped: head.skipped_submissions,
    planned: record.loads[record.index - 1]?.candidates ?? 0,
    candidates,
    limits: new Map(head.problems.flatMap((p) => (p.problem_id !== null && p.test_limits !== undefined ? [[p.problem_id, p.test_limits] as const] : []))),
    results: (at) => {
      if (at.kind === 'parsed') return at.results;
      if (at.kind === 'card-lines') return at.lines.map((l) => parseResultLine(file, readBytes(file, fd, l.offset, l.length)));
      return [];
    },
    close: () => closeSync(fd),
  };
}

/**
 * A result's source, and the key its candidate had (a self-check's is keyed
 * without the prompt of a sample suite).
 */
function identity(result: CandidateResult, mode: ScorecardHead['mode']): { source: string; key: string } {
  const key = candidateKey({
    problemId: result.problem_id,
    modelId: result.model_id,
    promptId: mode === 'self-check' ? null : result.prompt_id,
    sampleId: result.sample_id,
    source: result.source,
  });
  return { source: result.source, key };
}

function parseResultLine(file: string, line: string): CandidateResult {
  try {
    return parseExactJson(line.trimEnd().replace(/,$/, '')) as CandidateResult;
  } catch (e) {
    throw new MergeRefused(`${file}: a candidate line is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

function notSharded(file: string, what: string): MergeRefused {
  return new MergeRefused(`${file}: this ${what} has no shard record; only runs made with --shard I/N can be merged`);
}
