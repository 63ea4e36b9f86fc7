import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { extractCode } from '../../src/solutions/extract-code.js';
import { prepareJavaScript } from '../../src/engines/javascript/transpile.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => readFile(path.join(here, '../fixtures/solutions-code', name), 'utf8');

/** Runs prepared code the way a plain script engine would: `module`/`exports` provided, no wrapper. */
function runAsScript(code: string): { context: vm.Context; module: { exports: Record<string, unknown> } } {
  const module = { exports: {} as Record<string, unknown> };
  const context = vm.createContext({ module, exports: module.exports });
  vm.runInContext(code, context);
  return { context, module };
}

async function prepared(code: string, language: 'javascript' | 'typescript'): Promise<string> {
  const result = await prepareJavaScript(code, language);
  if (!result.ok) throw new Error(result.error);
  return result.code;
}

describe('prepareJavaScript', () => {
  it('returns a plain script untouched (strings and comments mentioning export/import are not ESM)', async () => {
    const code = await fixture('plain-script.js');
    expect(await prepareJavaScript(code, 'javascript')).toEqual({ ok: true, code });
  });

  it('returns plain JavaScript with a syntax error untouched: the engine reports it', async () => {
    expect(await prepareJavaScript('function (', 'javascript')).toEqual({ ok: true, code: 'function (' });
  });

  it('strips TypeScript types, keeping top-level functions as globals', async () => {
    const code = await prepared(await fixture('typed.ts'), 'typescript');
    expect(code).not.toMatch(/interface|: number/);
    const { context } = runAsScript(code);
    expect(vm.runInContext('combine(2, 3)', context)).toBe(5);
    expect(vm.runInContext('combine(2, 3, 2)', context)).toBe(6);
    expect(vm.runInContext('typeof globalThis.combine', context)).toBe('function');
  });

  it('reports a TypeScript syntax error with line and column', async () => {
    const result = await prepareJavaScript(await fixture('syntax-error.ts'), 'typescript');
    expect(result).toEqual({ ok: false, error: 'line 2, column 13: Unexpected ";"' });
  });

  it('converts ESM exports to CommonJS: module.exports carries them, declarations stay global', async () => {
    const code = await prepared(await fixture('esm-exports.mjs'), 'javascript');
    const { context, module } = runAsScript(code);
    const exports = module.exports as Record<string, (a: number) => number>;
    expect(Object.keys(exports).sort()).toEqual(['default', 'double', 'times4', 'triple']);
    expect(exports['double']?.(2)).toBe(4);
    expect(exports['triple']?.(2)).toBe(6);
    expect(exports['times4']?.(2)).toBe(8);
    expect(exports['default']?.(2)).toBe(5);
    expect(module.exports['__esModule']).toBe(true);
    // `export default function main` keeps `main` as a top-level function.
    expect(vm.runInContext('main(2) + double(1) + quadruple(1)', context)).toBe(11);
  });

  it('puts an anonymous default export on module.exports.default', async () => {
    const code = await prepared('export default (a, b) => a + b;', 'javascript');
    const { module } = runAsScript(code);
    expect((module.exports['default'] as (a: number, b: number) => number)(2, 3)).toBe(5);
  });

  it('converts TypeScript with exports in one step', async () => {
    const extracted = extractCode(await fixture('several-blocks.md'));
    expect(extracted.fenceLanguage).toBe('typescript');
    const { context, module } = runAsScript(await prepared(extracted.code, 'typescript'));
    expect((module.exports['add'] as (a: number, b: number) => number)(2, 3)).toBe(5);
    expect(vm.runInContext('add(1, 1)', context)).toBe(2);
  });

  it('turns import statements into require calls, which fail where no require exists', async () => {
    const code = await prepared("import { sum } from 'lodash';\nexport const f = (xs) => sum(xs);", 'javascript');
    expect(code).toContain('require("lodash")');
    expect(() => runAsScript(code)).toThrow(/require is not defined/);
  });

  it('reports top-level await in a module as an error', async () => {
    const result = await prepareJavaScript('export const x = 1;\nawait Promise.resolve();', 'javascript');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^line 2, column 1: Top-level await/);
  });

  it('does not treat import() or import.meta as ESM', async () => {
    const code = 'function load() { return import("./x.js"); }';
    expect(await prepareJavaScript(code, 'javascript')).toEqual({ ok: true, code });
  });
});
