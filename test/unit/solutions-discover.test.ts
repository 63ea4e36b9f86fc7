import { chmod, mkdtemp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSubmissions, numberSamples, solutionDiscoveryContext } from '../../src/solutions/discover.js';
import { findSolutionFiles } from '../../src/solutions/find-solution-files.js';
import { readSolutionFile, readSubmittedText } from '../../src/solutions/read-solution-file.js';
import { digestOf, isDigest, SolutionBytes } from '../../src/solutions/solution-bytes.js';
import type { Submission } from '../../src/solutions/submission.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MIXED = path.join(here, '../fixtures/solutions-mixed');
const KNOWN = new Set(['add', 'multiply', 'str.concat']);
const CORPUS = path.join(here, '../../../shared/corpus-sample');

function find(subs: Submission[], source: string): Submission {
  const found = subs.find((s) => s.source === path.join(MIXED, source));
  if (found === undefined) throw new Error(`no submission from ${source}; have ${subs.map((s) => s.source).join(', ')}`);
  return found;
}

/** A submission's text as the worker that grades it reads it again. */
function rawOf(s: Submission): string {
  const read = readSubmittedText(s.text, new SolutionBytes());
  if (!read.ok) throw new Error(read.reason);
  return read.raw;
}

function reasonFor(skipped: Array<{ source: string; reason: string }>, source: string): string {
  const found = skipped.find((s) => s.source === path.join(MIXED, source));
  if (found === undefined) throw new Error(`${source} was not skipped; skipped: ${skipped.map((s) => s.source).join(', ')}`);
  return found.reason;
}

