#!/usr/bin/env python3
"""The benchmark's sandbox peer: a grading service built the way SandboxFusion's run_code works.

    python3 bench/sandbox-peer.py [--problems DIR] [--host 127.0.0.1] [--port 8081]
                                  [--concurrency N] [--python python3]

Standard library only. It answers the same requests as `evalrun serve`, so
one client drives both:

  POST /v1/grade     {"problem_id": ID} or {"problem": {...}}, "candidates":
                     [{"id", "code", "language"}], optional "options"
                     (timeout_ms, memory_mb, float_tolerance, extract_code;
                     strict_types and stop_on_first_failure are accepted and
                     ignored). Reply {"results": [{"id", "status", "passed",
                     "total", "score", "tests": [...]}]} in the candidates' order.
  GET  /healthz      200 once listening
  GET  /start-cost?n=20
                     times n sequential runs of `python3 -I -c pass` (the
                     cost every candidate pays here before its first test):
                     {"python", "runs", "mean_ms", "median_ms", "min_ms", "max_ms"}

For every candidate it writes one script, the candidate's code followed by
a harness that calls the function with each test's arguments and prints one
JSON line per test, and runs it in a fresh `python3 -I` process (N at once,
default one per core) with a time limit; then it compares each printed
value with the expected one (equality; floats within a tolerance; tuples
equal lists; sets and dicts unordered). Tests come from the problem's
correctness_test_suite, decoded by their declared types as evalrun does:
a string for a non-`str` type is read as a Python literal, a quoted `str`
literal is unquoted, a bare top-level `float` makes an int a float and a
bare top-level `int` an integral float an int, tuples, sets and non-`str`
dict keys become what their type says. The informal type spellings evalrun
also reads (`list of int`) are taken as `Any` here.

Code extraction is simplified: with "extract_code" (default true) the last
non-empty Markdown fenced block is run when there is one, else the text as
it is; evalrun's removal of prose around unfenced code is not mirrored.

On start it prints `listening on http://HOST:PORT` on stdout.
"""

import argparse
import ast
import json
import math
import os
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

DEFAULT_TIMEOUT_MS = 2000
DEFAULT_TOLERANCE = 1e-9  # relative and absolute, as evalrun's default
# Time for the interpreter to start and the candidate's module code to run, on top of the tests' limits.
START_ALLOWANCE_S = 5.0
MAX_BODY = 64 * 1024 * 1024
SHOWN = 2000  # characters of an error message or stderr tail kept in a reply

# ---------------------------------------------------------------------------
# Types: a plain reading of the annotation forms (List[int], Dict[str, int],
# Optional[...], Union[...], X | Y, typing.Tuple[int, ...]).

NAMES = {}
for _kind, _words in {
    "int": "int integer long", "float": "float double number", "str": "str string unicode char text",
    "bool": "bool boolean", "none": "none nonetype null", "any": "any object",
    "list": "list array sequence mutablesequence iterable collection deque",
    "set": "set abstractset mutableset", "frozenset": "frozenset",
    "dict": "dict mapping mutablemapping ordereddict defaultdict map counter",
    "tuple": "tuple", "optional": "optional", "union": "union",
}.items():
    for _w in _words.split():
        NAMES[_w] = _kind

ANY = ("any",)
TOKEN = re.compile(r"\s*(\.\.\.|[A-Za-z_][\w.]*|[\[\],|()])")


def parse_type(text):
    """A type as a tuple: ("int",), ("list", item), ("tuple", [items], rest), ("dict", k, v), ... ; ("any",) when unknown."""
    if not isinstance(text, str):
        return ANY
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if m is None:
            return ANY
        tokens.append(m.group(1))
        pos = m.end()
    try:
        node, rest = _union(tokens, 0)
    except (IndexError, ValueError):
        return ANY
    return node if rest == len(tokens) else ANY


def _union(tokens, i):
    options = []
    node, i = _primary(tokens, i)
    options.append(node)
    while i < len(tokens) and tokens[i] == "|":
        node, i = _primary(tokens, i + 1)
        options.append(node)
    if len(options) == 1:
        return options[0], i
    return _make_union(options), i


def _make_union(options):
    others = [o for o in options if o != ("none",)]
    if len(others) < len(options):
        inner = others[0] if len(others) == 1 else ("union", others)
        return ("optional", inner)
    return ("union", options)


