/**
 * Completions that are a function's body alone, as human-eval's samples
 * files hold them (`task_id`, `completion`): the CLI grades each under the
 * head its prompt ends with, or one made from the prototype, and leaves
 * every answer that could run as written alone.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';

interface Prompt {
  prompt_id: string;
  prompt: string;
  genericize: boolean;
}

function problem(id: string, name: string, parameters: [string, string][], returns: string, tests: [unknown[], unknown][], prompts: Prompt[]): object {
  return {
    identifier: id,
    description: id,
    function_prototype: { function_name: name, parameters: parameters.map(([n, type]) => ({ name: n, type })), return_values: [{ type: returns }] },
    correctness_test_suite: tests.map(([args, expected]) => ({
      input: Object.fromEntries(parameters.map(([n], i) => [n, args[i]])),
      expected_output: [expected],
    })),
    prompts: prompts.map((p) => ({ ...p, sample_inputs_outputs: [] })),
  };
}

// HumanEval/10's prompt: an import and a helper before the function, whose body uses the helper.
const PALINDROME_PROMPT =
  'import math\n\n\ndef is_palindrome(string: str) -> bool:\n    """ Test if given string is a palindrome """\n    return string == string[::-1]\n\n\n' +
  'def make_palindrome(string: str) -> str:\n    """ Find the shortest palindrome that begins with a supplied string.\n    >>> make_palindrome(\'cat\')\n    \'catac\'\n    """\n';
const PALINDROME_BODY =
  "    if not string:\n        return ''\n    cut = 0\n    while not is_palindrome(string[cut:]):\n        cut += 1\n    return string + string[:cut][::-1]\n";

function folder(): { problems: string; solutions: string; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'evalrun-body-'));
  const problems = join(root, 'problems');
  const solutions = join(root, 'solutions');
  mkdirSync(problems);
  mkdirSync(solutions);
  const files: Record<string, object> = {
    palindrome: problem(
      'HumanEval/10',
      'make_palindrome',
      [['string', 'str']],
      'str',
      [
        [['cat'], 'catac'],
        [[''], ''],
        [['cata'], 'catac'],
      ],
      [{ prompt_id: 'humaneval', prompt: PALINDROME_PROMPT, genericize: false }],
    ),
    count: problem(
      'count',
      'count_up',
      [
        ['limit', 'int'],
        ['step', 'int'],
      ],
      'List[int]',
      [
        [
          [5, 2],
          [0, 2, 4],
        ],
      ],
      [
        { prompt_id: 'generic', prompt: 'Write the function.', genericize: true },
        { prompt_id: 'plain', prompt: 'Write count_up(limit, step), the multiples of step below limit.', genericize: false },
      ],
    ),
    add: problem(
      'add',
      'add',
      [
        ['x', 'int'],
        ['y', 'int'],
      ],
      'int',
      [
        [[1, 2], 3],
        [[-4, 4], 0],
      ],
      [{ prompt_id: 'js', prompt: '/* Add them. */\nconst add = (x, y) => {\n', genericize: false }],
    ),
    pair: problem(
      'pair',
      'twoSum',
      [
        ['nums', 'List[int]'],
        ['target', 'int'],
      ],
      'List[int]',
      [
        [
          [[2, 7, 11, 15], 9],
          [0, 1],
        ],
      ],
      [{ prompt_id: 'leet', prompt: 'class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ', genericize: false }],
    ),
    square: problem('square', 'square', [['n', 'int']], 'int', [[[3], 9]], [{ prompt_id: 'only', prompt: 'Write function(a).', genericize: true }]),
  };
  for (const [name, body] of Object.entries(files)) writeFileSync(join(problems, `${name}.json`), JSON.stringify(body));
  const twoSum =
    'seen = {}\n        for i, n in enumerate(nums):\n            if target - n in seen:\n                return [seen[target - n], i]\n            seen[n] = i\n';
  const lines = [
    { task_id: 'HumanEval/10', completion: PALINDROME_BODY },
    { task_id: 'HumanEval/10', completion: '    return string\n' },
    { task_id: 'count', prompt_id: 'generic', completion: '    return list(range(0, a, b))\n' },
    { task_id: 'count', prompt_id: 'plain', completion: '    return list(range(0, limit, step))\n' },
    { task_id: 'count', prompt_id: 'plain', completion: '    def helper(limit, step):\n        return list(range(0, limit, step))\n' },
    { task_id: 'add', prompt_id: 'js', completion: '  return x + y;\n};\n' },
    { task_id: 'pair', prompt_id: 'leet', completion: twoSum },
    { task_id: 'count', prompt_id: 'plain', completion: 'Complete it with:\n```python\n    return list(range(0, limit, step))\n```\n' },
    { task_id: 'square', completion: '    return a * a\n' },
    // A chat model's whole function, calling the prompt's helper without writing it again.
    { task_id: 'HumanEval/10', completion: `\`\`\`python\ndef make_palindrome(string: str) -> str:\n${PALINDROME_BODY}\`\`\`\n` },
    // A whole function that writes its own helper keeps it.
    {
      task_id: 'HumanEval/10',
      completion: `def is_palindrome(s):\n    return True\n\n\ndef make_palindrome(string: str) -> str:\n${PALINDROME_BODY}`,
    },
  ];
  writeFileSync(join(solutions, 'samples.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { problems, solutions, out: join(root, 'card.json') };
}

describe('completions that are a function body alone', () => {
  const paths = folder();
  const run = runCli(['--problems', paths.problems, '--solutions', paths.solutions, '--out', paths.out, '--concurrency', '2']).then((r) => ({
    ...r,
    card: JSON.parse(readFileSync(paths.out, 'utf8')) as Scorecard,
  }));

  const find = async (problemId: string, promptId: string | null, nth = 0) => {
    const { card } = await run;
    const found = card.candidates.filter((c) => c.problem_id === problemId && c.prompt_id === promptId);
    return found[nth]!;
  };

  it('runs under the head the prompt ends with, its helpers and imports included', async () => {
    const right = await find('HumanEval/10', null, 0);
    expect(right.status).toBe('passed');
    expect(right.code).toBe(`${PALINDROME_PROMPT.trimEnd()}\n${PALINDROME_BODY.trimEnd()}`);
    expect((await find('HumanEval/10', null, 1)).status).toBe('failed');
  });

  it("runs a whole function after the prompt's imports and helpers it uses, as human-eval runs prompt + completion", async () => {
    const whole = await find('HumanEval/10', null, 2);
    expect(whole.status).toBe('passed');
    // Blank lines as the prompt had them after its helper.
    expect(whole.code.replace(/\n{3,}/g, '\n\n')).toBe(
      'def is_palindrome(string: str) -> bool:\n    """ Test if given string is a palindrome """\n    return string == string[::-1]\n\n' +
        `def make_palindrome(string: str) -> str:\n${PALINDROME_BODY.trimEnd()}`,
    );
    // Its own helper is its own: the prompt's is not put before it, and this one is wrong.
    const own = await find('HumanEval/10', null, 3);
    expect(own.code.startsWith('def is_palindrome(s):')).toBe(true);
    expect(own.status).toBe('failed');
  });

  it('runs under a def made from the prototype as the prompt showed it, generic names included', async () => {
    const generic = await find('count', 'generic');
    expect(generic.status).toBe('passed');
    expect(generic.code).toBe('def function(a, b):\n    return list(range(0, a, b))');
    expect(generic.entry_point).toBe('name:function');
    expect((await find('count', 'plain', 0)).status).toBe('passed');
    // A submission that names no prompt, when every prompt of its problem was genericized.
    const square = await find('square', null);
    expect(square.code).toBe('def function(a):\n    return a * a');
    expect(square.status).toBe('passed');
  });

  it('runs a body that a chat model fenced', async () => {
    const fenced = await find('count', 'plain', 2);
    expect(fenced.code).toBe('def count_up(limit, step):\n    return list(range(0, limit, step))');
    expect(fenced.status).toBe('passed');
  });

  it('leaves text that could run as written alone', async () => {
    const helper = await find('count', 'plain', 1);
    expect(helper.code).toBe('def helper(limit, step):\n    return list(range(0, limit, step))');
    expect(helper.entry_point).toBe('last-defined:helper');
    expect(helper.status).toBe('passed');
  });

  it("joins a JavaScript body to the prompt's function, and a method's body to its class", async () => {
    const add = await find('add', 'js');
    expect(add.language).toBe('javascript');
    expect(add.status).toBe('passed');
    const pair = await find('pair', 'leet');
    expect(pair.status).toBe('passed');
    expect(pair.entry_point).toBe('method:Solution.twoSum');
  });
});