describe('discoverSubmissions on a folder mixing every layout', () => {
  it('reads reference-framework solution objects with their fields', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const s = find(submissions, 'gpt-4/add/brief_prompt.json');
    expect(s).toEqual({
      problemId: 'add',
      modelId: 'gpt-4',
      promptId: 'brief_prompt',
      sampleId: null,
      source: path.join(MIXED, 'gpt-4/add/brief_prompt.json'),
      text: { kind: 'inline', raw: 'def add(a: int, b: int) -> int:\n    return a + b' },
      declaredLanguage: null,
    });
    expect(rawOf(s)).toBe('def add(a: int, b: int) -> int:\n    return a + b');
  });

  it('falls back to <model>/<problem>/<prompt> path parts for missing fields', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const s = find(submissions, 'gpt-4/multiply/detailed_prompt.json');
    expect([s.problemId, s.modelId, s.promptId]).toEqual(['multiply', 'gpt-4', 'detailed_prompt']);
    expect(rawOf(s)).toBe('```python\ndef multiply(a, b):\n    return a * b\n```');
  });

  it('keeps a solution object with empty code, which the reference framework grades as a failure', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const s = find(submissions, 'human/add/brief_prompt.json');
    expect([s.problemId, s.modelId, s.promptId, rawOf(s)]).toEqual(['add', 'human', 'brief_prompt', '']);
  });

  it('names plain source files by the documented path rules, language from the extension', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const ids = (src: string) => {
      const s = find(submissions, src);
      return [s.problemId, s.modelId, s.promptId, s.declaredLanguage];
    };
    expect(ids('gpt-4/add.js')).toEqual(['add', 'gpt-4', null, 'javascript']);
    expect(ids('gpt-4/multiply.brief_prompt.py')).toEqual(['multiply', 'gpt-4', 'brief_prompt', 'python']);
    expect(ids('claude/add/detailed_prompt.ts')).toEqual(['add', 'claude', 'detailed_prompt', 'typescript']);
    // At the top level the model is the solutions folder's own name.
    expect(ids('add.py')).toEqual(['add', 'solutions-mixed', null, 'python']);
    // Problem ids may contain dots: the longest known prefix wins.
    expect(ids('str.concat.v2.js')).toEqual(['str.concat', 'solutions-mixed', 'v2', 'javascript']);
  });

  it('keeps source text exactly as written', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const onDisk = await readFile(path.join(MIXED, 'claude/add/detailed_prompt.ts'), 'utf8');
    expect(rawOf(find(submissions, 'claude/add/detailed_prompt.ts'))).toBe(onDisk);
  });

  it('reads JSON Lines with field aliases, file:line sources and numbered samples', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const fromJsonl = submissions.filter((s) => s.source.startsWith(path.join(MIXED, 'samples.jsonl:')));
    expect(fromJsonl.map((s) => [s.source.split(':').pop(), s.problemId, s.modelId, s.promptId, s.sampleId, s.declaredLanguage])).toEqual([
      ['1', 'add', 'samples', null, '0', null],
      ['2', 'add', 'samples', null, '1', null],
      ['9', 'add', 'samples', null, '2', null],
      ['10', 'multiply', 'm2', 'brief', '7', 'javascript'],
      ['11', 'multiply', 'm2', 'brief', '0', null],
      // `prompt` holding prompt text (several lines) is not taken as an id.
      ['12', 'multiply', 'm2', null, null, 'python'],
    ]);
    expect(rawOf(find(submissions, 'samples.jsonl:2'))).toBe('def add(a, b):\n    return a - b\n');
  });

  it('defaults a JSONL model to the folder holding the file', async () => {
    const { submissions } = await discoverSubmissions(MIXED, KNOWN);
    const lines = submissions.filter((s) => s.source.startsWith(path.join(MIXED, 'gpt-4/extra.jsonl:')));
    expect(lines.map((s) => [s.problemId, s.modelId, s.promptId, s.sampleId])).toEqual([
      ['str.concat', 'gpt-4', 'v1', '0'],
      ['str.concat', 'gpt-4', 'v1', 's1'],
    ]);
  });

  it('reports each bad JSONL line with file:line and a reason, and goes on', async () => {
    const { skipped } = await discoverSubmissions(MIXED, KNOWN);
    expect(reasonFor(skipped, 'samples.jsonl:4')).toMatch(/^invalid JSON/);
    expect(reasonFor(skipped, 'samples.jsonl:5')).toMatch(/^no problem id/);
    expect(reasonFor(skipped, 'samples.jsonl:6')).toBe('unknown problem "divide": no problem file has this identifier');
    expect(reasonFor(skipped, 'samples.jsonl:7')).toMatch(/no code field/);
    expect(reasonFor(skipped, 'samples.jsonl:8')).toMatch(/expected a JSON object/);
    expect(reasonFor(skipped, 'samples.jsonl:13')).toBe('unsupported language "Rust"');
    expect(skipped.some((s) => s.source.endsWith('samples.jsonl:3'))).toBe(false); // blank line
  });

  it('skips unknown problems, empty files, non-solution JSON and other files with reasons', async () => {
    const { skipped } = await discoverSubmissions(MIXED, KNOWN);
    expect(reasonFor(skipped, 'gpt-4/nothing.js')).toMatch(/^unknown problem: no problem file has the identifier "nothing" or folder "gpt-4"/);
    // An empty source file is an answer with no code, graded (as an empty completion is), not skipped.
    expect(skipped.some((s) => s.source.endsWith('gpt-4/multiply.js'))).toBe(false);
    expect(reasonFor(skipped, 'notes.md')).toMatch(/^not a solution file/);
    expect(reasonFor(skipped, 'gpt-4/array.json')).toMatch(/holds an array/);
    expect(reasonFor(skipped, 'gpt-4/bad.json')).toMatch(/^invalid JSON/);
    expect(reasonFor(skipped, 'gpt-4/problem-file.json')).toMatch(/looks like a problem file/);
    expect(reasonFor(skipped, 'gpt-4/nocode.json')).toMatch(/no code field/);
    expect(reasonFor(skipped, 'gpt-4/cpp.json')).toBe('unsupported language "cpp"');
  });

  it('accounts for every file, ignores dot-folders, and returns a stable sorted order', async () => {
    const first = await discoverSubmissions(MIXED, KNOWN);
    const second = await discoverSubmissions(MIXED, KNOWN);
    expect(second).toEqual(first);
    const files = (await listFiles(MIXED)).filter((f) => !f.split(path.sep).some((p) => p.startsWith('.')));
    const accountedFor = new Set([...first.submissions, ...first.skipped].map((s) => s.source.replace(/:\d+$/, '')));
    expect([...accountedFor].sort()).toEqual(files.map((f) => path.join(MIXED, f)).sort());
    expect(first.submissions.some((s) => s.source.includes('.hidden'))).toBe(false);
    const sources = first.submissions.map((s) => s.source);
    expect(sources.indexOf(path.join(MIXED, 'add.py'))).toBeLessThan(sources.indexOf(path.join(MIXED, 'claude/add/detailed_prompt.ts')));
  });
});

