import { describe, expect, it } from 'vitest';
import { extractCode } from '../../src/solutions/extract-code.js';

const fence = '```';

describe('extractCode with fenced blocks', () => {
  it('takes the code out of a fence with a language and surrounding prose', () => {
    const raw = `Here is my solution:\n\n${fence}python\ndef add(a, b):\n    return a + b\n${fence}\n\nIt adds the numbers.`;
    expect(extractCode(raw)).toEqual({ code: 'def add(a, b):\n    return a + b', fenced: true, fenceLanguage: 'python', body: null });
  });

  it('lower-cases the fence language and reads only its first word', () => {
    // As in the corpus: gpt-4 wrote ```Python.
    const raw = `${fence}Python title="x.py"\ndef multiply(a: int, b: int) -> int:\n    return a * b\n${fence}\nUse the 'multiplication' operator (\`*\`).`;
    expect(extractCode(raw)).toEqual({ code: 'def multiply(a: int, b: int) -> int:\n    return a * b', fenced: true, fenceLanguage: 'python', body: null });
  });

  it('takes the LAST of several blocks', () => {
    const raw = [
      'First attempt:',
      `${fence}js`,
      'function f(a) { return a }',
      fence,
      'Better:',
      `${fence}ts`,
      'function f(a: number): number { return a + 1 }',
      fence,
      'Done.',
    ].join('\n');
    expect(extractCode(raw)).toEqual({ code: 'function f(a: number): number { return a + 1 }', fenced: true, fenceLanguage: 'ts', body: null });
  });

  it('takes the last block that defines the function, not a later block that only calls it or shows a command or output', () => {
    const solution = `${fence}python\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n${fence}`;
    const js = `${fence}javascript\nfunction gcd(a, b) {\n  return b === 0 ? a : gcd(b, a % b);\n}\n${fence}`;
    const code = 'def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a';
    for (const after of [
      `Example usage:\n${fence}python\nprint(gcd(12, 18))\n${fence}`,
      `Output:\n${fence}\n6\n${fence}`,
      `Run it with:\n${fence}bash\npython gcd.py\n${fence}`,
      `Tests:\n${fence}python\nassert gcd(12, 18) == 6\nresult = gcd(4, 6)\n${fence}`,
    ]) {
      expect(extractCode(`Here it is:\n${solution}\n${after}`, ['gcd']).code).toBe(code);
    }
    expect(extractCode(`${js}\nUsage:\n${fence}js\nconsole.log(gcd(12, 18));\ngcd(4, 6);\n${fence}`, ['gcd']).code).toBe(
      'function gcd(a, b) {\n  return b === 0 ? a : gcd(b, a % b);\n}',
    );
    // A later block that defines it again is the model's improved answer.
    const better = `${solution}\nShorter:\n${fence}python\nimport math\ndef gcd(a, b):\n    return math.gcd(a, b)\n${fence}`;
    expect(extractCode(better, ['gcd']).code).toBe('import math\ndef gcd(a, b):\n    return math.gcd(a, b)');
    // No block defines the name (the model renamed it): the last block in a code language, as before.
    expect(extractCode(`${solution}\n${fence}python\ndef other(x):\n    return x\n${fence}\n${fence}text\n6\n${fence}`, ['lcm']).code).toBe(
      'def other(x):\n    return x',
    );
  });

  it('takes a last block that defines the function under another name, or imports it, over an earlier stub or draft', () => {
    const stub = `You gave:\n${fence}python\ndef gcd(a, b):\n    pass\n${fence}`;
    const renamed = `${fence}python\ndef greatest_common_divisor(a, b):\n    return a if b == 0 else greatest_common_divisor(b, a % b)\n${fence}`;
    expect(extractCode(`${stub}\nHere it is:\n${renamed}`, ['gcd']).code).toMatch(/^def greatest_common_divisor/);
    const draft = `${fence}python\ndef gcd(a, b):\n    return a * b\n${fence}`;
    expect(extractCode(`${draft}\nOr just use the builtin:\n${fence}python\nfrom math import gcd\n${fence}`, ['gcd']).code).toBe('from math import gcd');
    // A test block that defines a function of its own still calls the one asked for: it is not the answer.
    const tests = `${fence}python\ndef test_gcd():\n    assert gcd(12, 18) == 6\n${fence}`;
    expect(extractCode(`${draft}\n${tests}`, ['gcd']).code).toBe('def gcd(a, b):\n    return a * b');
    // A method written on one line, in a later block, is a definition.
    const js = `${fence}js\nfunction gcd(a, b) { return a * b; }\n${fence}\nFixed:\n${fence}js\nclass Solution {\n  gcd(a, b) { return b ? this.gcd(b, a % b) : a; }\n}\n${fence}`;
    expect(extractCode(js, ['gcd']).code).toMatch(/^class Solution/);
  });

  it('keeps a </think> that is part of the code: only a think block the answer opens with is dropped', () => {
    const code = "TAG = '</think>'\ndef f(s):\n    return s.rfind(TAG)";
    expect(extractCode(code, ['f']).code).toBe(code);
    expect(extractCode(`${fence}python\n${code}\n${fence}`, ['f']).code).toBe(code);
    expect(extractCode(`<think>plan</think>\n${code}`, ['f']).code).toBe(code);
  });

  it('drops thinking whose opening tag the chat template wrote, and finds no answer in thinking never closed', () => {
    const draft = `${fence}python\ndef f(x):\n    return x - 1\n${fence}`;
    expect(extractCode(`A first try:\n${draft}\nHmm, plus one.\n</think>\n\ndef f(x):\n    return x + 1\n`, ['f']).code).toBe('def f(x):\n    return x + 1');
    expect(extractCode(`Plan it.</think>\n${fence}python\ndef f(x):\n    return x + 1\n${fence}`, ['f']).code).toBe('def f(x):\n    return x + 1');
    expect(extractCode(`<thinking>\n${draft}\n</thinking>\n${fence}python\ndef f(x):\n    return x + 2\n${fence}`, ['f']).code).toBe(
      'def f(x):\n    return x + 2',
    );
    expect(extractCode(`<think>\nLet me try:\n${draft}\n`, ['f']).code).toBe('');
  });

  it('never takes a block in another language than the file declares for the answer', () => {
    const answer = `${fence}python\ndef f(x):\n    return x + 1\n${fence}\nAnd in JavaScript:\n${fence}javascript\nfunction f(x) { return x + 1; }\n${fence}`;
    const js = `${fence}javascript\nfunction f(x) { return x + 2; }\n${fence}`;
    expect(extractCode(`${js}\nIn Python:\n${fence}python\ndef f(x):\n    return x + 1\n${fence}`, ['f'], 'py')).toEqual({
      code: 'def f(x):\n    return x + 1',
      fenced: true,
      fenceLanguage: 'python',
      body: null,
    });
    expect(extractCode(answer, ['f'], 'javascript').fenceLanguage).toBe('javascript');
    // With nothing else to take, a foreign block is still read, so that the error shows what was said.
    expect(extractCode(js, ['f'], 'python').code).toBe('function f(x) { return x + 2; }');
  });

  it('with nothing declared, takes the last block that defines the function whatever its language, but never one evalrun cannot run', () => {
    const python = `${fence}python\ndef f(x):\n    return x + 1\n${fence}`;
    // A sketch in JavaScript first, the answer in Python after it.
    const jsFirst = `${fence}js\nfunction f(x) {\n  return x + 1;\n}\n${fence}`;
    expect(extractCode(`${jsFirst}\nIn Python:\n${python}`, ['f']).code).toBe('def f(x):\n    return x + 1');
    // A block of a language evalrun does not run is no answer while another block could be.
    expect(extractCode(`${python}\n${fence}ruby\ndef f(x)\n  x - 1\nend\n${fence}`, ['f']).code).toBe('def f(x):\n    return x + 1');
    expect(extractCode(`${python}\n${fence}\nf(3)\n${fence}\n${fence}c\nint f(int x) { return x; }\n${fence}`, ['f']).code).toBe('def f(x):\n    return x + 1');
  });

  describe('the answer, among what models write around it', () => {
    const solution = `${fence}python\ndef sum_sq(n):\n    return sum(i * i for i in range(1, n + 1))\n${fence}`;
    const code = 'def sum_sq(n):\n    return sum(i * i for i in range(1, n + 1))';

    it('is not a later test or usage block that imports the function to call it', () => {
      for (const tests of [
        `${fence}python\nfrom solution import sum_sq\n\ndef test_sum_sq():\n    assert sum_sq(3) == 14\n${fence}`,
        `${fence}\nimport unittest\nfrom src.sum_sq import sum_sq\n\nclass T(unittest.TestCase):\n    def test(self):\n        self.assertEqual(sum_sq(3), 14)\n${fence}`,
        `${fence}python\nfrom sum_sq import sum_sq as under_test\nprint(under_test(3))\n${fence}`,
      ]) {
        expect(extractCode(`${solution}\nTests:\n${tests}`, ['sum_sq']).code).toBe(code);
      }
      const js = `${fence}js\nfunction sum_sq(n) {\n  return n;\n}\n${fence}`;
      const jest = `${fence}js\nconst sum_sq = require('./sum_sq');\ntest('3', () => expect(sum_sq(3)).toBe(14));\n${fence}`;
      expect(extractCode(`${js}\n${jest}`, ['sum_sq']).code).toBe('function sum_sq(n) {\n  return n;\n}');
    });

    it('is not joined by what a later usage block assigns, nor by a later alternative to a helper given before it', () => {
      const answer = `${fence}python\ndef sum_sq(nums):\n    result = 0\n    for x in nums:\n        result += x * x\n    return result\n${fence}`;
      const usage = `Example usage:\n${fence}python\nresult = sum_sq([1, 2, 3])\nn = int(input())\nprint(result)\n${fence}`;
      expect(extractCode(`${answer}\n${usage}`, ['sum_sq']).code).toBe(
        'def sum_sq(nums):\n    result = 0\n    for x in nums:\n        result += x * x\n    return result',
      );
      const helper = `${fence}python\ndef check(n, d):\n    return n % d != 0\n${fence}`;
      const uses = `${fence}python\ndef is_prime(n):\n    return n > 1 and all(check(n, d) for d in range(2, n))\n${fence}`;
      const alternative = `Or with a sieve:\n${fence}python\ndef check(limit):\n    return [True] * limit\n\nprint(is_prime(7))\n${fence}`;
      expect(extractCode(`${helper}\n${uses}\n${alternative}`, ['is_prime']).code).toBe(
        'def check(n, d):\n    return n % d != 0\n\ndef is_prime(n):\n    return n > 1 and all(check(n, d) for d in range(2, n))',
      );
    });

    it('is an import from the standard library after a stub, even when the block calls it; and a renamed better version', () => {
      const stub = `${fence}python\ndef comb(n: int, k: int) -> int:\n    ...\n${fence}`;
      expect(
        extractCode(`${stub}\nYou can simply use the standard library:\n${fence}python\nfrom math import comb\n\nprint(comb(5, 2))\n${fence}`, ['comb']).code,
      ).toBe('from math import comb\n\nprint(comb(5, 2))');
      const draft = `${fence}python\ndef max_profit(prices):\n    return max(prices) - min(prices)\n${fence}`;
      const better = `Optimized, correct version:\n${fence}python\ndef max_profit_optimized(prices):\n    best, low = 0, float('inf')\n    for p in prices:\n        low = min(low, p)\n        best = max(best, p - low)\n    return best\n${fence}`;
      expect(extractCode(`${draft}\n${better}`, ['max_profit']).code).toMatch(/^def max_profit_optimized/);
    });

    it('is not a later helper or check that defines another function, and takes that helper along', () => {
      const wrong = `${fence}python\ndef sum_sq(n):\n    return sum(i * i for i in range(n))\n${fence}`;
      const check = `Cross-check with the closed form:\n${fence}python\ndef closed_form(n):\n    return n * (n + 1) * (2 * n + 1) // 6\n${fence}`;
      expect(extractCode(`${wrong}\n${check}`, ['sum_sq']).code).toBe('def sum_sq(n):\n    return sum(i * i for i in range(n))');
      const usesHelper = `${fence}python\ndef sum_sq(n):\n    return sum(sq(i) for i in range(1, n + 1))\n${fence}`;
      const helper = `where the helper is:\n${fence}python\ndef sq(x):\n    return x * x\n${fence}`;
      expect(extractCode(`${usesHelper}\n${helper}`, ['sum_sq']).code).toBe(
        'def sq(x):\n    return x * x\n\ndef sum_sq(n):\n    return sum(sq(i) for i in range(1, n + 1))',
      );
    });

    it('is not a later stub: the signature restated, a skeleton to fill', () => {
      for (const stub of [
        'def sum_sq(n: int) -> int:\n    pass',
        'def sum_sq(n):\n    ...',
        'def sum_sq(n): ...',
        'def sum_sq(n):\n    """Sum of squares."""',
        'def sum_sq(n):\n    # your code here\n    pass',
        'def sum_sq(\n    n: int,\n) -> int:\n    raise NotImplementedError("todo")',
      ]) {
        expect(extractCode(`${solution}\nThe signature you asked for:\n${fence}python\n${stub}\n${fence}`, ['sum_sq']).code).toBe(code);
        // A stub alone is still the answer: there is nothing else.
        expect(extractCode(`${fence}python\n${stub}\n${fence}`, ['sum_sq']).code).toBe(stub);
      }
      // A one-line body that does something is no stub.
      expect(extractCode(`${solution}\n${fence}python\ndef sum_sq(n): return 0\n${fence}`, ['sum_sq']).code).toBe('def sum_sq(n): return 0');
    });

    it('is not a translation into a language evalrun does not run, declared or not', () => {
      const ruby = `${fence}ruby\ndef sum_sq(n)\n  (1..n).sum { |i| i * i }\nend\n${fence}`;
      const php = `${fence}php\nfunction sum_sq($n) { return 0; }\n${fence}`;
      for (const translation of [ruby, php]) {
        for (const declared of [null, 'python']) expect(extractCode(`${solution}\nIn Ruby:\n${translation}`, ['sum_sq'], declared).code).toBe(code);
      }
    });

    it('is the code inside chat-template tokens, before a diff shown after it, and after a BOM inside the fence', () => {
      for (const raw of [
        `${solution}<|im_end|>`,
        `${solution}\n</s>`,
        `${fence}python\n${code}\n${fence}<|eot_id|>`,
        `<|im_start|>assistant\n${solution}<end_of_turn>`,
        `${code}\n<|endoftext|>`,
        `<start_of_turn>model\n${code}`,
        `${fence}python\n\uFEFF${code}\n${fence}`,
        `${solution}\nThe change:\n${fence}\n def sum_sq(n):\n-    return sum(i * i for i in range(n))\n+    return sum(i * i for i in range(1, n + 1))\n${fence}`,
      ]) {
        expect(extractCode(raw, ['sum_sq']).code).toBe(code);
      }
      // A token inside the code is the code's.
      expect(extractCode(`${fence}python\nEND = '<|endoftext|>'\n${fence}`).code).toBe("END = '<|endoftext|>'");
      // Long runs of blanks are looked through once, not from every position (a hostile answer).
      expect(extractCode(`${solution}${' '.repeat(400_000)}\n`, ['sum_sq']).code).toBe(code);
      expect(extractCode(`${' '.repeat(400_000)}<|im_end|>${' '.repeat(400_000)}<|im_end|>`).code).toBe('');
    });

    it('is a function body alone when a fenced block holds just that', () => {
      const body = '    total = 0\n    for i in range(1, n + 1):\n        total += i * i\n    return total';
      expect(extractCode(`Complete it with:\n${fence}python\n${body}\n${fence}`, ['sum_sq'])).toEqual({
        code: 'total = 0\nfor i in range(1, n + 1):\n    total += i * i\nreturn total',
        fenced: true,
        fenceLanguage: 'python',
        body,
      });
      expect(extractCode(solution, ['sum_sq']).body).toBeNull();
    });
  });

  it('puts the imports and helpers the answer uses from earlier blocks before it, and nothing else', () => {
    const first = `${fence}python\nimport numpy as np\nfrom math import isqrt, gcd as g\n\n@cache\ndef is_prime(k):\n    return k > 1 and all(k % d for d in range(2, isqrt(k) + 1))\n\nprint(is_prime(7))\ndef f(n):\n    return -1\n${fence}`;
    const second = `${fence}python\ndef f(n):\n    # numpy would be faster\n    return sum(1 for k in range(n) if is_prime(k))\n${fence}`;
    expect(extractCode(`First:\n${first}\nThen:\n${second}`, ['f']).code).toBe(
      [
        'from math import isqrt, gcd as g',
        '',
        '@cache',
        'def is_prime(k):',
        '    return k > 1 and all(k % d for d in range(2, isqrt(k) + 1))',
        '',
        '',
        'def f(n):',
        '    # numpy would be faster',
        '    return sum(1 for k in range(n) if is_prime(k))',
      ].join('\n'),
    );
    // An earlier definition of the function asked for is a draft, even where the answer only names it as a method.
    const js = `${fence}js\nfunction gcd(a, b) { return a * b; }\n${fence}\n${fence}js\nclass Solution {\n  gcd(a, b) { return b ? this.gcd(b, a % b) : a; }\n}\n${fence}`;
    expect(extractCode(js, ['gcd']).code).toMatch(/^class Solution/);
  });

  it('finds the definition in the forms Python, JavaScript and TypeScript write it', () => {
    const usage = `${fence}\nf(3)\n${fence}`;
    for (const def of [
      'def f(x): return x',
      'async def f(x): return x',
      'f = lambda x: x',
      'function f(x) { return x; }',
      'function* f(x) {}',
      'const f = (x) => x;',
      'export function f<T>(x: T): T { return x; }',
      'class S {\n  f(x) {\n    return x;\n  }\n}',
      'class S {\n  static f(x: number): number {\n    return x;\n  }\n}',
    ]) {
      expect(extractCode(`${fence}\n${def}\n${fence}\n${usage}`, ['f']).code, def).toBe(def);
    }
  });

  it('grades what a reasoning model answers after its thinking, not a draft inside it', () => {
    const raw = `<think>\nMaybe:\n${fence}python\ndef f(x):\n    return x - 1\n${fence}\nNo, plus one.\n</think>\ndef f(x):\n    return x + 1\n`;
    expect(extractCode(raw, ['f'])).toEqual({ code: 'def f(x):\n    return x + 1', fenced: false, fenceLanguage: null, body: null });
    const fenced = `<THINK>draft</THINK>\n${fence}python\ndef f(x):\n    return x + 1\n${fence}`;
    expect(extractCode(fenced, ['f']).code).toBe('def f(x):\n    return x + 1');
  });

  it('skips an empty last block for the last one with code', () => {
    const raw = `${fence}js\nconst x = 1;\n${fence}\n${fence}\n\n${fence}`;
    expect(extractCode(raw)).toEqual({ code: 'const x = 1;', fenced: true, fenceLanguage: 'js', body: null });
  });

  it('returns empty code when the only block is empty', () => {
    expect(extractCode(`${fence}python\n${fence}`)).toEqual({ code: '', fenced: true, fenceLanguage: 'python', body: null });
  });

  it('reads a fence without a language', () => {
    expect(extractCode(`${fence}\nx = 1\n${fence}`)).toEqual({ code: 'x = 1', fenced: true, fenceLanguage: null, body: null });
  });

  it('reads tilde fences, and does not close a fence with the other marker', () => {
    const raw = `~~~py\ns = """\n${fence}\n"""\n~~~`;
    expect(extractCode(raw)).toEqual({ code: `s = """\n${fence}\n"""`, fenced: true, fenceLanguage: 'py', body: null });
  });

  it('needs a closing fence at least as long as the opening one', () => {
    const raw = `${fence}\`python\ndoc = '''\n${fence}js\nf()\n${fence}\n'''\n${fence}\``;
    expect(extractCode(raw).code).toBe(`doc = '''\n${fence}js\nf()\n${fence}\n'''`);
  });

  it('reads the fences inside an answer wrapped whole in a Markdown fence', () => {
    const raw = `${fence}\`markdown\nHere:\n${fence}python\ndef f(x):\n    return x\n${fence}\n${fence}\``;
    expect(extractCode(raw, ['f']).code).toBe('def f(x):\n    return x');
    // A Markdown block with no fence inside is a block like any other.
    expect(extractCode(`${fence}md\nnotes\n${fence}`).code).toBe('notes');
  });

  it('runs an unterminated final fence to the end of the text', () => {
    const raw = `Sure.\n${fence}javascript\nfunction add(a, b) {\n  return a + b;\n}\n`;
    expect(extractCode(raw)).toEqual({ code: 'function add(a, b) {\n  return a + b;\n}', fenced: true, fenceLanguage: 'javascript', body: null });
  });

  it('handles CRLF line endings', () => {
    const raw = `Code:\r\n${fence}python\r\ndef f():\r\n    return 1\r\n${fence}\r\n`;
    expect(extractCode(raw)).toEqual({ code: 'def f():\n    return 1', fenced: true, fenceLanguage: 'python', body: null });
  });

  it('removes the indentation of an indented fence (inside a list item)', () => {
    const raw = `1. Define it:\n\n   ${fence}python\n   def f(x):\n       return x\n   ${fence}\n`;
    expect(extractCode(raw)).toEqual({ code: 'def f(x):\n    return x', fenced: true, fenceLanguage: 'python', body: null });
  });

  it('takes code before a bare closing fence as the block the prompt opened', () => {
    const raw = `def f():\n    return 1\n${fence}\n\nThis returns one.`;
    expect(extractCode(raw)).toEqual({ code: 'def f():\n    return 1', fenced: true, fenceLanguage: null, body: null });
    // A later block is still the last one.
    const withLater = `x = 1\n${fence}\nBetter:\n${fence}python\nx = 2\n${fence}`;
    expect(extractCode(withLater).code).toBe('x = 2');
  });

  it('still opens a bare fence after prose only', () => {
    const raw = `Here is the code:\n\n${fence}\nconst x = 1;\n${fence}`;
    expect(extractCode(raw)).toEqual({ code: 'const x = 1;', fenced: true, fenceLanguage: null, body: null });
  });

  it('does not take inline triple backticks on one line for a fence', () => {
    expect(extractCode('Use ```x = 1``` here').fenced).toBe(false);
  });

  it('reads fence lines inside a Python string as the string, in code and in a fenced block', () => {
    const docstring = [
      'def add(a, b):',
      '    """Add two numbers.',
      '',
      '    Example:',
      `    ${fence}python`,
      '    >>> add(1, 2)',
      '    3',
      `    ${fence}`,
      '    """',
      '    return a + b',
    ];
    // Unfenced code: its docstring's example is no block of its own.
    expect(extractCode(docstring.join('\n'))).toEqual({ code: docstring.join('\n'), fenced: false, fenceLanguage: null, body: null });
    // The same code in a fence: the docstring's fences neither close the block (indented four more) nor would they unindented.
    expect(extractCode(`Here it is:\n\n${fence}python\n${docstring.join('\n')}\n${fence}\n\nDone.`).code).toBe(docstring.join('\n'));
    const flush = docstring.map((l) => (l.trim().startsWith(fence) ? l.trim() : l));
    expect(extractCode(`${fence}python\n${flush.join('\n')}\n${fence}`).code).toBe(flush.join('\n'));
    // A template string holding a fenced block, and a module docstring quoting a fenced draft: the code is the whole text.
    for (const code of [
      ["TEMPLATE = '''", `${fence}python`, '{}', fence, "'''", '', 'def to_markdown(code):', '    return TEMPLATE.strip().format(code)'],
      [
        '"""Notes.',
        '',
        'The textbook version:',
        '',
        `${fence}python`,
        'def add(a, b):',
        '    return a + b',
        fence,
        '"""',
        '',
        'def add(a, b):',
        '    return a * b',
      ],
    ]) {
      expect(extractCode(code.join('\n'), ['add', 'to_markdown'])).toEqual({ code: code.join('\n'), fenced: false, fenceLanguage: null, body: null });
    }
  });

  it('does not read prose for strings: a quote in a sentence leaves the fences as they are', () => {
    const block = `${fence}python\ndef f(x):\n    """Twice x."""\n    return 2 * x\n${fence}`;
    for (const prose of ['Docstrings open with """ and so does this one.', "It's done with ''' here.", 'Use """ (three quotes).']) {
      expect(extractCode(`${prose}\n\n${block}\n\nThat's it.`)).toEqual({
        code: 'def f(x):\n    """Twice x."""\n    return 2 * x',
        fenced: true,
        fenceLanguage: 'python',
        body: null,
      });
    }
    // A block whose strings never close is closed by its first fence, and an output block is not read for strings.
    expect(extractCode(`${fence}python\ndef f(x):\n    """Twice x.\n    return 2 * x\n${fence}\nOops.`).code).toBe(
      'def f(x):\n    """Twice x.\n    return 2 * x',
    );
    expect(extractCode(`${fence}output\n"""\n${fence}\n\n${block}`, ['f']).code).toBe('def f(x):\n    """Twice x."""\n    return 2 * x');
  });

  it('does not close a block with a fence indented four columns more than its opening, as CommonMark does not', () => {
    const raw = `${fence}\nx = 1\n    ${fence}\ny = 2\n${fence}`;
    expect(extractCode(raw).code).toBe(`x = 1\n    ${fence}\ny = 2`);
  });
});

