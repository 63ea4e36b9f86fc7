/**
 * A candidate's key: what identifies it across runs (for `--resume`), the
 * same problem, model, prompt, sample and source. The run log writes it as
 * a JSON string inside each candidate's line and in the plan line.
 */

/** The parts of a candidate that make its key. */
export interface KeyParts {
  problemId: string;
  modelId: string;
  promptId: string | null;
  sampleId: string | null;
  source: string;
}

export function candidateKey(c: KeyParts): string {
  return JSON.stringify([c.problemId, c.modelId, c.promptId, c.sampleId, c.source]);
}

/**
 * A key as the run log writes it: a JSON string literal, `quoteKey(key)`.
 * The supervisor writes one for every candidate's line and again in the
 * plan line, so it makes it straight from the key's parts (`quotedKey`)
 * rather than making the key and escaping it once more.
 */
export type QuotedKey = string & { readonly quoted: unique symbol };

export function quoteKey(key: string): QuotedKey {
  return JSON.stringify(key) as QuotedKey;
}

export function unquoteKey(quoted: QuotedKey): string {
  return JSON.parse(quoted) as string;
}

/**
 * Text that JSON.stringify copies as it is: no quote, backslash, control
 * character or UTF-16 surrogate. JSON escapes a lone surrogate and not a
 * pair; any text with either takes the slow way, which is right for both.
 */
// The control characters are the point: JSON escapes them.
// eslint-disable-next-line no-control-regex
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * A string of the key as it stands in the quoted key, less its escaped
 * quotes: JSON-escaped twice. Most ids and paths need no escaping at all.
 */
export function escapedTwice(text: string): string {
  // JSON.stringify(JSON.stringify(text)) is `"\"` + the text escaped twice + `\""`.
  return PLAIN.test(text) ? text : JSON.stringify(JSON.stringify(text)).slice(3, -3);
}

/**
 * quoteKey(candidateKey(c)), given the source already escaped twice
 * (`escapedTwice`): a source made of a file's name and a suffix that JSON
 * never escapes (a line number, `#optimal_solution`) is the file's name
 * escaped once for all of its candidates, and the suffix.
 */
export function quotedKeyOf(c: Omit<KeyParts, 'source'>, sourceEscapedTwice: string): QuotedKey {
  const prompt = c.promptId === null ? 'null' : `\\"${escapedTwice(c.promptId)}\\"`;
  const sample = c.sampleId === null ? 'null' : `\\"${escapedTwice(c.sampleId)}\\"`;
  return `"[\\"${escapedTwice(c.problemId)}\\",\\"${escapedTwice(c.modelId)}\\",${prompt},${sample},\\"${sourceEscapedTwice}\\"]"` as QuotedKey;
}

/** quoteKey(candidateKey(c)). */
export function quotedKey(c: KeyParts): QuotedKey {
  return quotedKeyOf(c, escapedTwice(c.source));
}
