/**
 * Verdicts that CPython's `==` settles, through the real CLI on a folder of
 * problems and solutions: each pair is a right answer that must pass and a
 * wrong one that must fail, as `assert candidate(*args) == expected` would
 * judge them in CPython (python3 on the machine, when it is there, agrees
 * with every expected verdict below).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

const RUN_MS = 240_000;

interface Case {
  problem: string;
  params: Array<[string, string]>;
  returns: string;
  /** Each test: its arguments in parameter order, and the expected value, as written in the file. */
  tests: Array<{ input: unknown[]; expected: unknown }>;
  /** The prompt shows the model `function(a, b, ...)`. */
  genericize?: boolean;
  /** By model: the code, and whether CPython's == passes every test. */
  answers: Record<string, { code: string; passes: boolean; language?: 'py' | 'js'; call?: string }>;
}

const CASES: Case[] = [
  {
    problem: 'quote_words',
    params: [['words', 'List[str]']],
    returns: 'List[str]',
    tests: [
      { input: [['a', 'b']], expected: ["'a'", "'b'"] },
      { input: [["'x'", 'y']], expected: ["''x''", "'y'"] },
    ],
    answers: {
      right: { code: 'def quote_words(words):\n    return ["\'" + w + "\'" for w in words]\n', passes: true },
      unquoted: { code: 'def quote_words(words):\n    return list(words)\n', passes: false },
    },
  },
  {
    problem: 'floor_avg',
    params: [
      ['a', 'int'],
      ['b', 'int'],
    ],
    returns: 'Any',
    tests: [{ input: [1000000000, 1000000001], expected: 1000000000 }],
    answers: {
      right: { code: 'def floor_avg(a, b):\n    return (a + b) // 2\n', passes: true },
      true_division: { code: 'def floor_avg(a, b):\n    return (a + b) / 2\n', passes: false },
    },
  },
  {
    problem: 'distinct_in_order',
    params: [['xs', 'list']],
    returns: 'Any',
    tests: [{ input: [[3, 1, 3, 2, 1]], expected: [3, 1, 2] }],
    answers: {
      right: { code: 'def distinct_in_order(xs):\n    return list(dict.fromkeys(xs))\n', passes: true },
      as_set: { code: 'def distinct_in_order(xs):\n    return set(xs)\n', passes: false },
    },
  },
  {
    problem: 'first_n',
    params: [['n', 'int']],
    returns: 'List[int]',
    tests: [{ input: [3], expected: [0, 1, 2] }],
    answers: {
      right: { code: 'def first_n(n):\n    return list(range(n))\n', passes: true },
      as_deque: { code: 'from collections import deque\ndef first_n(n):\n    return deque(range(n))\n', passes: false },
    },
  },
  {
    problem: 'read_nothing',
    params: [['n', 'int']],
    returns: 'int',
    tests: [{ input: [4], expected: 5 }],
    answers: {
      // Competitive programmers bind these at module level.
      right: {
        code: 'import sys\ninput = sys.stdin.buffer.readline\nwrite = sys.stdout.writelines\ndef read_nothing(n):\n    write(["n"])\n    return n + 1\n',
        passes: true,
      },
    },
  },
  {
    problem: 'add',
    params: [
      ['a', 'int'],
      ['b', 'int'],
    ],
    returns: 'int',
    genericize: true,
    tests: [{ input: [2, 3], expected: 5 }],
    answers: {
      // The prompt showed `function(a, b)`; a helper defined after it is not the function asked for.
      generic: { code: 'def function(a, b):\n    return helper(a) + b\n\ndef helper(x):\n    return x\n', passes: true },
      // Defining the name asked for as well, the code says which function it is; its `function` is something else.
      named: { code: 'def add(a, b):\n    return a + b\n\ndef function(f):\n    return f\n', passes: true, call: 'add' },
    },
  },
  {
    problem: 'uniq_list',
    params: [['xs', 'List[int]']],
    returns: 'List[int]',
    tests: [{ input: [[1, 2, 2]], expected: [1, 2] }],
    answers: {
      // A JavaScript Set is no array, as a Python set is no list.
      js_array: { code: 'function uniq_list(xs) {\n  return [...new Set(xs)];\n}\n', passes: true, language: 'js' },
      js_set: { code: 'function uniq_list(xs) {\n  return new Set(xs);\n}\n', passes: false, language: 'js' },
      py_set: { code: 'def uniq_list(xs):\n    return set(xs)\n', passes: false },
    },
  },
  {
    problem: 'uniq_set',
    params: [['xs', 'List[int]']],
    returns: 'Set[int]',
    tests: [{ input: [[2, 1, 2]], expected: [1, 2] }],
    answers: {
      js_set: { code: 'function uniq_set(xs) {\n  return new Set(xs);\n}\n', passes: true, language: 'js' },
      // An array for a declared set is judged as new Set(array) keeps it.
      js_array_with_duplicates: { code: 'function uniq_set(xs) {\n  return xs;\n}\n', passes: true, language: 'js' },
      py_set: { code: 'def uniq_set(xs):\n    return set(xs)\n', passes: true },
    },
  },
  {
    problem: 'as_floats',
    params: [['xs', 'List[int]']],
    returns: 'List[float]',
    // Ints written where floats are declared stay ints, and two ints meet exactly: there is no rounding to forgive.
    tests: [{ input: [[1000000000, 7]], expected: [1000000000, 7] }],
    answers: {
      right: { code: 'def as_floats(xs):\n    return list(xs)\n', passes: true },
      off_by_one: { code: 'def as_floats(xs):\n    return [x + 1 if x > 10 else x for x in xs]\n', passes: false },
    },
  },
  {
    problem: 'big_power',
    params: [['n', 'int']],
    returns: 'Union[int, float]',
    tests: [{ input: [20], expected: 100000000000000000000 }],
    answers: {
      right: { code: 'def big_power(n):\n    return 10 ** n\n', passes: true },
      off_by_one: { code: 'def big_power(n):\n    return 10 ** n + 1\n', passes: false },
    },
  },
  {
    problem: 'sets_under_any',
    params: [['n', 'int']],
    returns: 'List[Any]',
    // A set under Any is a set, for JavaScript candidates as for Python's ({3, 4} == {4, 3}): a Set meets it in any order.
    // (JavaScript answers only: the CPython check below reads the expected value as JSON, which has no sets.)
    tests: [{ input: [3], expected: '[{4, 3}, {frozenset({1})}]' }],
    answers: {
      js_sets: { code: 'function sets_under_any(n) {\n  return [new Set([3, 4]), new Set([new Set([1])])];\n}\n', passes: true, language: 'js' },
      js_wrong: { code: 'function sets_under_any(n) {\n  return [new Set([3, 5]), new Set([new Set([1])])];\n}\n', passes: false, language: 'js' },
    },
  },
  {
    problem: 'map_keys',
    params: [['n', 'int']],
    returns: 'Dict[int, str]',
    tests: [{ input: [1], expected: { '1': 'a' } }],
    answers: {
      // An object's property names stand for the keys; a Map keeps its keys' kinds, as a Python dict does.
      js_object: { code: "function map_keys(n) {\n  return { [n]: 'a' };\n}\n", passes: true, language: 'js' },
      js_map: { code: "function map_keys(n) {\n  return new Map([[n, 'a']]);\n}\n", passes: true, language: 'js' },
      js_map_string_keys: { code: "function map_keys(n) {\n  return new Map([[String(n), 'a']]);\n}\n", passes: false, language: 'js' },
    },
  },
  {
    problem: 'tuple_names',
    params: [['n', 'int']],
    returns: 'Dict[Tuple[str, int], int]',
    tests: [{ input: [2], expected: "{('a', 2): 3}" }],
    answers: {
      // The property name JavaScript gives the key ['a', 2] is "a,2"; Python's spelling of the tuple is no name of it.
      js_object: { code: "function tuple_names(n) {\n  return { [['a', n]]: 3 };\n}\n", passes: true, language: 'js' },
      js_map: { code: "function tuple_names(n) {\n  return new Map([[['a', n], 3]]);\n}\n", passes: true, language: 'js' },
      js_python_spelling: { code: 'function tuple_names(n) {\n  return { "(\'a\', 2)": 3 };\n}\n', passes: false, language: 'js' },
    },
  },
  {
    problem: 'tag_lookalike',
    params: [['n', 'int']],
    returns: 'Dict[str, Any]',
    // The file's own dict that spells a tag is a dict: a real tuple is no match for it.
    tests: [{ input: [1], expected: { result: { $evalrun: 'tuple', items: [1] } } }],
    answers: {
      right: { code: "def tag_lookalike(n):\n    return {'result': {'$evalrun': 'tuple', 'items': [n]}}\n", passes: true },
      tuple: { code: "def tag_lookalike(n):\n    return {'result': (n,)}\n", passes: false },
      js_right: { code: "function tag_lookalike(n) {\n  return { result: { $evalrun: 'tuple', items: [n] } };\n}\n", passes: true, language: 'js' },
      js_array: { code: 'function tag_lookalike(n) {\n  return { result: [n] };\n}\n', passes: false, language: 'js' },
    },
  },
  {
    problem: 'pair_list',
    params: [['a', 'int']],
    returns: 'List[int]',
    tests: [{ input: [1], expected: [1, 2] }],
    answers: {
      // A list subclass is its items, whatever its own __iter__ says, as == reads it.
      lying_iter_right: {
        code: 'class L(list):\n    def __iter__(self):\n        return iter([9, 9])\n\ndef pair_list(a):\n    return L([a, a + 1])\n',
        passes: true,
      },
      lying_iter_wrong: {
        code: 'class L(list):\n    def __iter__(self):\n        return iter([1, 2])\n\ndef pair_list(a):\n    return L([9, 9])\n',
        passes: false,
      },
    },
  },
  {
    problem: 'halve',
    params: [['n', 'int']],
    returns: 'Union[int, str]',
    // The file's int belongs to the int option: a float within the tolerance of it is no answer.
    tests: [{ input: [1000000001], expected: 500000000 }],
    answers: {
      js_floor: { code: 'function halve(n) {\n  return Math.floor(n / 2);\n}\n', passes: true, language: 'js' },
      js_divide: { code: 'function halve(n) {\n  return n / 2;\n}\n', passes: false, language: 'js' },
      py_divide: { code: 'def halve(n):\n    return n / 2\n', passes: false },
    },
  },
  {
    problem: 'letter_at',
    params: [['n', 'int']],
    returns: 'Dict[int, str]',
    tests: [{ input: [1], expected: { '1': 'a' } }],
    answers: {
      // A property name JavaScript would not find as d[1] is another key.
      js_right: { code: "function letter_at(n) {\n  return { [n]: 'a' };\n}\n", passes: true, language: 'js' },
      js_padded: { code: "function letter_at(n) {\n  return { ['0' + n]: 'a' };\n}\n", passes: false, language: 'js' },
    },
  },
  {
    problem: 'sum_values',
    params: [['m', 'Dict[Tuple[int, int], int]']],
    returns: 'int',
    tests: [
      { input: [{ '(1, 2)': 3, '(2, 1)': 4 }], expected: 7 },
      { input: [{}], expected: 0 },
    ],
    answers: {
      // Tuple keys make a Map, an empty dict too.
      js_map: { code: 'function sum_values(m) {\n  let s = 0;\n  for (const [, v] of m) s += v;\n  return s;\n}\n', passes: true, language: 'js' },
      py_values: { code: 'def sum_values(m):\n    return sum(m.values())\n', passes: true },
    },
  },
  {
    problem: 'twice',
    params: [['n', 'int']],
    returns: 'int',
    tests: [
      { input: [2], expected: 4 },
      { input: [5], expected: 10 },
    ],
    answers: {
      js_class: { code: 'class Solution {\n  twice(n) {\n    return 2 * n;\n  }\n}\n', passes: true, language: 'js' },
    },
  },
  // A candidate cannot make a wrong answer pass through the harness that reads it (the review's forgeries).
  {
    problem: 'eq_subclass_keys',
    params: [['xs', 'List[int]']],
    returns: 'Dict[str, int]',
    tests: [{ input: [[1]], expected: { a: 1, b: 2 } }],
    answers: {
      right: { code: "def eq_subclass_keys(xs):\n    return {'a': 1, 'b': 2}\n", passes: true },
      // Three keys to Python: two are 'b' to JSON, and the last one written would win.
      own_eq: {
        code: "class K(str):\n    __hash__ = str.__hash__\n    def __eq__(self, other):\n        return self is other\n\ndef eq_subclass_keys(xs):\n    return {'a': 1, K('b'): 99, 'b': 2}\n",
        passes: false,
      },
    },
  },
  {
    problem: 'eq_subclass_set',
    params: [['xs', 'List[int]']],
    returns: 'Set[int]',
    tests: [{ input: [[1]], expected: [1, 2] }],
    answers: {
      right: { code: 'def eq_subclass_set(xs):\n    return {2, 1}\n', passes: true },
      own_eq: {
        code: 'class I(int):\n    __hash__ = int.__hash__\n    def __eq__(self, other):\n        return self is other\n\ndef eq_subclass_set(xs):\n    return [1, I(1), I(2)]\n',
        passes: false,
      },
      never_equal: {
        code: 'class I(int):\n    __hash__ = int.__hash__\n    def __eq__(self, other):\n        return False\n\ndef eq_subclass_set(xs):\n    return {I(1), I(2)}\n',
        passes: false,
      },
    },
  },
  {
    problem: 'finalizer_after_return',
    params: [['xs', 'List[int]']],
    returns: 'Dict[str, int]',
    tests: [{ input: [[1]], expected: { ab: 42 } }],
    answers: {
      right: { code: "def finalizer_after_return(xs):\n    return {'ab': 42}\n", passes: true },
      // The object it leaves in its argument is freed with the arguments, after the result is read.
      rewrites_result: {
        code: "def finalizer_after_return(xs):\n    r = {'ab': 0}\n    class D:\n        def __del__(self):\n            r['ab'] = 42\n    xs.append(D())\n    return r\n",
        passes: false,
      },
    },
  },
  {
    problem: 'key_getitem',
    params: [['xs', 'List[int]']],
    returns: 'List[Dict[str, int]]',
    tests: [{ input: [[1]], expected: [{ zz: 1 }, { ab: 42 }] }],
    answers: {
      right: { code: "def key_getitem(xs):\n    return [{'zz': 1}, {'ab': 42}]\n", passes: true },
      rewrites_result: {
        code: "R = [None]\nclass K(str):\n    __hash__ = str.__hash__\n    __eq__ = str.__eq__\n    def __getitem__(self, i):\n        R[0]['ab'] = 42\n        return str.__getitem__(self, i)\n\ndef key_getitem(xs):\n    d = {'ab': 0}\n    R[0] = d\n    return [{K('zz'): 1}, d]\n",
        passes: false,
      },
    },
  },
  {
    problem: 'user_wrappers',
    params: [['xs', 'List[int]']],
    returns: 'Any',
    tests: [{ input: [[1, 2]], expected: [[2, 4], 'AB', { '1': 2 }] }],
    answers: {
      right: {
        code: "from collections import UserDict, UserList, UserString\n\ndef user_wrappers(xs):\n    return [UserList([2 * x for x in xs]), UserString('AB'), UserDict({'1': 2})]\n",
        passes: true,
      },
      wrapped_wrong: {
        code: "from collections import UserDict, UserList, UserString\n\ndef user_wrappers(xs):\n    return [UserList(xs), UserString('AB'), UserDict({1: 2})]\n",
        passes: false,
      },
    },
  },
  {
    problem: 'registered_fraction',
    params: [['xs', 'List[int]']],
    returns: 'int',
    tests: [{ input: [[1]], expected: 42 }],
    answers: {
      right: { code: 'from fractions import Fraction\n\ndef registered_fraction(xs):\n    return Fraction(84, 2)\n', passes: true },
      registered: {
        code: 'from fractions import Fraction\n\nclass X:\n    _numerator = 42\n    _denominator = 1\n\nFraction.register(X)\n\ndef registered_fraction(xs):\n    return X()\n',
        passes: false,
      },
    },
  },
  {
    problem: 'keys_alike',
    params: [['xs', 'List[int]']],
    returns: 'Dict[Any, str]',
    tests: [{ input: [[1]], expected: { '1': 'right' } }],
    answers: {
      right: { code: "def keys_alike(xs):\n    return {'1': 'right'}\n", passes: true },
      // Two keys to Python, one to a comparison that names an untyped key as JSON would.
      int_and_str: { code: "def keys_alike(xs):\n    return {1: 'wrong', '1': 'right'}\n", passes: false },
      two_nans: { code: "def keys_alike(xs):\n    return {float('nan'): 'wrong', float('nan'): 'right'}\n", passes: false },
    },
  },
  {
    problem: 'class_dict_key',
    params: [['xs', 'List[int]']],
    returns: 'List[Any]',
    tests: [{ input: [[1]], expected: [5, [42]] }],
    answers: {
      right: { code: 'def class_dict_key(xs):\n    return [5, [42]]\n', passes: true },
      // A name in a class's dict whose hash is that of __eq__: looking __eq__ up there ran its own ==.
      rewrites_result: {
        code: "box = [0]\nclass K(str):\n    def __hash__(self):\n        return hash('__eq__')\n    def __eq__(self, other):\n        box[0] = 42\n        return False\n\nI = type('I', (int,), {K('zz'): 0})\n\ndef class_dict_key(xs):\n    box[0] = 0\n    return [I(5), box]\n",
        passes: false,
      },
      fraction_property: {
        // Its _numerator says 5, its == compares the 7 it was made from.
        code: "from fractions import Fraction\n\nclass F(Fraction):\n    @property\n    def _numerator(self):\n        return 5\n    @_numerator.setter\n    def _numerator(self, v):\n        self.__dict__['n'] = v\n    def __eq__(self, other):\n        return Fraction(self.__dict__['n']) == other\n    __hash__ = Fraction.__hash__\n\ndef class_dict_key(xs):\n    return [F(7), [42]]\n",
        passes: false,
      },
    },
  },
  {
    problem: 'map_keys_alike',
    params: [['xs', 'List[int]']],
    returns: 'Dict[str, str]',
    tests: [{ input: [[1]], expected: { '1': 'right' } }],
    answers: {
      right: { code: "function map_keys_alike(xs) { return new Map([['1', 'right']]); }", passes: true, language: 'js' },
      // Two entries: JSON would write both keys as "1", and the last one would win.
      two_keys: { code: "function map_keys_alike(xs) { return new Map([[1, 'wrong'], ['1', 'right']]); }", passes: false, language: 'js' },
      two_arrays: { code: "function map_keys_alike(xs) { return new Map([[[1], 'wrong'], [[1], 'right']]); }", passes: false, language: 'js' },
    },
  },
];

