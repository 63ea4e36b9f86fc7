/**
 * Adding a language is one folder (docs/ENGINES.md, "Adding a language").
 * A toy third language, "stack" (test/fixtures/toy-language/: a descriptor
 * and an in-process fake engine), is put in the list of languages exactly
 * as a real one would be by its one entry in src/engines/languages.ts; with
 * no other change, solutions in it are recognised, prepared, sent with its
 * wire forms and equality rule, run by its engine (started lazily by the
 * worker's registry) and judged.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { created } from '../fixtures/toy-language/engine.js';
import { allLanguages, languageNames } from '../../src/engines/find-language.js';
import { Engines } from '../../src/engines/registry.js';
import { selfCheckPlans, submissionPlan, summarizeProblem } from '../../src/grading/candidate.js';
import { gradeCandidate, type GradeOptions, type RunsJobs } from '../../src/grading/grade.js';
import { loadProblemFile } from '../../src/problems/load.js';
import { isInvalidProblemFile, type PreparedProblem } from '../../src/problems/prepared.js';
import { recordOptions, type RunOptions } from '../../src/runner/run-options.js';
import type { GradeJob, GradeReply } from '../../src/sandbox-host/grade-protocol.js';
import { judge } from '../../src/sandbox-host/judge.js';
import { discoverSubmissions } from '../../src/solutions/discover.js';
import { detectLanguage, normalizeLanguageName } from '../../src/solutions/language.js';

// The one line a new language adds outside its folder: its entry in the list.
vi.mock('../../src/engines/languages.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/engines/languages.js')>();
  const { stack } = await import('../fixtures/toy-language/language.js');
  return { ...original, LANGUAGES: [...original.LANGUAGES, stack] };
});

const OPTIONS: GradeOptions = {
  limits: { memoryMb: 64, timeoutMs: 2000, seed: 1 },
  tolerance: { relative: 1e-9, absolute: 1e-9 },
  languages: languageNames(),
};

/** The worker's side, in this process: the registry runs the job, each result is judged. */
function inProcessWorker(): RunsJobs & { jobs: GradeJob[]; engines: Engines } {
  // No engine starts before a job asks (JavaScript's would need a sandbox).
  const engines = new Engines([]);
  const jobs: GradeJob[] = [];
  return {
    jobs,
    engines,
    async run(job: GradeJob): Promise<GradeReply> {
      jobs.push(job);
      const outcome = await engines.run(job);
      if (outcome.kind === 'load-error') return outcome;
      const verdicts = outcome.tests.map((test, i) => judge(test, job.expected[i] ?? 'null', job.returnType, job.tolerance, job.equality));
      return { kind: 'ran', entryPoint: outcome.entryPoint, verdicts };
    },
  };
}

async function halfProblem(): Promise<PreparedProblem> {
  const file = join(mkdtempSync(join(tmpdir(), 'evalrun-toy-language-')), 'half.json');
  writeFileSync(
    file,
    JSON.stringify({
      identifier: 'half',
      description: 'Half of n.',
      prompts: [{ prompt_id: 'p', prompt: 'Return n / 2.', genericize: false, sample_inputs_outputs: [] }],
      function_prototype: { function_name: 'half', parameters: [{ name: 'n', type: 'int' }], return_values: [{ type: 'float' }] },
      correctness_test_suite: [
        { input: { n: 4 }, expected_output: [2] },
        { input: { n: 3 }, expected_output: [1.5] },
      ],
      optimal_solution: '$0 2 /',
    }),
  );
  const problem = await loadProblemFile(file);
  if (isInvalidProblemFile(problem)) throw new Error(problem.errors.join('; '));
  return problem;
}

