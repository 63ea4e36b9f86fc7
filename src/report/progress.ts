import type { Reporter, RunStartInfo } from './reporter.js';
import { formatClock, plural } from './text.js';

/**
 * Live progress on stderr. On a terminal, one line redrawn in place a few
 * times a second; otherwise (a pipe, a file, CI) a plain line every ten
 * seconds, so a log stays readable. Counting a candidate is a few additions
 * on the row the run log already produced; drawing happens on a timer,
 * never per result, so progress costs the run nothing it would notice.
 */
export interface ProgressOptions {
  stream: ProgressStream;
  /** Redraw one line in place (a terminal) rather than print plain lines. */
  live: boolean;
  /** Milliseconds between two updates; default 200 live, 10,000 plain. */
  intervalMs?: number;
  now?: () => number;
}

/** What progress needs of stderr. */
export interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
}

export interface ProgressCounts {
  done: number;
  total: number;
  testsPassed: number;
  tests: number;
  failing: number;
  elapsedMs: number;
}

/**
 * Where progress goes, by the rules users expect of test runners: live on a
 * terminal, plain lines elsewhere or under CI, nothing at all when stdout
 * carries JSON and stderr is not a terminal (stderr is then most likely
 * captured with stdout by a program), or when the user turned it off.
 */
export function progressMode(options: { enabled: boolean; stderrIsTty: boolean; ci: boolean; jsonOnStdout: boolean }): 'live' | 'plain' | 'off' {
  if (!options.enabled) return 'off';
  if (options.jsonOnStdout && !options.stderrIsTty) return 'off';
  return options.stderrIsTty && !options.ci ? 'live' : 'plain';
}

export function progressLine(c: ProgressCounts): string {
  const parts = [
    `${c.done}/${c.total} candidates`,
    `${c.testsPassed}/${c.tests} tests passed`,
    `${plural(c.failing, 'failing test')}`,
    `${formatClock(c.elapsedMs)} elapsed`,
  ];
  const left = remainingMs(c);
  if (left !== null) parts.push(`~${formatClock(left)} left`);
  return parts.join(' · ');
}

/** A straight-line estimate from the pace so far; none until something is done. */
function remainingMs(c: ProgressCounts): number | null {
  if (c.done === 0 || c.done >= c.total) return c.done >= c.total && c.total > 0 ? 0 : null;
  return (c.elapsedMs / c.done) * (c.total - c.done);
}

export function progressReporter(options: ProgressOptions): Reporter {
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? (options.live ? 200 : 10_000);
  const started = now();
  const counts: ProgressCounts = { done: 0, total: 0, testsPassed: 0, tests: 0, failing: 0, elapsedMs: 0 };
  let timer: NodeJS.Timeout | null = null;
  let drawn = '';
  let dirty = true;

  const draw = (): void => {
    counts.elapsedMs = now() - started;
    let line = progressLine(counts);
    if (options.live) {
      // A line longer than the terminal would wrap, and \r would redraw only its last part.
      // A pseudo-terminal without a size reports 0 columns.
      const width = (options.stream.columns || 80) - 1;
      if (line.length > width) line = `${line.slice(0, Math.max(0, width - 1))}…`;
      if (line === drawn && !dirty) return;
      options.stream.write(`\r\x1b[2K${line}`);
      drawn = line;
    } else {
      options.stream.write(`evalrun: ${line}\n`);
    }
    dirty = false;
  };

  const stop = (): void => {
    if (timer !== null) clearInterval(timer);
    timer = null;
    if (options.live && drawn !== '') options.stream.write('\r\x1b[2K');
    drawn = '';
  };

  return {
    onPlan(info: RunStartInfo) {
      counts.total = info.candidates;
      dirty = true;
    },
    onRunStart(info: RunStartInfo) {
      counts.total = info.candidates;
      timer = setInterval(draw, intervalMs);
      // Progress must never keep a finished run's process alive.
      timer.unref();
      if (options.live) draw();
    },
    onCandidateCounted(tests: number, passed: number) {
      counts.done++;
      counts.tests += tests;
      counts.testsPassed += passed;
      counts.failing += tests - passed;
      dirty = true;
    },
    onRunEnd() {
      stop();
    },
  };
}