function writeFolders(): { problems: string; solutions: string } {
  const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-verdicts-'));
  const problems = join(root, 'problems');
  const solutions = join(root, 'solutions');
  mkdirSync(problems);
  for (const c of CASES) {
    const names = c.params.map(([name]) => name);
    const problem = {
      identifier: c.problem,
      description: `The ${c.problem} problem.`,
      prompts: [{ prompt_id: 'p', prompt: `Write ${c.problem}.`, genericize: c.genericize === true, sample_inputs_outputs: [] }],
      function_prototype: {
        function_name: c.problem,
        parameters: c.params.map(([name, type]) => ({ name, type })),
        return_values: [{ type: c.returns }],
      },
      correctness_test_suite: c.tests.map((t) => ({ input: Object.fromEntries(names.map((n, i) => [n, t.input[i]])), expected_output: [t.expected] })),
    };
    writeFileSync(join(problems, `${c.problem}.json`), JSON.stringify(problem, null, 2));
    for (const [model, answer] of Object.entries(c.answers)) {
      const dir = join(solutions, model, c.problem);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `p.${answer.language ?? 'py'}`), answer.code);
    }
  }
  return { problems, solutions };
}

function found(card: Scorecard, problem: string, model: string): CandidateResult {
  const c = card.candidates.find((x) => x.problem_id === problem && x.model_id === model);
  if (c === undefined) throw new Error(`no candidate ${model}/${problem}`);
  return c;
}

