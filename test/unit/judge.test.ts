import { describe, expect, it } from 'vitest';
import { judge } from '../../src/sandbox-host/judge.js';
import type { TestOutcome } from '../../src/sandbox-host/protocol.js';
import { DEFAULT_TOLERANCE, type Equality } from '../../src/values/compare.js';
import { floatTag, pySet } from '../../src/values/py-tags.js';
import type { TypeNode, Value } from '../../src/values/type-node.js';
import { encodeWire } from '../../src/values/wire.js';

const FLOAT: TypeNode = { kind: 'float' };
const INTS: TypeNode = { kind: 'list', item: { kind: 'int' } };
const INT_SET: TypeNode = { kind: 'set', item: { kind: 'int' } };

function returned(json: string): TestOutcome {
  return { kind: 'returned', json, durationMs: 3 };
}

function verdictFor(json: string, expected: Value, type: TypeNode, equality?: Equality) {
  return judge(returned(json), encodeWire(expected), type, DEFAULT_TOLERANCE, equality);
}

describe('judge', () => {
  it('passes the exact expected value without carrying it back', () => {
    expect(verdictFor('[1,2,3]', [1, 2, 3], INTS)).toEqual({ status: 'pass', durationMs: 3 });
    expect(verdictFor('{"a":[1.5,null]}', { a: [1.5, null] }, { kind: 'any' })).toEqual({ status: 'pass', durationMs: 3 });
    // NaN equals NaN, and both sides spell it with the same tag.
    expect(verdictFor('{"$evalrun":"float","value":"NaN"}', floatTag(Number.NaN), FLOAT)).toEqual({ status: 'pass', durationMs: 3 });
    expect(verdictFor('{"$evalrun":"float","value":"3.0"}', floatTag(3), FLOAT, 'strict')).toEqual({ status: 'pass', durationMs: 3 });
  });

  it('meets a whole float the file wrote within the tolerance for a JavaScript candidate, whatever its size', () => {
    const forJavaScript = (json: string, expected: Value, type: TypeNode) =>
      judge(returned(json), encodeWire(expected, 'javascript-result'), type, DEFAULT_TOLERANCE, 'javascript');
    // Every double from 2**53 on is a whole number: 1.5e16's rounding is one too, and still a float's rounding.
    expect(forJavaScript('15000000000000002', floatTag(1.5e16), FLOAT)).toMatchObject({ status: 'pass' });
    expect(forJavaScript('[1.0000000001e+300]', [floatTag(1e300)], { kind: 'list', item: FLOAT })).toMatchObject({ status: 'pass' });
    expect(forJavaScript('{"x":[1.0000000000000002e+20]}', { x: [floatTag(1e20)] }, { kind: 'any' })).toMatchObject({ status: 'pass' });
    expect(forJavaScript('3', floatTag(3), FLOAT)).toMatchObject({ status: 'pass' });
    // A whole number the file wrote as an int is met exactly, and a float beyond the tolerance fails.
    expect(forJavaScript('[1000000001]', [1000000000], { kind: 'list', item: FLOAT })).toMatchObject({ status: 'fail' });
    expect(forJavaScript('16500000000000000', floatTag(1.5e16), FLOAT)).toMatchObject({ status: 'fail' });
  });

  it('keeps the kind of every number from the wire: an integral float is not an int under strict types', () => {
    expect(verdictFor('3', floatTag(3), FLOAT, 'strict')).toEqual({ status: 'fail', actual: '3', reason: 'expected float, got number 3', durationMs: 3 });
    expect(verdictFor('3', floatTag(3), FLOAT, 'python')).toEqual({ status: 'pass', actual: '3', durationMs: 3 });
    expect(verdictFor('[{"$evalrun":"float","value":"1.0"},2]', [1, 2], INTS, 'strict')).toMatchObject({
      status: 'fail',
      reason: 'expected int, got number 1.0 at $[0]',
    });
    expect(verdictFor('[{"$evalrun":"float","value":"1.0"},2]', [1, 2], INTS, 'python')).toMatchObject({ status: 'pass' });
    expect(verdictFor('{"$evalrun":"float","value":"NaN"}', floatTag(Number.NaN), FLOAT, 'strict')).toEqual({ status: 'pass', durationMs: 3 });
    expect(verdictFor('{"$evalrun":"float","value":"Infinity"}', floatTag(Number.NaN), FLOAT)).toMatchObject({ status: 'fail' });
  });

  it('judges a list returned for a set as set(value) with Python equality only', () => {
    const expected = pySet([5, 6, 8]);
    expect(verdictFor('[8,6,5,5]', expected, INT_SET, 'python')).toEqual({ status: 'pass', actual: '[8,6,5,5]', durationMs: 3 });
    expect(verdictFor('{"$evalrun":"tuple","items":[8,6,5,5]}', expected, INT_SET, 'python')).toMatchObject({ status: 'pass' });
    expect(verdictFor('[8,6,5]', expected, INT_SET, 'strict')).toMatchObject({ status: 'fail', reason: 'expected Set[int], got array [8, 6, 5]' });
    expect(verdictFor('{"$evalrun":"set","items":[8,6,5]}', expected, INT_SET, 'strict')).toMatchObject({ status: 'pass' });
  });

  it('compares by the type when the text differs, and then reports the text of the value returned', () => {
    expect(verdictFor('0.30000000000000004', 0.3, FLOAT)).toEqual({ status: 'pass', actual: '0.30000000000000004', durationMs: 3 });
    expect(verdictFor('[3,1,2]', [1, 2, 3], INT_SET)).toEqual({ status: 'pass', actual: '[3,1,2]', durationMs: 3 });
    // Keys in another order are the same dict.
    expect(verdictFor('{"b":2,"a":1}', { a: 1, b: 2 }, { kind: 'dict', key: { kind: 'str' }, value: { kind: 'int' } })).toMatchObject({
      status: 'pass',
      actual: '{"b":2,"a":1}',
    });
  });

  it('fails a different value with the reason and where it differs', () => {
    expect(verdictFor('[1,2,4]', [1, 2, 3], INTS)).toEqual({ status: 'fail', actual: '[1,2,4]', reason: 'expected 3, got 4 at $[2]', durationMs: 3 });
    // null is a value like any other, not "the expected one".
    expect(verdictFor('null', [1], INTS)).toMatchObject({ status: 'fail', actual: 'null' });
  });

  it('turns malformed returned text into an error, never a pass', () => {
    expect(verdictFor('{"$evalrun":"bogus","items":[3]}', [3], INTS)).toMatchObject({ status: 'error' });
    expect(verdictFor('{"$evalrun":"int","value":"1e3"}', [3], INTS)).toMatchObject({ status: 'error' });
    expect(verdictFor('{"$evalrun":"dict","entries":[[1]]}', [3], INTS)).toMatchObject({ status: 'error' });
    // A set where a list is declared is a well-formed value, and a wrong one.
    expect(verdictFor('{"$evalrun":"set","items":[3]}', [3], INTS)).toMatchObject({ status: 'fail' });
    expect(verdictFor('[1,', [1], INTS)).toMatchObject({ status: 'error' });
  });

  it('passes other outcomes through', () => {
    expect(judge({ kind: 'timeout', durationMs: 50 }, '1', FLOAT, DEFAULT_TOLERANCE)).toEqual({ status: 'timeout', durationMs: 50 });
    expect(judge({ kind: 'threw', message: 'boom', durationMs: 1 }, '1', FLOAT, DEFAULT_TOLERANCE)).toEqual({
      status: 'error',
      message: 'boom',
      durationMs: 1,
    });
  });
});
