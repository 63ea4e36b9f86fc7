import type { Value } from './type-node.js';
import { recordJson } from './wire.js';

/** Largest recorded actual value, as JSON text, before it is replaced by a marker. */
export const MAX_RECORDED_VALUE_CHARS = 4096;
/** Largest recorded candidate source text (raw and as run). */
export const MAX_RECORDED_CODE_CHARS = 65536;
/** Largest recorded error message. */
export const MAX_RECORDED_MESSAGE_CHARS = 2000;

/**
 * Keeps what a scorecard records small. A value whose JSON exceeds the cap
 * is replaced by `{ "$truncated": <first chars of its JSON>, "length": <full length> }`;
 * the verdict was already decided on the full value.
 */
export function boundValue(value: Value): Value {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string' && value.length > MAX_RECORDED_VALUE_CHARS) {
      return { $truncated: value.slice(0, MAX_RECORDED_VALUE_CHARS), length: value.length };
    }
    return value;
  }
  // recordJson: a value may hold integers beyond 2**53 (bigints).
  const json = recordJson(value);
  if (json.length <= MAX_RECORDED_VALUE_CHARS) return value;
  return { $truncated: json.slice(0, MAX_RECORDED_VALUE_CHARS), length: json.length };
}

export function boundMessage(message: string): string {
  if (message.length <= MAX_RECORDED_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_RECORDED_MESSAGE_CHARS)}… [${message.length - MAX_RECORDED_MESSAGE_CHARS} more characters]`;
}

export function boundCode(code: string): string {
  if (code.length <= MAX_RECORDED_CODE_CHARS) return code;
  return `${code.slice(0, MAX_RECORDED_CODE_CHARS)}\n… [${code.length - MAX_RECORDED_CODE_CHARS} more characters]`;
}
