import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { CandidateResult } from './scorecard.js';

/**
 * The run log: `results/<run>.jsonl`, one line per graded candidate,
 * written with a synchronous write as soon as the candidate finishes, so a
 * `kill -9` loses only candidates that had not finished. `--resume` reads
 * it back and grades only what is missing.
 */
export type LogLine =
  | { type: 'run'; run_id: string; started_at: string; options: Record<string, unknown> }
  | { type: 'candidate'; key: string; results: CandidateResult[] };

/** Identifies a candidate across runs: the same problem, model, prompt, sample and source. */
export function candidateKey(parts: {
  problemId: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  source: string;
}): string {
  return JSON.stringify([parts.problemId, parts.modelId, parts.promptId, parts.sampleId, parts.source]);
}

export interface RunLog {
  record(key: string, results: readonly CandidateResult[]): void;
  close(): void;
}

export function openRunLog(file: string, header: Extract<LogLine, { type: 'run' }> | null): RunLog {
  const fd = openSync(file, 'a');
  let open = true;
  const append = (line: LogLine): void => {
    if (open) writeSync(fd, `${JSON.stringify(line)}\n`);
  };
  if (header !== null) append(header);
  return {
    record(key, results) {
      append({ type: 'candidate', key, results: [...results] });
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

export interface ReadLog {
  header: Extract<LogLine, { type: 'run' }> | null;
  done: Map<string, CandidateResult[]>;
  /** Lines that could not be read (a line cut short by a kill is expected: the last one). */
  damaged: number;
}

export function readLog(file: string): ReadLog {
  const result: ReadLog = { header: null, done: new Map(), damaged: 0 };
  if (!existsSync(file)) return result;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let parsed: LogLine;
    try {
      parsed = JSON.parse(line) as LogLine;
    } catch {
      result.damaged++;
      continue;
    }
    if (parsed.type === 'run' && result.header === null) result.header = parsed;
    else if (parsed.type === 'candidate' && typeof parsed.key === 'string' && Array.isArray(parsed.results)) {
      result.done.set(parsed.key, parsed.results);
    } else result.damaged++;
  }
  return result;
}
