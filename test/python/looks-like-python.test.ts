import { describe, expect, it } from 'vitest';
import { looksLikePython } from '../../src/python/engine.js';

describe('looksLikePython', () => {
  const python = [
    'def add(a: int, b: int) -> int:\n    return a + b',
    'from typing import List\n\ndef f(xs: List[int]) -> int:\n    return sum(xs)',
    'import math\nprint(math.sqrt(4))',
    'class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, n in enumerate(nums):\n            if target - n in seen:\n                return [seen[target - n], i]\n            seen[n] = i',
    'print(add(3, 4))  # Output: 7\nprint(add(5, 6))  # Output: 11',
    '\n\ndef divide(a,b):\n    return a/b\n\n \n#remove the pass line after implementing the function above\n',
  ];
  const notPython = [
    'function multiply(a, b) {\n\treturn a * b;\n}',
    'const add = (a, b) => a + b;\nmodule.exports = { add };',
    'export function f(xs) {\n  let total = 0;\n  for (const x of xs) total += x;\n  return total;\n}',
    "import { sum } from './sum.js';\nexport const f = (xs) => sum(xs);",
    'int multiply(int a, int b){\n    return a*b;\n}',
    'To find the remainder of two integers, I will use the modulo operator.',
    '',
  ];
  for (const code of python) it(`Python: ${JSON.stringify(code.slice(0, 40))}`, () => expect(looksLikePython(code)).toBe(true));
  for (const code of notPython) it(`not Python: ${JSON.stringify(code.slice(0, 40))}`, () => expect(looksLikePython(code)).toBe(false));
});
