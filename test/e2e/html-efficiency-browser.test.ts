/**
 * The HTML report's efficiency columns and charts in headless Chromium (as
 * html-browser.test.ts drives it), from synthetic measured records: the
 * page's script shows each candidate's scores, sorts by them with n/a last
 * in ascending order, and opens a candidate across every column.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html-reporter.js';
import { writeReport } from '../../src/report/sink.js';
import { syntheticRun, type SyntheticCandidate } from '../report/synthetic-run.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
const scratch = (): string => mkdtempSync(join(tmpdir(), 'evalrun-html-eff-'));
const m = (cost: number, memory: number): SyntheticCandidate['measure'] => ({ cost, memory, load_cost: 1, load_memory: 2 });

const CANDIDATES: SyntheticCandidate[] = [
  { problem: 'add', model: 'slow', tests: ['pass', 'pass'], measure: m(400, 100) },
  { problem: 'add', model: 'wrong', tests: ['pass', 'fail'], measure: null, measureError: 'did not pass every test' },
  { problem: 'add', model: 'half', tests: ['pass', 'pass'], measure: m(200, 200) },
  { problem: 'add', model: 'optimal_solution', reference: true, tests: ['pass', 'pass'], measure: m(100, 100) },
];

let context: BrowserContext;

describe.skipIf(!HAVE_CHROMIUM)('the HTML report’s efficiency in headless Chromium', () => {
  beforeAll(async () => {
    context = await chromium.launchPersistentContext(scratch(), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await context?.close();
  });

  it('shows, sorts and explains the scores', async () => {
    const dir = scratch();
    const run = syntheticRun(CANDIDATES, { dir, grade: ['correctness', 'performance', 'memory'] });
    const file = join(dir, 'report.html');
    try {
      writeReport(run.outcome, (o, w) => renderHtml(o, w, { baseline: null }), { file });
    } finally {
      run.close();
    }
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    expect(errors).toEqual([]);

    expect(await page.locator('#chart-performance svg g').count()).toBe(4);
    expect(await page.locator('#chart-memory svg g').count()).toBe(4);
    const cells = async (col: number): Promise<string[]> => page.locator(`#candidate-table tbody tr.row td:nth-child(${col})`).allInnerTexts();
    // Columns: problem, model, prompt, sample, language, status, passed, time, performance, memory.
    expect(await cells(2)).toEqual(['slow', 'wrong', 'half', 'optimal_solution']);
    expect(await cells(9)).toEqual(['0.250', 'n/a', '0.500', '1.000']);
    expect(await cells(10)).toEqual(['1.000', 'n/a', '0.500', '1.000']);
    expect(await page.locator('#candidate-table tbody tr.row').nth(1).locator('td').nth(8).getAttribute('title')).toBe('not all tests passed');

    await page.click('#candidate-table th[data-col="8"]');
    expect(await cells(2)).toEqual(['wrong', 'slow', 'half', 'optimal_solution']);
    await page.click('#candidate-table th[data-col="8"]');
    expect(await cells(2)).toEqual(['optimal_solution', 'half', 'slow', 'wrong']);

    await page.click('#candidate-table tbody tr.row >> nth=2');
    const detail = page.locator('td.detail');
    expect(await detail.getAttribute('colspan')).toBe('10');
    expect(await detail.innerText()).toContain('measured: cost 400 (loading 1), memory 100 bytes');
    await page.close();
  });
});