describe('verdicts as CPython gives them, through the CLI', () => {
  let graded: Promise<{ card: Scorecard; folders: { problems: string; solutions: string } }>;
  beforeAll(() => {
    graded = (async () => {
      const folders = writeFolders();
      const out = join(mkdtempSync(join(tmpdir(), 'evalrun-e2e-verdicts-out-')), 'card.json');
      const r = await runCli(['--problems', folders.problems, '--solutions', folders.solutions, '--out', out, '--no-progress']);
      if (!existsSync(out)) throw new Error(`no scorecard (exit ${r.code}): ${r.stderr}`);
      return { card: JSON.parse(readFileSync(out, 'utf8')) as Scorecard, folders };
    })();
  });

  it.each(CASES.flatMap((c) => Object.entries(c.answers).map(([model, answer]) => [c.problem, model, answer.passes] as const)))(
    '%s by %s: passes is %s',
    async (problem, model, passes) => {
      const { card } = await graded;
      const c = found(card, problem, model);
      expect(c.status, JSON.stringify(c.tests.map((t) => t.error))).toBe(passes ? 'passed' : 'failed');
    },
    RUN_MS,
  );

  it(
    'says which function it called: the generic one a genericized prompt showed, and a class method in JavaScript',
    async () => {
      const { card } = await graded;
      expect(found(card, 'add', 'generic').entry_point).toBe('name:function');
      expect(found(card, 'add', 'named').entry_point).toBe('name:add');
      expect(found(card, 'twice', 'js_class').entry_point).toBe('method Solution.twice');
    },
    RUN_MS,
  );

  it(
    'records a deque as having no JSON form, and a float for an expected int as the float it is',
    async () => {
      const { card } = await graded;
      expect(found(card, 'first_n', 'as_deque').tests[0]!.error).toMatch(/deque, which has no JSON form/);
      expect(found(card, 'floor_avg', 'true_division').tests[0]!.actual).toBe(1000000000.5);
    },
    RUN_MS,
  );

  // The Python answers' expected verdicts are CPython's own, checked here when python3 is on the machine.
  it.skipIf(spawnSync('python3', ['--version']).status !== 0)(
    "agrees with CPython's == on every Python answer",
    async () => {
      const { folders } = await graded;
      for (const c of CASES) {
        for (const [model, answer] of Object.entries(c.answers)) {
          if ((answer.language ?? 'py') !== 'py') continue;
          const name = answer.call ?? (c.genericize === true ? 'function' : c.problem);
          const script = [
            'import json, sys',
            'space = {}',
            'exec(open(sys.argv[1]).read(), space)',
            'tests = json.loads(sys.argv[2])',
            // A declared Set is read as a set, as evalrun reads it (VALUES.md); JSON has none.
            `want = ${c.returns.startsWith('Set[') ? 'set' : 'lambda v: v'}`,
            // On a line of its own: an answer may write to stdout.
            `print("\\n" + str(all(space[${JSON.stringify(name)}](*t["input"]) == want(t["expected"]) for t in tests)))`,
          ].join('\n');
          const r = spawnSync('python3', ['-c', script, join(folders.solutions, model, c.problem, 'p.py'), JSON.stringify(c.tests)], {
            encoding: 'utf8',
            input: '',
          });
          expect(r.stdout.trim().split('\n').pop(), `${model}/${c.problem}: ${r.stderr}`).toBe(answer.passes ? 'True' : 'False');
        }
      }
    },
    RUN_MS,
  );
});