def _primary(tokens, i):
    name = tokens[i]
    if not re.match(r"[A-Za-z_]", name):
        raise ValueError(name)
    word = name.rsplit(".", 1)[-1].lower()
    kind = NAMES.get(word)
    if kind is None:
        if re.fullmatch(r"u?int(8|16|32|64)", word):
            kind = "int"
        elif re.fullmatch(r"float(16|32|64|128)", word):
            kind = "float"
        else:
            kind = "unknown"
    i += 1
    args = []
    if i + 1 < len(tokens) and tokens[i] == "[" and tokens[i + 1] != "]":
        i += 1
        while tokens[i] != "]":
            if tokens[i] == "...":
                args.append("...")
                i += 1
            elif tokens[i] == "(" and tokens[i + 1] == ")":
                args.append("()")
                i += 2
            else:
                node, i = _union(tokens, i)
                args.append(node)
            if tokens[i] == ",":
                i += 1
        i += 1
    node = _build(kind, args, word)
    while i + 1 < len(tokens) and tokens[i] == "[" and tokens[i + 1] == "]":  # int[] is a list of int
        node = ("list", node)
        i += 2
    return node, i


def _build(kind, args, word):
    if kind in ("int", "float", "str", "bool", "none", "any"):
        return (kind,)
    if kind in ("list", "set", "frozenset"):
        return (kind, args[0] if args else ANY)
    if kind == "dict":
        if word == "counter":
            return ("dict", args[0] if args else ANY, ("int",))
        return ("dict", args[0] if len(args) > 0 else ANY, args[1] if len(args) > 1 else ANY)
    if kind == "tuple":
        if len(args) == 2 and args[1] == "...":
            return ("tuple", [], args[0])
        if not args:
            return ("tuple", [], ANY)
        if args == ["()"]:
            return ("tuple", [], None)
        return ("tuple", [a for a in args if a not in ("...", "()")], None)
    if kind == "optional":
        return ("optional", args[0] if args else ANY)
    if kind == "union":
        return _make_union(args) if args else ANY
    return ANY


# ---------------------------------------------------------------------------
# Values: a problem file's JSON value decoded by its declared type.

class DecodeError(ValueError):
    pass


def _literal(text):
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise DecodeError("not a Python literal: %r" % text[:80]) from None


def decode(raw, t, top=True, layers=0):
    kind = t[0]
    if kind == "any":
        return raw
    if isinstance(raw, str) and kind != "str":
        if layers >= 5:
            raise DecodeError("too many string layers")
        return decode(_literal(raw), t, top, layers + 1)
    if kind == "str":
        if isinstance(raw, str):
            text = raw.strip()
            if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
                try:
                    value = ast.literal_eval(text)
                    if isinstance(value, str):
                        return value
                except (ValueError, SyntaxError):
                    pass
        return raw
    if kind == "int":
        if isinstance(raw, float) and raw.is_integer() and top:
            return int(raw)
        return raw
    if kind == "float":
        if top and isinstance(raw, int) and not isinstance(raw, bool):
            return float(raw)
        return raw
    if kind in ("bool", "none"):
        return raw
    if kind == "optional":
        return None if raw is None else decode(raw, t[1], top, layers)
    if kind == "union":
        for option in t[1]:
            try:
                value = decode(raw, option, False, layers)
            except DecodeError:
                continue
            if _fits(value, option):
                return value
        return raw
    if kind == "list":
        return [decode(x, t[1], False) for x in _items(raw)]
    if kind == "tuple":
        items = _items(raw)
        if t[2] is not None:
            fixed = t[1]
            return tuple(decode(x, fixed[i] if i < len(fixed) else t[2], False) for i, x in enumerate(items))
        return tuple(decode(x, t[1][i] if i < len(t[1]) else ANY, False) for i, x in enumerate(items))
    if kind in ("set", "frozenset"):
        items = [_hashable(decode(x, t[1], False)) for x in _items(raw)]
        return frozenset(items) if kind == "frozenset" else set(items)
    if kind == "dict":
        if not isinstance(raw, dict):
            raise DecodeError("expected a dict, got %r" % (raw,))
        out = {}
        for k, v in raw.items():
            key = k if t[1][0] in ("str", "any") else decode(k, t[1], False)
            out[_hashable(key)] = decode(v, t[2], False)
        return out
    return raw


