// The evalrun harness. It runs inside a fresh isolated-vm context BEFORE the
// candidate's code, so it can keep private copies of every built-in it needs:
// afterwards the candidate may replace JSON, Array.prototype, Symbol.iterator,
// Object.prototype setters and so on, and the harness must not notice.
//
// Rules this file keeps:
// - Never call a method through a prototype at run time; call captured
//   functions with the captured Reflect.apply.
// - Never write into an array or object with [[Set]] (a setter on a prototype
//   would see it); build strings instead, or use captured defineProperty.
// - No expected output ever enters this context: the harness only reports
//   what the candidate returned; the host compares.
//
// This file is a function of the prelude's object (sandbox/prelude.js) and,
// in a measured run, of the meter's (sandbox/meter.js); the host joins them
// into one script, which evaluates to `install(seed, epochMs)`, which returns
// [run, progress, settle], and in a measured run the meter's `take` as well
// (the figures so far, and a fresh start). Results are one framed
// string (the prelude's `frame`) so that nothing but one string crosses back
// to the host.
//
// The host calls `run` synchronously: for a candidate that returns plain
// values that is the whole run, without the thread hop of an asynchronous
// call. When a candidate returns a thenable, `run` answers "A" and the rest
// of the run continues as a promise that the host awaits through `settle`.
(function (prelude, meter) {
  'use strict';

  const measured = meter !== undefined;

  const G = globalThis;
  const now = prelude.now;
  const frame = prelude.frame;
  const frameHeader = prelude.header;
  const ReflectApply = Reflect.apply;
  const ReflectConstruct = Reflect.construct;
  const ReflectGetPrototypeOf = Reflect.getPrototypeOf;
  const ObjectKeys = Object.keys;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ArrayIsArray = Array.isArray;
  const JSONParse = JSON.parse;
  const JSONStringify = JSON.stringify;
  const NumberIsFinite = Number.isFinite;
  const NumberIsNaN = Number.isNaN;
  const NumberIsSafeInteger = Number.isSafeInteger;
  const StringCtor = String;
  const NumberCtor = Number;
  const BigIntCtor = BigInt;
  const BigIntToString = BigInt.prototype.toString;
  const SetCtor = Set;
  const MapCtor = Map;
  const SetHas = Set.prototype.has;
  const SetAdd = Set.prototype.add;
  const SetDelete = Set.prototype.delete;
  const SetValues = Set.prototype.values;
  const SetSize = ObjectGetOwnPropertyDescriptor(Set.prototype, 'size').get;
  const MapEntries = Map.prototype.entries;
  const MapSet = Map.prototype.set;
  const IteratorNext = ReflectGetPrototypeOf(new Set().values()).next;
  const MapIteratorNext = ReflectGetPrototypeOf(new Map().entries()).next;
  const isTypedArray = (() => {
    const TypedArray = ReflectGetPrototypeOf(Uint8Array);
    const tag = ObjectGetOwnPropertyDescriptor(TypedArray.prototype, Symbol.toStringTag).get;
    return (v) => ReflectApply(tag, v, []) !== undefined;
  })();
  const TypedArrayLength = ObjectGetOwnPropertyDescriptor(ReflectGetPrototypeOf(Uint8Array).prototype, 'length').get;
  const PromiseCtor = Promise;
  const PromiseResolve = Promise.resolve;
  const RealDate = Date;
  const RangeErrorCtor = RangeError;
  const globalEval = eval;
  const identifierPattern = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const RegExpTest = RegExp.prototype.test;
  const StringSlice = String.prototype.slice;
  const StringIndexOf = String.prototype.indexOf;
  const StringToUpperCase = String.prototype.toUpperCase;

  // ---- determinism: seeded Math.random and a frozen clock -----------------

  function makeRandom(seed) {
    const randomStep = prelude.randomStep;
    const randomBits = prelude.randomBits;
    let state = seed >>> 0;
    return function random() {
      state = randomStep(state);
      return randomBits(state) / 4294967296;
    };
  }

  function installFixedClock(epochMs) {
    function FixedDate(...args) {
      if (new.target === undefined) return new RealDate(epochMs).toString();
      return args.length === 0 ? new RealDate(epochMs) : new RealDate(...args);
    }
    FixedDate.prototype = RealDate.prototype;
    FixedDate.now = () => epochMs;
    FixedDate.parse = RealDate.parse;
    FixedDate.UTC = RealDate.UTC;
    ObjectDefineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
    ObjectDefineProperty(G, 'Date', { value: FixedDate, writable: true, configurable: true });
  }

  // ---- describing thrown values without trusting them ---------------------

  function safeString(v) {
    try {
      const t = typeof v;
      if (t === 'string') return v;
      if (t === 'symbol') return 'a symbol';
      if (t === 'bigint' || t === 'number' || t === 'boolean' || v === null || v === undefined) return StringCtor(v);
      if (t === 'function') return 'a function';
      return '[object]';
    } catch {
      return '<unprintable>';
    }
  }

  function describeThrown(e) {
    if (e === null) return 'threw null';
    const t = typeof e;
    if (t !== 'object' && t !== 'function') return 'threw ' + (t === 'string' ? JSONStringify(e) : safeString(e));
    let name;
    let message;
    try {
      name = e.name;
    } catch {
      name = undefined;
    }
    try {
      message = e.message;
    } catch {
      message = undefined;
    }
    if (typeof message === 'string') {
      return (typeof name === 'string' && name !== '' ? name + ': ' : '') + message;
    }
    return 'threw a non-Error ' + (t === 'function' ? 'function' : 'object');
  }

  // Allocation failures of typed arrays and giant strings surface as
  // RangeErrors before the isolate's heap limit is reached; they are memory
  // exhaustion all the same.
  const memoryMessage = /Array buffer allocation failed|Invalid typed array length|Invalid array buffer length|Invalid string length|Invalid array length/;
  function isMemoryError(e) {
    try {
      if (e === null || typeof e !== 'object' || ReflectGetPrototypeOf(e) !== RangeErrorCtor.prototype) return false;
      const desc = ObjectGetOwnPropertyDescriptor(e, 'message');
      return desc !== undefined && typeof desc.value === 'string' && ReflectApply(RegExpTest, memoryMessage, [desc.value]);
    } catch {
      return false;
    }
  }

  // ---- arguments: wire JSON -> JS values ----------------------------------

  // Python's kinds in JavaScript's natural forms: a tuple is an array, a set
  // or frozenset a Set, an int beyond the safe range a BigInt, and a dict
  // whose keys are not all strings a plain object when every key can be a
  // property name (numbers, bools), else a Map (tuple keys become arrays).
  function reviveWire(key, value) {
    if (value !== null && typeof value === 'object' && !ArrayIsArray(value)) {
      const tag = ObjectGetOwnPropertyDescriptor(value, '$evalrun');
      if (tag === undefined) return value;
      switch (tag.value) {
        case 'float':
          return NumberCtor(value.value);
        case 'int':
          return BigIntCtor(value.value);
        case 'tuple':
          return value.items;
        case 'set':
        case 'frozenset':
          return new SetCtor(value.items);
        case 'dict':
          return dictFromEntries(value.entries, ObjectGetOwnPropertyDescriptor(value, 'map')?.value === true);
      }
    }
    return value;
  }

  function dictFromEntries(entries, tupleKeys) {
    // Declared tuple keys: a Map, empty or not.
    let scalar = !tupleKeys;
    for (let i = 0; i < entries.length; i++) {
      const k = entries[i][0];
      const kt = typeof k;
      if (k !== null && kt !== 'string' && kt !== 'number' && kt !== 'boolean' && kt !== 'bigint') scalar = false;
    }
    if (scalar) {
      const out = {};
      for (let i = 0; i < entries.length; i++) {
        ObjectDefineProperty(out, StringCtor(entries[i][0]), { value: entries[i][1], enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    const map = new MapCtor();
    for (let i = 0; i < entries.length; i++) ReflectApply(MapSet, map, [entries[i][0], entries[i][1]]);
    return map;
  }

  // ---- return values: JS values -> wire JSON, as a string -----------------

  class Unserializable {
    constructor(message) {
      this.message = message;
    }
  }

  const MAX_DEPTH = 2000;

  function encodeNumber(n) {
    // From 2**53 to 1e21 a double's shortest digits (9223372036854776000 for 2**63) name another int
    // than the one it is: it is recorded with every digit. Past 1e21 JavaScript writes it as 1e+21,
    // which names it exactly.
    if (NumberIsFinite(n)) {
      if ((n > 9007199254740991 && n < 1e21) || (n < -9007199254740991 && n > -1e21))
        return '{"$evalrun":"int","value":"' + ReflectApply(BigIntToString, BigIntCtor(n), []) + '"}';
      return n === 0 ? '0' : StringCtor(n);
    }
    const name = NumberIsNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
    return '{"$evalrun":"float","value":"' + name + '"}';
  }

  // `ancestors` is a Set of the containers on the current path, to tell a
  // cycle (an error) from a shared sub-object (fine).
  function encode(v, ancestors, depth) {
    switch (typeof v) {
      case 'string':
        return JSONStringify(v);
      case 'number':
        return encodeNumber(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'undefined':
        return 'null';
      case 'bigint':
        if (NumberIsSafeInteger(NumberCtor(v))) return StringCtor(NumberCtor(v));
        return '{"$evalrun":"int","value":"' + ReflectApply(BigIntToString, v, []) + '"}';
      case 'symbol':
        throw new Unserializable('returned a symbol');
      case 'function':
        throw new Unserializable('returned a function');
    }
    if (v === null) return 'null';
    if (depth > MAX_DEPTH) throw new Unserializable('returned a value nested more than ' + MAX_DEPTH + ' levels deep');
    if (ReflectApply(SetHas, ancestors, [v])) throw new Unserializable('returned a cyclic structure');
    ReflectApply(SetAdd, ancestors, [v]);
    try {
      return encodeContainer(v, ancestors, depth + 1);
    } finally {
      ReflectApply(SetDelete, ancestors, [v]);
    }
  }

  function encodeContainer(v, ancestors, depth) {
    if (ArrayIsArray(v)) {
      const n = v.length;
      let out = '[';
      for (let i = 0; i < n; i++) {
        if (i > 0) out += ',';
        out += encode(v[i], ancestors, depth);
      }
      return out + ']';
    }
    // A plain object or dictionary is by far the most common container after
    // arrays. Its prototype says it is not a typed array, Set or Map without
    // the brand probes below, which throw (and build a stack trace) on
    // anything that is not one. A Set or Map whose prototype the candidate
    // replaced with Object.prototype is encoded as the object it pretends to be.
    const proto = ReflectGetPrototypeOf(v);
    if (proto === ObjectPrototype || proto === null) return encodeObject(v, ancestors, depth);
    if (isTypedArray(v)) {
      const n = ReflectApply(TypedArrayLength, v, []);
      let out = '[';
      for (let i = 0; i < n; i++) {
        if (i > 0) out += ',';
        out += encode(v[i], ancestors, depth);
      }
      return out + ']';
    }
    // A Set is recorded as a set: judged as one where a set is expected, and
    // not mistaken for the array it is not where a list is expected.
    if (isSet(v)) return encodeSet(v, '{"$evalrun":"set","items":[', ancestors, depth);
    // A Map keeps its keys' kinds, which an object's property names would lose: new Map([['1', 'a']]) is
    // not {1: 'a'}, nor new Map([[1, 1]]) {'1': 1}. It is written as [key, value] pairs.
    if (isMap(v)) {
      const it = ReflectApply(MapEntries, v, []);
      let pairs = '';
      let first = true;
      for (;;) {
        const step = ReflectApply(MapIteratorNext, it, []);
        if (step.done) break;
        const entry = step.value;
        const key = entry[0];
        const kt = typeof key;
        if (kt === 'symbol' || kt === 'function' || kt === 'undefined') {
          throw new Unserializable('returned a Map with a ' + kt + ' key');
        }
        if (!first) pairs += ',';
        first = false;
        const item = encode(entry[1], ancestors, depth);
        pairs += '[' + encodeHashable(key, ancestors, depth) + ',' + item + ']';
      }
      return '{"$evalrun":"dict","entries":[' + pairs + ']}';
    }
    if (proto === RealDate.prototype) throw new Unserializable('returned a Date');
    if (proto === PromiseCtor.prototype) throw new Unserializable('returned a nested Promise');
    // A wrapper object (new String('ab')) is not its primitive, and its own keys would record it as
    // something else ({"0": "a", "1": "b"}); an iterator or generator has no keys at all.
    const wrapped = wrapperName(proto);
    if (wrapped !== null) throw new Unserializable('returned a ' + wrapped + ' object, not the primitive it wraps');
    if (ReflectApply(ObjectIsPrototypeOf, IteratorPrototype, [v])) throw new Unserializable('returned an iterator or generator, not its values');
    // An instance of a class (the candidate's own, an Error, a RegExp, a WeakMap) is no plain object, whatever its own keys.
    throw new Unserializable('returned an object of class ' + className(v) + ', not a plain object');
  }

  function className(v) {
    try {
      const proto = ReflectGetPrototypeOf(v);
      const ctor = proto === null ? undefined : ObjectGetOwnPropertyDescriptor(proto, 'constructor');
      const name = ctor === undefined || typeof ctor.value !== 'function' ? undefined : ObjectGetOwnPropertyDescriptor(ctor.value, 'name');
      return name !== undefined && typeof name.value === 'string' && name.value !== '' ? name.value : 'Object';
    } catch {
      return 'Object';
    }
  }

  function encodeSet(v, open, ancestors, depth) {
    const it = ReflectApply(SetValues, v, []);
    let out = open;
    let first = true;
    for (;;) {
      const step = ReflectApply(IteratorNext, it, []);
      if (step.done) break;
      if (!first) out += ',';
      first = false;
      out += encodeHashable(step.value, ancestors, depth);
    }
    return out + ']}';
  }

  // What a Set holds or a Map is keyed by is recorded as Python could hold it, hashable: an array as a
  // tuple and a Set as a frozenset, at any depth, so that a reader of the records can build the set.
  function encodeHashable(v, ancestors, depth) {
    if (v === null || typeof v !== 'object') return encode(v, ancestors, depth);
    const array = ArrayIsArray(v);
    if (!array && (ReflectGetPrototypeOf(v) === ObjectPrototype || !isSet(v))) return encode(v, ancestors, depth);
    if (depth > MAX_DEPTH) throw new Unserializable('returned a value nested more than ' + MAX_DEPTH + ' levels deep');
    if (ReflectApply(SetHas, ancestors, [v])) throw new Unserializable('returned a cyclic structure');
    ReflectApply(SetAdd, ancestors, [v]);
    try {
      if (!array) return encodeSet(v, '{"$evalrun":"frozenset","items":[', ancestors, depth + 1);
      const n = v.length;
      let out = '{"$evalrun":"tuple","items":[';
      for (let i = 0; i < n; i++) {
        if (i > 0) out += ',';
        out += encodeHashable(v[i], ancestors, depth + 1);
      }
      return out + ']}';
    } finally {
      ReflectApply(SetDelete, ancestors, [v]);
    }
  }

  function encodeObject(v, ancestors, depth) {
    const keys = ObjectKeys(v);
    // An object of the candidate's own with the tag's name as a key is data,
    // not a tag: it is written as a dict tag of [key, value] pairs.
    let tagKey = false;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === '$evalrun') {
        tagKey = true;
        break;
      }
    }
    let out = tagKey ? '{"$evalrun":"dict","entries":[' : '{';
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const item = v[key];
      if (item === undefined) continue;
      if (typeof item === 'function' || typeof item === 'symbol') {
        throw new Unserializable('returned an object whose key ' + JSONStringify(key) + ' holds a ' + typeof item);
      }
      if (!first) out += ',';
      first = false;
      out += tagKey ? '[' + JSONStringify(key) + ',' + encode(item, ancestors, depth) + ']' : JSONStringify(key) + ':' + encode(item, ancestors, depth);
    }
    return out + (tagKey ? ']}' : '}');
  }

  const ObjectPrototype = Object.prototype;
  const ObjectIsPrototypeOf = Object.prototype.isPrototypeOf;
  const StringPrototype = String.prototype;
  const NumberPrototype = Number.prototype;
  const BooleanPrototype = Boolean.prototype;
  const BigIntPrototype = BigInt.prototype;
  // %IteratorPrototype%: every built-in iterator and every generator object inherits from it.
  const IteratorPrototype = ReflectGetPrototypeOf(ReflectGetPrototypeOf([][Symbol.iterator]()));
  function wrapperName(proto) {
    if (proto === StringPrototype) return 'String';
    if (proto === NumberPrototype) return 'Number';
    if (proto === BooleanPrototype) return 'Boolean';
    return proto === BigIntPrototype ? 'BigInt' : null;
  }
  const SetSizeProbe = (v) => {
    try {
      ReflectApply(SetSize, v, []);
      return true;
    } catch {
      return false;
    }
  };
  const MapSize = ObjectGetOwnPropertyDescriptor(Map.prototype, 'size').get;
  function isSet(v) {
    return SetSizeProbe(v);
  }
  function isMap(v) {
    try {
      ReflectApply(MapSize, v, []);
      return true;
    } catch {
      return false;
    }
  }

  // ---- results, framed (see the prelude) -------------------------------------

  // In a measured run the meter's figures are taken after the value is
  // encoded: a getter on it runs the candidate's code, which counts.
  function outcomeOf(value, started) {
    const duration = now() - started;
    try {
      const json = encode(value, new SetCtor(), 0);
      return measured ? prelude.measuredFrame(duration, meter.take(), json) : frame('r', duration, json);
    } catch (e) {
      if (e instanceof Unserializable) return frame('u', duration, e.message);
      if (isMemoryError(e)) return frame('m', duration, describeThrown(e));
      if (e !== null && typeof e === 'object' && ReflectGetPrototypeOf(e) === RangeErrorCtor.prototype) {
        return frame('u', duration, 'returned a value that is too deeply nested to encode');
      }
      return frame('u', duration, 'reading the returned value threw: ' + describeThrown(e));
    }
  }

  function thrownOutcome(e, started) {
    const duration = now() - started;
    return frame(isMemoryError(e) ? 'm' : 't', duration, describeThrown(e));
  }

  function isThenable(v) {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return false;
    // Reading `then` can run candidate code (a getter); that is the candidate's business.
    return typeof v.then === 'function';
  }

  // ---- entry point resolution ---------------------------------------------

  function lookupBinding(name) {
    if (!ReflectApply(RegExpTest, identifierPattern, [name])) return undefined;
    try {
      // Indirect eval sees the global lexical scope, so `const f = ...` and
      // `class C {}` at top level are found as well as function declarations.
      return globalEval('typeof ' + name + ' === "undefined" ? undefined : ' + name);
    } catch {
      return undefined;
    }
  }

  function ownFunction(obj, name) {
    if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return undefined;
    try {
      const desc = ObjectGetOwnPropertyDescriptor(obj, name);
      if (desc === undefined) return undefined;
      const v = 'value' in desc ? desc.value : obj[name];
      return typeof v === 'function' ? v : undefined;
    } catch {
      return undefined;
    }
  }

  function ownValue(obj, name) {
    try {
      const desc = ObjectGetOwnPropertyDescriptor(obj, name);
      return desc !== undefined && 'value' in desc ? desc.value : undefined;
    } catch {
      return undefined;
    }
  }

  // Each test calls the method on an instance of its own, made without
  // arguments, as the Python harness does: no test sees another's state.
  function onNewInstance(owner, method) {
    return function () {
      return ReflectApply(method, ReflectConstruct(owner, []), arguments);
    };
  }

  // The documented rule, in order; the first that yields a function wins.
  function resolveEntryPoint(name, topLevelNames, moduleRecord) {
    const direct = lookupBinding(name);
    if (typeof direct === 'function') return [direct, undefined, 'declaration:' + name];

    const exported = moduleRecord.module.exports;
    const fromExports = ownFunction(exported, name);
    if (fromExports) return [fromExports, exported, 'module.exports.' + name];
    if (exported !== moduleRecord.originalExports) {
      const fromOriginal = ownFunction(moduleRecord.originalExports, name);
      if (fromOriginal) return [fromOriginal, moduleRecord.originalExports, 'exports.' + name];
    }
    if (typeof exported === 'function') return [exported, undefined, 'module.exports'];
    const fallbackDefault = ownFunction(exported, 'default');
    if (fallbackDefault) return [fallbackDefault, undefined, 'default export'];
    // A name asked for in Python's style, as JavaScript spells it: `sum_sq` defined as `sumSq`, when
    // no other function but a `main` could be the answer (else `sumSq` may be a helper of the answer).
    const camel = camelCase(name);
    if (camel !== name && onlyFunctionBesidesMain(camel, topLevelNames)) {
      const aliased = lookupBinding(camel);
      if (typeof aliased === 'function' && !isClass(aliased)) return [aliased, undefined, 'declaration:' + camel];
      const aliasedExport = ownFunction(exported, camel);
      if (aliasedExport) return [aliasedExport, exported, 'module.exports.' + camel];
    }
    const names = camel === name ? [name] : [name, camel];

    for (let n = 0; n < names.length; n++) {
      for (let i = 0; i < topLevelNames.length; i++) {
        const owner = lookupBinding(topLevelNames[i]);
        const method = typeof owner === 'function' ? ownFunction(owner, names[n]) : undefined;
        if (method) return [method, owner, 'static method ' + topLevelNames[i] + '.' + names[n]];
      }
    }
    // A method of a class, as in `class Solution { twoSum(nums, target) {} }`.
    for (let n = 0; n < names.length; n++) {
      for (let i = 0; i < topLevelNames.length; i++) {
        const owner = lookupBinding(topLevelNames[i]);
        // A class whose constructor takes arguments cannot be made without them: its method is not the entry point.
        if (typeof owner !== 'function' || !isClass(owner) || names[n] === 'constructor' || owner.length > 0) continue;
        const method = ownFunction(ownValue(owner, 'prototype'), names[n]);
        if (method) return [onNewInstance(owner, method), undefined, 'method ' + topLevelNames[i] + '.' + names[n]];
      }
    }
    for (let i = topLevelNames.length - 1; i >= 0; i--) {
      const candidate = lookupBinding(topLevelNames[i]);
      if (typeof candidate === 'function' && !isClass(candidate)) {
        return [candidate, undefined, 'last top-level function:' + topLevelNames[i]];
      }
    }
    return undefined;
  }

  /** Whether every top-level function but `own` is named `main` (a driver that calls it). */
  function onlyFunctionBesidesMain(own, topLevelNames) {
    for (let i = 0; i < topLevelNames.length; i++) {
      const other = topLevelNames[i];
      if (other === own || other === 'main') continue;
      const value = lookupBinding(other);
      if (typeof value === 'function' && !isClass(value)) return false;
    }
    return true;
  }

  /** `sum_sq` as camelCase, `sumSq`; leading and trailing underscores stay out of it. */
  function camelCase(name) {
    let out = '';
    let upper = false;
    for (let i = 0; i < name.length; i++) {
      const c = name[i];
      if (c === '_' && out !== '') {
        upper = true;
        continue;
      }
      out += upper ? ReflectApply(StringToUpperCase, c, []) : c;
      upper = false;
    }
    return out;
  }

  const FunctionToString = Function.prototype.toString;
  function isClass(fn) {
    try {
      const text = ReflectApply(FunctionToString, fn, []);
      return ReflectApply(StringSlice, text, [0, 6]) === 'class ' || ReflectApply(StringSlice, text, [0, 6]) === 'class{';
    } catch {
      return false;
    }
  }

  // ---- install -------------------------------------------------------------

  return function install(seed, epochMs) {
    if (measured) meter.install();
    const random = makeRandom(seed);
    ObjectDefineProperty(Math, 'random', { value: random, writable: true, configurable: true });
    installFixedClock(epochMs);
    // WebAssembly memory is not counted by the isolate's heap limit.
    delete G.WebAssembly;
    // V8 calls it to write a stack, and so does the host reading an error
    // top-level code threw, outside the time limit: a candidate's would run unbounded there.
    ObjectDefineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });
    // An isolate has no event loop for its waiters: V8 aborts the whole worker process when one is made.
    if (typeof Atomics === 'object') delete Atomics.waitAsync;

    const moduleObject = { exports: {} };
    const moduleRecord = { module: moduleObject, originalExports: moduleObject.exports };
    ObjectDefineProperty(G, 'module', { value: moduleObject, writable: true, configurable: true });
    ObjectDefineProperty(G, 'exports', { value: moduleObject.exports, writable: true, configurable: true });

    // Results of the tests finished so far in the current run, so that the
    // host can recover them after interrupting a test that ran too long.
    let done = '';
    let header = '';
    // The asynchronous rest of the current run, for `settle`; and which run
    // is current, so that a continuation of an interrupted earlier run that
    // wakes up later cannot write into this one's results.
    let pendingRun = null;
    let generation = 0;

    function record(entry) {
      done += entry;
    }

    function run(name, topLevelNamesJson, testsJson) {
      done = '';
      header = '';
      pendingRun = null;
      generation++;
      const resolved = resolveEntryPoint(name, JSONParse(topLevelNamesJson), moduleRecord);
      if (resolved === undefined) {
        return (
          'E' +
          'no function named ' +
          JSONStringify(name) +
          ' is defined (looked for a declaration, module.exports, a default export, its camelCase name, a static method, a method of a class and the last top-level function)'
        );
      }
      const fn = resolved[0];
      const receiver = resolved[1];
      // The host wrote this text; a reviver costs a call per value, so it is
      // only used when a tagged value (a Set, a non-finite float) is present.
      const tests = ReflectApply(StringIndexOf, testsJson, ['"$evalrun"']) < 0 ? JSONParse(testsJson) : JSONParse(testsJson, reviveWire);
      const n = tests.length;
      header = frameHeader(resolved[2]);
      for (let i = 0; i < n; i++) {
        const started = now();
        let value;
        if (measured) meter.take();
        try {
          value = ReflectApply(fn, receiver, tests[i]);
        } catch (e) {
          record(thrownOutcome(e, started));
          continue;
        }
        let thenable;
        try {
          thenable = isThenable(value);
        } catch (e) {
          record(thrownOutcome(e, started));
          continue;
        }
        if (thenable) {
          pendingRun = finishAsync(fn, receiver, tests, i, value, started, generation);
          return 'A';
        }
        record(outcomeOf(value, started));
      }
      return header + done;
    }

    // From the first promise on, the rest of the run is asynchronous. The
    // host's timer bounds a promise that never settles.
    async function finishAsync(fn, receiver, tests, from, firstValue, firstStarted, runGeneration) {
      const n = tests.length;
      let pending = firstValue;
      let started = firstStarted;
      for (let i = from; i < n; i++) {
        if (runGeneration !== generation) return '';
        if (i > from) {
          started = now();
          if (measured) meter.take();
          try {
            pending = ReflectApply(fn, receiver, tests[i]);
          } catch (e) {
            record(thrownOutcome(e, started));
            continue;
          }
        }
        try {
          // A fresh native promise adopts the candidate's thenable without
          // trusting its `then` to be well behaved beyond that.
          const value = await ReflectApply(PromiseResolve, PromiseCtor, [pending]);
          if (runGeneration !== generation) return '';
          record(outcomeOf(value, started));
        } catch (e) {
          if (runGeneration !== generation) return '';
          record(thrownOutcome(e, started));
        }
      }
      return header + done;
    }

    // Called asynchronously by the host after `run` answered "A".
    function settle() {
      return pendingRun === null ? header + done : pendingRun;
    }

    // Same framing as a finished run, so the host parses both the same way.
    function progress() {
      return header + done;
    }

    return measured ? [run, progress, settle, meter.take] : [run, progress, settle];
  };
});