describe('a submission for a problem file that is not JSON at all', () => {
  it(
    'is skipped because that file is invalid, named by the file, not as an unknown problem',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-broken-'));
      mkdirSync(join(root, 'problems'));
      mkdirSync(join(root, 'solutions', 'm'), { recursive: true });
      writeFileSync(join(root, 'problems', 'add.json'), '{"identifier": "add", "prompts": [],}\n');
      writeFileSync(join(root, 'solutions', 'm', 'add.py'), 'def add(a, b):\n    return a + b\n');
      const out = join(root, 'card.json');
      const r = await runCli(['--problems', join(root, 'problems'), '--solutions', join(root, 'solutions'), '--out', out, '--no-progress']);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      expect(card.skipped_submissions).toEqual([
        { source: join(root, 'solutions', 'm', 'add.py'), reason: `problem "add" is invalid (${join(root, 'problems', 'add.json')})` },
      ]);
      expect(r.stdout).toMatch(/Invalid problem files \(1\)/);
    },
    RUN_MS,
  );
});

describe('an optimal_solution pasted with its Markdown fence', () => {
  it(
    'is read as an answer is, and code that only holds a fence inside a string runs as written',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-fenced-optimal-'));
      mkdirSync(join(root, 'problems'));
      const problem = (id: string, optimal: string): string =>
        JSON.stringify({
          identifier: id,
          description: id,
          prompts: [],
          function_prototype: { function_name: id, parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'str' }] },
          correctness_test_suite: [{ input: { n: 2 }, expected_output: ['`'.repeat(6)] }],
          optimal_solution: optimal,
        });
      writeFileSync(join(root, 'problems', 'fenced.json'), problem('fenced', "```python\ndef fenced(n):\n    return '`' * 3 * n\n```\n"));
      writeFileSync(join(root, 'problems', 'plain.json'), problem('plain', "FENCE = '```'\ndef plain(n):\n    return FENCE * n\n"));
      const out = join(root, 'card.json');
      await runCli(['--problems', join(root, 'problems'), '--out', out, '--no-progress']);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      expect(card.candidates.map((c) => [c.problem_id, c.status])).toEqual([
        ['fenced', 'passed'],
        ['plain', 'passed'],
      ]);
    },
    RUN_MS,
  );
});

