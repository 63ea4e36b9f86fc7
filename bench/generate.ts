/**
 * Synthetic problem sets for the benchmark, in the problem-definition format.
 *
 * Each problem is one of a dozen families (integer arithmetic, list sums and
 * sorts, strings, floats, nested lists, dicts) with its own identifier and
 * function name, deterministic inputs drawn from a seeded generator, and an
 * array-form `expected_output` (the form files in the wild use). Expected
 * values are computed by evaluating the family's optimal_solution here, so a
 * self-check of a generated set passes every test by construction; the
 * benchmark checks that it does, so that every contender did the same work.
 *
 * Prompts carry no sample tests: a problem with T tests is exactly T tests.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Rng as BaseRng } from './rng.js';

export interface GenerateOptions {
  problems: number;
  testsPerProblem: number;
  seed?: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Family {
  name: string;
  parameters: Array<{ name: string; type: string }>;
  returnType: string;
  /** JavaScript source defining `NAME`; NAME is replaced by the problem's function name. */
  source: string;
  /** One test's arguments, in parameter order. */
  inputs(rng: Rng): Json[];
}

/** The shared generator plus the text and float values this problem set uses. */
class Rng extends BaseRng {
  float(lo: number, hi: number): number {
    // Two decimals, so the JSON text is short and exact.
    return Math.round((lo + this.next() * (hi - lo)) * 100) / 100;
  }
  word(min: number, max: number): string {
    const letters = 'abcdeiouxyzmnrst';
    let s = '';
    const n = this.int(min, max);
    for (let i = 0; i < n; i++) s += letters[this.int(0, letters.length - 1)];
    return s;
  }
  sentence(words: number): string {
    return Array.from({ length: words }, () => this.word(1, 6)).join(' ');
  }
}

const FAMILIES: Family[] = [
  {
    name: 'add',
    parameters: [
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int' },
    ],
    returnType: 'int',
    source: 'function NAME(a, b) {\n  return a + b;\n}',
    inputs: (r) => [r.int(-1_000_000, 1_000_000), r.int(-1_000_000, 1_000_000)],
  },
  {
    name: 'gcd',
    parameters: [
      { name: 'a', type: 'int' },
      { name: 'b', type: 'int' },
    ],
    returnType: 'int',
    source: 'function NAME(a, b) {\n  a = Math.abs(a); b = Math.abs(b);\n  while (b !== 0) { const t = a % b; a = b; b = t; }\n  return a;\n}',
    inputs: (r) => [r.int(0, 100_000), r.int(1, 100_000)],
  },
  {
    name: 'collatz_steps',
    parameters: [{ name: 'n', type: 'int' }],
    returnType: 'int',
    source: 'const NAME = (n) => {\n  let steps = 0;\n  while (n !== 1) { n = n % 2 === 0 ? n / 2 : 3 * n + 1; steps++; }\n  return steps;\n};',
    inputs: (r) => [r.int(1, 10_000)],
  },
  {
    name: 'sum_list',
    parameters: [{ name: 'xs', type: 'List[int]' }],
    returnType: 'int',
    source: 'function NAME(xs) {\n  let total = 0;\n  for (const x of xs) total += x;\n  return total;\n}',
    inputs: (r) => [r.ints(r.int(0, 30), -1000, 1000)],
  },
  {
    name: 'sort_list',
    parameters: [{ name: 'xs', type: 'List[int]' }],
    returnType: 'List[int]',
    source: 'function NAME(xs) {\n  return [...xs].sort((a, b) => a - b);\n}',
    inputs: (r) => [r.ints(r.int(0, 25), -500, 500)],
  },
  {
    name: 'reverse_words',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'str',
    source: 'function NAME(s) {\n  return s.split(" ").reverse().join(" ");\n}',
    inputs: (r) => [r.sentence(r.int(1, 8))],
  },
  {
    name: 'is_palindrome',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'bool',
    source: 'function NAME(s) {\n  const t = s.toLowerCase();\n  return t === [...t].reverse().join("");\n}',
    inputs: (r) => {
      const w = r.word(1, 6);
      return [r.next() < 0.5 ? w + [...w].reverse().join('') : w];
    },
  },
  {
    name: 'mean',
    parameters: [{ name: 'xs', type: 'List[float]' }],
    returnType: 'float',
    source: 'function NAME(xs) {\n  return xs.reduce((s, x) => s + x, 0) / xs.length;\n}',
    inputs: (r) => [Array.from({ length: r.int(1, 20) }, () => r.float(-100, 100))],
  },
  {
    name: 'hypotenuse',
    parameters: [
      { name: 'a', type: 'float' },
      { name: 'b', type: 'float' },
    ],
    returnType: 'float',
    source: 'const NAME = (a, b) => Math.sqrt(a * a + b * b);',
    inputs: (r) => [r.float(0, 1000), r.float(0, 1000)],
  },
  {
    name: 'transpose',
    parameters: [{ name: 'm', type: 'List[List[int]]' }],
    returnType: 'List[List[int]]',
    source: 'function NAME(m) {\n  if (m.length === 0) return [];\n  return m[0].map((_, j) => m.map((row) => row[j]));\n}',
    inputs: (r) => {
      const rows = r.int(1, 5);
      const cols = r.int(1, 5);
      return [Array.from({ length: rows }, () => r.ints(cols, -50, 50))];
    },
  },
  {
    name: 'row_sums',
    parameters: [{ name: 'm', type: 'List[List[int]]' }],
    returnType: 'List[int]',
    source: 'module.exports = { NAME: (m) => m.map((row) => row.reduce((s, x) => s + x, 0)) };',
    inputs: (r) => [Array.from({ length: r.int(0, 6) }, () => r.ints(r.int(0, 6), -100, 100))],
  },
  {
    name: 'word_counts',
    parameters: [{ name: 's', type: 'str' }],
    returnType: 'Dict[str, int]',
    source: 'function NAME(s) {\n  const counts = {};\n  for (const w of s.split(" ")) if (w !== "") counts[w] = (counts[w] || 0) + 1;\n  return counts;\n}',
    inputs: (r) => {
      const vocabulary = Array.from({ length: 4 }, () => r.word(1, 4));
      return [Array.from({ length: r.int(1, 10) }, () => vocabulary[r.int(0, 3)]).join(' ')];
    },
  },
  {
    name: 'merge_counts',
    parameters: [
      { name: 'a', type: 'Dict[str, int]' },
      { name: 'b', type: 'Dict[str, int]' },
    ],
    returnType: 'Dict[str, int]',
    source: 'function NAME(a, b) {\n  const out = { ...a };\n  for (const [k, v] of Object.entries(b)) out[k] = (out[k] || 0) + v;\n  return out;\n}',
    inputs: (r) => {
      const dict = (): Json => {
        const d: { [key: string]: Json } = {};
        for (let i = r.int(0, 5); i > 0; i--) d[r.word(1, 3)] = r.int(0, 50);
        return d;
      };
      return [dict(), dict()];
    },
  },
];