def _items(raw):
    if isinstance(raw, (list, tuple, set, frozenset)):
        return list(raw)
    raise DecodeError("expected a sequence, got %r" % (raw,))


def _hashable(value):
    if isinstance(value, list):
        return tuple(_hashable(x) for x in value)
    if isinstance(value, set):
        return frozenset(value)
    return value


CLASSES = {"str": str, "bool": bool, "none": type(None), "list": list, "tuple": tuple, "dict": dict,
           "set": set, "frozenset": frozenset}


def _fits(value, t):
    kind = t[0]
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    cls = CLASSES.get(kind)
    return cls is None or isinstance(value, cls)


# ---------------------------------------------------------------------------
# Problems and their tests.

def return_names(prototype):
    names = [r.get("name") for r in prototype.get("return_values", [])]
    return names if names and all(isinstance(n, str) for n in names) else None


def prepare(problem):
    """(function name, [(args, expected)]) of the problem's correctness suite; raises ValueError on a bad problem."""
    if not isinstance(problem, dict):
        raise ValueError("problem must be an object")
    prototype = problem.get("function_prototype")
    if not isinstance(prototype, dict) or not isinstance(prototype.get("function_name"), str):
        raise ValueError("problem.function_prototype.function_name is required")
    params = prototype.get("parameters") or []
    returns = prototype.get("return_values") or []
    param_types = [parse_type(p.get("type")) for p in params]
    return_types = [parse_type(r.get("type")) for r in returns]
    names = return_names(prototype)
    tests = []
    for n, test in enumerate(problem.get("correctness_test_suite") or []):
        where = "correctness_test_suite[%d]" % n
        try:
            given = test.get("input") or {}
            args = [decode(given.get(p.get("name")), t) for p, t in zip(params, param_types)]
            output = test.get("expected_output")
            if isinstance(output, list):
                raw_outputs = output
            elif isinstance(output, dict):
                keys = names if names and all(k in output for k in names) else list(output)
                raw_outputs = [output[k] for k in keys]
            else:
                raise DecodeError("expected_output must be an array or an object")
            if len(raw_outputs) != len(return_types):
                raise DecodeError("expected %d output values, got %d" % (len(return_types), len(raw_outputs)))
            values = [decode(v, t) for v, t in zip(raw_outputs, return_types)]
        except (DecodeError, AttributeError, TypeError) as e:
            raise ValueError("%s: %s" % (where, e)) from None
        expected = None if not values else values[0] if len(values) == 1 else tuple(values)
        tests.append((args, expected))
    return prototype["function_name"], tests


def load_problems(folder):
    problems = {}
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            path = os.path.join(root, name)
            try:
                with open(path, encoding="utf-8") as f:
                    problem = json.load(f)
                prepare(problem)
            except (OSError, ValueError) as e:
                print("sandbox-peer: skipped %s: %s" % (path, e), file=sys.stderr)
                continue
            identifier = problem.get("identifier")
            if isinstance(identifier, str):
                problems[identifier] = problem
    return problems


# ---------------------------------------------------------------------------
# The script: candidate code, then the harness.

