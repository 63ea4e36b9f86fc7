import { describe, expect, it } from 'vitest';
import { extractCode } from '../../src/solutions/extract-code.js';
import { readsAsBody, withHead, type HeadSources } from '../../src/solutions/function-body.js';

const HUMANEVAL_PROMPT =
  'from typing import List\n\n\ndef below_zero(operations: List[int]) -> bool:\n    """ True when the balance falls below zero.\n    >>> below_zero([1, -2])\n    True\n    """\n';

function sources(overrides: Partial<HeadSources> = {}): HeadSources {
  return {
    names: ['below_zero'],
    promptCode: [],
    prototype: { name: 'below_zero', parameters: ['operations'] },
    allows: () => true,
    ...overrides,
  };
}

/** The body extractCode finds in a completion, or null. */
function bodyOf(raw: string, names: readonly string[] = ['below_zero']): string | null {
  const extracted = extractCode(raw, names);
  return extracted.fenced ? null : extracted.body;
}

describe('a function body alone', () => {
  it('is text that returns or yields outside any function', () => {
    expect(readsAsBody('return a + b')).toBe(true);
    expect(readsAsBody('total = 0\nfor x in xs:\n    if x < 0:\n        return True\nyield total')).toBe(true);
    expect(readsAsBody('d = {\n    "a": 1,\n}\nreturn d')).toBe(true);
    expect(readsAsBody('return x + y;\n};')).toBe(true);
    // A return whose line opens a brace, and a JavaScript body whose returns are all in blocks but that closes its function.
    expect(readsAsBody('return [x, y].reduce((a, b) => {\n  return a + b;\n}, 0);\n}')).toBe(true);
    expect(readsAsBody('return {\n    "s": x + y,\n}["s"]')).toBe(true);
    expect(readsAsBody('if (a > b) {\n  return a;\n} else {\n  return b;\n}\n}')).toBe(true);
  });

  it('is never code that could run as written', () => {
    expect(readsAsBody('def f(a):\n    return a')).toBe(false);
    expect(readsAsBody('class Solution:\n    def f(self, a):\n        return a')).toBe(false);
    expect(readsAsBody('async def f(a):\n    return a')).toBe(false);
    expect(readsAsBody('class S {\n  f(a) {\n    return a;\n  }\n}')).toBe(false);
    expect(readsAsBody('const f = (a) => {\n  return a;\n};')).toBe(false);
    expect(readsAsBody('function f(a) {\n  return a;\n}')).toBe(false);
    expect(readsAsBody('print("return")\n# return here')).toBe(false);
    // A signature over several lines, as black writes a long one.
    expect(readsAsBody('def add(\n    x: int,\n    y: int,\n) -> int:\n    return x + y')).toBe(false);
    // A string whose lines sit at the margin inside a function.
    expect(readsAsBody('def f():\n    s = """\nreturn this\n"""\n    return s')).toBe(false);
    // A JavaScript function whose first line ends in a comment, and one written without indentation.
    expect(readsAsBody('const add = (x, y) => { // sum\n  return x + y;\n};')).toBe(false);
    expect(readsAsBody('export function add(x, y) { /* sum */\nreturn x + y;\n}')).toBe(false);
  });

  it('is found by extractCode only in unfenced text, with its indentation kept', () => {
    expect(bodyOf('    balance = 0\n    return balance < 0\n')).toBe('    balance = 0\n    return balance < 0');
    expect(bodyOf('\n    return False\n\n\ndef check():\n    pass\n')).toBe('    return False\n\n\ndef check():\n    pass');
    expect(bodyOf('    def below_zero(operations):\n        return False\n')).toBeNull();
    expect(bodyOf('    class Solution:\n        def below_zero(self, operations):\n            return False\n')).toBeNull();
    expect(bodyOf('```python\n    return False\n```')).toBeNull();
  });

  it("is also text whose first line continued the prompt's last one, with indented lines under it", () => {
    const body = 'balance = 0\n    for op in operations:\n        balance += op\n    return balance < 0';
    expect(bodyOf(body)).toBe(body);
  });

  it('is never a program that opens at the margin, whatever its strings hold', () => {
    expect(bodyOf('def below_zero(operations):\n    """\nreturn True when it does\n    """\n    return False')).toBeNull();
  });

  it('is also text that opens with a return at the margin, which runs in no language as written', () => {
    expect(bodyOf('return False')).toBe('return False');
    expect(bodyOf('return sum(x < 0 for x in operations) > 0\n')).toBe('return sum(x < 0 for x in operations) > 0');
    expect(bodyOf('returned = 1\n')).toBeNull();
  });
});

