/**
 * The sets bench/supervisor-share.ts grades: small MBPP-like problems
 * (strings, lists, a dict, a predicate) with submissions in JavaScript and
 * Python, some of them wrong and a few that do not parse, as a model's
 * samples are; and Python self-check sets of the same problems.
 *
 * Every value a test compares is computed here, in TypeScript, from models
 * of both the right and the wrong implementations, so the bench knows in
 * advance how many tests and candidates each run must pass: a run that
 * skipped or misjudged work would otherwise look cheap.
 *
 * Problem i is drawn from a generator seeded by i alone, so the set of N
 * problems is exactly the first quarter of the set of 4N: the two runs the
 * slope is taken between differ only in how much of the same work they do.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng as BaseRng } from './rng.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What the wrong implementation returns where it throws or returns something no expected value equals. */
const NEVER = Symbol('never equal');

class Rng extends BaseRng {
  word(min: number, max: number, letters = 'abcdefghijklmnopqrstuvwxyz'): string {
    let s = '';
    for (let n = this.int(min, max); n > 0; n--) s += letters[this.int(0, letters.length - 1)];
    return s;
  }
  words(min: number, max: number, wordMin: number, wordMax: number): string {
    return Array.from({ length: this.int(min, max) }, () => this.word(wordMin, wordMax)).join(' ');
  }
}

interface Family {
  name: string;
  parameters: Array<{ name: string; type: string }>;
  returnType: string;
  /** Function bodies; the signature is written around them. */
  py: string;
  pyWrong: string;
  js: string;
  jsWrong: string;
  answer(...args: Json[]): Json;
  /** What the wrong implementations return (both languages' wrong versions agree on pass or fail). */
  wrong(...args: Json[]): Json | typeof NEVER;
  inputs(rng: Rng): Json[];
}

