/** The framing between the supervisor and its workers (src/sandbox-host/json-lines.ts). */
import { describe, expect, it } from 'vitest';
import { jsonLine, LineSplitter } from '../../src/sandbox-host/json-lines.js';

describe('json lines', () => {
  it('writes one line per message, with newlines inside strings escaped', () => {
    expect(jsonLine({ text: 'a\nb' })).toBe('{"text":"a\\nb"}\n');
  });

  it('cuts bytes into whole lines, however the bytes arrive', () => {
    const messages = [{ a: 1 }, { text: 'é, 漢字 and 🙂\n' }, [], 'last'];
    const bytes = Buffer.from(messages.map(jsonLine).join(''), 'utf8');
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const splitter = new LineSplitter();
      const lines: string[] = [];
      // One reused buffer, as a reader that reads into the same memory each time.
      const scratch = Buffer.alloc(size);
      for (let at = 0; at < bytes.length; at += size) {
        const n = bytes.copy(scratch, 0, at, at + size);
        for (const line of splitter.push(scratch.subarray(0, n))) lines.push(line);
        scratch.fill(0);
      }
      expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(messages);
    }
  });

  it('keeps a line whose end has not arrived', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(Buffer.from('{"a":'))).toEqual([]);
    expect(splitter.push(Buffer.from('1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(splitter.push(Buffer.from(':2}\n'))).toEqual(['{"b":2}']);
  });
});
