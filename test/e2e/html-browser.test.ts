/**
 * The HTML report in a real browser: Debian's Chromium, headless, driven by
 * playwright-core (which downloads no browser). It renders from file://
 * without touching the network, its counts match the scorecard, filtering,
 * sorting and opening a candidate work, hostile candidates stay text, and
 * a report of 30,000 candidates loads and filters within generous bounds.
 * EVALRUN_UPDATE_SCREENSHOT=1 also writes docs/report-screenshot.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html-reporter.js';
import type { Scorecard } from '../../src/report/scorecard.js';
import { writeReport } from '../../src/report/sink.js';
import { syntheticRun, type SyntheticCandidate } from '../report/synthetic-run.js';
import { doubleProblem } from './double-problem.js';
import { runCli } from './run-cli.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  console.warn(`HTML report browser tests skipped: no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; .ci/run installs it when it can)`);
}
const SCREENSHOT = join(import.meta.dirname, '..', '..', 'docs', 'report-screenshot.png');
const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-html-'));

const HOSTILE_CODE = 'function double(n) { /* </script><script>window.__pwned = 1</script> */ return "<img src=x onerror=window.__pwned=2>"; }';

let context: BrowserContext;
const requests: string[] = [];

async function open(file: string): Promise<{ page: Page; loadMs: number }> {
  const page = await context.newPage();
  const errors: string[] = [];
  // A script error fails the test at once rather than after the wait for the page.
  const failed = new Promise<never>((_, reject) => page.on('pageerror', (e) => reject(new Error(`error in the page: ${e.message}`))));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  const started = Date.now();
  await page.goto(pathToFileURL(file).href);
  await Promise.race([page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 }), failed]);
  const loadMs = Date.now() - started;
  expect(errors).toEqual([]);
  return { page, loadMs };
}

const text = (page: Page, selector: string): Promise<string> => page.locator(selector).first().innerText();

