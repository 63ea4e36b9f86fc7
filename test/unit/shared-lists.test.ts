import { describe, expect, it } from 'vitest';
import { NO_STRINGS, SharedLists } from '../../src/interned.js';

describe('SharedLists', () => {
  it('holds one list for every list of the same strings, in the same order', () => {
    const lists = new SharedLists();
    const first = lists.share(['easy', 'strings']);
    const again = lists.share(['easy', 'strings']);
    expect(again).toBe(first);
    expect(again).toEqual(['easy', 'strings']);
    expect(lists.share(['strings', 'easy'])).not.toBe(first);
    expect(lists.share(['strings', 'easy'])).toEqual(['strings', 'easy']);
  });

  it('tells apart lists whose strings joined would read the same', () => {
    const lists = new SharedLists();
    const one = lists.share(['a,b']);
    const two = lists.share(['a', 'b']);
    const nul = lists.share(['a\u0000b']);
    expect(one).toEqual(['a,b']);
    expect(two).toEqual(['a', 'b']);
    expect(nul).toEqual(['a\u0000b']);
    expect(new Set([one, two, nul]).size).toBe(3);
  });

  it('gives the one empty list for every empty list', () => {
    const lists = new SharedLists();
    expect(lists.share([])).toBe(NO_STRINGS);
    expect(lists.share(new Array<string>())).toBe(NO_STRINGS);
  });

  it('freezes what it holds, and does not freeze or keep the list it was given', () => {
    const lists = new SharedLists();
    const given = ['x'];
    const held = lists.share(given);
    expect(Object.isFrozen(held)).toBe(true);
    expect(Object.isFrozen(NO_STRINGS)).toBe(true);
    expect(Object.isFrozen(given)).toBe(false);
    given.push('y');
    expect(held).toEqual(['x']);
    expect(() => (held as string[]).push('z')).toThrow(TypeError);
  });

  it('starts over past its limit, still giving lists equal to those given', () => {
    const lists = new SharedLists(3);
    const held = ['a', 'b', 'c', 'd'].map((tag) => lists.share([tag]));
    expect(held.map((list) => [...list])).toEqual([['a'], ['b'], ['c'], ['d']]);
    // 'a' was forgotten when the fourth list came: a list equal to it, not the same one.
    const a = lists.share(['a']);
    expect(a).toEqual(['a']);
    expect(a).not.toBe(held[0]);
    // 'd' came after the start over, so it is still held.
    expect(lists.share(['d'])).toBe(held[3]);
  });
});
