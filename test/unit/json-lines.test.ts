/** The framing between the supervisor and its workers (src/sandbox-host/json-lines.ts). */
import { describe, expect, it } from 'vitest';
import { FrameSplitter, jsonLine, LineSplitter, type Frame } from '../../src/sandbox-host/json-lines.js';

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

describe('frames', () => {
  it('reads a line, then as many raw bytes as it names, however the bytes arrive', () => {
    const payload = Buffer.from('{"a":"é\\n漢"}{"b":1}', 'utf8');
    const bytes = Buffer.concat([
      Buffer.from(jsonLine({ type: 'x', payloadBytes: payload.length })),
      payload,
      Buffer.from(jsonLine({ type: 'y' })),
      Buffer.from(jsonLine({ type: 'z', payloadBytes: 0 })),
      Buffer.from('not json\n'),
    ]);
    for (const size of [1, 2, 5, 13, bytes.length]) {
      const splitter = new FrameSplitter();
      const frames: Frame[] = [];
      // Each piece new, as a socket's chunks are.
      for (let at = 0; at < bytes.length; at += size) frames.push(...splitter.push(Buffer.from(bytes.subarray(at, at + size))));
      expect(frames).toEqual([
        { message: { type: 'x', payloadBytes: payload.length }, payload },
        { message: { type: 'y' }, payload: null },
        { message: { type: 'z', payloadBytes: 0 }, payload: Buffer.alloc(0) },
        { message: undefined, payload: null },
      ]);
    }
  });

  it('takes a count that is not a whole number as no payload', () => {
    const frames = new FrameSplitter().push(Buffer.from(`${jsonLine({ payloadBytes: -1 })}${jsonLine({ payloadBytes: '3' })}`));
    expect(frames.map((f) => f.payload)).toEqual([null, null]);
  });
});