describe('extractCode with helpers from earlier blocks', () => {
  it('keeps a from __future__ import first, before what earlier blocks give', () => {
    const raw = `${fence}python\nfrom typing import List\n${fence}\n\n${fence}python\nfrom __future__ import annotations\ndef f(xs: List[int]) -> int:\n    return len(xs)\n${fence}`;
    expect(extractCode(raw, ['f']).code).toBe(
      'from __future__ import annotations\nfrom typing import List\n\ndef f(xs: List[int]) -> int:\n    return len(xs)',
    );
  });
});

describe('extractCode without fences', () => {
  it('drops a leading prose line followed by a blank line (corpus: gpt-4, basic problem_1)', () => {
    const raw = 'Here is the function definition:\n\ndef add(a: int, b: int) -> int:\n    return a + b';
    expect(extractCode(raw)).toEqual({ code: 'def add(a: int, b: int) -> int:\n    return a + b', fenced: false, fenceLanguage: null, body: null });
  });

  it('drops "Here is the code:" and similar sentences ending in a colon', () => {
    expect(extractCode('Here is the code:\nconst x = 1;').code).toBe('const x = 1;');
    expect(extractCode('The solution is as follows:\n\ndef f():\n    pass').code).toBe('def f():\n    pass');
  });

  it('drops an indented leading sentence left by a completion model (corpus: text-davinci-002)', () => {
    const raw = ' Do not any include test code after the Markdown code block.\n\ndef concatenate(a: str, b: str) -> str:\n    return a + b';
    expect(extractCode(raw).code).toBe('def concatenate(a: str, b: str) -> str:\n    return a + b');
  });

  it('drops a dangling comment close before the code', () => {
    const raw = '\n\n*/\n\nfunction multiply(a, b) {\n\treturn a * b;\n}';
    expect(extractCode(raw).code).toBe('function multiply(a, b) {\n\treturn a * b;\n}');
  });

  it("drops contractions (Here's) and trailing explanations", () => {
    const raw = "Here's the code:\nfunction f(a) {\n  return a;\n}\n\nThis function returns its argument.\nI hope it helps!";
    expect(extractCode(raw).code).toBe('function f(a) {\n  return a;\n}');
  });

  it('keeps lines that could be code, however prose-like', () => {
    const cases = [
      'Foo is not None', // a Python expression statement
      'outer:', // a JavaScript label
      'print the_result', // Python 2 print statement
      'x = compute(a, b)',
      '# Here is the function', // a comment
      'return value if ok else other',
      'export default class Foo extends Bar',
      'let us = 1',
      "return'x'",
      'for item in items:',
      'case Point:',
      'except ValueError as error:',
      'public readonly size: number',
      'while not done:',
      'a, b',
    ];
    for (const line of cases) {
      expect(extractCode(`${line}\nfoo()\n${line}`).code, line).toBe(`${line}\nfoo()\n${line}`);
    }
  });

  it('drops the one-line openers, headings, lists and notes that chat models put around unfenced code', () => {
    const code = 'def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a';
    for (const [before, after] of [
      ['Sure!', 'Explanation:'],
      ['Certainly.', '1. The loop keeps the remainder.\n2. It stops at zero.'],
      ['Solution:', '- Uses Euclid’s method\n- Runs in logarithmic time'],
      ['**Solution:**', '`gcd` returns the greatest common divisor.'],
      ['Okay!', '(which is the fastest way)'],
      ['Answer:', 'Note: the result is never negative.'],
    ]) {
      expect(extractCode(`${before}\n${code}\n${after}`).code, `${before} / ${after}`).toBe(code);
    }
  });

  it('keeps code that starts or ends like a heading: else, try, finally, except and default lines', () => {
    for (const code of ['try:\n    import numpy\nexcept ImportError:\n    numpy = None\ndef f(x):\n    return x', 'def f(x):\n    return x\nf.cache = None']) {
      expect(extractCode(code).code).toBe(code);
    }
  });

  it('keeps a trailing line that closes a string or comment opened above it', () => {
    const docstring = 'def f():\n    """\n    Returns one.\n    """\n    return 1\nx = """\nThe end of the text"""';
    expect(extractCode(docstring).code).toBe(docstring);
    const comment = 'function f() {}\n/*\nThat was the function. */';
    expect(extractCode(comment).code).toBe(comment);
    const continued = 's = "first part \\\nand the rest of it"';
    expect(extractCode(continued).code).toBe(continued);
  });

  it('keeps the middle of the text untouched', () => {
    const raw = 'def f():\n    return 1\n\nThe second one:\n\ndef g():\n    return 2';
    expect(extractCode(raw).code).toBe(raw);
  });

  it('keeps everything when nothing but prose is left, so the error shows what was said', () => {
    const raw = 'I cannot solve this problem.\n';
    expect(extractCode(raw)).toEqual({ code: 'I cannot solve this problem.', fenced: false, fenceLanguage: null, body: null });
  });

  it('leaves the empty string empty', () => {
    expect(extractCode('')).toEqual({ code: '', fenced: false, fenceLanguage: null, body: null });
    expect(extractCode('\n \n')).toEqual({ code: '', fenced: false, fenceLanguage: null, body: null });
  });

  it('removes common indentation and a byte-order mark, and normalizes CRLF', () => {
    expect(extractCode('\uFEFF    def f():\r\n        return 1\r\n').code).toBe('def f():\n    return 1');
  });

  it('keeps code that is already clean byte for byte (bar the final newline)', () => {
    const raw = 'def factorial(n: int) -> int:\n    if n == 0:\n        return 1\n    else:\n        return n * factorial(n-1)\n';
    expect(extractCode(raw).code).toBe(raw.trimEnd());
  });
});