const FAMILIES: Family[] = [
  {
    name: 'count_vowels',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'int',
    py: 'return sum(1 for c in s if c in "aeiouAEIOU")',
    pyWrong: 'return sum(1 for c in s if c in "aeiou")',
    js: 'let n = 0;\n  for (const c of s) if ("aeiouAEIOU".includes(c)) n++;\n  return n;',
    jsWrong: 'let n = 0;\n  for (const c of s) if ("aeiou".includes(c)) n++;\n  return n;',
    answer: (s) => [...(s as string)].filter((c) => 'aeiouAEIOU'.includes(c)).length,
    wrong: (s) => [...(s as string)].filter((c) => 'aeiou'.includes(c)).length,
    inputs: (r) => [Array.from({ length: r.int(1, 4) }, () => r.word(1, 8, r.next() < 0.5 ? 'bcdfghaeiou' : 'bcdfghaeiouAEIOUXY')).join(' ')],
  },
  {
    name: 'second_largest',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'int',
    py: 'return sorted(set(nums))[-2]',
    pyWrong: 'return sorted(nums)[-2]',
    js: 'const u = [...new Set(nums)].sort((a, b) => a - b);\n  return u[u.length - 2];',
    jsWrong: 'const s = [...nums].sort((a, b) => a - b);\n  return s[s.length - 2];',
    answer: (nums) => [...new Set(nums as number[])].sort((a, b) => a - b).at(-2)!,
    wrong: (nums) => [...(nums as number[])].sort((a, b) => a - b).at(-2)!,
    inputs: (r) => {
      const nums = r.ints(r.int(2, 12), 0, 40);
      // Two distinct values at least, so that the right answer exists.
      if (new Set(nums).size < 2) nums.push(41);
      // Half the lists repeat their largest value, where the wrong version fails.
      if (r.next() < 0.5) nums.splice(r.int(0, nums.length), 0, Math.max(...nums));
      return [nums];
    },
  },
  {
    name: 'remove_duplicates',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'List[int]',
    py: 'seen = set()\n    out = []\n    for n in nums:\n        if n not in seen:\n            seen.add(n)\n            out.append(n)\n    return out',
    pyWrong: 'return sorted(set(nums))',
    js: 'return [...new Set(nums)];',
    jsWrong: 'return [...new Set(nums)].sort((a, b) => a - b);',
    answer: (nums) => [...new Set(nums as number[])],
    wrong: (nums) => [...new Set(nums as number[])].sort((a, b) => a - b),
    inputs: (r) => [r.ints(r.int(0, 8), 0, 9)],
  },
  {
    name: 'is_prime',
    parameters: [{ name: 'n', type: 'int' }],
    returnType: 'bool',
    py: 'if n < 2:\n        return False\n    i = 2\n    while i * i <= n:\n        if n % i == 0:\n            return False\n        i += 1\n    return True',
    pyWrong: 'for i in range(2, n):\n        if n % i == 0:\n            return False\n    return True',
    js: 'if (n < 2) return false;\n  for (let i = 2; i * i <= n; i++) if (n % i === 0) return false;\n  return true;',
    jsWrong: 'for (let i = 2; i < n; i++) if (n % i === 0) return false;\n  return true;',
    answer: (n) => {
      const k = n as number;
      if (k < 2) return false;
      for (let i = 2; i * i <= k; i++) if (k % i === 0) return false;
      return true;
    },
    wrong: (n) => {
      const k = n as number;
      for (let i = 2; i < k; i++) if (k % i === 0) return false;
      return true;
    },
    inputs: (r) => [r.next() < 0.2 ? r.int(-3, 1) : r.int(2, 3000)],
  },
  {
    name: 'capitalize_words',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'str',
    py: 'return " ".join(w[:1].upper() + w[1:] for w in s.split(" "))',
    pyWrong: 'return s[:1].upper() + s[1:]',
    js: 'return s.split(" ").map((w) => w.slice(0, 1).toUpperCase() + w.slice(1)).join(" ");',
    jsWrong: 'return s.slice(0, 1).toUpperCase() + s.slice(1);',
    answer: (s) =>
      (s as string)
        .split(' ')
        .map((w) => w.slice(0, 1).toUpperCase() + w.slice(1))
        .join(' '),
    wrong: (s) => (s as string).slice(0, 1).toUpperCase() + (s as string).slice(1),
    inputs: (r) => [r.words(1, 5, 1, 7)],
  },
  {
    name: 'word_lengths',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'Dict[str, int]',
    py: 'return {w: len(w) for w in s.split()}',
    pyWrong: 'return {w: len(w) for w in s.split() if len(w) > 1}',
    js: 'const out = {};\n  for (const w of s.split(" ")) if (w !== "") out[w] = w.length;\n  return out;',
    jsWrong: 'const out = {};\n  for (const w of s.split(" ")) if (w.length > 1) out[w] = w.length;\n  return out;',
    answer: (s) => Object.fromEntries((s as string).split(' ').map((w) => [w, w.length])),
    wrong: (s) =>
      Object.fromEntries(
        (s as string)
          .split(' ')
          .filter((w) => w.length > 1)
          .map((w) => [w, w.length]),
      ),
    inputs: (r) => [r.words(1, 6, 1, 6)],
  },
  {
    name: 'digit_sum',
    parameters: [{ name: 'n', type: 'int' }],
    returnType: 'int',
    py: 'return sum(int(c) for c in str(abs(n)))',
    // Raises ValueError on the minus sign; the JavaScript one returns NaN.
    pyWrong: 'return sum(int(c) for c in str(n))',
    js: 'let s = 0;\n  for (const c of String(Math.abs(n))) s += Number(c);\n  return s;',
    jsWrong: 'let s = 0;\n  for (const c of String(n)) s += Number(c);\n  return s;',
    answer: (n) => [...String(Math.abs(n as number))].reduce((s, c) => s + Number(c), 0),
    wrong: (n) => ((n as number) < 0 ? NEVER : [...String(n as number)].reduce((s, c) => s + Number(c), 0)),
    inputs: (r) => [r.int(-100_000, 100_000)],
  },
  {
    name: 'running_max',
    parameters: [{ name: 'nums', type: 'List[int]' }],
    returnType: 'List[int]',
    py: 'out = []\n    for n in nums:\n        out.append(n if not out else max(out[-1], n))\n    return out',
    pyWrong: 'out, m = [], 0\n    for n in nums:\n        m = max(m, n)\n        out.append(m)\n    return out',
    js: 'const out = [];\n  for (const n of nums) out.push(out.length === 0 ? n : Math.max(out[out.length - 1], n));\n  return out;',
    jsWrong: 'let m = 0;\n  return nums.map((n) => (m = Math.max(m, n)));',
    answer: (nums) => {
      const out: number[] = [];
      for (const n of nums as number[]) out.push(out.length === 0 ? n : Math.max(out.at(-1)!, n));
      return out;
    },
    wrong: (nums) => {
      let m = 0;
      return (nums as number[]).map((n) => (m = Math.max(m, n)));
    },
    inputs: (r) => [r.ints(r.int(0, 10), r.next() < 0.5 ? -20 : 0, 30)],
  },
];

function equal(a: Json, b: Json): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]!));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k]!, b[k]!));
  }
  return a === b;
}

export type Language = 'javascript' | 'python';

/** What the scorecard of a run must say. */
export interface ExpectedVerdicts {
  candidates: number;
  tests: number;
  passedTests: number;
  /** Candidates that passed every one of their tests. */
  passedCandidates: number;
}

function pythonSource(family: Family, functionName: string, body: string, annotated: boolean): string {
  const params = family.parameters.map((p) => (annotated ? `${p.name}: ${p.type}` : p.name)).join(', ');
  const signature = annotated ? `def ${functionName}(${params}) -> ${family.returnType}:` : `def ${functionName}(${params}):`;
  return `${annotated ? 'from typing import *\n\n' : ''}${signature}\n    ${body}\n`;
}

function jsSource(family: Family, functionName: string, body: string): string {
  return `function ${functionName}(${family.parameters.map((p) => p.name).join(', ')}) {\n  ${body}\n}`;
}

interface Problem {
  family: Family;
  id: string;
  functionName: string;
  tests: Json[][];
  expected: Json[];
}

