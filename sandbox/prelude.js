// evalrun's in-isolate prelude: what the in-isolate code of every language
// shares. The host (src/engines/prelude.ts) puts it in front of the
// JavaScript harness (sandbox/harness.js) and of Python's boot script
// (sandbox/python/boot.js); each is a function of this file's object. It is
// evaluated in a fresh context before any candidate code runs, so what it
// captures is the context's own.
//
// This file is one expression: no statement may follow it.
(function () {
  'use strict';

  const MathImul = Math.imul;
  const ObjectFreeze = Object.freeze;
  const ReflectApply = Reflect.apply;
  const DateCtor = Date;
  const DateNow = Date.now;

  // The real clock in ms, captured before anything (a fixed clock for the
  // candidate, a candidate's own code) can replace Date.
  function now() {
    return ReflectApply(DateNow, DateCtor, []);
  }

  // ---- result framing --------------------------------------------------------
  //
  // What a call into the sandbox answers is one string (parsed on the host
  // by src/engines/frames.ts), so that nothing but one string crosses back:
  //
  //   [P<length>,<entry point>]   optional header: the entry point that was called
  //   then per test: <kind><duration ms>,<payload length>,<payload>
  //     r = returned (payload: wire JSON)    t = threw (message)
  //     u = unserializable (message)         m = out of memory (message)
  //     M = out of memory where the code could not catch it; the sandbox is lost
  //     c = the sandbox itself failed during the test (message); it is lost
  //     R = returned, in a measured run; payload:
  //         <cost>,<memory>,<wall ms>,<cpu ms>,<wire JSON>
  //         the test's TestMeasure (src/sandbox-host/protocol.ts), the times
  //         lists of numbers joined by ';', one per repetition (a sandbox that
  //         cannot time itself leaves them empty and the host fills them in;
  //         src/engines/frames.ts reads and writes the frame)
  //
  // A whole answer may instead be E<message>: there is no entry point to call.

  function frame(kind, durationMs, payload) {
    // A clock that stepped back must not make the frame unreadable.
    return kind + (durationMs > 0 ? durationMs : 0) + ',' + payload.length + ',' + payload;
  }

  // `figures`: `<cost>,<memory>` as the meter counted them.
  function measuredFrame(durationMs, figures, json) {
    return frame('R', durationMs, figures + ',,,' + json);
  }

  function header(entryPoint) {
    return 'P' + entryPoint.length + ',' + entryPoint;
  }

  // ---- seeded random numbers ---------------------------------------------------
  //
  // mulberry32: small, fast, and good enough to make runs reproducible. The
  // state is a uint32 the caller keeps (so that it can save and restore it);
  // `randomStep` advances it, `randomBits` draws 32 random bits from it.

  function randomStep(state) {
    return (state + 0x6d2b79f5) >>> 0;
  }

  function randomBits(state) {
    let t = state;
    t = MathImul(t ^ (t >>> 15), t | 1);
    t ^= t + MathImul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  return ObjectFreeze({ now, frame, measuredFrame, header, randomStep, randomBits });
})();
