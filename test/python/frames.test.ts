import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonEngine } from '../../src/engines/python/engine.js';
import { pyJob, summaries } from './helpers.js';
import { py } from '../python-source.js';

/**
 * Candidates may look at their own frames (sympy does, through
 * inspect.currentframe() at import), but no frame they can reach leads to
 * the harness: candidate code runs under <evalrun-call>, and sys._getframe
 * is refused wherever a harness frame, or a frame that the harness may
 * resume later (a generator's), is below.
 */

let engine: PythonEngine;

beforeAll(async () => {
  engine = await PythonEngine.create({ memoryMb: 256 });
});

afterAll(() => engine?.dispose());

async function outcomes(code: string, args: unknown[][] = [[]]): Promise<string[]> {
  return summaries(await engine.run(pyJob(code, args)));
}

describe('frames a candidate may use', () => {
  it('walks from its own frame to the bottom of the stack and meets only its own code and <evalrun-call>', async () => {
    const code = `
import sys, inspect

def g():
    names = []
    frame = sys._getframe()
    while frame is not None:
        names.append(frame.f_code.co_filename + ':' + frame.f_code.co_name)
        assert '_audit' not in frame.f_globals and 'run_test' not in frame.f_globals and 'end_test' not in frame.f_globals
        frame = frame.f_back
    return names

def f():
    stack = [info.function for info in inspect.stack()]
    return [g(), stack]
`;
    expect(await outcomes(code)).toEqual([
      JSON.stringify([
        ['<candidate>:g', '<candidate>:f', '<evalrun-call>:call'],
        ['f', 'call'],
      ]),
    ]);
  });

  it('reads inspect.currentframe().f_back at import, as sympy does', async () => {
    const code = `
import inspect
CALLER = inspect.currentframe().f_back.f_code.co_filename
HERE = sorted(k for k in inspect.currentframe().f_back.f_locals if not k.startswith('__'))

def f():
    return [CALLER, HERE]
`;
    expect(await outcomes(code)).toEqual([JSON.stringify(['<evalrun-call>', ['args', 'target']])]);
  });

  it('finds no harness frame behind a frame it kept from an earlier test', async () => {
    const code = `
import sys
kept = []

def f(n):
    if n == 0:
        kept.append(sys._getframe())
        return 'kept'
    frame = kept[0]
    names = []
    while frame is not None:
        names.append(frame.f_code.co_filename)
        frame = frame.f_back
    return names
`;
    const [first, second] = await outcomes(code, [[0], [1]]);
    expect(first).toBe('"kept"');
    expect(JSON.parse(second!)).not.toContain('<evalrun-harness>');
  });
});

describe('frames that would lead to the harness are refused', () => {
  it('refuses sys._getframe inside a generator (the harness may resume it later)', async () => {
    const code = `
import sys

def gen():
    yield sys._getframe()

def f():
    try:
        next(gen())
        return 'got a frame'
    except PermissionError as e:
        return str(e)
`;
    expect(await outcomes(code)).toEqual([JSON.stringify('evalrun: sys._getframe is not available to candidates')]);
  });

  it('calls no candidate code while encoding a result, where a frame would lead to the harness', async () => {
    // Sorting a set's items once called their __lt__; they are sorted by their base values now.
    const code = `
import sys

class Sneaky(int):
    def __lt__(self, other):
        frame = sys._getframe()
        while frame is not None:
            frame = frame.f_back
        raise AssertionError('the harness called __lt__')

def f():
    return {Sneaky(2), Sneaky(1)}
`;
    const [out] = await outcomes(code);
    expect(out).toContain('{"$evalrun":"set","items":[1,2]}');
  });

  it('refuses signal handlers, which would be handed a frame leading to the harness', async () => {
    const code = `
import signal, _signal

def f():
    results = []
    for module in (signal, _signal):
        got = []
        try:
            module.signal(signal.SIGUSR1, lambda s, frame: got.append(frame))
            signal.raise_signal(signal.SIGUSR1)
            results.append('handler installed, frames: ' + str(len(got)))
        except PermissionError as e:
            results.append(str(e))
    return results
`;
    expect(await outcomes(code)).toEqual([
      JSON.stringify(['evalrun: signal handlers are not available to candidates', 'evalrun: signal handlers are not available to candidates']),
    ]);
  });

  it('keeps tracebacks sealed: tb_frame is refused', async () => {
    const code = `
def f():
    try:
        1 / 0
    except ZeroDivisionError as e:
        try:
            return e.__traceback__.tb_frame.f_code.co_name
        except PermissionError as refused:
            return str(refused)
`;
    expect(await outcomes(code)).toEqual([JSON.stringify('evalrun: reading tb_frame is not available to candidates')]);
  });
});

describe('built-in modules a candidate asks importlib to make afresh', () => {
  const make = (name: string): string =>
    `importlib.machinery.BuiltinImporter.create_module(importlib.machinery.ModuleSpec('${name}', importlib.machinery.BuiltinImporter, origin='built-in'))`;

  it('finds no _ctypes and no _signal to make (their names are gone from the table of built-in modules)', async () => {
    const code = `
import importlib.machinery, signal

def f():
    return [repr(${make('_ctypes')}), repr(${make('_signal')}), repr(${make('math')}), signal.getsignal(signal.SIGINT) is signal.default_int_handler]
`;
    expect(await outcomes(code)).toEqual([JSON.stringify(['None', 'None', "<module 'math'>", true])]);
  });

  it("gets nothing from the bridge's C module made again: every call into JavaScript is refused by the sealed bridge", async () => {
    const code = `
import importlib.machinery

def f():
    m = ${make('_pyodide_core')}
    return m.create_proxy(f)
`;
    const [out] = await outcomes(code);
    expect(out).toContain('the JavaScript bridge is sealed');
    // The next candidate starts from a working interpreter.
    expect(
      await outcomes(py`
      def f():
          return 5
    `),
    ).toEqual(['5']);
  });
});