/** A `problems` folder under `root` with one problem: inc(n) = n + 1, one test. */
function writeIncProblem(root: string, optimal?: string): void {
  mkdirSync(join(root, 'problems'));
  writeFileSync(
    join(root, 'problems', 'inc.json'),
    JSON.stringify({
      identifier: 'inc',
      description: 'inc',
      ...(optimal === undefined ? {} : { optimal_solution: optimal }),
      prompts: [],
      function_prototype: { function_name: 'inc', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'int' }] },
      correctness_test_suite: [{ input: { n: 2 }, expected_output: [3] }],
    }),
  );
}

describe('unfenced Python with prose around it', () => {
  it(
    "drops the top-level lines Python rejects that read as prose, and keeps a syntax error that is the code's own",
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-prose-'));
      writeIncProblem(root);
      const answers: Record<string, string> = {
        sure: 'Sure, here is the solution.\ndef inc(n):\n    return n + 1\n',
        step: 'Step 1: define the function\ndef inc(n):\n    return n + 1\n',
        complexity: 'def inc(n):\n    return n + 1\n\n**Time complexity:** O(1)\nWe add one; nothing else is needed.\nThis is O(1).\n',
        // A sentence that opens with a keyword but has no colon is no statement.
        keyword_prose: 'def inc(n):\n    return n + 1\n\nfor example, inc(2) is 3.\nwhile this is O(1), it is enough.\n',
        // A header that lost its colon is the code's own error.
        broken_header: 'def inc(n):\n    return n + 1\n\nfor i in range(3)\n    print(inc(i))\n',
        // A line of code that went wrong is the answer's own error, however it reads.
        broken_code: 'def inc(n):\n    return n + 1\n\nresult = inc(x for x in range(3)\n',
        broken_body: 'def inc(n):\n    return n + 1 as well\n',
        // Sentences with an equals sign, or in another script.
        equation: 'We need f(n) = n + 1.\ndef inc(n):\n    return n + 1\n\nNote: n = 0 gives 1.\n',
        chinese: '以下是解决方案：\ndef inc(n):\n    return n + 1\n✅ Done!\n',
        // An assignment that went wrong stays the code's own error.
        broken_assignment: 'def inc(n):\n    return n + 1\n\ntotal = inc(2) inc(3)\n',
      };
      for (const [model, code] of Object.entries(answers)) {
        mkdirSync(join(root, 'solutions', model), { recursive: true });
        writeFileSync(join(root, 'solutions', model, 'inc.py'), code);
      }
      const out = join(root, 'card.json');
      await runCli(['--problems', join(root, 'problems'), '--solutions', join(root, 'solutions'), '--out', out, '--no-progress']);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      const status = Object.fromEntries(card.candidates.map((c) => [c.model_id, c.status]));
      expect(status).toEqual({
        sure: 'passed',
        step: 'passed',
        complexity: 'passed',
        keyword_prose: 'passed',
        broken_code: 'load-error',
        broken_body: 'load-error',
        broken_header: 'load-error',
        equation: 'passed',
        chinese: 'passed',
        broken_assignment: 'load-error',
      });
      // The code recorded is the code that ran.
      expect(card.candidates.find((c) => c.model_id === 'complexity')!.code).toBe('def inc(n):\n    return n + 1\n');
    },
    RUN_MS,
  );
});

