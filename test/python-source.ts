/** Python source in tests, written as it reads. */

/**
 * Python source written as it reads, in a template literal: the text
 * between the line of the opening backtick and the line of the closing one,
 * less the indentation its lines share, ending with a newline. Raw, so a
 * backslash is Python's (`py\`re.compile(r"\d+")\``).
 */
export function py(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings.raw }, ...values);
  const lines = text.split('\n');
  if (lines.length < 3 || lines[0]!.trim() !== '' || lines[lines.length - 1]!.trim() !== '') {
    throw new Error('py`...`: put the code on lines of its own, between the backticks');
  }
  const body = lines.slice(1, -1);
  const indent = Math.min(...body.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length));
  return body.map((line) => (line.trim() === '' ? '' : line.slice(indent))).join('\n') + '\n';
}