describe('a language added by its descriptor alone', () => {
  it('is one of the languages, after the others', () => {
    expect(languageNames()).toEqual(['javascript', 'python', 'stack']);
    expect(
      allLanguages()
        .filter((l) => l.eager)
        .map((l) => l.name),
    ).toEqual(['javascript']);
  });

  it('is recognised by its names, its fences and its signals, and the others still are', () => {
    expect(normalizeLanguageName('RPN')).toBe('stack');
    expect(normalizeLanguageName('stack')).toBe('stack');
    const none = { declared: null, fenceLanguage: null };
    expect(detectLanguage('$0 2 /', none)).toBe('stack');
    expect(detectLanguage('$0 2 /', { declared: null, fenceLanguage: 'python' })).toBe('python');
    expect(detectLanguage('1 + 2', { declared: null, fenceLanguage: 'rpn' })).toBe('stack');
    expect(detectLanguage('function half(n) { return n / 2; }', none)).toBe('javascript');
    expect(detectLanguage('function half(n: number): number { return n / 2; }', none)).toBe('typescript');
    expect(detectLanguage('def half(n):\n    return n / 2', none)).toBe('python');
    expect(detectLanguage('', none)).toBe('javascript');
  });

  it('has its source files found by their extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evalrun-toy-solutions-'));
    mkdirSync(join(dir, 'model'));
    writeFileSync(join(dir, 'model', 'half.stk'), '$0 2 /\n');
    writeFileSync(join(dir, 'model', 'half.txt'), 'not code\n');
    const found = await discoverSubmissions(dir, new Set(['half']));
    expect(found.submissions).toMatchObject([{ problemId: 'half', modelId: 'model', declaredLanguage: 'stack' }]);
    expect(found.skipped).toMatchObject([{ reason: 'not a solution file (expected .json, .jsonl, .js, .mjs, .cjs, .ts, .mts, .cts, .py, .stk)' }]);
  });

  it('is graded with its wire forms and equality rule, by its engine, started with its first job', async () => {
    const problem = await halfProblem();
    const worker = inProcessWorker();
    const before = created;
    const [candidate] = selfCheckPlans([summarizeProblem(problem)]);
    const results = await gradeCandidate(worker, candidate!, problem, OPTIONS);
    expect(results[0]).toMatchObject({ language: 'stack', status: 'passed', passed: 2, total: 2, entry_point: 'the program' });
    expect(worker.jobs[0]).toMatchObject({ language: 'stack', code: '$0 2 /', equality: 'python', tests: ['[4]', '[3]'], topLevelNames: [] });
    // The python wire form marks a declared float: 2 is sent as the float 2.0.
    expect(worker.jobs[0]?.expected[0]).toContain('"$evalrun":"float"');
    expect(created).toBe(before + 1);

    // --strict-types: the descriptor names the strict rule, so the int 2 is not the float 2.0.
    const strict = await gradeCandidate(worker, candidate!, problem, { ...OPTIONS, strictTypes: true });
    expect(worker.jobs[1]?.equality).toBe('strict');
    expect(strict[0]).toMatchObject({ language: 'stack', status: 'failed', passed: 1, total: 2 });
    expect(created).toBe(before + 1);
    worker.engines.dispose();
  });

  it('grades a submission fenced in its name, reports its load errors, and is unsupported when not among the languages', async () => {
    const problem = await halfProblem();
    const worker = inProcessWorker();
    const submission = (raw: string) => ({
      problemId: 'half',
      modelId: 'm',
      promptId: null,
      sampleId: null,
      source: 'm/half.json',
      text: { kind: 'inline' as const, raw },
      declaredLanguage: null,
    });
    const plan = (raw: string) => submissionPlan(summarizeProblem(problem), submission(raw), true);

    const fenced = await gradeCandidate(worker, plan('Here:\n```rpn\n$0 3 /\n```\n'), problem, OPTIONS);
    expect(fenced[0]).toMatchObject({ language: 'stack', status: 'failed', passed: 0, total: 2, code: '$0 3 /' });

    const broken = await gradeCandidate(worker, plan('```stack\n$0 2 %\n```'), problem, OPTIONS);
    expect(broken[0]).toMatchObject({ language: 'stack', status: 'load-error', error: 'not a stack program: %' });

    const unsupported = await gradeCandidate(worker, plan('$0 2 /'), problem, { ...OPTIONS, languages: ['javascript', 'python'] });
    expect(unsupported[0]).toMatchObject({ language: 'stack', status: 'unsupported', error: 'unsupported language: stack' });
    worker.engines.dispose();
  });

  it("is in the run's record of how numbers were judged", () => {
    const options: RunOptions = {
      problemsDir: 'p',
      solutionsDir: null,
      filters: { problems: [], tags: [], models: [] },
      concurrency: 1,
      memoryMb: 64,
      timeoutMs: 1000,
      tolerance: OPTIONS.tolerance,
      seed: 1,
      languages: new Set(languageNames()),
      passAtK: [1],
      extractCode: true,
    };
    expect(recordOptions(options)).toMatchObject({
      languages: ['javascript', 'python', 'stack'],
      equality: { javascript: 'javascript', python: 'python', stack: 'python' },
    });
    expect(recordOptions({ ...options, strictTypes: true })).toMatchObject({ equality: { javascript: 'javascript', python: 'strict', stack: 'strict' } });
  });
});
