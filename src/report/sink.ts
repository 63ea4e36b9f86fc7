import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeBytes, writeText } from '../write-text.js';
import type { Reporter, RunOutcome } from './reporter.js';

/** Where a rendered report goes: a file, or stdout when `file` is null. */
export interface ReportTarget {
  file: string | null;
  /** Told where a file was written (the CLI prints it). */
  announce?: (line: string) => void;
}

/**
 * Renders a finished run as text, in pieces, through `write`; a piece may be
 * UTF-8 bytes already (records copied from the run log), which the renderer
 * may reuse once `write` returns.
 */
export type RenderReport = (outcome: RunOutcome, write: (piece: string | Uint8Array) => void) => void;

export class ReportWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(`cannot write ${file}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Pieces are gathered up to this size before a write, so a large report costs few system calls. */
const CHUNK = 1 << 20;

/**
 * Writes a report to its target. Output is streamed in chunks, so a report
 * of 30,000 candidates never exists as one string.
 */
export function writeReport(outcome: RunOutcome, render: RenderReport, target: ReportTarget): void {
  if (target.file === null) {
    // stdout keeps a piece until it is written, and a renderer may reuse the bytes it gave: a copy.
    bufferedRender(outcome, render, (piece) => void process.stdout.write(typeof piece === 'string' ? piece : Buffer.from(piece)));
    return;
  }
  const file = target.file;
  let fd: number;
  try {
    mkdirSync(dirname(file), { recursive: true });
    fd = openSync(file, 'w');
  } catch (e) {
    throw new ReportWriteError(file, e);
  }
  try {
    bufferedRender(outcome, render, (piece) => (typeof piece === 'string' ? void writeText(fd, piece, null) : writeBytes(fd, piece, null)));
  } catch (e) {
    throw new ReportWriteError(file, e);
  } finally {
    closeSync(fd);
  }
  target.announce?.(file);
}

function bufferedRender(outcome: RunOutcome, render: RenderReport, flush: (piece: string | Uint8Array) => void): void {
  let buffer = '';
  render(outcome, (piece) => {
    if (typeof piece !== 'string') {
      if (buffer !== '') flush(buffer);
      buffer = '';
      flush(piece);
      return;
    }
    buffer += piece;
    if (buffer.length >= CHUNK) {
      flush(buffer);
      buffer = '';
    }
  });
  if (buffer !== '') flush(buffer);
}

/** A reporter that renders the finished run once, to its target. */
export function renderingReporter(render: RenderReport, target: ReportTarget): Reporter {
  return { onRunEnd: (outcome) => writeReport(outcome, render, target) };
}