describe('the head a body runs under', () => {
  it("is the prompt's code when it ends inside the function, as human-eval joins them", () => {
    const program = withHead('    return min(0, *operations) < 0', sources({ promptCode: [extractCode(HUMANEVAL_PROMPT).code] }));
    expect(program).toBe(`${HUMANEVAL_PROMPT.trimEnd()}\n    return min(0, *operations) < 0`);
  });

  it('skips a prompt that goes on after the function, and one without it, for the next source', () => {
    const withExample = `${HUMANEVAL_PROMPT}\n\nprint(below_zero([1]))\n`;
    const program = withHead('    return False', sources({ promptCode: [withExample, 'Write the function below_zero.'] }));
    expect(program).toBe('def below_zero(operations):\n    return False');
  });

  it('gives a first line that continued the prompt the indentation of the lines after it', () => {
    const prompt = 'class Solution:\n    def below_zero(self, operations: List[int]) -> bool:\n        ';
    const program = withHead(
      'balance = 0\n        for op in operations:\n            balance += op\n        return balance < 0',
      sources({ promptCode: [prompt] }),
    );
    expect(program).toBe(
      'class Solution:\n    def below_zero(self, operations: List[int]) -> bool:\n        balance = 0\n        for op in operations:\n            balance += op\n        return balance < 0',
    );
  });

  it('puts a body stripped of all indentation one level under the head', () => {
    expect(withHead('x = 1\nreturn x', sources())).toBe('def below_zero(operations):\n    x = 1\n    return x');
  });

  it('takes a signature spread over lines', () => {
    const prompt = 'def below_zero(\n    operations: list,\n) -> bool:\n    """Docs."""\n';
    expect(withHead('    return False', sources({ promptCode: [prompt] }))).toBe(
      'def below_zero(\n    operations: list,\n) -> bool:\n    """Docs."""\n    return False',
    );
  });

  it("joins a JavaScript body to a JavaScript prompt's opened function, and never gives it a def", () => {
    const prompt = '/* Add them. */\nconst add = (x, y) => {';
    expect(withHead('  return x + y;\n};', sources({ names: ['add'], promptCode: [prompt] }))).toBe(`${prompt}\n  return x + y;\n};`);
    expect(withHead('  return x + y;\n};', sources({ names: ['add'], prototype: { name: 'add', parameters: ['x', 'y'] } }))).toBeNull();
  });

  it('keeps to the declared language', () => {
    const pythonOnly = (language: string): boolean => language === 'python';
    const javascriptOnly = (language: string): boolean => language === 'javascript';
    expect(withHead('  return x + y;', sources({ names: ['add'], promptCode: ['function add(x, y) {'], allows: pythonOnly }))).toMatch(/^def below_zero/);
    expect(withHead('    return False', sources({ allows: javascriptOnly }))).toBeNull();
  });

  it('makes no def from parameter names Python cannot take', () => {
    expect(withHead('    return 1', sources({ prototype: { name: 'f', parameters: ['list of ints'] } }))).toBeNull();
    expect(withHead('    return 1', sources({ prototype: { name: 'f', parameters: ['lambda'] } }))).toBeNull();
  });
});

describe('the head a prompt ends with, found past its docstring', () => {
  it('does not take an example in the docstring for a definition, nor stop at docstring lines at the margin', () => {
    const prompt = 'import math\n\ndef fib4(n: int):\n    """The sequence.\n    fib4(n) -> fib4(n-1) + fib4(n-2)\ndigitSum("") => 0\n    """\n';
    const program = withHead('    return math.floor(n)', sources({ names: ['fib4'], promptCode: [prompt], prototype: { name: 'fib4', parameters: ['n'] } }));
    expect(program).toBe(`${prompt.trimEnd()}\n    return math.floor(n)`);
  });
});

describe('a body indented no deeper than its head', () => {
  it("moves under the head, as the prompt's last line would have put it", () => {
    const prompt = 'class Solution:\n    def below_zero(self, operations: List[int]) -> bool:\n        ';
    expect(withHead('    return False\n', sources({ promptCode: [prompt] }))).toBe(
      'class Solution:\n    def below_zero(self, operations: List[int]) -> bool:\n        return False\n',
    );
  });
});
