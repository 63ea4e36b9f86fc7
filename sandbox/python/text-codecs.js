// TextEncoder and TextDecoder for Python's sandbox (a bare isolated-vm
// context has neither, and Pyodide needs both). The host runs this script
// before boot.js in every interpreter's context; boot.js keeps these two
// globals when it removes everything else it and Pyodide's loader added.
// Only what Pyodide uses is here: UTF-8 both ways, and decoding of UTF-16LE
// and Latin-1.
(function () {
  'use strict';

  const G = globalThis;
  const ReflectApply = Reflect.apply;
  const StringCtor = String;
  const RangeErrorCtor = RangeError;
  const TypeErrorCtor = TypeError;
  const fromCharCode = String.fromCharCode;
  const MathMin = Math.min;
  const Uint8ArrayCtor = Uint8Array;
  const Uint16ArrayCtor = Uint16Array;
  const ArrayBufferCtor = ArrayBuffer;
  const SharedArrayBufferCtor = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
  const StringCharCodeAt = String.prototype.charCodeAt;
  const TypedArraySubarray = Uint8Array.prototype.subarray;

  const CHUNK = 8192;
  function unitsToString(units, length) {
    let out = '';
    for (let i = 0; i < length; i += CHUNK) {
      out += ReflectApply(fromCharCode, null, ReflectApply(TypedArraySubarray, units, [i, MathMin(length, i + CHUNK)]));
    }
    return out;
  }
  function asBytes(input) {
    if (input === undefined) return new Uint8ArrayCtor(0);
    if (input instanceof ArrayBufferCtor || input instanceof SharedArrayBufferCtor) return new Uint8ArrayCtor(input);
    return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
  }
  function decodeUtf8(bytes, fatal, ignoreBOM) {
    const n = bytes.length;
    const units = new Uint16ArrayCtor(n + 1);
    let u = 0;
    let i = !ignoreBOM && n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    while (i < n) {
      const b0 = bytes[i];
      if (b0 < 0x80) {
        units[u++] = b0;
        i++;
        continue;
      }
      let need = 0;
      let cp = 0;
      let min = 0;
      if (b0 >= 0xc2 && b0 <= 0xdf) {
        need = 1;
        cp = b0 & 0x1f;
        min = 0x80;
      } else if (b0 >= 0xe0 && b0 <= 0xef) {
        need = 2;
        cp = b0 & 0x0f;
        min = 0x800;
      } else if (b0 >= 0xf0 && b0 <= 0xf4) {
        need = 3;
        cp = b0 & 0x07;
        min = 0x10000;
      }
      let j = 1;
      if (need > 0) {
        for (; j <= need; j++) {
          if (i + j >= n || (bytes[i + j] & 0xc0) !== 0x80) break;
          cp = (cp << 6) | (bytes[i + j] & 0x3f);
        }
      }
      if (need === 0 || j <= need || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        if (fatal) throw new TypeErrorCtor('The encoded data was not valid for encoding utf-8');
        units[u++] = 0xfffd;
        i += need === 0 ? 1 : j;
        continue;
      }
      i += need + 1;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        units[u++] = 0xd800 | (cp >> 10);
        units[u++] = 0xdc00 | (cp & 0x3ff);
      } else {
        units[u++] = cp;
      }
    }
    return unitsToString(units, u);
  }
  function decodeUtf16le(bytes, ignoreBOM) {
    const count = bytes.length >> 1;
    const units = new Uint16ArrayCtor(count);
    for (let k = 0; k < count; k++) units[k] = bytes[2 * k] | (bytes[2 * k + 1] << 8);
    const start = !ignoreBOM && count > 0 && units[0] === 0xfeff ? 1 : 0;
    return unitsToString(ReflectApply(TypedArraySubarray, units, [start, count]), count - start);
  }
  function decodeLatin1(bytes) {
    return unitsToString(bytes, bytes.length);
  }
  class TextDecoder {
    constructor(label = 'utf-8', options = {}) {
      const name = StringCtor(label).toLowerCase();
      if (name === 'utf-8' || name === 'utf8' || name === 'unicode-1-1-utf-8') this.encoding = 'utf-8';
      else if (name === 'utf-16le' || name === 'utf-16') this.encoding = 'utf-16le';
      else if (name === 'latin1' || name === 'iso-8859-1' || name === 'ascii' || name === 'us-ascii') this.encoding = 'latin1';
      else throw new RangeErrorCtor('evalrun: unsupported encoding ' + name);
      this.fatal = !!(options && options.fatal);
      this.ignoreBOM = !!(options && options.ignoreBOM);
    }
    decode(input) {
      const bytes = asBytes(input);
      if (this.encoding === 'utf-8') return decodeUtf8(bytes, this.fatal, this.ignoreBOM);
      if (this.encoding === 'utf-16le') return decodeUtf16le(bytes, this.ignoreBOM);
      return decodeLatin1(bytes);
    }
  }
  // Writes UTF-8 for as many whole characters as fit; returns what it used.
  function encodeInto(str, dest) {
    const s = StringCtor(str);
    const n = s.length;
    const cap = dest.length;
    let read = 0;
    let written = 0;
    while (read < n) {
      let cp = ReflectApply(StringCharCodeAt, s, [read]);
      let units = 1;
      if (cp >= 0xd800 && cp <= 0xdbff && read + 1 < n) {
        const lo = ReflectApply(StringCharCodeAt, s, [read + 1]);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          units = 2;
        }
      }
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
      const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (written + size > cap) break;
      if (size === 1) dest[written++] = cp;
      else if (size === 2) {
        dest[written++] = 0xc0 | (cp >> 6);
        dest[written++] = 0x80 | (cp & 0x3f);
      } else if (size === 3) {
        dest[written++] = 0xe0 | (cp >> 12);
        dest[written++] = 0x80 | ((cp >> 6) & 0x3f);
        dest[written++] = 0x80 | (cp & 0x3f);
      } else {
        dest[written++] = 0xf0 | (cp >> 18);
        dest[written++] = 0x80 | ((cp >> 12) & 0x3f);
        dest[written++] = 0x80 | ((cp >> 6) & 0x3f);
        dest[written++] = 0x80 | (cp & 0x3f);
      }
      read += units;
    }
    return { read, written };
  }
  class TextEncoder {
    get encoding() {
      return 'utf-8';
    }
    encode(str = '') {
      const s = StringCtor(str);
      const buffer = new Uint8ArrayCtor(s.length * 3);
      const { written } = encodeInto(s, buffer);
      return buffer.slice(0, written);
    }
    encodeInto(str, dest) {
      return encodeInto(str, dest);
    }
  }
  G.TextDecoder = TextDecoder;
  G.TextEncoder = TextEncoder;
})();
