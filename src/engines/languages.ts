/**
 * Every language evalrun runs: the one list of language descriptors
 * (descriptor.ts), each from its folder's `language.ts`. Everything that
 * depends on the language reads it from here: the `Language` type,
 * recognising solutions (solutions/), preparing code and writing values
 * (grading/), the run's record of its equality rules, and a worker's
 * engines (registry.ts), through the look-ups in find-language.ts. Adding a
 * language is its folder and its entry here.
 *
 * Order matters in one place: code that names no language and scores the
 * same for two is the earlier one's, so code without any signal is
 * JavaScript.
 */
import { javascript } from './javascript/language.js';
import { python } from './python/language.js';

export const LANGUAGES = [javascript, python] as const;

/** A language's name: what a job says it is written in. */
export type Language = (typeof LANGUAGES)[number]['name'];

/** A way of writing code that evalrun recognises: a language, or one of its dialects (`typescript`). */
export type DialectName = (typeof LANGUAGES)[number]['dialects'][number]['name'];
