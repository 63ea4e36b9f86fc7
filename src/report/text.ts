/** Small text helpers shared by the human-readable reports. */

export function percent(rate: number): string {
  let text = percentNumber(rate);
  // All but one of 2,000 is not 100.0%, and one of 3,000 is not 0.0%.
  if (text === '100.0' && rate < 1) text = '99.9';
  else if (text === '0.0' && rate > 0) text = '0.1';
  return `${text}%`;
}

/**
 * A rate as a percentage with one decimal, a tie rounded away from zero as
 * the fraction it stands for would be: 23/80 is 28.75%, whose double is a
 * hair below it (28.749999999999996), so it is read at twelve significant
 * digits first and shows as 28.8, as 21/80 shows as 26.3.
 */
export function percentNumber(rate: number): string {
  const text = Number((Math.abs(rate) * 100).toPrecision(12)).toFixed(1);
  return rate < 0 && text !== '0.0' ? `-${text}` : text;
}

/** A change of a rate in percentage points: `+8.8 pt`, `-2.5 pt`, `n/a`. */
export function pointsChange(change: number | null): string {
  return change === null ? 'n/a' : `${change >= 0 ? '+' : ''}${percentNumber(change)} pt`;
}

/**
 * Text that shows as it is in a terminal and a Markdown viewer: control
 * characters other than tab and newline (C0, DEL, C1; a candidate's error
 * message can hold escape sequences that clear a screen or set its title)
 * and the marks that reorder the text around them (bidirectional overrides
 * and isolates) are written as `\u001b` escapes.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// Control characters are what this expression is for.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One line of at most `max` characters, ending in `…` when cut. */
export function shorten(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** `12 s`, `3m 05s`, `1h 02m`: for elapsed and remaining time. */
export function formatClock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** A pass@k value as a percentage; `n/a` where it cannot be computed. */
export function passAtKLabel(value: number | null): string {
  return value === null ? 'n/a' : percent(value);
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** An efficiency score (0 to 1) with three decimals; `n/a` when there is none. */
export function scoreLabel(score: number | null | undefined): string {
  return typeof score === 'number' ? score.toFixed(3) : 'n/a';
}

/** A group's mean score and how many candidates it is over: `0.833 (12)`; `n/a (0)` when none was scored. */
export function meanLabel(mean: { mean: number | null; scored: number } | undefined): string {
  return mean === undefined ? '' : `${scoreLabel(mean.mean)} (${mean.scored})`;
}