describe('an answer fenced in a language evalrun does not run', () => {
  it(
    'is unsupported under that name, not a JavaScript load error; an empty one is in no language; a translation is passed over',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-other-'));
      writeIncProblem(root);
      mkdirSync(join(root, 'solutions'));
      const fence = '```';
      const answers = [
        { model: 'cpp', completion: `Here:\n${fence}cpp\n#include <cstdio>\nint inc(int n) { return n + 1; }\n${fence}` },
        { model: 'java', completion: `${fence}java\nclass S { static int inc(int n) { return n + 1; } }\n${fence}` },
        { model: 'python', completion: `${fence}python\ndef inc(n):\n    return n + 1\n${fence}` },
        {
          model: 'translated',
          completion: `${fence}python\ndef inc(n):\n    return n + 1\n${fence}\nIn Ruby:\n${fence}ruby\ndef inc(n)\n  n - 1\nend\n${fence}`,
        },
        { model: 'empty', completion: ' \n' },
        { model: 'cut', completion: '<think>\nFirst, square each number and' },
      ];
      writeFileSync(join(root, 'solutions', 'samples.jsonl'), answers.map((a) => JSON.stringify({ task_id: 'inc', ...a })).join('\n') + '\n');
      const out = join(root, 'card.json');
      await runCli(['--problems', join(root, 'problems'), '--solutions', join(root, 'solutions'), '--out', out, '--no-progress']);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      const byModel = Object.fromEntries(card.candidates.map((c) => [c.model_id, { status: c.status, language: c.language, error: c.error }]));
      expect(byModel).toEqual({
        cpp: { status: 'unsupported', language: 'cpp', error: 'unsupported language: cpp' },
        java: { status: 'unsupported', language: 'java', error: 'unsupported language: java' },
        python: { status: 'passed', language: 'python', error: null },
        translated: { status: 'passed', language: 'python', error: null },
        empty: { status: 'load-error', language: 'unknown', error: 'the submission holds no code' },
        cut: { status: 'load-error', language: 'unknown', error: 'the submission holds no code: its thinking never closed' },
      });
    },
    RUN_MS,
  );
});