describe('discoverSubmissions on awkward folders', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'solutions-discover-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('survives a symbolic link loop and reads each folder once', async () => {
    await mkdir(path.join(dir, 'm', 'add'), { recursive: true });
    await writeFile(path.join(dir, 'm', 'add', 'p.js'), 'function add(a, b) { return a + b }');
    await symlink('..', path.join(dir, 'm', 'add', 'loop'));
    await symlink(path.join(dir, 'm'), path.join(dir, 'm-again'));
    const { submissions, skipped } = await discoverSubmissions(dir, KNOWN);
    expect(submissions.map((s) => s.source)).toEqual([path.join(dir, 'm', 'add', 'p.js')]);
    expect(skipped.map((s) => s.source).sort()).toEqual([path.join(dir, 'm', 'add', 'loop'), path.join(dir, 'm-again')].sort());
    expect(skipped[0]?.reason).toMatch(/^folder already read \(symbolic link to /);
  });

  it('reports a broken link as unreadable', async () => {
    await symlink(path.join(dir, 'missing.js'), path.join(dir, 'add.js'));
    const { submissions, skipped } = await discoverSubmissions(dir, KNOWN);
    expect(submissions).toEqual([]);
    expect(skipped).toEqual([{ source: path.join(dir, 'add.js'), reason: expect.stringMatching(/^unreadable: ENOENT/) as string }]);
    // The code once: Node's own message already starts with it.
    expect(skipped[0]!.reason).not.toMatch(/ENOENT: ENOENT/);
  });

  it('says which code field is there but not a string', async () => {
    await writeFile(path.join(dir, 's.jsonl'), `${JSON.stringify({ problem_id: 'add', completion: 42 })}\n${JSON.stringify({ problem_id: 'add' })}\n`);
    const { skipped } = await discoverSubmissions(dir, KNOWN);
    expect(skipped.map((s) => s.reason)).toEqual([
      'not a solution object: completion is a number, not a string',
      expect.stringMatching(/^not a solution object: no code field \(expected a string in one of /) as string,
    ]);
  });

  it('skips a line whose id is not one, naming the field, rather than grade it under another model, prompt or sample', async () => {
    const lines = [
      { problem_id: 'add', model: { name: 'gpt-4' }, completion: 'a' },
      { problem_id: 'add', model_id: 'm', sample_id: 1.5, completion: 'b' },
      { problem_id: 'add', model_id: 'm', prompt_id: ['p1'], completion: 'c' },
      { problem_id: 'add', model_id: 'm', prompt_id: 'line one\nline two', completion: 'd' },
      // No id, and what a generic name may hold instead (the prompt as text or chat messages, a count): the defaults, as before.
      { problem_id: 'add', model_id: null, prompt_id: '', prompt: 'Write add.\nIt adds.', sample: 'x'.repeat(300), completion: 'e' },
      { problem_id: 'add', prompt: [{ role: 'user', content: 'Write add.' }], sample: { text: 'x' }, n: 1e20, completion: 'g' },
      { problem_id: 'add', sample_id: 1e20, completion: 'h' },
      { problem_id: 'add', model_id: 'm', sample_id: 7, completion: 'f' },
    ];
    await writeFile(path.join(dir, 's.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
    const { submissions, skipped } = await discoverSubmissions(dir, KNOWN);
    expect(skipped.map((s) => s.reason)).toEqual([
      'model is an object, not an id (expected a one-line string of at most 200 characters, or a whole number)',
      'sample_id is the number 1.5, not an id (expected a one-line string of at most 200 characters, or a whole number)',
      'prompt_id is an array, not an id (expected a one-line string of at most 200 characters, or a whole number)',
      'prompt_id is a text of 17 characters over several lines, not an id (expected a one-line string of at most 200 characters, or a whole number)',
      'sample_id is 100000000000000000000, a whole number too large to read exactly (write it as a string), not an id (expected a one-line string of at most 200 characters, or a whole number)',
    ]);
    expect(submissions.map((s) => [s.modelId, s.promptId, s.sampleId])).toEqual([
      ['s', null, '0'],
      ['s', null, '1'],
      ['m', null, '7'],
    ]);
  });

  it.skipIf(process.getuid?.() === 0)('reports a file it may not read as unreadable', async () => {
    await writeFile(path.join(dir, 'add.js'), 'function add(a, b) { return a + b }');
    await chmod(path.join(dir, 'add.js'), 0o000);
    const { skipped } = await discoverSubmissions(dir, KNOWN);
    expect(skipped).toEqual([{ source: path.join(dir, 'add.js'), reason: expect.stringMatching(/^unreadable: EACCES/) as string }]);
  });

  it('ignores node_modules and dot-files', async () => {
    await mkdir(path.join(dir, 'node_modules', 'x'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules', 'x', 'add.js'), 'function add() {}');
    await writeFile(path.join(dir, '.DS_Store'), 'junk');
    await writeFile(path.join(dir, 'add.js'), 'function add() {}');
    const { submissions, skipped } = await discoverSubmissions(dir, KNOWN);
    expect(submissions.map((s) => s.source)).toEqual([path.join(dir, 'add.js')]);
    expect(skipped).toEqual([]);
  });

  it('reads each JSON Lines text again from its bytes as it was first read: byte order marks, CRLF lines, blank lines, non-ASCII text', async () => {
    const line = (code: string, n: number) => JSON.stringify({ problem_id: 'add', model: 'm', sample: n, completion: code });
    const codes = ['def add(a, b):\r\n    return a + b  # é', 'function add(a, b) { return a + b } // 漢🙂', '', '```py\nreturn 1\n```'];
    await writeFile(
      path.join(dir, 'lines.jsonl'),
      `\uFEFF${line(codes[0]!, 0)}\r\n\n${line(codes[1]!, 1)}\n  \n${line(codes[2]!, 2)}\r\n${line(codes[3]!, 3)}`,
    );
    await writeFile(path.join(dir, 'add.json'), `\uFEFF${JSON.stringify({ problem_id: 'add', model: 'j', solution_code: codes[1] })}\n`);
    await writeFile(path.join(dir, 'add.py'), `\uFEFF${codes[0]}\n`);
    const { submissions, skipped } = await discoverSubmissions(dir, KNOWN);
    expect(skipped).toEqual([]);
    expect(submissions.map((s) => [path.basename(s.source), rawOf(s)])).toEqual([
      ['add.json', codes[1]],
      ['add.py', `\uFEFF${codes[0]}\n`],
      ['lines.jsonl:1', codes[0]],
      ['lines.jsonl:3', codes[1]],
      ['lines.jsonl:5', codes[2]],
      ['lines.jsonl:6', codes[3]],
    ]);
    // A JSON Lines submission travels as where its text is, not the text; a file of its own carries its text.
    const lines = submissions.filter((s) => s.source.includes('lines.jsonl'));
    expect(lines.every((s) => s.text.kind === 'range' && !JSON.stringify(s).includes('return a + b'))).toBe(true);
    expect(submissions.filter((s) => !lines.includes(s)).map((s) => s.text.kind)).toEqual(['inline', 'inline']);
  });

  it('says a solution file changed rather than grade text the run did not read', async () => {
    const file = path.join(dir, 'lines.jsonl');
    const line = (code: string) => JSON.stringify({ problem_id: 'add', completion: code });
    await writeFile(file, `${line('a')}\n${line('b')}\n`);
    const { submissions } = await discoverSubmissions(dir, KNOWN);
    expect(submissions.map(rawOf)).toEqual(['a', 'b']);
    // The same length, other bytes.
    await writeFile(file, `${line('a')}\n${line('c')}\n`);
    expect(readSubmittedText(submissions[0]!.text, new SolutionBytes())).toEqual({ ok: true, raw: 'a' });
    expect(readSubmittedText(submissions[1]!.text, new SolutionBytes())).toEqual({
      ok: false,
      reason: `solution file changed during the run: ${file} no longer holds the same bytes`,
    });
    // Shorter, and gone.
    await writeFile(file, line('a'));
    expect(readSubmittedText(submissions[1]!.text, new SolutionBytes())).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no longer holds the same bytes$/) as string,
    });
    await rm(file);
    expect(readSubmittedText(submissions[0]!.text, new SolutionBytes())).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/is unreadable \(ENOENT/) as string,
    });
  });

  it('reads ranges of a file through one window until told to forget it', async () => {
    const file = path.join(dir, 'bytes.bin');
    const content = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7) % 251));
    await writeFile(file, content);
    const bytes = new SolutionBytes();
    const ranges: Array<[number, number]> = [
      [0, 10],
      [5, 100],
      [65_000, 1000],
      [150_000, 70_000],
      [199_990, 10],
      [199_995, 10],
      [300_000, 5],
    ];
    for (const [start, length] of ranges) expect(bytes.read(file, start, length)).toEqual(content.subarray(start, start + length));
    // A window read stays until forgotten: bytes changed on disk meanwhile are not seen, then are.
    bytes.read(file, 0, 10);
    await writeFile(file, Buffer.alloc(200_000, 1));
    expect(bytes.read(file, 20, 5)).toEqual(content.subarray(20, 25));
    bytes.forget();
    expect(bytes.read(file, 20, 5)).toEqual(Buffer.alloc(5, 1));
  });

  it('gives bytes that differ anywhere digests that differ', () => {
    const base = Buffer.from('{"problem_id":"add","completion":"def add(a, b): return a + b"}');
    const seen = new Set([digestOf(base, 0, base.length)]);
    for (let i = 0; i < base.length; i++) {
      const changed = Buffer.from(base);
      changed[i] = changed[i]! ^ 1;
      seen.add(digestOf(changed, 0, changed.length));
    }
    expect(seen.size).toBe(base.length + 1);
    expect(isDigest(digestOf(base, 0, base.length))).toBe(true);
    expect(digestOf(Buffer.concat([Buffer.from('xx'), base]), 2, base.length + 2)).toBe(digestOf(base, 0, base.length));
  });

  it('numbers samples across files of the same (problem, prompt, model)', async () => {
    await mkdir(path.join(dir, 'm'));
    await writeFile(path.join(dir, 'm', 'add.js'), 'function add(a, b) { return a + b }');
    await writeFile(path.join(dir, 'm', 'add.py'), 'def add(a, b):\n    return a + b\n');
    const { submissions } = await discoverSubmissions(dir, KNOWN);
    expect(submissions.map((s) => [path.basename(s.source), s.sampleId])).toEqual([
      ['add.js', '0'],
      ['add.py', '1'],
    ]);
  });

  it('is the walk, each file read on its own with plain data, and the sample numbering, composed', async () => {
    await mkdir(path.join(dir, 'm'));
    await writeFile(path.join(dir, 'm', 'add.js'), 'function add(a, b) { return a + b }');
    await writeFile(path.join(dir, 'm', 'add.py'), 'def add(a, b):\n    return a + b\n');
    const line = (sample: object): string => JSON.stringify({ problem: 'add', model: 'm', code: 'x', ...sample });
    await writeFile(path.join(dir, 'm', 'more.jsonl'), [line({ sample: 1 }), '{', line({})].join('\n'));
    await writeFile(path.join(dir, 'notes.txt'), 'not a solution');
    await symlink(path.join(dir, 'missing.js'), path.join(dir, 'gone.js'));
    const whole = await discoverSubmissions(dir, KNOWN);

    const { files, skipped } = await findSolutionFiles(dir);
    const ctx = solutionDiscoveryContext(dir, KNOWN);
    expect(ctx).toEqual({ known: KNOWN, rootName: path.basename(dir) });
    // As other processes would: from copies of the inputs, in any order, put back in walk order.
    const read = new Map([...files].reverse().map((file) => [file, readSolutionFile(structuredClone(file), structuredClone(ctx))]));
    const outcomes = files.flatMap((file) => read.get(file) ?? []);
    const submissions = outcomes.flatMap((o) => (o.kind === 'submission' ? [o.submission] : []));
    numberSamples(submissions);
    expect(submissions).toEqual(whole.submissions);
    expect([...skipped, ...outcomes.flatMap((o) => (o.kind === 'skipped' ? [o.skipped] : []))]).toEqual(whole.skipped);
    expect(whole.submissions.map((s) => [path.basename(s.source), s.sampleId])).toEqual([
      ['add.js', '0'],
      ['add.py', '2'],
      ['more.jsonl:1', '1'],
      ['more.jsonl:3', '3'],
    ]);
    expect(whole.skipped.map((s) => path.relative(dir, s.source))).toEqual(['gone.js', 'm/more.jsonl:2', 'notes.txt']);
  });

  it('reads UTF-16 source and JSON files with a byte-order mark, and says why it skips UTF-16 JSON Lines', async () => {
    const utf16 = (text: string, big = false): Buffer => {
      const body = Buffer.from(text, 'utf16le');
      if (big) body.swap16();
      return Buffer.concat([Buffer.from(big ? [0xfe, 0xff] : [0xff, 0xfe]), body]);
    };
    await mkdir(path.join(dir, 'w'));
    await writeFile(path.join(dir, 'w', 'add.py'), utf16('def add(a, b):\n    return a + b  # ünïcode\n'));
    await writeFile(path.join(dir, 'w', 'add.json'), utf16(JSON.stringify({ solution_code: 'function add(a, b) { return a + b; }' }), true));
    await writeFile(path.join(dir, 'w', 'lines.jsonl'), utf16(JSON.stringify({ task_id: 'add', completion: 'x' }) + '\n'));
    const { submissions, skipped } = await discoverSubmissions(dir, KNOWN);
    const text = (name: string): string | undefined => {
      const found = submissions.find((s) => s.source.endsWith(name))?.text;
      return found?.kind === 'inline' ? found.raw : undefined;
    };
    expect(text('w/add.py')).toBe('def add(a, b):\n    return a + b  # ünïcode\n');
    expect(text('w/add.json')).toBe('function add(a, b) { return a + b; }');
    expect(skipped.find((s) => s.source.endsWith('w/lines.jsonl'))?.reason).toBe('encoded as UTF-16 (little-endian); save JSON Lines as UTF-8');
  });

  it('reports an empty JSONL file and one of blank lines as empty', async () => {
    await writeFile(path.join(dir, 'a.jsonl'), '');
    await writeFile(path.join(dir, 'b.jsonl'), '\n\n  \n');
    const { skipped } = await discoverSubmissions(dir, KNOWN);
    expect(skipped.map((s) => s.reason)).toEqual(['empty file', 'empty file']);
  });

  it('throws, naming the folder, when it is missing or a file', async () => {
    const missing = path.join(dir, 'nope');
    await expect(discoverSubmissions(missing, KNOWN)).rejects.toThrow(missing);
    const file = path.join(dir, 'file.txt');
    await writeFile(file, 'x');
    await expect(discoverSubmissions(file, KNOWN)).rejects.toThrow(`solutions path is not a folder: ${file}`);
  });
});

