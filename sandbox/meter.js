// evalrun's meter for JavaScript's measured runs (docs/METERING-JS.md). The
// host evaluates it in a fresh context before the harness and before any
// candidate code, as
//
//   const __evalrun_k = (this file)();
//   const __evalrun_c = __evalrun_k.tick, __evalrun_s = ..., __evalrun_r = ..., ...;
//
// so the names the instrumented candidate calls are constants of the
// context's global scope: the candidate can neither reassign nor delete them,
// and code that names them is refused before it runs (instrument.ts). The
// counters themselves are this function's locals.
//
// `install` (called by the harness once its own captures are done) wraps the
// built-ins whose work grows with their input, so that they add to the count
// what they do, and takes away eval and the Function constructors: code made
// from strings at run time would escape the counters.
//
// Rules this file keeps, as the harness does: captured intrinsics only,
// called through the captured Reflect.apply; no spread or iteration of its
// own arrays (Array.prototype[Symbol.iterator] is the candidate's to change).
//
// This file is one expression: no statement may follow it.
(function () {
  'use strict';

  const ReflectApply = Reflect.apply;
  const ReflectGetPrototypeOf = Reflect.getPrototypeOf;
  const ReflectOwnKeys = Reflect.ownKeys;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectFreeze = Object.freeze;
  const ArrayIsArray = Array.isArray;
  const StringCtor = String;
  const MathClz32 = Math.clz32;
  const SymbolIterator = Symbol.iterator;
  const EvalErrorCtor = EvalError;
  const TypeErrorCtor = TypeError;
  const TypedArrayPrototype = ReflectGetPrototypeOf(Uint8Array).prototype;
  const TypedArrayLength = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'length').get;
  const TypedArrayByteLength = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'byteLength').get;
  const ArrayBufferByteLength = ObjectGetOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
  const TypedArrayTag = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get;
  const SetPrototype = Set.prototype;
  const MapPrototype = Map.prototype;
  const ArrayBufferPrototype = ArrayBuffer.prototype;
  const SetSize = ObjectGetOwnPropertyDescriptor(Set.prototype, 'size').get;
  const MapSize = ObjectGetOwnPropertyDescriptor(Map.prototype, 'size').get;
  const SetHas = Set.prototype.has;
  const MapHas = Map.prototype.has;

  /** Bytes per slot of an array, per header, per Map and Set entry (V8 on 64-bit). */
  const SLOT = 8;
  const HEADER = 16;
  const MAP_ENTRY = 24;
  const SET_ENTRY = 16;

  let cost = 0;
  let bytes = 0;

  function tick(weight, allocated) {
    cost += weight;
    if (allocated !== undefined) bytes += allocated;
  }

  /** The figures since the last call, as `cost,bytes`, and a fresh start. */
  function take() {
    const text = cost + ',' + bytes;
    cost = 0;
    bytes = 0;
    return text;
  }

  // ---- sizes, read without running the candidate's code where it can be helped
  //
  // Brand checks that throw (a getter called on the wrong kind of object)
  // are only tried where the prototype already says what the object is: an
  // exception costs far more than the method it would be charged for.

  function brand(getter, value) {
    try {
      return ReflectApply(getter, value, []);
    } catch {
      return -1;
    }
  }

  function count(n) {
    return typeof n === 'number' && n > 0 ? (n < 4294967296 ? n : 4294967296) : 0;
  }

  /** Whether `value` (an object) is a typed array: the tag getter answers undefined, without throwing, for anything else. */
  function isTypedArray(value) {
    return ReflectApply(TypedArrayTag, value, []) !== undefined;
  }

  /** The number of items `value` holds, or -1 when it is none of the built-in collections. */
  function itemsOf(value) {
    if (typeof value === 'string') return value.length;
    if (value === null || typeof value !== 'object') return -1;
    if (ArrayIsArray(value)) return count(value.length);
    if (isTypedArray(value)) return ReflectApply(TypedArrayLength, value, []);
    const proto = ReflectGetPrototypeOf(value);
    if (proto === SetPrototype) return brand(SetSize, value);
    if (proto === MapPrototype) return brand(MapSize, value);
    return -1;
  }

  /** The length the receiver of an array or string method has (array-likes included). */
  function lengthOf(value) {
    if (typeof value === 'string') return value.length;
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return 0;
    if (ArrayIsArray(value)) return count(value.length);
    if (typeof value === 'object' && isTypedArray(value)) return ReflectApply(TypedArrayLength, value, []);
    try {
      return count(value.length);
    } catch {
      return 0;
    }
  }

  /** Bytes of a new array or string a built-in returned (nothing for its receiver, changed in place). */
  function resultBytes(self, result) {
    if (typeof result === 'string') return HEADER + result.length;
    if (result === self || result === null || typeof result !== 'object') return 0;
    if (ArrayIsArray(result)) return HEADER + SLOT * count(result.length);
    return isTypedArray(result) ? HEADER + ReflectApply(TypedArrayByteLength, result, []) : 0;
  }

  function log2Ceil(n) {
    return n <= 1 ? 0 : 32 - MathClz32(n - 1);
  }

  // ---- what the instrumented code calls besides `tick` ----------------------

  /** `...x`: the items spread. An iterable that is none of the collections is spread here, into an array, to count them. */
  function spread(value) {
    const n = itemsOf(value);
    if (n >= 0) {
      cost += n;
      bytes += SLOT * n;
      return value;
    }
    if (value === null || value === undefined) return value;
    const next = value[SymbolIterator];
    if (typeof next !== 'function') return value;
    // As a spread does: the iterator's `next` is read once, and each step must be an object.
    const iterator = ReflectApply(next, value, []);
    if (iterator === null || (typeof iterator !== 'object' && typeof iterator !== 'function'))
      throw new TypeErrorCtor('Result of the Symbol.iterator method is not an object');
    const step = iterator.next;
    const items = [];
    let i = 0;
    for (;;) {
      const result = ReflectApply(step, iterator, []);
      if (result === null || (typeof result !== 'object' && typeof result !== 'function'))
        throw new TypeErrorCtor('Iterator result ' + StringCtor(result) + ' is not an object');
      if (result.done) break;
      ObjectDefineProperty(items, i++, { value: result.value, writable: true, enumerable: true, configurable: true });
    }
    cost += i;
    bytes += SLOT * i;
    return items;
  }

  /**
   * `[a, ...rest] = value`: the items the rest takes, past the `before`
   * elements ahead of it, for the built-in collections. Any other iterable is
   * left to the destructuring as it is: counting its items would consume it.
   */
  function rest(value, before) {
    const n = itemsOf(value) - before;
    if (n > 0) {
      cost += n;
      bytes += SLOT * n;
    }
    return value;
  }

  /**
   * `{...value}`, `{a, ...rest} = value`, and a rest binding once made: the
   * properties copied, past the `before` named ahead of a rest. An array's
   * and a string's are their items; a Set's and a Map's own properties are
   * none, as the copy finds.
   */
  function copied(value, before) {
    let n = 0;
    if (typeof value === 'string') n = value.length;
    else if (value !== null && (typeof value === 'object' || typeof value === 'function')) {
      n = ArrayIsArray(value) ? count(value.length) : isTypedArray(value) ? ReflectApply(TypedArrayLength, value, []) : ReflectOwnKeys(value).length;
    }
    n -= before;
    if (n > 0) {
      cost += n;
      bytes += SLOT * n;
    }
    return value;
  }

  /** `new C(...)`: what the object holds, for the built-ins that hold a size of their own. */
  function created(value) {
    if (ArrayIsArray(value)) {
      const n = count(value.length);
      cost += n;
      bytes += HEADER + SLOT * n;
      return value;
    }
    let n = -1;
    if (value !== null && typeof value === 'object') {
      if (isTypedArray(value)) n = ReflectApply(TypedArrayByteLength, value, []);
      else if (ReflectGetPrototypeOf(value) === ArrayBufferPrototype) n = brand(ArrayBufferByteLength, value);
    }
    if (n >= 0) {
      cost += n >>> 3;
      bytes += HEADER + n;
      return value;
    }
    bytes += HEADER + SLOT;
    return value;
  }

  // ---- built-ins, wrapped -----------------------------------------------------

  // What a wrapped method adds, from its receiver, arguments and result.
  const scan = (self) => lengthOf(self);
  const copy = (self, args, result) => lengthOf(self) + lengthOf(result);
  const sorted = (self) => {
    const n = lengthOf(self);
    return n * log2Ceil(n);
  };
  const resultSize = (self, args, result) => lengthOf(result);
  /** push and unshift: a slot per item added (the array's own growth, amortized). */
  const grown = (self, args) => {
    bytes += SLOT * args.length;
    return args.length;
  };
  const firstArgSize = (self, args) => (args.length > 0 ? lengthOf(args[0]) : 0);
  const shorterOfTwo = (self, args) => {
    const a = lengthOf(self);
    const b = args.length > 0 ? lengthOf(args[0]) : 0;
    return a < b ? a : b;
  };
  const secondArgSize = (self, args) => (args.length > 1 && (ArrayIsArray(args[1]) || typeof args[1] === 'object') ? lengthOf(args[1]) : 0);

  // `toString`: a String method's receiver is made a string first, as the
  // method itself would (an object's own toString, called once), so that it
  // is charged the length of the string it goes over.
  function wrap(holder, key, charge, toString) {
    const desc = ObjectGetOwnPropertyDescriptor(holder, key);
    if (desc === undefined || typeof desc.value !== 'function') return;
    const original = desc.value;
    const wrapped = {
      [key](...args) {
        const self = toString && this !== null && (typeof this === 'object' || typeof this === 'function') ? StringCtor(this) : this;
        const result = ReflectApply(original, self, args);
        try {
          cost += charge(self, args, result);
          bytes += resultBytes(self, result);
        } catch {
          // A receiver whose size cannot be read is charged nothing more: its reads already ran counted code.
        }
        return result;
      },
    }[key];
    ObjectDefineProperty(wrapped, 'length', { value: original.length, configurable: true });
    ObjectDefineProperty(holder, key, { value: wrapped, writable: desc.writable, enumerable: desc.enumerable, configurable: desc.configurable });
  }

  function wrapAll(holder, keys, charge, toString) {
    for (let i = 0; i < keys.length; i++) wrap(holder, keys[i], charge, toString === true);
  }

  const SCANS = ['includes', 'indexOf', 'lastIndexOf', 'find', 'findIndex', 'findLast', 'findLastIndex', 'some', 'every', 'forEach'];
  const MORE_SCANS = ['reduce', 'reduceRight', 'join', 'fill', 'copyWithin', 'reverse'];
  const COPIES = ['map', 'filter', 'slice', 'concat', 'flat', 'flatMap', 'toReversed', 'with', 'toSpliced', 'splice'];

  function wrapArrays() {
    const AP = Array.prototype;
    wrapAll(AP, SCANS, scan);
    wrapAll(AP, MORE_SCANS, scan);
    wrapAll(AP, ['shift'], scan);
    wrapAll(AP, COPIES, copy);
    wrapAll(AP, ['sort', 'toSorted'], sorted);
    wrap(AP, 'push', grown);
    wrap(AP, 'unshift', (self, args) => lengthOf(self) + grown(self, args));
    wrapAll(Array, ['from', 'of'], resultSize);
    const TP = TypedArrayPrototype;
    wrapAll(TP, SCANS, scan);
    wrapAll(TP, MORE_SCANS, scan);
    wrapAll(TP, ['map', 'filter', 'slice', 'toReversed', 'with'], copy);
    wrapAll(TP, ['sort', 'toSorted'], sorted);
    wrap(TP, 'set', firstArgSize);
  }

  function wrapStrings() {
    const SP = String.prototype;
    wrapAll(SP, ['includes', 'indexOf', 'lastIndexOf', 'trim', 'trimStart', 'trimEnd', 'trimLeft', 'trimRight', 'normalize'], scan, true);
    wrapAll(SP, ['toUpperCase', 'toLowerCase', 'toLocaleUpperCase', 'toLocaleLowerCase'], scan, true);
    wrapAll(SP, ['split', 'replace', 'replaceAll'], copy, true);
    wrapAll(SP, ['slice', 'substring', 'substr', 'repeat', 'padStart', 'padEnd', 'concat'], resultSize, true);
    wrapAll(SP, ['startsWith', 'endsWith'], firstArgSize, true);
    wrap(SP, 'localeCompare', shorterOfTwo, true);
    wrapExec(RegExp.prototype);
  }

  // Every regular expression search goes through `exec` (String's match,
  // replace, split and search included, which call it when it is not the
  // original): it is charged the characters it went over, from where it
  // started (`lastIndex`, read before the search moves it) to the end of the
  // match, or to the end of the input when nothing matched.
  function wrapExec(RP) {
    const desc = ObjectGetOwnPropertyDescriptor(RP, 'exec');
    const original = desc.value;
    const flagGlobal = ObjectGetOwnPropertyDescriptor(RP, 'global').get;
    const flagSticky = ObjectGetOwnPropertyDescriptor(RP, 'sticky').get;
    const wrapped = {
      exec(...args) {
        let start = 0;
        let sticky = false;
        try {
          sticky = ReflectApply(flagSticky, this, []);
          if (sticky || ReflectApply(flagGlobal, this, [])) start = count(this.lastIndex);
        } catch {
          // Not a RegExp: the original throws below.
        }
        const result = ReflectApply(original, this, args);
        const input = args.length > 0 && typeof args[0] === 'string' ? args[0] : '';
        if (result === null) cost += sticky ? 1 : input.length > start ? input.length - start : 1;
        else {
          const end = count(result.index) + lengthOf(result[0]);
          cost += end > start ? end - start + 1 : 1;
          bytes += HEADER + SLOT * count(result.length);
        }
        return result;
      },
    }.exec;
    ObjectDefineProperty(wrapped, 'length', { value: original.length, configurable: true });
    ObjectDefineProperty(RP, 'exec', { value: wrapped, writable: desc.writable, enumerable: desc.enumerable, configurable: desc.configurable });
  }

  function wrapObjects() {
    wrapAll(JSON, ['stringify'], resultSize);
    wrapAll(JSON, ['parse'], firstArgSize);
    wrapAll(Object, ['keys', 'values', 'entries', 'getOwnPropertyNames'], resultSize);
    wrap(Function.prototype, 'apply', secondArgSize);
    wrap(Reflect, 'apply', (self, args) => (args.length > 2 ? lengthOf(args[2]) : 0));
    wrap(Reflect, 'construct', (self, args) => (args.length > 1 ? lengthOf(args[1]) : 0));
    // Map and Set work in constant time; a new entry is memory. Their
    // constructors fill them through `set` and `add`, so a Map or Set built
    // from an iterable is charged an item at a time.
    wrapEntry(Map.prototype, 'set', MapHas, MAP_ENTRY);
    wrapEntry(Set.prototype, 'add', SetHas, SET_ENTRY);
  }

  function wrapEntry(holder, key, has, entryBytes) {
    const desc = ObjectGetOwnPropertyDescriptor(holder, key);
    const original = desc.value;
    const wrapped = {
      [key](...args) {
        let fresh = false;
        try {
          fresh = !ReflectApply(has, this, [args[0]]);
        } catch {
          // Not a Map or Set: the original throws below.
        }
        const result = ReflectApply(original, this, args);
        cost += 1;
        if (fresh) bytes += entryBytes;
        return result;
      },
    }[key];
    ObjectDefineProperty(wrapped, 'length', { value: original.length, configurable: true });
    ObjectDefineProperty(holder, key, { value: wrapped, writable: desc.writable, enumerable: desc.enumerable, configurable: desc.configurable });
  }

  // ---- no code from strings ---------------------------------------------------

  function refuse(what) {
    return function () {
      throw new EvalErrorCtor(what + ' is not available in a measured run (its code would not be counted)');
    };
  }

  function removeCodeFromStrings() {
    const G = globalThis;
    ObjectDefineProperty(G, 'eval', { value: refuse('eval'), writable: true, configurable: true });
    const constructors = [
      Function.prototype,
      ReflectGetPrototypeOf(async function () {}),
      ReflectGetPrototypeOf(function* () {}),
      ReflectGetPrototypeOf(async function* () {}),
    ];
    const FunctionPrototype = Function.prototype;
    const fake = refuse('the Function constructor');
    ObjectDefineProperty(fake, 'prototype', { value: FunctionPrototype });
    for (let i = 0; i < constructors.length; i++) {
      ObjectDefineProperty(constructors[i], 'constructor', { value: i === 0 ? fake : refuse('the Function constructor'), writable: true, configurable: true });
    }
    ObjectDefineProperty(G, 'Function', { value: fake, writable: true, configurable: true });
  }

  function install() {
    wrapArrays();
    wrapStrings();
    wrapObjects();
    removeCodeFromStrings();
    cost = 0;
    bytes = 0;
  }

  return ObjectFreeze({ tick, spread, rest, copied, created, take, install });
})();