describe('an answer in two languages, declaring neither', () => {
  it(
    "is graded in the language of its problem's optimal_solution, whichever block comes last",
    async () => {
      const fence = '```';
      const python = (body: string): string => `${fence}python\ndef inc(n):\n    return ${body}\n${fence}`;
      const js = (body: string): string => `${fence}javascript\nfunction inc(n) {\n  return ${body};\n}\n${fence}`;
      const answers = [
        { model: 'wrong-py-right-js', completion: `${python('n - 1')}\nFor reference, in JavaScript:\n${js('n + 1')}` },
        { model: 'right-py-wrong-js', completion: `${python('n + 1')}\nThe same in JavaScript:\n${js('n')}` },
        { model: 'js-only', completion: js('n + 1') },
      ];
      const verdicts: Record<string, Record<string, { status: string; language: string }>> = {};
      for (const optimal of ['def inc(n):\n    return n + 1\n', 'function inc(n) {\n  return n + 1;\n}\n']) {
        const root = mkdtempSync(join(tmpdir(), 'evalrun-e2e-two-'));
        writeIncProblem(root, optimal);
        mkdirSync(join(root, 'solutions'));
        writeFileSync(join(root, 'solutions', 'samples.jsonl'), answers.map((a) => JSON.stringify({ task_id: 'inc', ...a })).join('\n') + '\n');
        const out = join(root, 'card.json');
        await runCli(['--problems', join(root, 'problems'), '--solutions', join(root, 'solutions'), '--out', out, '--no-progress']);
        const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
        verdicts[optimal.startsWith('def') ? 'python' : 'javascript'] = Object.fromEntries(
          card.candidates.filter((c) => c.model_id !== 'optimal_solution').map((c) => [c.model_id, { status: c.status, language: c.language }]),
        );
      }
      expect(verdicts).toEqual({
        python: {
          'wrong-py-right-js': { status: 'failed', language: 'python' },
          'right-py-wrong-js': { status: 'passed', language: 'python' },
          // With no block in the problem's language, the answer's own is graded.
          'js-only': { status: 'passed', language: 'javascript' },
        },
        javascript: {
          'wrong-py-right-js': { status: 'passed', language: 'javascript' },
          'right-py-wrong-js': { status: 'failed', language: 'javascript' },
          'js-only': { status: 'passed', language: 'javascript' },
        },
      });
    },
    RUN_MS,
  );
});
