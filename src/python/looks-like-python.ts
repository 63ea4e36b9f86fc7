/**
 * Guesses whether solution text is Python rather than JavaScript, to route
 * it to the right engine. Language models answer in either, sometimes with
 * the wrong one for the prompt, so each language's tell-tale constructs are
 * counted and the larger weight wins. Ties (including text with neither,
 * such as prose) are not Python.
 */
const PYTHON_SIGNS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^[ \t]*(async[ \t]+)?def[ \t]+\w+[ \t]*\([^)]*\)[ \t]*(->[^:\n]+)?:[ \t]*(#.*)?$/m, 5],
  [/^[ \t]*class[ \t]+\w+[ \t]*(\([^)]*\))?[ \t]*:[ \t]*(#.*)?$/m, 4],
  [/^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]+[\w*(]/m, 4],
  [/^[ \t]*import[ \t]+[\w.]+([ \t]+as[ \t]+\w+)?([ \t]*,[ \t]*[\w.]+)*[ \t]*(#.*)?$/m, 3],
  [/^[ \t]*(elif|except|finally|with)\b.*:[ \t]*(#.*)?$/m, 3],
  [/^[ \t]*(if|for|while|else|try)\b[^{;]*:[ \t]*(#.*)?$/m, 2],
  [/\b(self\.|None\b|True\b|False\b|lambda[ \t]+\w*[ \t]*:|not[ \t]+in\b|is[ \t]+not\b)/, 1],
  [/^[ \t]*print[ \t]*\([^;]*\)[ \t]*(#.*)?$/m, 1],
  [/^[ \t]*#/m, 1],
];

const JS_SIGNS: ReadonlyArray<readonly [RegExp, number]> = [
  [/\bfunction\b[ \t]*\*?[ \t]*\w*[ \t]*\(/, 5],
  [/=>/, 3],
  [/^[ \t]*(const|let|var)[ \t]+[\w${[]/m, 4],
  [/^[ \t]*(export|module\.exports|require[ \t]*\()/m, 4],
  [/^[ \t]*import[ \t]+[^\n]*\bfrom[ \t]+['"]/m, 4],
  [/===|!==|\+\+|--[ \t]*;/, 2],
  [/;[ \t]*$/m, 1],
  [/\{[ \t]*$/m, 1],
  [/^[ \t]*\/\//m, 1],
  [/\bconsole\.log\b|\bnull\b|\bundefined\b|\bthis\./, 1],
];

function score(code: string, signs: ReadonlyArray<readonly [RegExp, number]>): number {
  let total = 0;
  for (const [pattern, weight] of signs) if (pattern.test(code)) total += weight;
  return total;
}

export function looksLikePython(code: string): boolean {
  const python = score(code, PYTHON_SIGNS);
  return python > 0 && python > score(code, JS_SIGNS);
}