/** The family a problem index uses; exported so tests and the bench agree on the mix. */
export function familyNames(): string[] {
  return FAMILIES.map((f) => f.name);
}

function compile(source: string, name: string): (...args: Json[]) => Json {
  // The generator's own sources, evaluated once per family to compute expected outputs.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the generator's own trusted sources
  const factory = new Function('module', `${source}\nreturn typeof ${name} === 'function' ? ${name} : module.exports.${name};`) as (module: object) => unknown;
  const fn = factory({ exports: {} });
  if (typeof fn !== 'function') throw new Error(`generator family ${name} does not define its function`);
  return fn as (...args: Json[]) => Json;
}

export function problemDocument(index: number, testsPerProblem: number, seed: number): Record<string, Json> {
  const family = FAMILIES[index % FAMILIES.length]!;
  const functionName = `${family.name}_${index}`;
  const source = family.source.replace(/NAME/g, functionName);
  const fn = compile(source, functionName);
  const rng = new Rng((seed * 1_000_003 + index) >>> 0);
  const suite: Json[] = [];
  for (let t = 0; t < testsPerProblem; t++) {
    const args = family.inputs(rng);
    // Structured copy so that a solution that mutated its input could not change what is written.
    const expected = fn(...(JSON.parse(JSON.stringify(args)) as Json[]));
    const input: { [key: string]: Json } = {};
    family.parameters.forEach((p, i) => (input[p.name] = args[i] ?? null));
    suite.push({ input, expected_output: [expected] });
  }
  return {
    identifier: `bench_${String(index).padStart(6, '0')}_${family.name}`,
    description: `Synthetic benchmark problem (${family.name}).`,
    prompts: [{ prompt_id: 'p', prompt: `Implement ${functionName}.`, genericize: false, sample_inputs_outputs: [] }],
    function_prototype: {
      function_name: functionName,
      parameters: family.parameters,
      return_values: [{ type: family.returnType }],
    },
    correctness_test_suite: suite,
    optimal_solution: source,
    tags: ['bench', family.name],
  };
}

/** Writes `problems` files into `dir` (created if needed); returns the number of tests written. */
export async function generateProblemSet(dir: string, options: GenerateOptions): Promise<number> {
  const seed = options.seed ?? 1;
  await mkdir(dir, { recursive: true });
  // Spread over subfolders so that huge sets do not put 20,000 entries in one directory.
  const perFolder = 1000;
  for (let i = 0; i < options.problems; i++) {
    const folder = join(dir, `part-${String(Math.floor(i / perFolder)).padStart(3, '0')}`);
    if (i % perFolder === 0) await mkdir(folder, { recursive: true });
    const doc = problemDocument(i, options.testsPerProblem, seed);
    await writeFile(join(folder, `${doc.identifier as string}.json`), JSON.stringify(doc));
  }
  return options.problems * options.testsPerProblem;
}
