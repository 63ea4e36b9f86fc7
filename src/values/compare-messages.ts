/**
 * What a comparison says about a difference: where it is (a path of
 * segments) and what it is (a reason, rendered only when reported).
 */

import { formatValue } from './format.js';
import { tagOf } from './py-tags.js';
import { formatType } from './type-format.js';
import type { TypeNode } from './type-node.js';

export type Segment = string | number;

/**
 * Segments run innermost first: they are collected while unwinding. The
 * reason is only rendered for the mismatch that is reported: set matching
 * meets thousands of unequal pairs and must not format each of them.
 */
export interface Mismatch {
  segments: Segment[];
  reason: () => string;
}

/** A mismatch, or undefined when the values are equal. */
export type Outcome = Mismatch | undefined;

/** Display length of values inside reasons. */
export const SHOWN = 40;

const STRING_CONTEXT = 12;

export function differ(reason: () => string): Mismatch {
  return { segments: [], reason };
}

export function at(mismatch: Mismatch, segment: Segment): Mismatch {
  mismatch.segments.push(segment);
  return mismatch;
}

export function show(value: unknown): string {
  return formatValue(value, SHOWN);
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'bigint') return 'number';
  switch (tagOf(value)) {
    case 'tuple':
      return 'array';
    case 'set':
    case 'frozenset':
      return 'set';
    case 'float':
      return 'number';
    case 'dict':
      return 'object';
    default:
      return typeof value;
  }
}

/** `expected int, got string "3"`. */
export function wrongKind(expected: string | TypeNode, actual: unknown): Mismatch {
  return differ(() => {
    const kind = kindOf(actual);
    const shown = kind === 'null' || kind === 'undefined' ? kind : `${kind} ${show(actual)}`;
    return `expected ${typeof expected === 'string' ? expected : formatType(expected)}, got ${shown}`;
  });
}

export function setReason(missing: unknown, unexpected: unknown): string {
  const parts: string[] = [];
  if (missing !== undefined) parts.push(`missing element ${show(missing)}`);
  if (unexpected !== undefined) parts.push(`unexpected element ${show(unexpected)}`);
  return parts.join(', ');
}

/**
 * Short strings are shown whole; for long ones, where they first differ,
 * since two truncated displays could look identical.
 */
export function stringDifference(expected: string, actual: string): string {
  const whole = `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  if (whole.length <= 2 * SHOWN + 16) return whole;
  let index = 0;
  while (index < expected.length && index < actual.length && expected[index] === actual[index]) index++;
  const excerpt = (text: string): string => {
    const start = Math.max(0, index - STRING_CONTEXT);
    const end = Math.min(text.length, index + STRING_CONTEXT);
    return `${start > 0 ? '…' : ''}${JSON.stringify(text.slice(start, end))}${end < text.length ? '…' : ''}`;
  };
  const lengths = expected.length === actual.length ? '' : ` (length ${expected.length} vs ${actual.length})`;
  return `strings differ at index ${index}: expected ${excerpt(expected)}, got ${excerpt(actual)}${lengths}`;
}

/** `$`, `$[2]`, `$.key`, `$["odd key"][0]`. */
export function renderPath(innermostFirst: Segment[]): string {
  let path = '$';
  for (let i = innermostFirst.length - 1; i >= 0; i--) {
    const segment = innermostFirst[i]!;
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}
