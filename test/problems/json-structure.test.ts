import { describe, expect, it } from 'vitest';
import { checkJsonStructure, lineAndColumn, MAX_JSON_DEPTH } from '../../src/problems/json-structure.js';

const nested = (depth: number, inner = ''): string => '['.repeat(depth) + inner + ']'.repeat(depth);

describe('checkJsonStructure: duplicate keys', () => {
  it('accepts distinct keys, the same key in sibling objects, and strings that only look like keys', () => {
    expect(checkJsonStructure('{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}], "d": ["a", "a"]}')).toEqual([]);
    expect(checkJsonStructure('{"k": "k", "v": {"k": "k"}}')).toEqual([]);
  });

  it('names the path of the object, the key, and both places it was written', () => {
    const text = '{\n  "function_prototype": {\n    "function_name": "f",\n    "function_name": "g"\n  }\n}';
    expect(checkJsonStructure(text)).toEqual(['$.function_prototype: duplicate key "function_name" (line 4, column 5; first at line 3, column 5)']);
  });

  it('follows array indices and odd keys into the path', () => {
    const text = '{"correctness_test_suite": [{"input": {}}, {"input": {"a": 1, "b": 2, "a": 3}}], "x y": {"1": 0, "1": 0}}';
    expect(checkJsonStructure(text)).toEqual([
      '$.correctness_test_suite[1].input: duplicate key "a" (line 1, column 71; first at line 1, column 55)',
      '$["x y"]: duplicate key "1" (line 1, column 98; first at line 1, column 90)',
    ]);
  });

  it('compares keys after unescaping, as JSON.parse does', () => {
    expect(checkJsonStructure('{"a": 1, "\\u0061": 2}')).toEqual(['$: duplicate key "a" (line 1, column 10; first at line 1, column 2)']);
  });

  it('decodes every kind of escape before comparing keys', () => {
    const pairs: [string, string][] = [
      ['\\n', '\\u000a'],
      ['\\"', '\\u0022'],
      ['\\\\', '\\u005C'],
      ['\\/', '/'],
      ['\\b\\f\\r\\t', '\\u0008\\u000c\\u000D\\u0009'],
      ['\\ud83d\\ude00', '\u{1F600}'],
      ['é', '\\u00e9'],
    ];
    for (const [first, second] of pairs) {
      const text = `{"${first}": 1, "${second}": 2}`;
      const key = JSON.stringify(Object.keys(JSON.parse(text) as object)[0]);
      expect(checkJsonStructure(text), text).toEqual([`$: duplicate key ${key} (line 1, column ${first.length + 9}; first at line 1, column 2)`]);
    }
    expect(checkJsonStructure('{"\\\\u0061": 1, "a": 2, "\\\\": 3, "\\\\\\\\": 4}')).toEqual([]);
  });

  it('is not misled by brackets, commas, quotes and backslashes inside strings', () => {
    const text = '{"a": "{[,\\"", "b": ["}", "\\\\", "]"], "c\\"{": {"x": "\\\\\\"", "x": 1}, "a": 0}';
    expect(checkJsonStructure(text)).toEqual([
      '$["c\\"{"]: duplicate key "x" (line 1, column 61; first at line 1, column 48)',
      '$: duplicate key "a" (line 1, column 70; first at line 1, column 2)',
    ]);
  });

  it('finds duplicates in objects with many keys, first written early or late', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}": ${i}`);
    expect(checkJsonStructure(`{${keys.join(', ')}}`)).toEqual([]);
    const early = checkJsonStructure(`{${keys.join(', ')}, "k3": 0}`);
    expect(early).toEqual(['$: duplicate key "k3" (line 1, column 422; first at line 1, column 29)']);
    const late = checkJsonStructure(`{${keys.join(', ')}, "k39": 0}`);
    expect(late).toEqual(['$: duplicate key "k39" (line 1, column 422; first at line 1, column 411)']);
    // The next object at the same depth starts with no keys.
    expect(checkJsonStructure(`[{${keys.join(', ')}}, {"k0": 0, "k39": 1}]`)).toEqual([]);
  });

  it('tracks keys and indices separately at each level, and again in a later sibling', () => {
    const text = '[{"a": [1, {"b": 1}]}, {"a": [1, 2, {"b": 1, "b": 2}]}, {"a": 1, "b": 2}]';
    expect(checkJsonStructure(text)).toEqual(['$[1].a[2]: duplicate key "b" (line 1, column 46; first at line 1, column 38)']);
  });

  it('lists the first twenty duplicates and counts the rest', () => {
    const pairs = Array.from({ length: 25 }, (_, i) => `"k${i}": 1, "k${i}": 2`).join(', ');
    const messages = checkJsonStructure(`{${pairs}}`);
    expect(messages).toHaveLength(21);
    expect(messages[20]).toBe('$: 5 more duplicate keys not listed');
  });
});

describe('checkJsonStructure: nesting depth', () => {
  it('accepts the limit exactly and rejects one level more, saying where', () => {
    expect(MAX_JSON_DEPTH).toBe(1000);
    expect(checkJsonStructure(nested(1000))).toEqual([]);
    expect(checkJsonStructure(nested(1001))).toEqual(['$[0][0][0][0][0][0][0][0]...: nested deeper than the limit of 1000 levels (line 1, column 1001)']);
    expect(checkJsonStructure(nested(4), 3)).toEqual(['$[0][0][0]: nested deeper than the limit of 3 levels (line 1, column 4)']);
  });

  it('checks 100,000 levels without overflowing the stack and reports the path into the document', () => {
    const text = `{"correctness_test_suite": [{"input": {"xs": ${nested(100_000)}}}]}`;
    expect(checkJsonStructure(text)).toEqual([
      '$.correctness_test_suite[0].input.xs[0][0][0][0]...: nested deeper than the limit of 1000 levels (line 1, column 1042)',
    ]);
  });

  it('counts objects as levels too', () => {
    const text = '{"a":'.repeat(5) + '1' + '}'.repeat(5);
    expect(checkJsonStructure(text, 5)).toEqual([]);
    expect(checkJsonStructure(text, 4)).toEqual(['$.a.a.a.a: nested deeper than the limit of 4 levels (line 1, column 21)']);
  });
});

describe('lineAndColumn', () => {
  it('counts from 1, with \\n ending a line', () => {
    expect(lineAndColumn('ab\ncd\r\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(lineAndColumn('ab\ncd\r\nef', 4)).toEqual({ line: 2, column: 2 });
    expect(lineAndColumn('ab\ncd\r\nef', 8)).toEqual({ line: 3, column: 2 });
  });
});
