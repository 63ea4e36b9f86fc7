import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { topLevelFunctionNames } from '../../src/engines/javascript/top-level-names.js';
import { prepareJavaScript } from '../../src/engines/javascript/transpile.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => readFile(path.join(here, '../fixtures/solutions-code', name), 'utf8');

describe('topLevelFunctionNames', () => {
  it('finds every kind of top-level function and class, in source order', () => {
    const code = [
      'function a() {}',
      'async function b() {}',
      'function* c() {}',
      'async function* d() {}',
      'class E {}',
      'const f = function () {};',
      'let g = async () => 1;',
      'var h = x => x;',
      'const i = (x, y) => x + y;',
      'const j = async x => x;',
      'const k = async function named() {};',
      'const L = class {};',
    ].join('\n');
    expect(topLevelFunctionNames(code)).toEqual(['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i', 'j', 'k', 'L']);
  });

  it('ignores variables that do not hold functions', () => {
    const code = 'const x = 1;\nconst y = (1 + 2);\nconst z = make(() => 1);\nlet w = (a) + b;\nvar { p, q } = obj;\nconst [r] = [() => 1];';
    expect(topLevelFunctionNames(code)).toEqual([]);
  });

  it('does not count nested functions, methods or object members', () => {
    const code = `
function outer() {
  function inner() {}
  const alsoInner = () => 1;
  return inner;
}
class Calc {
  add(a, b) { return a + b; }
  static make() { return new Calc(); }
  arrow = () => 1;
}
const obj = { method() {}, prop: function () {}, arrow: () => 1 };
if (true) { function inBlock() {} }
`;
    expect(topLevelFunctionNames(code)).toEqual(['outer', 'Calc']);
  });

  it('skips strings, template literals with nested ${}, comments and regex literals', () => {
    const code = [
      "const s = 'function notA() {}';",
      'const d = "class NotB {}";',
      'const t = `function notC() { ${ `nested ${ "}" } function notD() {}` } }`;',
      '// function notE() {}',
      '/* function notF() {}\n   class NotG {} */',
      'const re = /function notH() {}[/]}/g;',
      'const ratio = total / count / 2; function real1() {}',
      'const r2 = (a) / 2; function real2() {}',
      "const re3 = x.replace(/'/g, '\"'); function real3() {}",
      'function last() { return /}/.test("}"); }',
    ].join('\n');
    expect(topLevelFunctionNames(code)).toEqual(['real1', 'real2', 'real3', 'last']);
  });

  it('reads several declarators and exported declarations', () => {
    const code = [
      'const a = 1, b = () => 2, c = function () {};',
      'export function d() {}',
      'export default function e() {}',
      'export const f = (x) => x;',
      'export default () => 1;',
      'export { d as dd };',
    ].join('\n');
    expect(topLevelFunctionNames(code)).toEqual(['b', 'c', 'd', 'e', 'f']);
  });

  it('understands TypeScript annotations, generics and ambient declarations', () => {
    const code = [
      'interface Shape { area(): number; }',
      'type Fn = (a: number) => number;',
      'const add = (a: number, b: number): number => a + b;',
      'const typed: Fn = (a) => a;',
      'const ident = <T,>(x: T): T => x;',
      'function gen<T>(xs: T[]): T { return xs[0]; }',
      'export abstract class Base<T> extends Object {}',
      'declare function ambient(): void;',
      'function over(a: number): number;',
      'function over(a: any) { return a; }',
      'const enum Color { Red }',
      'let n!: number;',
    ].join('\n');
    expect(topLevelFunctionNames(code)).toEqual(['add', 'typed', 'ident', 'gen', 'Base', 'over']);
  });

  it('handles declarations separated by line breaks without semicolons', () => {
    const code = 'const x = 1\nfunction a() {}\nconst b = () => {\n  return 1\n}\nfoo()\nclass C {}\n';
    expect(topLevelFunctionNames(code)).toEqual(['a', 'b', 'C']);
  });

  it('lists a redefined name once, at its first definition', () => {
    expect(topLevelFunctionNames('function a() {}\nfunction b() {}\nfunction a() {}')).toEqual(['a', 'b']);
  });

  it('survives unterminated strings, templates, comments and unbalanced brackets', () => {
    expect(topLevelFunctionNames('function a() {}\nconst s = "open\nfunction b() {}')).toEqual(['a', 'b']);
    expect(topLevelFunctionNames('function a() {}\n/* open')).toEqual(['a']);
    expect(topLevelFunctionNames('function a() {}\nconst t = `open ${')).toEqual(['a']);
    expect(topLevelFunctionNames('}})\nfunction a() {}')).toEqual(['a']);
    expect(topLevelFunctionNames('#!/usr/bin/env node\nfunction a() {}')).toEqual(['a']);
  });

  it('leaves out the helpers esbuild adds to CommonJS output', async () => {
    const result = await prepareJavaScript(await fixture('esm-exports.mjs'), 'javascript');
    if (!result.ok) throw new Error(result.error);
    expect(topLevelFunctionNames(result.code)).toEqual(['helper', 'double', 'triple', 'quadruple', 'main']);
    const anonymous = await prepareJavaScript('export default (a) => a;', 'javascript');
    if (!anonymous.ok) throw new Error(anonymous.error);
    // The esbuild-made name of an anonymous default: use module.exports.default instead.
    expect(topLevelFunctionNames(anonymous.code)).toEqual(['solution_default']);
  });

  it('keeps names starting with __ in ordinary code', () => {
    expect(topLevelFunctionNames('function __private() {}')).toEqual(['__private']);
  });
});