describe.skipIf(!HAVE_CHROMIUM)('HTML report in headless Chromium', () => {
  beforeAll(async () => {
    context = await chromium.launchPersistentContext(scratch(), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      viewport: { width: 1280, height: 900 },
    });
  });
  afterAll(async () => {
    await context?.close();
  });

  it('renders a real run: counts match the scorecard, filters and opening a candidate work, hostile output stays text', async () => {
    const root = scratch();
    const problems = join(root, 'problems');
    mkdirSync(problems);
    for (const id of ['double', 'twice', 'thrice'])
      writeFileSync(join(problems, `${id}.json`), JSON.stringify(doubleProblem(id, id === 'double' ? ['arithmetic'] : ['arithmetic', 'easy'])));
    const solutions = join(root, 'solutions');
    const files: Record<string, string> = {
      'm1/double.js': 'function double(n) { return 2 * n; }',
      'm1/twice.js': 'function double(n) { return n === 2 ? 5 : 2 * n; }',
      'm1/thrice.js': 'function double(n) { return 2 * n; }',
      'm2/double.js': HOSTILE_CODE,
      'm2/twice.js': 'function double(n) { throw new Error("<b>no</b>"); }',
      'm2/thrice.js': 'function double(n) { return 2 * n; }',
    };
    for (const [file, code] of Object.entries(files)) {
      mkdirSync(join(solutions, file, '..'), { recursive: true });
      writeFileSync(join(solutions, file), code);
    }
    const out = join(root, 'run.json');
    const r = await runCli(['--problems', problems, '--solutions', solutions, '--out', out, '--reporter', 'html']);
    expect(r.code, r.stderr).toBe(0);
    const card = JSON.parse(readFileSync(out, 'utf8')) as Scorecard;
    requests.length = 0;
    const { page } = await open(join(root, 'run.html'));

    expect(await text(page, '#count-candidates')).toBe(String(card.summary.candidates));
    expect(await text(page, '#count-tests')).toBe(String(card.summary.tests));
    expect(await text(page, '#count-passed')).toBe(String(card.summary.passed));
    expect(await text(page, '#count-failed')).toBe(String(card.summary.failed));
    expect(await text(page, '#count-errored')).toBe(String(card.summary.errored));
    expect(await page.locator('#candidate-table tbody tr.row').count()).toBe(card.candidates.length);
    expect(await text(page, '#shown-count')).toBe(`${card.candidates.length} of ${card.candidates.length} candidates`);
    // One bar per model and per tag.
    expect(await page.locator('#chart-models svg g').count()).toBe(card.models.length);
    expect(await page.locator('#chart-tags svg g').count()).toBe(card.tags.length);

    const failed = card.candidates.filter((c) => c.status === 'failed').length;
    await page.selectOption('#status-filter', 'failed');
    expect(await text(page, '#shown-count')).toBe(`${failed} of ${card.candidates.length} candidates`);
    expect(await page.locator('#candidate-table tbody tr.row').count()).toBe(failed);
    await page.selectOption('#status-filter', '');
    await page.fill('#filter', 'm2 twice');
    await shownCountStartsWith(page, '1 of');
    await page.fill('#filter', '');
    await shownCountIs(page, `${card.candidates.length} of ${card.candidates.length} candidates`);

    // Sorting by the passed column puts the worst first.
    await page.click('#candidate-table th[data-col="6"]');
    expect(await text(page, '#candidate-table tbody tr.row td:nth-child(7)')).toBe('0/3');

    // Opening the hostile candidate shows its code and return value as text; nothing ran.
    await page.fill('#filter', 'm2 double');
    await shownCountStartsWith(page, '1 of');
    await page.click('#candidate-table tbody tr.row');
    const detail = page.locator('td.detail');
    expect(await detail.locator('pre.code').innerText()).toBe(HOSTILE_CODE);
    expect(await detail.locator('table.tests tr').count()).toBe(4);
    expect(await detail.innerText()).toContain('"<img src=x onerror=window.__pwned=2>"');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('td.detail img').count()).toBe(0);
    expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
    await page.screenshot({ path: join(root, 'report.png'), fullPage: true });
    await page.close();
  });

  it('stays responsive with 30,000 candidates: loads, filters, sorts and opens one within generous bounds', async () => {
    const dir = scratch();
    const models = ['alpha-7b', 'beta-13b', 'gamma-70b'];
    const candidates: SyntheticCandidate[] = [];
    for (let p = 0; p < 50; p++) {
      for (const model of models) {
        for (let s = 0; s < 200; s++) {
          const fails = (p * 7 + s * 13 + model.length) % 10 < (model === 'gamma-70b' ? 2 : model === 'beta-13b' ? 4 : 6);
          candidates.push({
            problem: `HumanEval/${p}`,
            model,
            sample: String(s),
            tests: fails ? ['pass', 'fail', 'pass', 'error', 'pass'] : ['pass', 'pass', 'pass', 'pass', 'pass'],
          });
        }
      }
    }
    expect(candidates.length).toBe(30_000);
    const run = syntheticRun(candidates, { dir, passAtK: [1, 10, 100] });
    const file = join(dir, 'big.html');
    try {
      writeReport(run.outcome, (o, w) => renderHtml(o, w, { baseline: null }), { file });
    } finally {
      run.close();
    }
    const { page, loadMs } = await open(file);
    expect(loadMs).toBeLessThan(30_000);
    expect(await text(page, '#count-candidates')).toBe('30000');
    expect(await page.locator('#candidate-table tbody tr.row').count()).toBe(100);

    const time = async (action: () => Promise<void>): Promise<number> => {
      const started = Date.now();
      await action();
      return Date.now() - started;
    };
    const filterMs = await time(async () => {
      await page.fill('#filter', 'gamma humaneval/4');
      // humaneval/4 and humaneval/40..49: eleven problems of 200 samples.
      await shownCountIs(page, '2200 of 30000 candidates', { timeout: 10_000 });
    });
    expect(filterMs).toBeLessThan(5_000);
    const sortMs = await time(async () => {
      await page.click('#candidate-table th[data-col="6"]');
      await page.waitForSelector('#candidate-table th.sorted-asc');
    });
    expect(sortMs).toBeLessThan(5_000);
    const openMs = await time(async () => {
      await page.click('#next');
      await page.click('#candidate-table tbody tr.row');
      await page.waitForSelector('td.detail table.tests');
    });
    expect(openMs).toBeLessThan(10_000);
    console.log(`30,000 candidates: load ${loadMs} ms, filter ${filterMs} ms, sort ${sortMs} ms, open ${openMs} ms`);
    await page.close();
  }, 180_000);

  it('takes a screenshot of a grading report with samples, pass@k and an opened failure', async () => {
    const dir = scratch();
    const models = ['alpha-7b', 'beta-13b', 'gamma-70b'];
    const tags: Record<string, string[]> = {};
    const candidates: SyntheticCandidate[] = [];
    const topics = ['strings', 'math', 'lists', 'recursion', 'sorting'];
    for (let p = 0; p < 12; p++) {
      tags[`HumanEval/${p}`] = [topics[p % topics.length]!, ...(p % 3 === 0 ? ['hard'] : [])];
      models.forEach((model, m) => {
        for (let s = 0; s < 10; s++) {
          const fails = (p * 5 + s * 3 + m) % 10 < 6 - 2 * m + (p % 3 === 0 ? 2 : 0);
          candidates.push({
            problem: `HumanEval/${p}`,
            model,
            sample: String(s),
            language: 'python',
            tests: fails ? ['pass', 'fail', 'pass', 'fail'] : ['pass', 'pass', 'pass', 'pass'],
            code: `def sort_words(text: str) -> list[str]:\n    """Words in alphabetical order, ignoring case."""\n    return sorted(text.split()${fails ? '' : ', key=str.lower'})\n`,
            values: (i) => {
              const text = i === 3 ? 'Zebra apple Mango banana Cherry date Elder fig Grape honeydew Kiwi lemon' : 'the Quick brown Fox jumps over the lazy Dog';
              const words = text.split(' ');
              return { input: { text }, expected: [...words].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())), actual: [...words].sort() };
            },
          });
        }
      });
    }
    const run = syntheticRun(candidates, { dir, tags, passAtK: [1, 5, 10] });
    const file = join(dir, 'report.html');
    try {
      writeReport(run.outcome, (o, w) => renderHtml(o, w, { baseline: null }), { file });
    } finally {
      run.close();
    }
    const { page } = await open(file);
    await page.selectOption('#status-filter', 'failed');
    await page.click('#candidate-table tbody tr.row');
    await page.waitForSelector('td.detail table.tests');
    // The top of the page and the opened failure: a picture small enough for the docs.
    await page.setViewportSize({ width: 1280, height: 1450 });
    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    if (process.env.EVALRUN_UPDATE_SCREENSHOT === '1') {
      mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT });
    }
    await page.close();
  });
});

/** What the conditions below read of the page (they run in the browser, which has the DOM this file's types lack). */
interface ShownPage {
  document: { getElementById(id: string): { textContent: string | null } | null };
}

function shownCountIs(page: Page, text: string, options?: { timeout: number }): Promise<unknown> {
  return page.waitForFunction((want) => (globalThis as unknown as ShownPage).document.getElementById('shown-count')?.textContent === want, text, options);
}

function shownCountStartsWith(page: Page, text: string): Promise<unknown> {
  return page.waitForFunction(
    (want) => (globalThis as unknown as ShownPage).document.getElementById('shown-count')?.textContent?.startsWith(want) === true,
    text,
  );
}
