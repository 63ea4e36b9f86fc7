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

/**
 * A float as Python's `repr` writes it, with JSON's names for the values
 * JSON has none for (`NaN`, `Infinity`), as `json.dumps` writes a float dict
 * key: the shortest digits that read back to it, positional from 1e-4 up to
 * 1e16 (`0.0001`, `1e+16`, `1e-05`, `2.0`), a two-digit exponent at least.
 */
export function pythonFloatJson(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponentText = '0'] = n.toExponential().split('e');
  const exponent = Number(exponentText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exponent);
    return `${sign}${fraction}e${exponent < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
}