describe.skipIf(!existsSync(CORPUS))('discoverSubmissions on the reference corpus', () => {
  for (const set of ['basic', 'bugfixing']) {
    it(`accounts for every file of ${set}/solutions with ids matching the fields`, async () => {
      const problemsDir = path.join(CORPUS, set, 'problems');
      const known = new Set<string>();
      for (const f of await readdir(problemsDir)) {
        const doc = JSON.parse(await readFile(path.join(problemsDir, f), 'utf8')) as { identifier: string };
        known.add(doc.identifier);
      }
      const dir = path.join(CORPUS, set, 'solutions');
      const { submissions, skipped } = await discoverSubmissions(dir, known);
      const files = (await listFiles(dir)).map((f) => path.join(dir, f));
      const sources = [...submissions, ...skipped].map((s) => s.source);
      expect(sources.sort()).toEqual(files.sort());
      expect(skipped).toEqual([]);
      for (const s of submissions) {
        const doc = JSON.parse(await readFile(s.source, 'utf8')) as Record<string, string>;
        expect([s.problemId, s.modelId, s.promptId, rawOf(s)]).toEqual([
          doc['problem_identifier'],
          doc['model_identifier'],
          doc['prompt_identifier'],
          doc['solution_code'],
        ]);
      }
    });
  }
});

/** Every regular file under `dir`, relative, found independently of the code under test. */
async function listFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(path.join(dir, rel))) {
    const relPath = path.join(rel, name);
    const info = await stat(path.join(dir, relPath));
    if (info.isDirectory()) out.push(...(await listFiles(dir, relPath)));
    else out.push(relPath);
  }
  return out;
}