function problem(index: number, testsPerProblem: number, seed: number): { problem: Problem; rng: Rng } {
  const family = FAMILIES[index % FAMILIES.length]!;
  const rng = new Rng((seed * 1_000_003 + index) >>> 0);
  const tests = Array.from({ length: testsPerProblem }, () => family.inputs(rng));
  const functionName = `${family.name}_${index}`;
  return {
    problem: {
      family,
      id: `share_${String(index).padStart(5, '0')}_${family.name}`,
      functionName,
      tests,
      expected: tests.map((args) => family.answer(...args)),
    },
    rng,
  };
}

function writeProblem(dir: string, index: number, p: Problem, optimalSolution: string): void {
  // A thousand files a folder at most, as large sets in the wild are split.
  const folder = join(dir, `part-${String(Math.floor(index / 1000)).padStart(3, '0')}`);
  mkdirSync(folder, { recursive: true });
  const document = {
    identifier: p.id,
    description: `Generated ${p.family.name} problem for the supervisor-share bench.`,
    prompts: [{ prompt_id: 'base', prompt: `Write ${p.functionName}.`, genericize: false, sample_inputs_outputs: [] }],
    function_prototype: {
      function_name: p.functionName,
      parameters: p.family.parameters,
      return_values: [{ type: p.family.returnType }],
    },
    correctness_test_suite: p.tests.map((args, t) => ({
      input: Object.fromEntries(p.family.parameters.map((param, k) => [param.name, args[k] ?? null])),
      expected_output: [p.expected[t]!],
    })),
    optimal_solution: optimalSolution,
    tags: ['bench', p.family.name],
  };
  writeFileSync(join(folder, `${p.id}.json`), JSON.stringify(document));
}

/**
 * A pass@k set: `problems` problems of `tests` tests, `samples` submissions
 * of each in `language` from one model. About a quarter of the samples are
 * a plausible wrong answer (which passes some tests) and one in thirty does
 * not parse.
 */
export function writePassAtKSet(
  dir: string,
  language: Language,
  options: { problems: number; samples: number; tests: number; seed?: number },
): ExpectedVerdicts {
  const seed = options.seed ?? 26;
  const problemsDir = join(dir, 'problems');
  const solutionsDir = join(dir, 'solutions');
  mkdirSync(problemsDir, { recursive: true });
  mkdirSync(solutionsDir, { recursive: true });
  const lines: string[] = [];
  const expected: ExpectedVerdicts = { candidates: 0, tests: 0, passedTests: 0, passedCandidates: 0 };
  for (let i = 0; i < options.problems; i++) {
    const { problem: p, rng } = problem(i, options.tests, seed);
    const source = (body: string): string =>
      language === 'python' ? pythonSource(p.family, p.functionName, body, false) : jsSource(p.family, p.functionName, body);
    writeProblem(problemsDir, i, p, language === 'python' ? pythonSource(p.family, p.functionName, p.family.py, true) : source(p.family.js));
    for (let s = 0; s < options.samples; s++) {
      const draw = rng.next();
      let code: string;
      let passed: number;
      if (draw < 1 / 30) {
        code =
          language === 'python'
            ? `def ${p.functionName}(${p.family.parameters.map((q) => q.name).join(', ')}):\n    return (\n`
            : `function ${p.functionName}(${p.family.parameters.map((q) => q.name).join(', ')}) {\n  return (;\n}`;
        passed = 0;
      } else if (draw < 0.27) {
        code = source(language === 'python' ? p.family.pyWrong : p.family.jsWrong);
        passed = p.tests.filter((args, t) => {
          const got = p.family.wrong(...args);
          return got !== NEVER && equal(got, p.expected[t]!);
        }).length;
      } else {
        code = source(language === 'python' ? p.family.py : p.family.js);
        passed = options.tests;
      }
      // Model output as it comes: fenced, sometimes with a line of prose before it.
      const fence = language === 'python' ? 'python' : 'javascript';
      const prose = rng.next() < 0.3 ? 'Here is the function:\n' : '';
      lines.push(JSON.stringify({ problem_id: p.id, prompt_id: 'base', completion: `${prose}\`\`\`${fence}\n${code}\n\`\`\`` }));
      expected.candidates++;
      expected.tests += options.tests;
      expected.passedTests += passed;
      if (passed === options.tests) expected.passedCandidates++;
    }
  }
  writeFileSync(join(solutionsDir, 'model.jsonl'), `${lines.join('\n')}\n`);
  return expected;
}

/** A Python self-check set: each problem's optimal_solution (annotated, as reference solutions are) against its own tests. */
export function writePythonSelfCheckSet(dir: string, options: { problems: number; tests: number; seed?: number }): ExpectedVerdicts {
  const seed = options.seed ?? 26;
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < options.problems; i++) {
    const { problem: p } = problem(i, options.tests, seed);
    writeProblem(dir, i, p, pythonSource(p.family, p.functionName, p.family.py, true));
  }
  const tests = options.problems * options.tests;
  return { candidates: options.problems, tests, passedTests: tests, passedCandidates: options.problems };
}
