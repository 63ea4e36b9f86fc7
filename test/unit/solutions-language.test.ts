import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractCode } from '../../src/solutions/extract-code.js';
import { detectLanguage, normalizeLanguageName } from '../../src/solutions/language.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.join(here, '../../../shared/corpus-sample');
const NO_HINTS = { declared: null, fenceLanguage: null };

const detect = (code: string) => detectLanguage(code, NO_HINTS);

describe('detectLanguage hints', () => {
  it('lets the declared language win over the fence and the code', () => {
    expect(detectLanguage('def f():\n    pass', { declared: 'typescript', fenceLanguage: 'python' })).toBe('typescript');
  });

  it('uses the fence language when nothing is declared', () => {
    expect(detectLanguage('function f() {}', { declared: null, fenceLanguage: 'py' })).toBe('python');
    expect(detectLanguage('x = 1', { declared: null, fenceLanguage: 'JS' })).toBe('javascript');
    expect(detectLanguage('x = 1', { declared: null, fenceLanguage: 'tsx' })).toBe('typescript');
  });

  it('ignores hints that name no supported language', () => {
    expect(detectLanguage('def f():\n    return 1', { declared: 'text', fenceLanguage: 'c' })).toBe('python');
  });

  it('normalizes language names and aliases', () => {
    expect(['Python', 'py', 'python3', ' JavaScript ', 'node', 'TS', 'typescript', 'cpp', '', null].map(normalizeLanguageName)).toEqual([
      'python',
      'python',
      'python',
      'javascript',
      'javascript',
      'typescript',
      'typescript',
      null,
      null,
      null,
    ]);
  });
});

describe('detectLanguage when the code does not tell', () => {
  it("takes the problem's own language, asked only on a tie", () => {
    let asked = 0;
    const python = (): 'python' => (asked++, 'python');
    // A body with no signal of either language.
    expect(detectLanguage('return a + b', { ...NO_HINTS, onTie: python })).toBe('python');
    expect(asked).toBe(1);
    // Code that tells is never asked about.
    expect(detectLanguage('function add(a, b) { return a + b; }', { ...NO_HINTS, onTie: python })).toBe('javascript');
    expect(detectLanguage('def add(a, b):\n    return a + b\n', { ...NO_HINTS, onTie: () => 'javascript' })).toBe('python');
    expect(asked).toBe(1);
    // Nothing to prefer: as before.
    expect(detectLanguage('return a + b', { ...NO_HINTS, onTie: () => null })).toBe(detectLanguage('return a + b', NO_HINTS));
  });
});

describe('detectLanguage heuristics', () => {
  it.each([
    ['def with annotations', 'def add(a: int, b: int) -> int:\n    return a + b'],
    ['imports and None', 'from typing import List\nimport math\n\ndef f(xs: List[int]):\n    return None'],
    ['elif / else blocks', 'if x > 1:\n    y = 2\nelif x < 0:\n    y = 3\nelse:\n    y = 4'],
    ['a body continued from a prompt', 'result = 1\nfor i in range(1, n+1):\n    result *= i\nreturn result\n'],
    ['a class', 'class Solution:\n    def solve(self, a):\n        return a'],
    ['prints with comments', 'print(add(3, 4))  # Output: 7'],
    ['a lambda', 'f = lambda a, b: a + b'],
    ['a dict literal and True', 'd = {\n    "a": True,\n}\nreturn d'],
  ])('Python: %s', (_name, code) => {
    expect(detect(code)).toBe('python');
  });

  it.each([
    ['a function declaration', 'function add(a, b) {\n  return a + b;\n}'],
    ['an arrow function', 'const add = (a, b) => a + b;'],
    ['CommonJS', 'module.exports = function (a) { return a };'],
    ['ESM', "import fs from 'fs';\nexport function f(a) { return a }"],
    ['an object literal with keys', 'function f(a, b) {\n  return g({ a: 1, b: 2 });\n}'],
    ['a class with methods', 'class Calc {\n  add(a, b) {\n    return a + b;\n  }\n}'],
    ['a switch', 'function f(x) {\n  switch (x) {\n    case 1:\n      return "one";\n  }\n  return null;\n}'],
    ['no signal at all', 'x'],
    ['the empty string', ''],
  ])('JavaScript: %s', (_name, code) => {
    expect(detect(code)).toBe('javascript');
  });

  it.each([
    ['parameter types', 'function add(a: number, b: number) {\n  return a + b;\n}'],
    ['a return type on an arrow', 'const add = (a, b): number => a + b;'],
    ['an interface', 'interface P { x: number }\nfunction f(p: P) { return p.x }'],
    ['a type alias', 'type Pair = [number, number];\nconst f = (p) => p[0];'],
    ['generics', 'function first<T>(xs) { return xs[0] }'],
    ['string[] return', 'export function words(s: string): string[] {\n  return s.split(" ");\n}'],
    ['an enum', 'enum Color { Red, Green }\nconst c = Color.Red;'],
    ['access modifiers', 'class A {\n  private x = 1;\n  get() { return this.x; }\n}'],
  ])('TypeScript: %s', (_name, code) => {
    expect(detect(code)).toBe('typescript');
  });
});

describe.skipIf(!existsSync(CORPUS))('detectLanguage on the reference corpus (all Python)', () => {
  /**
   * These answers to Python prompts are not Python: a completion model went on
   * writing JavaScript, or C, after a comment in its prompt. Telling the truth
   * about them is right; the others must all be Python.
   */
  const NOT_PYTHON: Record<string, 'javascript'> = {
    'basic/solutions/text-davinci-002/problem_3/brief_prompt.json': 'javascript',
    'basic/solutions/text-davinci-002/problem_3/detailed_prompt.json': 'javascript',
    'basic/solutions/text-davinci-002/problem_5/brief_prompt.json': 'javascript',
  };

  it('detects Python in every non-empty solution, after extracting the code', async () => {
    const seen: string[] = [];
    for (const set of ['basic', 'bugfixing']) {
      for (const file of await listJson(path.join(CORPUS, set, 'solutions'))) {
        const rel = path.relative(CORPUS, file);
        const doc = JSON.parse(await readFile(file, 'utf8')) as { solution_code: string };
        if (doc.solution_code.trim() === '') continue;
        const { code, fenceLanguage } = extractCode(doc.solution_code);
        expect(detectLanguage(code, { declared: null, fenceLanguage }), rel).toBe(NOT_PYTHON[rel] ?? 'python');
        seen.push(rel);
      }
    }
    expect(seen.length).toBeGreaterThan(60);
  });

  it('detects Python in every optimal_solution of every problem set', async () => {
    let count = 0;
    for (const set of ['basic', 'bugfixing', 'memory']) {
      const dir = path.join(CORPUS, set, 'problems');
      for (const name of await readdir(dir)) {
        const doc = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as { optimal_solution?: string | null };
        if (!doc.optimal_solution) continue;
        expect(detect(doc.optimal_solution), `${set}/${name}`).toBe('python');
        count++;
      }
    }
    expect(count).toBeGreaterThan(20);
  });
});

async function listJson(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listJson(full)));
    else if (entry.name.endsWith('.json')) out.push(full);
  }
  return out.sort();
}
