/** What Python's `str.strip()` and `float()` make of text. */

/** The characters str.isspace() holds (JavaScript's trim() differs: it takes U+FEFF, leaves U+001C-U+001F and U+0085). */
const PYTHON_SPACE = '[\\t\\n\\v\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYTHON_STRIP = new RegExp(`^${PYTHON_SPACE}+|${PYTHON_SPACE}+$`, 'g');

/** `text.strip()` as Python does it, which int() and float() do to their argument. */
export function pythonStrip(text: string): string {
  return text.replace(PYTHON_STRIP, '');
}

const PYTHON_DECIMAL = /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+(?:_\d+)*)?$/;

/**
 * What Python's `float(text)` accepts: surrounding whitespace, a sign,
 * `inf`/`infinity`/`nan` in any case, decimal digits with underscores.
 */
export function pythonFloat(text: string): number | undefined {
  const trimmed = pythonStrip(text);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(trimmed);
  if (special) {
    if (special[2]!.toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  return PYTHON_DECIMAL.test(trimmed) ? Number(trimmed.replace(/_/g, '')) : undefined;
}