def py_source(value):
    """Python source that evaluates to `value` (the types a decoded test value can hold)."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_source(x) for x in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(py_source(x) + ", " for x in value) + ")"
    if isinstance(value, frozenset):
        return "frozenset([" + ", ".join(py_source(x) for x in value) + "])"
    if isinstance(value, set):
        return "set([" + ", ".join(py_source(x) for x in value) + "])"
    if isinstance(value, dict):
        return "{" + ", ".join(py_source(k) + ": " + py_source(v) for k, v in value.items()) + "}"
    raise ValueError("cannot write %s as source" % type(value).__name__)


# Shared by the harness (actual values) and the peer (expected values), so
# both sides are reduced to JSON the same way: tuples as lists, sets and
# dicts as sorted lists of tagged entries, anything else by its repr.
PLAIN_SOURCE = r'''
def _evalrun_plain(value, depth=0):
    import json
    if depth > 100:
        return {"$repr": "..."}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_evalrun_plain(x, depth + 1) for x in value]
    if isinstance(value, (set, frozenset)):
        items = [_evalrun_plain(x, depth + 1) for x in value]
        return {"$set": sorted(items, key=lambda x: json.dumps(x, sort_keys=True))}
    if isinstance(value, dict):
        pairs = [[_evalrun_plain(k, depth + 1), _evalrun_plain(v, depth + 1)] for k, v in value.items()]
        return {"$dict": sorted(pairs, key=lambda p: json.dumps(p[0], sort_keys=True))}
    try:
        text = repr(value)
    except BaseException:
        text = "<unrepresentable %s>" % type(value).__name__
    return {"$repr": text[:200]}
'''
_space = {}
exec(PLAIN_SOURCE, _space)
plain = _space["_evalrun_plain"]

HARNESS = r'''

# ---- harness (written by sandbox-peer) ----
def _evalrun_harness():
    import json, signal, sys
    out = sys.__stdout__
    emit = lambda doc: out.write("\n" + @@NONCE@@ + json.dumps(doc) + "\n") or out.flush()
    emit({"loaded": True})
    memory_mb = @@MEMORY_MB@@
    if memory_mb:
        try:
            import resource
            with open("/proc/self/statm") as f:
                base = int(f.read().split()[0]) * resource.getpagesize()
            limit = base + memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, OSError, ValueError):
            pass
    space = globals()
    target = space.get(@@FUNCTION@@)
    if not callable(target):
        target = None
        for name, owner in list(space.items()):
            if (isinstance(owner, type) and getattr(owner, "__module__", None) == "__main__"
                    and @@FUNCTION@@ in vars(owner)):
                member = vars(owner)[@@FUNCTION@@]
                target = getattr(owner, @@FUNCTION@@) if isinstance(member, (staticmethod, classmethod)) \
                    else getattr(owner(), @@FUNCTION@@)
                break
    if target is None:
        chosen = [v for k, v in list(space.items())
                  if callable(v) and not k.startswith("_") and getattr(v, "__module__", None) == "__main__"]
        target = chosen[-1] if chosen else None
    if target is None:
        emit({"load_error": "no function named %s" % @@FUNCTION@@})
        return

    class Timeout(BaseException):
        pass

    def on_alarm(signum, frame):
        raise Timeout()

    signal.signal(signal.SIGALRM, on_alarm)
    for args in @@TESTS@@:
        try:
            signal.setitimer(signal.ITIMER_REAL, @@TIMEOUT_S@@)
            try:
                value = target(*args)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            doc = {"value": _evalrun_plain(value)}
        except Timeout:
            doc = {"status": "timeout", "error": "exceeded the time limit of %d ms" % round(@@TIMEOUT_S@@ * 1000)}
        except MemoryError:
            doc = {"status": "memory", "error": "MemoryError: the candidate ran out of memory"}
        except BaseException as e:
            doc = {"status": "error", "error": ("%s: %s" % (type(e).__name__, e))[:500]}
        try:
            emit(doc)
        except (TypeError, ValueError) as e:
            emit({"status": "error", "error": "result not representable: %s" % e})


_evalrun_harness()
'''


def fenced_code(text):
    """The last non-empty Markdown fenced block of `text`, or None."""
    blocks = []
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^([ \t]*)(`{3,}|~{3,})(.*)$", lines[i])
        if m is None or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        marker = m.group(2)
        body = []
        i += 1
        while i < len(lines):
            close = re.match(r"^[ \t]*(`{3,}|~{3,})[ \t]*$", lines[i])
            if close and close.group(1)[0] == marker[0] and len(close.group(1)) >= len(marker):
                break
            body.append(lines[i])
            i += 1
        i += 1
        blocks.append("\n".join(body))
    for block in reversed(blocks):
        if block.strip():
            return block
    return None


def build_script(code, function_name, tests, timeout_s, memory_mb, nonce):
    args_source = "[" + ", ".join("[" + ", ".join(py_source(a) for a in args) + "]" for args, _ in tests) + "]"
    values = {"NONCE": repr(nonce), "MEMORY_MB": repr(memory_mb), "FUNCTION": repr(function_name),
              "TIMEOUT_S": repr(timeout_s), "TESTS": args_source}
    harness = re.sub(r"@@([A-Z_]+)@@", lambda m: values[m.group(1)], HARNESS)
    return code + "\n" + PLAIN_SOURCE + harness


# ---------------------------------------------------------------------------
# Comparison: without the declared type, so an int written where a float is
# declared inside a container (List[float] written [1, 2]) is compared exactly.

def equal(expected, actual, tol):
    if isinstance(expected, (bool, int, float)) and isinstance(actual, (bool, int, float)):
        # An expected int is met exactly (Python compares an int with a float exactly), as evalrun
        # does where an int is declared; a float within the tolerance. Numbers meet as Python's ==.
        if not isinstance(expected, float):
            return expected == actual
        try:
            if math.isnan(expected) and math.isnan(actual):
                return True
            if math.isinf(expected) or math.isinf(actual):
                return expected == actual
            return abs(actual - expected) <= max(tol, tol * max(abs(expected), abs(actual)))
        except OverflowError:  # an int too large for a float
            return False
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(equal(e, a, tol) for e, a in zip(expected, actual))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(equal(expected[k], actual[k], tol) for k in expected)
    return type(expected) is type(actual) and expected == actual


# ---------------------------------------------------------------------------
# Grading one candidate.

class Peer:
    def __init__(self, problems, python, concurrency):
        self.problems = problems
        self.python = python
        self.pool = ThreadPoolExecutor(max_workers=concurrency)
        self.prepared = {}
        self.lock = threading.Lock()

    def prepared_problem(self, problem_id):
        with self.lock:
            if problem_id not in self.prepared:
                self.prepared[problem_id] = prepare(self.problems[problem_id])
            return self.prepared[problem_id]

    def grade(self, function_name, tests, candidates, options):
        futures = [self.pool.submit(self.grade_one, function_name, tests, c, options) for c in candidates]
        return [f.result() for f in futures]

    def grade_one(self, function_name, tests, candidate, options):
        timeout_s = float(options.get("timeout_ms") or DEFAULT_TIMEOUT_MS) / 1000
        tol = options.get("float_tolerance")
        tol = DEFAULT_TOLERANCE if tol is None else float(tol)
        memory_mb = options.get("memory_mb")
        code = candidate["code"]
        if options.get("extract_code", True):
            code = fenced_code(code) or code
        nonce = "@@peer-%s@@" % secrets.token_hex(8)
        script = build_script(code, function_name, tests, timeout_s, memory_mb, nonce)
        started = time.monotonic()
        fd, path = tempfile.mkstemp(prefix="peer-", suffix=".py")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(script)
            try:
                run = subprocess.run([self.python, "-I", path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, timeout=START_ALLOWANCE_S + timeout_s * max(1, len(tests)))
                stdout, stderr, exit_note = run.stdout, run.stderr, "exited with code %d" % run.returncode
            except subprocess.TimeoutExpired as e:
                stdout, stderr, exit_note = e.stdout or b"", e.stderr or b"", "killed at the process time limit"
        finally:
            os.unlink(path)
        elapsed_ms = (time.monotonic() - started) * 1000
        lines = []
        for line in stdout.decode("utf-8", "replace").split("\n"):
            if line.startswith(nonce):
                try:
                    lines.append(json.loads(line[len(nonce):]))
                except ValueError:
                    pass
        result = {"id": candidate.get("id"), "status": "failed", "passed": 0, "total": len(tests), "score": 0.0,
                  "error": None, "duration_ms": round(elapsed_ms, 3), "tests": []}
        tail = stderr.decode("utf-8", "replace").strip()[-SHOWN:]
        if not lines or not lines[0].get("loaded") or (len(lines) > 1 and "load_error" in lines[1]):
            result["status"] = "load-error"
            result["error"] = lines[1]["load_error"] if len(lines) > 1 else (tail or exit_note)
            result["tests"] = [{"index": i, "status": "error", "expected": plain(exp), "actual": None,
                                "error": result["error"]} for i, (_, exp) in enumerate(tests)]
            return result
        answers = lines[1:]
        for i, (_, expected) in enumerate(tests):
            want = plain(expected)
            if i >= len(answers):
                why = tail.splitlines()[-1] if tail else exit_note
                test = {"status": "error", "actual": None, "error": "process %s: %s" % (exit_note, why)}
                if exit_note.startswith("killed"):
                    test = {"status": "timeout", "actual": None, "error": "process %s" % exit_note}
            elif "value" in answers[i]:
                got = answers[i]["value"]
                ok = equal(want, got, tol)
                test = {"status": "pass" if ok else "fail", "actual": got,
                        "error": None if ok else "expected %s, got %s" % (_short(want), _short(got))}
            else:
                test = {"status": answers[i].get("status", "error"), "actual": None, "error": answers[i].get("error")}
            test["index"] = i
            test["expected"] = want
            result["tests"].append(test)
        passed = sum(1 for t in result["tests"] if t["status"] == "pass")
        result["passed"] = passed
        if not tests:
            result["status"] = "no-tests"
        else:
            result["status"] = "passed" if passed == len(tests) else "failed"
            result["score"] = passed / len(tests)
        return result


def _short(value):
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."


def start_cost(python, runs):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([python, "-I", "-c", "pass"], stdin=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return {"python": python, "runs": runs, "mean_ms": round(statistics.mean(times), 3),
            "median_ms": round(statistics.median(times), 3), "min_ms": round(min(times), 3),
            "max_ms": round(max(times), 3)}


# ---------------------------------------------------------------------------
# HTTP.

class BadRequest(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status


def parse_request(peer, body):
    try:
        doc = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise BadRequest(400, "body is not JSON: %s" % e) from None
    if not isinstance(doc, dict):
        raise BadRequest(400, "body must be a JSON object")
    has_id, has_problem = "problem_id" in doc, "problem" in doc
    if has_id == has_problem:
        raise BadRequest(400, "give exactly one of problem_id and problem")
    try:
        if has_id:
            problem_id = doc["problem_id"]
            if not isinstance(problem_id, str) or problem_id not in peer.problems:
                raise BadRequest(404, "unknown problem: %s" % json.dumps(problem_id))
            function_name, tests = peer.prepared_problem(problem_id)
        else:
            function_name, tests = prepare(doc["problem"])
    except ValueError as e:
        raise BadRequest(400, "invalid problem: %s" % e) from None
    candidates = doc.get("candidates")
    if not isinstance(candidates, list) or not candidates:
        raise BadRequest(400, "candidates must be a non-empty array")
    for i, c in enumerate(candidates):
        if not isinstance(c, dict) or not isinstance(c.get("code"), str):
            raise BadRequest(400, "candidates[%d].code must be a string" % i)
        if c.get("language", "python") not in ("python", None):
            raise BadRequest(400, "candidates[%d].language: this peer runs python only" % i)
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest(400, "options must be an object")
    return function_name, tests, candidates, options


def make_handler(peer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status, doc):
            payload = json.dumps(doc).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            url = urlparse(self.path)
            if url.path == "/healthz":
                self.reply(200, {"status": "ok"})
            elif url.path == "/start-cost":
                try:
                    runs = int(parse_qs(url.query).get("n", ["20"])[0])
                except ValueError:
                    runs = 0
                if not 1 <= runs <= 10000:
                    self.reply(400, {"error": "n must be an integer from 1 to 10000"})
                    return
                self.reply(200, start_cost(peer.python, runs))
            else:
                self.reply(404, {"error": "no route GET %s" % url.path})

        def do_POST(self):
            if urlparse(self.path).path != "/v1/grade":
                self.reply(404, {"error": "no route POST %s" % self.path})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self.close_connection = True
                self.reply(413, {"error": "body larger than %d bytes" % MAX_BODY})
                return
            body = self.rfile.read(length)
            try:
                function_name, tests, candidates, options = parse_request(peer, body)
            except BadRequest as e:
                self.reply(e.status, {"error": str(e)})
                return
            try:
                results = peer.grade(function_name, tests, candidates, options)
            except Exception as e:  # a fault of the peer itself, not of a candidate
                self.reply(500, {"error": "%s: %s" % (type(e).__name__, e)})
                return
            self.reply(200, {"results": results})

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024


def main(argv):
    parser = argparse.ArgumentParser(description="A SandboxFusion-style grading peer for evalrun's benchmark.")
    parser.add_argument("--problems", help="folder of problem JSON files, for problem_id requests")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081, help="0 picks a free port (printed on start)")
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 1,
                        help="candidate processes at once (default: one per core)")
    parser.add_argument("--python", default="python3", help="interpreter for candidates (run with -I)")
    args = parser.parse_args(argv)
    python = shutil.which(args.python)
    if python is None:
        parser.error("no interpreter %r on PATH" % args.python)
    problems = load_problems(args.problems) if args.problems else {}
    peer = Peer(problems, python, max(1, args.concurrency))
    server = Server((args.host, args.port), make_handler(peer))
    host, port = server.server_address[:2]
    print("listening on http://%s:%d (%d problems, concurrency %d, %s)"
          % (host, port, len(problems), max(1, args.concurrency), python), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        peer.pool.shutdown(wait=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
