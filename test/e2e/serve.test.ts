/**
 * `evalrun serve` end to end: the real command on a free port, against
 * test/fixtures/serve. Its verdicts are compared with the CLI's for the same
 * problems, code and options (and prompts); refusals, the bounds of the
 * limits, the token, a full queue, streaming, a client that goes away, a
 * worker killed from outside and SIGTERM (the drain included) are each
 * checked on the live server. Nothing here is timed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CandidateResult, Scorecard } from '../../src/report/scorecard.js';
import { runCli } from './run-cli.js';
import { childPids, metric, post, SERVE_PROBLEMS, startServer, until, type ReplyBody, type Server } from './serve-helpers.js';
import { py } from '../python-source.js';

interface Sent {
  problem: string;
  code: string;
  language?: string;
}

/** Candidates of every kind of verdict, in both languages: passing, failing, throwing, not loading, timing out, fenced in prose. */
const CANDIDATES: Sent[] = [
  { problem: 'add', code: 'function add(a, b) { return a + b; }', language: 'javascript' },
  { problem: 'add', code: 'function add(a, b) { return a - b; }', language: 'javascript' },
  { problem: 'add', code: 'function add(a, b) { if (a > 30) throw new Error("big"); return a + b; }', language: 'javascript' },
  { problem: 'add', code: 'function add(a, b) { return a + ; }', language: 'javascript' },
  {
    problem: 'add',
    code: py`
    def add(a, b):
        return a + b
  `,
    language: 'python',
  },
  { problem: 'add', code: 'Here you go:\n\n```python\ndef add(a, b):\n    return a * b\n```\nHope it helps.' },
  { problem: 'add', code: 'function add(a, b) { if (a === 40) { for (;;) {} } return a + b; }' },
  {
    problem: 'halves',
    code: py`
    def halves(xs):
        return [x / 2 for x in xs]
  `,
    language: 'python',
  },
  {
    problem: 'halves',
    code: py`
    def halves(xs):
        return [x // 2 for x in xs]
  `,
    language: 'python',
  },
  {
    problem: 'halves',
    code: py`
    def halves(xs):
        raise ValueError("no")
  `,
  },
  { problem: 'halves', code: 'function halves(xs) { return xs.map((x) => x / 2); }', language: 'javascript' },
];

const OPTIONS = { timeout_ms: 1000 };

/** Passes, after a while of work per test (the sandbox's clock stands still, so it counts instead of watching the time). */
const SLOW = 'function add(a, b) { let s = 0; for (let i = 0; i < 2e8; i++) s = (s + i) | 0; return a + b + (s & 0); }';

/** A GET through `agent`: its status, its Connection header, its body, and whether it went on a connection used before. */
function get(agent: Agent, url: string): Promise<{ status: number; connection: string | undefined; body: string; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body, reused: sent.reusedSocket }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** What must be equal between the CLI's record of a candidate and the server's result. */
function verdict(r: Pick<CandidateResult, 'status' | 'language' | 'passed' | 'total' | 'error' | 'entry_point' | 'tests'>): unknown {
  return {
    status: r.status,
    language: r.language,
    passed: r.passed,
    total: r.total,
    error: r.error,
    entry_point: r.entry_point,
    tests: r.tests.map((t) => ({ status: t.status, expected: t.expected, actual: t.actual, error: t.error })),
  };
}

