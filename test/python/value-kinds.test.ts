import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { pyJob, testsOf } from './helpers.js';
import { py } from '../python-source.js';

/**
 * What the harness writes for a returned value: a value's kind is its
 * type's (never what `__class__` claims), and integers of any size cross
 * whole while the candidate's own str() keeps CPython's digit limit.
 */

let engine: PythonEngine;

beforeAll(async () => {
  engine = await PythonEngine.create({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

async function wireOf(code: string, args: unknown[][] | string[] = [[]]): Promise<string[]> {
  return testsOf(await engine.run(pyJob(code, args))).map((t) => {
    if (t.kind !== 'returned') throw new Error(`expected a returned value, got ${JSON.stringify(t)}`);
    return t.json;
  });
}

describe('a returned value is classified by its type', () => {
  it('does not believe a __class__ property that claims int', async () => {
    const code = `
class Liar:
    @property
    def __class__(self):
        return int
    def __index__(self):
        return 7

def f():
    x = Liar()
    assert isinstance(x, int)
    return x
`;
    const out = testsOf(await engine.run(pyJob(code, [[]])));
    expect(out[0]).toMatchObject({ kind: 'unserializable' });
    expect(out[0]!.kind === 'unserializable' && out[0]!.message).toContain('of type Liar');
  });

  it('reads subclasses of int, float and str through the base type, not their own conversions', async () => {
    const code = `
class I(int):
    def __int__(self):
        return 99
    def __index__(self):
        return 99
class F(float):
    def __float__(self):
        return 99.5
class S(str):
    def __str__(self):
        return 'lie'

def f():
    return [I(3), F(2.0), S('truth'), True]
`;
    expect(await wireOf(code)).toEqual(['[3,{"$evalrun":"float","value":"2.0"},"truth",true]']);
  });

  it('keeps floats that JSON would read as ints, and -0.0, NaN and infinities, as float tags', async () => {
    const code = py`
      def f():
          return [3.0, -0.0, 1e16, float('nan'), float('-inf'), 2.5, 3]
    `;
    expect(await wireOf(code)).toEqual([
      '[{"$evalrun":"float","value":"3.0"},{"$evalrun":"float","value":"-0.0"},{"$evalrun":"float","value":"1e+16"},' +
        '{"$evalrun":"float","value":"NaN"},{"$evalrun":"float","value":"-Infinity"},2.5,3]',
    ]);
  });
});

describe('integers of any size', () => {
  it('returns and receives ints past the 4,300-digit str() limit, while the candidate keeps that limit', async () => {
    const big = `1${'0'.repeat(5000)}`;
    const code = `
import math, sys

def f(n):
    try:
        str(n)
        limited = False
    except ValueError:
        limited = True
    assert limited and sys.get_int_max_str_digits() == 4300
    return [n + 1, math.factorial(2000) % 1000003, len(hex(math.factorial(2000)))]
`;
    const [text] = await wireOf(code, [`[{"$evalrun":"int","value":"${big}"}]`]);
    const parsed = JSON.parse(text!) as [{ value: string }, number, number];
    expect(parsed[0].value).toBe(`1${'0'.repeat(4999)}1`);
  });

  it('returns math.factorial(2000) whole', async () => {
    const [text] = await wireOf(py`
      import math
      def f():
          return math.factorial(2000)
    `);
    const parsed = JSON.parse(text!) as { $evalrun: string; value: string };
    expect(parsed.$evalrun).toBe('int');
    let expected = 1n;
    for (let i = 2n; i <= 2000n; i++) expected *= i;
    expect(parsed.value).toBe(expected.toString());
  });

  it('leaves a limit the candidate set for itself in force after the harness read and wrote its values', async () => {
    const code = py`
      import sys

      def f(n):
          if n == 0:
              sys.set_int_max_str_digits(640)
          return sys.get_int_max_str_digits()
    `;
    // The second test of the same candidate sees the limit the first set, not the harness's.
    expect(await wireOf(code, [[0], [1]])).toEqual(['640', '640']);
  });
});
