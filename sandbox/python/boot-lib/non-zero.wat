;; z(start, end) over the interpreter's WebAssembly memory: 1 when a byte of
;; [start, end) is not zero, else 0. Both bounds are multiples of 64; each
;; step ors four 16-byte loads together and tests them with v128.any_true.
;;
;; boot.js instantiates it over Pyodide's memory before it removes
;; WebAssembly's constructors; it reads that memory and nothing else. Why
;; pages of zeros are checked rather than cleared: docs/ISOLATION.md,
;; "Why zero pages are checked, not cleared". Built into the boot script by
;; scripts/build-python-sandbox.ts (wabt).
(module
  (import "m" "m" (memory 1))
  (func (export "z") (param $p i32) (param $end i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (if (v128.any_true
              (v128.or (v128.or (v128.load (local.get $p)) (v128.load offset=16 (local.get $p)))
                       (v128.or (v128.load offset=32 (local.get $p)) (v128.load offset=48 (local.get $p)))))
          (then (return (i32.const 1))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $next)))
    (i32.const 0)))