describe('evalrun serve', () => {
  let server: Server;
  let tmp: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'evalrun-serve-'));
    server = await startServer(['--problems', SERVE_PROBLEMS, '--concurrency', '2']);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('is healthy once warm, lists its problems and serves metrics', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', workers: 2 });
    const problems = (await (await fetch(`${server.url}/v1/problems`)).json()) as { problems: Array<{ id: string }> };
    expect(problems.problems.map((p) => p.id).sort()).toEqual(['add', 'halves']);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    for (const name of [
      'evalrun_candidates_graded_total',
      'evalrun_queue_depth',
      'evalrun_candidate_latency_seconds_bucket',
      'evalrun_worker_restarts_total',
    ]) {
      expect(metrics).toContain(name);
    }
  });

  for (const stop of [false, true]) {
    it(`gives the CLI's verdicts for the same problems, code and options${stop ? ' (stop on first failure)' : ''}`, async () => {
      const options = stop ? { ...OPTIONS, stop_on_first_failure: true } : OPTIONS;
      // The server: one request per problem, candidates in order.
      const served = new Map<number, unknown>();
      for (const problem of ['add', 'halves']) {
        const mine = CANDIDATES.map((c, i) => ({ c, i })).filter(({ c }) => c.problem === problem);
        const reply = await post(`${server.url}/v1/grade`, {
          problem_id: problem,
          candidates: mine.map(({ c, i }) => ({ id: `c${i}`, code: c.code, ...(c.language === undefined ? {} : { language: c.language }) })),
          options,
        });
        expect(reply.status).toBe(200);
        const results = reply.body.results as Array<CandidateResult & { index: number; id: string; score: number }>;
        expect(results.map((r) => r.id)).toEqual(mine.map(({ i }) => `c${i}`));
        results.forEach((r, k) => {
          expect(r.index).toBe(k);
          expect(r.score).toBe(r.total === 0 ? 0 : r.passed / r.total);
          served.set(mine[k]!.i, verdict(r));
        });
      }
      // The CLI: the same candidates as submissions.
      const solutions = join(tmp, `solutions-${stop}`);
      const lines = CANDIDATES.map((c, i) =>
        JSON.stringify({
          problem_id: c.problem,
          model_id: 'm',
          sample_id: `c${i}`,
          completion: c.code,
          ...(c.language === undefined ? {} : { language: c.language }),
        }),
      );
      mkdirSync(solutions, { recursive: true });
      writeFileSync(join(solutions, 'm.jsonl'), `${lines.join('\n')}\n`);
      const out = join(tmp, `card-${stop}.json`);
      const cli = await runCli([
        '--problems',
        SERVE_PROBLEMS,
        '--solutions',
        solutions,
        '--out',
        out,
        '--timeout',
        '1000',
        '--concurrency',
        '2',
        '--no-progress',
        ...(stop ? ['--stop-on-first-failure'] : []),
      ]);
      expect(cli.code, cli.stderr).toBe(0);
      const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
      expect(card.candidates).toHaveLength(CANDIDATES.length);
      for (const record of card.candidates) {
        const index = Number(record.sample_id!.slice(1));
        expect(served.get(index), `candidate ${index}`).toEqual(verdict(record));
      }
      if (stop) {
        // The tests after the first failure are skipped and still count.
        const skipped = card.candidates.flatMap((c) => c.tests).filter((t) => t.status === 'skipped');
        expect(skipped.length).toBeGreaterThan(0);
        expect(card.summary.skipped).toBe(skipped.length);
        for (const c of card.candidates) {
          const first = c.tests.findIndex((t) => t.status !== 'pass');
          if (first >= 0 && c.status === 'failed') expect(c.tests.slice(first + 1).every((t) => t.status === 'skipped')).toBe(true);
        }
      } else {
        expect(card.candidates.some((c) => c.tests.some((t) => t.status === 'timeout'))).toBe(true);
      }
    });
  }

  it('grades a problem sent inline, from its own text', async () => {
    // A test past 2^53, in the request's text: a parsed object would have lost its last digits.
    const text = readFileSync(join(SERVE_PROBLEMS, 'add.json'), 'utf8')
      .replace('"identifier": "add"', '"identifier": "add_big"')
      .replace(
        '"correctness_test_suite": [',
        '"correctness_test_suite": [\n    { "input": { "a": 9007199254740993, "b": 1 }, "expected_output": [9007199254740994] },',
      );
    const body = `{"problem": ${text}, "candidates": [{"id": "big", "code": "def add(a, b):\\n    return a + b\\n"}, {"id": "off", "code": "def add(a, b):\\n    return float(a) + b\\n"}]}`;
    const reply = await post(`${server.url}/v1/grade`, body);
    expect(reply.status).toBe(200);
    expect(reply.body.results[0]).toMatchObject({ id: 'big', problem_id: 'add_big', status: 'passed', passed: 5, total: 5, score: 1 });
    // Through a float the sum loses the digit, and the big test fails.
    expect(reply.body.results[1]).toMatchObject({ id: 'off', status: 'failed', passed: 4, total: 5, score: 0.8 });
    expect(reply.body.results[1]!.tests[0]!.status).toBe('fail');
  });

  it('reads NaN and Infinity in an inline problem, as Python writes them and as a problem file may hold them', async () => {
    const problem = JSON.parse(readFileSync(join(SERVE_PROBLEMS, 'add.json'), 'utf8')) as Record<string, unknown>;
    problem.identifier = 'add_nan';
    problem.function_prototype = {
      function_name: 'add',
      parameters: [
        { name: 'a', type: 'float' },
        { name: 'b', type: 'float' },
      ],
      return_values: [{ type: 'float' }],
    };
    problem.correctness_test_suite = [
      { input: { a: 'INF', b: 1 }, expected_output: ['INF'] },
      { input: { a: 'NAN', b: 1 }, expected_output: ['NAN'] },
      { input: { a: 'MINUS_INF', b: 2 }, expected_output: ['MINUS_INF'] },
    ];
    const text = JSON.stringify(problem)
      .replace(/"INF"/g, 'Infinity')
      .replace(/"NAN"/g, 'NaN')
      .replace(/"MINUS_INF"/g, '-Infinity');
    const body = `{"problem": ${text}, "candidates": [{"id": "sum", "code": "def add(a, b):\\n    return a + b\\n"}, {"id": "zero", "code": "def add(a, b):\\n    return 0.0\\n"}]}`;
    const reply = await post(`${server.url}/v1/grade`, body);
    expect(reply.status).toBe(200);
    expect(reply.body.results[0]).toMatchObject({ id: 'sum', problem_id: 'add_nan', status: 'passed', passed: 3, total: 3 });
    expect(reply.body.results[1]).toMatchObject({ id: 'zero', status: 'failed', passed: 0, total: 3 });
    // Outside the inline problem the words are no JSON, as JSON.parse says.
    const options = await post(`${server.url}/v1/grade`, `{"problem_id": "add", "candidates": [{"code": "x"}], "options": {"timeout_ms": NaN}}`);
    expect(options.status).toBe(400);
    expect(options.body.error).toMatch(/^malformed JSON: .*line 1, column \d+/);
  });

  it("grades an answer to a named prompt as the CLI grades a submission's prompt id", async () => {
    // One prompt shows the model `function(a, b)`, the other ends with the head a body-only completion goes under.
    const problem = {
      identifier: 'add_up',
      description: 'Add two integers.',
      function_prototype: {
        function_name: 'add_up',
        parameters: [
          { name: 'x', type: 'int' },
          { name: 'y', type: 'int' },
        ],
        return_values: [{ type: 'int' }],
      },
      prompts: [
        { prompt_id: 'generic', prompt: 'Write function(a, b), which adds two integers.', genericize: true, sample_inputs_outputs: [] },
        { prompt_id: 'head', prompt: 'def add_up(x, y):\n    """Add x and y."""\n', genericize: false, sample_inputs_outputs: [] },
      ],
      correctness_test_suite: [
        { input: { x: 1, y: 2 }, expected_output: [3] },
        { input: { x: 5, y: -5 }, expected_output: [0] },
      ],
    };
    // The generic function calls a helper defined after it: without the prompt, the last function defined would be called.
    const generic = py`
      def function(a, b):
          return _to_int(a) + _to_int(b)

      def _to_int(v):
          return int(v)
    `;
    const sent = [
      { id: 'generic', code: generic, prompt_id: 'generic' },
      { id: 'body', code: '    return x + y\n', prompt_id: 'head' },
      { id: 'none', code: generic },
    ];
    const reply = await post(`${server.url}/v1/grade`, { problem, candidates: sent });
    expect(reply.status, reply.body.error).toBe(200);
    const results = reply.body.results as unknown as Array<CandidateResult & { id: string }>;
    expect(results.map((r) => [r.id, r.prompt_id, r.status, r.entry_point])).toEqual([
      ['generic', 'generic', 'passed', 'name:function'],
      ['body', 'head', 'passed', 'name:add_up'],
      ['none', null, 'failed', 'last-defined:_to_int'],
    ]);

    // The CLI, given the same answers as submissions to those prompts.
    const problems = join(tmp, 'prompt-problems');
    const solutions = join(tmp, 'prompt-solutions');
    mkdirSync(problems, { recursive: true });
    mkdirSync(solutions, { recursive: true });
    writeFileSync(join(problems, 'add_up.json'), JSON.stringify(problem));
    const lines = sent.map((c) =>
      JSON.stringify({
        problem_id: 'add_up',
        model_id: 'm',
        sample_id: c.id,
        completion: c.code,
        ...(c.prompt_id === undefined ? {} : { prompt_id: c.prompt_id }),
      }),
    );
    writeFileSync(join(solutions, 'm.jsonl'), `${lines.join('\n')}\n`);
    const out = join(tmp, 'card-prompts.json');
    const cli = await runCli(['--problems', problems, '--solutions', solutions, '--out', out, '--concurrency', '1', '--no-progress']);
    expect(cli.code, cli.stderr).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    for (const record of card.candidates) {
      const served = results.find((r) => r.id === record.sample_id)!;
      expect(served.prompt_id, record.sample_id!).toBe(record.prompt_id);
      expect(verdict(served), record.sample_id!).toEqual(verdict(record));
    }

    // A prompt the problem does not have is refused, naming the ones it has.
    const unknown = await post(`${server.url}/v1/grade`, { problem, candidates: [{ code: generic }, { code: generic, prompt_id: 'nope' }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toBe('candidates[1].prompt_id: problem "add_up" has no prompt "nope" (its prompts: "generic", "head")');
    const none = await post(`${server.url}/v1/grade`, { problem_id: 'add', candidates: [{ code: generic, prompt_id: 'generic' }] });
    expect(none.status).toBe(422);
    expect(none.body.error).toMatch(/^candidates\[0\]\.prompt_id: problem "add" has no prompts/);
  });

  it('streams one line per finished candidate with Accept: application/x-ndjson', async () => {
    const response = await fetch(`${server.url}/v1/grade`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({
        problem_id: 'add',
        candidates: [
          { id: 'one', code: 'function add(a, b) { return a + b; }' },
          { code: 'function add(a, b) { return a * b; }' },
          {
            id: 'three',
            code: py`
            def add(a, b):
                return b + a
          `,
          },
        ],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const lines = (await response.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; id: string | null; status: string });
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.index).sort()).toEqual([0, 1, 2]);
    const byIndex = new Map(lines.map((l) => [l.index, l]));
    expect(byIndex.get(0)).toMatchObject({ id: 'one', status: 'passed' });
    expect(byIndex.get(1)).toMatchObject({ id: null, status: 'failed' });
    expect(byIndex.get(2)).toMatchObject({ id: 'three', status: 'passed' });
  });

  it('streams a finished candidate at once, not when the slower one after it in the same batch finishes', async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/v1/grade`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({
        problem_id: 'add',
        // Two workers: a batch each, a fast candidate then a slow one in each.
        candidates: [1, 2].flatMap(() => [
          { id: 'fast', code: 'function add(a, b) { return a + b; }' },
          { id: 'slow', code: 'function add(a, b) { for (;;) {} }' },
        ]),
        options: { timeout_ms: 1500 },
      }),
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    const firstAtMs = performance.now() - started;
    const text = new TextDecoder().decode(first.value as Uint8Array);
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ id: 'fast', status: 'passed' });
    // The slow ones time out on each of their 4 tests: 6 s at least.
    expect(firstAtMs).toBeLessThan(4000);
    while (!(await reader.read()).done);
  });

  it('refuses malformed requests with a one-line reason, before any worker sees them', async () => {
    const before = await metric(server.url, 'evalrun_candidates_graded_total');
    const refusedBefore = await metric(server.url, 'evalrun_requests_refused_total');
    const wrongMediaBefore = await metric(server.url, 'evalrun_requests_refused_total', 'reason="unsupported-media-type"');
    const grade = `${server.url}/v1/grade`;
    const cases: Array<[unknown, number, RegExp]> = [
      ['{"problem_id": "add", "candidates": [', 400, /^malformed JSON: .*line 1, column \d+/],
      [{ problem_id: 'nope', candidates: [{ code: 'x' }] }, 404, /^unknown problem "nope"$/],
      [{ problem_id: 'add', candidates: [] }, 400, /^no candidates/],
      [{ problem_id: 'add' }, 400, /^invalid request: candidates: missing \(expected a list of candidates/],
      [{ problem_id: 'add', candidates: [{ code: 'x', language: 'cobol' }] }, 422, /^candidates\[0\]\.language: unsupported language "cobol"/],
      [{ candidates: [{ code: 'x' }] }, 400, /^no problem/],
      [{ problem_id: 'add', problem: {}, candidates: [{ code: 'x' }] }, 400, /not both/],
      [{ problem_id: 'add', candidates: [{ code: 1 }] }, 400, /^invalid request: candidates\[0\]\.code: expected a string, got 1$/],
      [
        { problem_id: 'add', candidates: [{ code: 'x' }], options: { timeout_ms: -5 } },
        400,
        /^invalid request: options\.timeout_ms: expected a whole number .*, got -5$/,
      ],
      // Each thing wrong is named where it is, with what was expected there, in one clause.
      [
        { problem_id: 'add', candidates: [{ code: 'x' }], n_samples: 4 },
        400,
        /^invalid request: n_samples: unknown property \(expected one of problem_id, problem, candidates, options\)$/,
      ],
      [
        { problem_id: 'add', candidates: [{ code: 'x', lang: 'python' }] },
        400,
        /^invalid request: candidates\[0\]\.lang: unknown property \(expected one of id, code, language, prompt_id\)$/,
      ],
      [
        { problem_id: 'add', candidates: [{ code: 'x' }], options: { timeout: 500 } },
        400,
        /^invalid request: options\.timeout: unknown property \(expected one of timeout_ms, /,
      ],
      [{ problem_id: 'add', candidates: [{ code: 'x', id: 7 }] }, 400, /^invalid request: candidates\[0\]\.id: expected a string or null, got 7$/],
      [{ problem_id: 'add', candidates: [{ code: 'x', language: 1 }] }, 400, /^invalid request: candidates\[0\]\.language: expected a string or null, got 1$/],
      [
        { problem_id: 'add', candidates: [{ code: 'x' }], options: { float_tolerance: { relative: 0.1 } } },
        400,
        /^invalid request: options\.float_tolerance\.absolute: missing \(expected a number of at least 0\)$/,
      ],
      [
        { problem_id: 'add', candidates: [{ code: 'x' }], options: { grade: 5 } },
        400,
        /^invalid request: options\.grade: expected a list of grader names, .*, got 5$/,
      ],
      [[], 400, /^invalid request: the request body: expected a JSON object, got a list$/],
      [
        {
          problem: {
            identifier: 'p',
            function_prototype: { function_name: 'f', parameters: [{ name: 'x', type: 'int' }], return_values: [{ type: 'int' }] },
            prompts: [],
            correctness_test_suite: [{ input: { y: 1 }, expected_output: [1] }],
          },
          candidates: [{ code: 'x' }],
        },
        422,
        /^invalid problem: problem: \$\.correctness_test_suite\[0\]\.input: missing parameter "x"/,
      ],
    ];
    for (const [body, status, reason] of cases) {
      const reply = await post(grade, body);
      expect(reply.status, JSON.stringify(body)).toBe(status);
      expect(reply.body.error, JSON.stringify(body)).toMatch(reason);
      expect(reply.body.error).not.toContain('\n');
    }
    const notJson = await fetch(grade, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(notJson.status).toBe(415);
    expect(((await notJson.json()) as ReplyBody).error).toBe('the body must be JSON, sent with Content-Type: application/json (got text/plain)');
    const form = await fetch(grade, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '{}' });
    expect(form.status).toBe(415);
    expect(((await form.json()) as ReplyBody).error).toMatch(/Content-Type: application\/json/);
    expect(await metric(server.url, 'evalrun_candidates_graded_total')).toBe(before);
    // Every refusal is counted, the malformed JSON and the wrong media types too.
    expect(await metric(server.url, 'evalrun_requests_refused_total')).toBe(refusedBefore + cases.length + 2);
    expect(await metric(server.url, 'evalrun_requests_refused_total', 'reason="malformed-json"')).toBeGreaterThanOrEqual(1);
    expect(await metric(server.url, 'evalrun_requests_refused_total', 'reason="unsupported-media-type"')).toBe(wrongMediaBefore + 2);
  });

  it('grades under the longest and largest limits it accepts, and refuses more with the range', async () => {
    const right = { code: 'function add(a, b) { return a + b; }' };
    const at = await post(`${server.url}/v1/grade`, { problem_id: 'add', candidates: [right], options: { timeout_ms: 86_400_000, memory_mb: 3967 } });
    expect(at.status, at.body.error).toBe(200);
    expect(at.body.results[0]).toMatchObject({ status: 'passed', score: 1 });
    const past: Array<[object, string]> = [
      [{ timeout_ms: 2 ** 31 }, 'invalid request: options.timeout_ms: expected a whole number from 1 to 86400000, got 2147483648'],
      [{ timeout_ms: 86_400_001 }, 'invalid request: options.timeout_ms: expected a whole number from 1 to 86400000, got 86400001'],
      [{ memory_mb: 4096 }, 'invalid request: options.memory_mb: expected a whole number from 1 to 3967, got 4096'],
    ];
    for (const [options, error] of past) {
      const reply = await post(`${server.url}/v1/grade`, { problem_id: 'add', candidates: [right], options });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe(error);
    }
  });

  it('refuses to start with a limit past its bound, in one line that names the flag', async () => {
    for (const [flag, value, range] of [
      ['--timeout', '3000000000', 'ms from 1 to 86400000'],
      ['--memory', '100000', 'MB from 1 to 3967'],
    ] as const) {
      const served = await runCli(['serve', '--problems', SERVE_PROBLEMS, '--port', '0', flag, value]);
      expect(served.code).toBe(2);
      expect(served.stderr.trim()).toBe(`evalrun serve: ${flag} must be a whole number of ${range}, got ${value} (see evalrun serve --help)`);
    }
    const floor = await runCli(['serve', '--problems', SERVE_PROBLEMS, '--port', '0', '--timeout-factor', '3', '--timeout-floor', '1e12']);
    expect(floor.code).toBe(2);
    expect(floor.stderr).toMatch(/^evalrun serve: --timeout-floor must be a whole number of ms from 1 to 86400000, got 1000000000000/);
    const cli = await runCli(['--problems', SERVE_PROBLEMS, '--timeout', '1e12']);
    expect(cli.code).toBe(2);
    expect(cli.stderr.trim().split('\n')).toHaveLength(1);
    expect(cli.stderr).toMatch(/--timeout must be a whole number of ms from 1 to 86400000, got 1000000000000/);
  });

  it('survives a worker killed from outside and a hostile candidate, with every other verdict unchanged', async () => {
    const restarts = await metric(server.url, 'evalrun_worker_restarts_total');
    // Each takes a while (a busy wait per test), so that a worker is surely busy when one is killed.
    const slow = SLOW;
    const hostile = 'function add(a, b) { const keep = []; for (;;) keep.push(new Array(1e6).fill(a)); }';
    const normal = post(`${server.url}/v1/grade`, {
      problem_id: 'add',
      candidates: Array.from({ length: 4 }, (_, i) => ({ id: `slow${i}`, code: slow })),
      options: { timeout_ms: 5000 },
    });
    const bad = post(`${server.url}/v1/grade`, { problem_id: 'add', candidates: [{ id: 'hog', code: hostile }], options: { memory_mb: 64 } });
    await until(async () => (await metric(server.url, 'evalrun_queue_depth')) > 0);
    await new Promise((r) => setTimeout(r, 400));
    const workers = childPids(server.child.pid!);
    expect(workers.length).toBeGreaterThan(0);
    process.kill(workers[0]!, 'SIGKILL');
    const [good, hog] = await Promise.all([normal, bad]);
    expect(good.status).toBe(200);
    for (const r of good.body.results) expect(r).toMatchObject({ status: 'passed', passed: 4, total: 4 });
    expect(hog.status).toBe(200);
    expect(hog.body.results[0]!.status).toBe('failed');
    expect(hog.body.results[0]!.tests.every((t: { status: string }) => t.status === 'memory')).toBe(true);
    expect(await metric(server.url, 'evalrun_worker_restarts_total')).toBeGreaterThan(restarts);
    // Still serving, at full strength.
    const after = await post(`${server.url}/v1/grade`, { problem_id: 'add', candidates: [{ code: 'function add(a, b) { return a + b; }' }] });
    expect(after.body.results[0]!.status).toBe('passed');
    await until(() => childPids(server.child.pid!).length === 2);
  });
});

describe('evalrun serve under load and at its edges', () => {
  const slowForever = 'function add(a, b) { for (;;) {} }';

  it('answers 503 with Retry-After when the queue is full, and drops the queued candidates of a client that went away', async () => {
    const server = await startServer(['--problems', SERVE_PROBLEMS, '--concurrency', '1', '--max-queue', '4', '--warm', 'javascript']);
    try {
      const grade = `${server.url}/v1/grade`;
      // One candidate that times out on each of its 4 tests keeps the one worker busy.
      const busy = post(grade, { problem_id: 'add', candidates: [{ id: 'busy', code: slowForever }], options: { timeout_ms: 400 } });
      await until(async () => (await metric(server.url, 'evalrun_queue_depth')) === 1);
      // A client sends three more and goes away at once.
      const controller = new AbortController();
      const gone = fetch(grade, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ problem_id: 'add', candidates: Array.from({ length: 3 }, () => ({ code: slowForever })), options: { timeout_ms: 400 } }),
        signal: controller.signal,
      }).catch(() => null);
      await until(async () => (await metric(server.url, 'evalrun_queue_depth')) === 4);
      const full = await post(grade, { problem_id: 'add', candidates: [{ code: 'function add(a, b) { return a + b; }' }] });
      expect(full.status).toBe(503);
      expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(full.body.error).toMatch(/queue is full/);
      const tooMany = await post(grade, { problem_id: 'add', candidates: Array.from({ length: 5 }, () => ({ code: 'x' })) });
      expect(tooMany.status).toBe(413);

      controller.abort();
      await gone;
      // Its candidates leave the queue at once, while the busy one still runs: a new call is admitted.
      await until(async () => (await metric(server.url, 'evalrun_queue_depth')) <= 2);
      const admitted = post(grade, { problem_id: 'add', candidates: [{ code: 'function add(a, b) { return a + b; }' }] });
      const done = await busy;
      expect((await admitted).status).toBe(200);
      expect((await admitted).body.results[0]!.status).toBe('passed');
      expect(done.body.results[0]!.tests.map((t: { status: string }) => t.status)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
      await until(async () => (await metric(server.url, 'evalrun_queue_depth')) === 0);
      // The busy one, the admitted one, and at most the one of the three a worker had already taken: the rest were never graded.
      expect(await metric(server.url, 'evalrun_candidates_graded_total')).toBeLessThan(5);
    } finally {
      await server.stop();
    }
  });

  it('finishes the candidates in flight on SIGTERM, then exits 0', async () => {
    const server = await startServer(['--problems', SERVE_PROBLEMS, '--concurrency', '1', '--warm', 'javascript']);
    const slow = SLOW;
    const reply = post(`${server.url}/v1/grade`, { problem_id: 'add', candidates: [{ id: 'late', code: slow }, { code: slow }] });
    await until(async () => (await metric(server.url, 'evalrun_queue_depth')) > 0);
    server.child.kill('SIGTERM');
    const answered = await reply;
    expect(answered.status).toBe(200);
    expect(answered.body.results.map((r: { status: string }) => r.status)).toEqual(['passed', 'passed']);
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toMatch(/SIGTERM: no new requests/);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('keeps answering while it drains: /healthz says stopping, new calls and a stream still queued get 503', async () => {
    const server = await startServer(['--problems', SERVE_PROBLEMS, '--concurrency', '1', '--warm', 'javascript']);
    const grade = `${server.url}/v1/grade`;
    // More work than the grace (one candidate's ceiling) lets finish, all under one short limit.
    const options = { timeout_ms: 100 };
    const long = post(grade, { problem_id: 'add', candidates: Array.from({ length: 40 }, () => ({ code: slowForever })), options });
    await until(async () => (await metric(server.url, 'evalrun_queue_depth')) === 40);
    // A stream queued behind it, which will have sent nothing when the grace runs out.
    const stream = fetch(grade, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ problem_id: 'add', candidates: [{ code: 'function add(a, b) { return a + b; }' }], options }),
    });
    await until(async () => (await metric(server.url, 'evalrun_queue_depth')) === 41);
    // A keep-alive connection, idle when the signal comes.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(agent, `${server.url}/healthz`)).status).toBe(200);

    server.child.kill('SIGTERM');
    await until(() => server.stderr().includes('SIGTERM'));
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'stopping' });
    const late = await post(grade, { problem_id: 'add', candidates: [{ code: 'function add(a, b) { return a + b; }' }] });
    expect(late.status).toBe(503);
    expect(late.headers.get('retry-after')).toBe('1');
    expect(late.body).toEqual({ error: 'the service is stopping' });
    const kept = await get(agent, `${server.url}/healthz`);
    expect(kept).toMatchObject({ reused: true, status: 503, connection: 'close' });
    expect(JSON.parse(kept.body)).toMatchObject({ status: 'stopping' });
    agent.destroy();

    const streamed = await stream;
    expect(streamed.status).toBe(503);
    expect(await streamed.json()).toEqual({ error: 'the service is stopping' });
    const answered = await long;
    expect(answered.status).toBe(503);
    expect(answered.body).toEqual({ error: 'the service is stopping' });
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('refuses to listen off loopback without a token, and then asks every request for it', async () => {
    const refused = await runCli(['serve', '--problems', SERVE_PROBLEMS, '--host', '0.0.0.0', '--port', '0'], { env: { EVALRUN_TOKEN: '' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not a loopback address: set a token in EVALRUN_TOKEN or --token-file/);

    const dir = mkdtempSync(join(tmpdir(), 'evalrun-token-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 's3cret\n');
    const server = await startServer(
      ['--problems', SERVE_PROBLEMS, '--host', '0.0.0.0', '--token-file', tokenFile, '--concurrency', '1', '--warm', 'javascript'],
      {
        env: { EVALRUN_TOKEN: '' },
      },
    );
    try {
      const port = new URL(server.url.replace('0.0.0.0', '127.0.0.1')).port;
      const base = `http://127.0.0.1:${port}`;
      const body = { problem_id: 'add', candidates: [{ code: 'function add(a, b) { return a + b; }' }] };
      expect((await post(`${base}/v1/grade`, body)).status).toBe(401);
      expect((await post(`${base}/v1/grade`, body, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ok = await post(`${base}/v1/grade`, body, { authorization: 'Bearer s3cret' });
      expect(ok.status).toBe(200);
      expect(ok.body.results[0]!.status).toBe('passed');
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
