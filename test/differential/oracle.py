"""The differential oracle for evalrun's Python values (test/differential/values.test.ts).

Standard library only, and written from the documented rules (docs/VALUES.md and the rules
quoted in values.test.ts), never from evalrun's own decoder. It does three things:

  prepare SPEC OUTDIR [ONLY]  turns the abstract cases values.test.ts generated (types and
                              values as small JSON trees) into problem files: the written forms
                              of every value (JSON, a string holding a Python literal, or JSON
                              with literal strings at some depths), the candidates that describe
                              their arguments or return embedded literals, and a manifest of
                              what evalrun must do with each (the descriptor the candidate must
                              see, or the verdict and the values the scorecard must record).
  check MANIFEST CARD...      reads evalrun's scorecards and says, per case, whether evalrun
                              agreed with the oracle.

Reading rules (the oracle's own implementation): json.loads / ast.literal_eval give the raw
value; `read` applies the declared type to it.
"""

import ast
import re
import json
import math
import os
import random
import sys

sys.set_int_max_str_digits(0)
sys.setrecursionlimit(10000)

# ---------------------------------------------------------------------------------------------
# Descriptors: a canonical text of a Python value, its type names and scalar reprs at every
# depth. The candidates run exactly this source (DESC_SRC) inside evalrun's sandbox, and the
# oracle runs it here, so the two texts are comparable. Only what is stable across CPython
# versions: hex() of ints (no digit limit), repr() of floats, ascii() of strs (repr() of a
# non-ASCII character depends on the Unicode database of the version), sorted set items.

DESC_SRC = r'''
def _d(v):
    t = type(v)
    if t is bool:
        return 'b:' + repr(v)
    if t is int:
        return 'i:' + hex(v)
    if t is float:
        return 'f:' + repr(v)
    if t is str:
        return 's:' + ascii(v)
    if v is None:
        return 'N'
    if t is list:
        return 'L[' + ','.join([_d(x) for x in v]) + ']'
    if t is tuple:
        return 'T(' + ','.join([_d(x) for x in v]) + ')'
    if t is set:
        return 'S{' + ','.join(sorted([_d(x) for x in v])) + '}'
    if t is frozenset:
        return 'F{' + ','.join(sorted([_d(x) for x in v])) + '}'
    if t is dict:
        return 'D{' + ','.join([_d(k) + ':' + _d(x) for k, x in v.items()]) + '}'
    return '?' + t.__name__
'''
_ns = {}
exec(DESC_SRC, _ns)
desc = _ns['_d']


# ---------------------------------------------------------------------------------------------
# Types: JSON trees from values.test.ts. ['int'] ['float'] ['str'] ['bool'] ['None'] ['Any']
# ['unknown', name] ['List', t] ['Tuple', [t...]] ['TupleV', t] ['Set', t] ['FrozenSet', t]
# ['Dict', k, v] ['Optional', t] ['Union', [t...]]

def type_text(t):
    k = t[0]
    if k in ('int', 'float', 'str', 'bool', 'None', 'Any'):
        return k
    if k == 'unknown':
        return t[1]
    if k in ('List', 'Set', 'FrozenSet', 'Optional'):
        return '%s[%s]' % (k, type_text(t[1]))
    if k == 'TupleV':
        return 'Tuple[%s, ...]' % type_text(t[1])
    if k == 'Tuple':
        return 'Tuple[%s]' % ', '.join(type_text(x) for x in t[1])
    if k == 'Dict':
        return 'Dict[%s, %s]' % (type_text(t[1]), type_text(t[2]))
    if k == 'Union':
        return 'Union[%s]' % ', '.join(type_text(x) for x in t[1])
    raise ValueError('unknown type tree %r' % (t,))


def is_free(t):
    """Any and unknown types: values are kept as they are."""
    return t[0] in ('Any', 'unknown')


def has_float(t):
    k = t[0]
    if k == 'float':
        return True
    if k in ('List', 'Set', 'FrozenSet', 'Optional', 'TupleV'):
        return has_float(t[1])
    if k in ('Tuple', 'Union'):
        return any(has_float(x) for x in t[1])
    if k == 'Dict':
        return has_float(t[1]) or has_float(t[2])
    return False


# ---------------------------------------------------------------------------------------------
# Python literals: ast.literal_eval, plus float('nan') / float('inf') / float('-inf') calls,
# the only way a literal can hold NaN (repr(nan) is `nan`, which no literal reads).

class Mismatch(Exception):
    pass


class _FloatCalls(ast.NodeTransformer):
    def visit_Call(self, node):
        if (isinstance(node.func, ast.Name) and node.func.id == 'float' and len(node.args) == 1
                and not node.keywords and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value.strip().lower() in ('nan', 'inf', '-inf', '+inf', 'infinity', '-infinity')):
            return ast.copy_location(ast.Constant(float(node.args[0].value)), node)
        return node


def lit_eval(text):
    try:
        tree = ast.parse(text.lstrip(' \t'), mode='eval')
        tree = _FloatCalls().visit(tree)
        return ast.literal_eval(tree)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as e:
        raise Mismatch('not a Python literal: %r (%s)' % (text[:80], e))


def is_quoted_literal(s):
    if s[:1] not in ('"', "'"):
        return False
    try:
        return type(lit_eval(s)) is str
    except Mismatch:
        return False


# ---------------------------------------------------------------------------------------------
# The rules: reading a raw value (what json.loads or ast.literal_eval gave) at a declared type.

MAX_LAYERS = 5


def scalar_text(r, k):
    s = r.strip()
    if k == 'int' and re.fullmatch(r'[+-]?[0-9]+(_[0-9]+)*', s):
        return int(s)
    if k == 'float' and (re.fullmatch(r'[+-]?(inf|infinity|nan)', s, re.IGNORECASE)
                         or re.fullmatch(r'[+-]?([0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?|\.[0-9]+(_[0-9]+)*)([eE][+-]?[0-9]+(_[0-9]+)*)?', s)):
        return float(s)
    if k == 'bool' and s.lower() in ('true', 'false'):
        return s.lower() == 'true'
    if k in ('None', 'Optional') and s.lower() in ('none', 'null'):
        return None
    raise Mismatch('not a Python literal, nor %s text: %r' % (k, r[:80]))


def innermost(t):
    # Optional[Optional[X]] reads a string as Optional[X] does.
    while t[0] == 'Optional':
        t = t[1]
    return t


def takes_str(t):
    # Whether a str fits t as itself.
    k = t[0]
    if k == 'str' or is_free(t):
        return True
    if k == 'Optional':
        return takes_str(t[1])
    if k == 'Union':
        return any(takes_str(o) for o in t[1])
    return False


def read(r, t, top=False, layers=0, whole=False, lit=False):
    # whole: r is the whole parameter or return value as the file writes it (through Optional and
    # Union, not inside a container or a string); only there does a quoted str lose its quotes.
    # lit: r was read from a Python literal, so a str in it is a str wherever t takes one.
    k = t[0]
    if k == 'str':
        if type(r) is not str:
            raise Mismatch('str expected, got %s' % type(r).__name__)
        return lit_eval(r) if whole and is_quoted_literal(r) else r
    if is_free(t):
        return r
    if type(r) is str:
        if k == 'Union':
            return read_union(r, t, layers, whole, lit)
        if k == 'Optional' and lit and takes_str(t[1]):
            return read(r, t[1], top, layers, whole, lit)
        if k in ('Optional', 'None') and r in ('None', 'null'):
            return None
        if k == 'Optional' and (innermost(t)[0] in ('str', 'Union') or is_free(innermost(t))):
            return read(r, t[1], top, layers, whole, lit)  # the inner type says how a string is read
        if layers >= MAX_LAYERS:
            raise Mismatch('more than %d layers of strings' % MAX_LAYERS)
        try:
            value = lit_eval(r)
        except Mismatch:
            # Not a literal: a scalar still takes what int()/float() take (ASCII digits), or a bool/None word.
            if k not in ('int', 'float', 'bool', 'None', 'Optional'):
                raise
            value = scalar_text(r, k)
        return read(value, t, top, layers + 1, lit=True)
    if k == 'Optional':
        if r is None:
            return None
        return read(r, t[1], top, layers, whole, lit)
    if k == 'None':
        if r is None:
            return None
        raise Mismatch('None expected')
    if k == 'bool':
        if type(r) is bool:
            return r
        raise Mismatch('bool expected')
    if k == 'int':
        if type(r) is int:
            return r
        if type(r) is float and math.isfinite(r) and r == int(r):
            return int(r) if top else r
        raise Mismatch('int expected')
    if k == 'float':
        if type(r) is float:
            return r
        if type(r) is int:
            return float(r) if top else r
        raise Mismatch('float expected')
    if k == 'List':
        if type(r) in (list, tuple):
            return [read(x, t[1], lit=lit) for x in r]
        raise Mismatch('list expected')
    if k == 'Tuple':
        if type(r) in (list, tuple) and len(r) == len(t[1]):
            return tuple(read(x, it, lit=lit) for x, it in zip(r, t[1]))
        raise Mismatch('tuple of %d expected' % len(t[1]))
    if k == 'TupleV':
        if type(r) in (list, tuple):
            return tuple(read(x, t[1], lit=lit) for x in r)
        raise Mismatch('tuple expected')
    if k in ('Set', 'FrozenSet'):
        make = set if k == 'Set' else frozenset
        if type(r) in (list, tuple, set, frozenset):
            items = [read(x, t[1], lit=lit) for x in r]
            if type(r) in (set, frozenset) and written_order_matters(items):
                # A set literal iterates in hash order, not written order, so which of two equal
                # items of different kinds (1 and 1.0, 0.0 and -0.0) is kept cannot be read off it.
                raise Inexpressible('equal items of different kinds in a set literal')
        elif type(r) is dict and len(r) == 0:
            items = []
        else:
            raise Mismatch('set expected')
        try:
            return make(hashable(x) for x in items)  # set() keeps the first of equal items
        except TypeError as e:
            raise Mismatch('unhashable set item: %s' % e)
    if k == 'Dict':
        if type(r) is not dict:
            raise Mismatch('dict expected')
        out = {}
        for key, val in r.items():
            rk = hashable(read_key(key, t[1], lit))
            rv = read(val, t[2], lit=lit)
            try:
                out[rk] = rv  # an equal key keeps the first key object, the later value wins
            except TypeError as e:
                raise Mismatch('unhashable key: %s' % e)
        return out
    if k == 'Union':
        return read_union(r, t, layers, whole, lit)
    raise Mismatch('unhandled type %r' % (t,))


def hashable(v):
    # A set's item or a dict's key as Python can hold one: a list is the tuple of its items and a
    # set a frozenset, at any depth; a dict stays a dict (and set() refuses it).
    if type(v) is list or type(v) is tuple:
        return tuple(hashable(x) for x in v)
    if type(v) is set or type(v) is frozenset:
        return frozenset(hashable(x) for x in v)
    return v


def written_order_matters(items):
    kept = {}
    for x in items:
        try:
            first = kept.setdefault(x, x)
        except TypeError:
            return False
        if repr(first) != repr(x) or type(first) is not type(x):
            return True
    return False


def read_union(r, t, layers, whole, lit):
    options = t[1]
    if type(r) is str and any(o[0] == 'str' for o in options) and is_quoted_literal(r):
        # Written as a string on purpose: the str, unquoted only as the whole value.
        return lit_eval(r) if whole else r
    if type(r) is str and lit and any(o[0] == 'str' for o in options):
        return r
    ordered = [o for o in options if o[0] != 'str'] + [o for o in options if o[0] == 'str']
    for o in ordered:
        try:
            return read(r, o, False, layers, whole, lit)
        except Mismatch:
            continue
    raise Mismatch('no option of %s fits %r' % (type_text(t), r))


KEY_WORDS = {'true': True, 'True': True, 'false': False, 'False': False, 'null': None, 'None': None}


def read_key(key, kt, lit=False):
    if kt[0] == 'str' or is_free(kt):
        if kt[0] == 'str' and type(key) is not str:
            raise Mismatch('str key expected')
        return key
    if type(key) is str and lit and takes_str(kt):
        return read(key, kt, lit=True)
    if type(key) is str:
        if key in KEY_WORDS:
            raw = KEY_WORDS[key]
        else:
            return read(lit_eval(key), kt, lit=True)
        return read(raw, kt)
    return read(key, kt)


# ---------------------------------------------------------------------------------------------
# Abstract values from values.test.ts: ['i', digits] ['f', repr] ['s', str] ['b', bool] ['n']
# ['L', [...]] ['T', [...]] ['S', [...]] ['F', [...]] ['D', [[k, v], ...]]. Sets and dicts keep
# their items as generated, equal ones included, so that the written forms show them.

def build(pv):
    k = pv[0]
    if k == 'i':
        return int(pv[1])
    if k == 'f':
        return float(pv[1])
    if k == 's':
        return pv[1]
    if k == 'b':
        return bool(pv[1])
    if k == 'n':
        return None
    if k == 'L':
        return [build(x) for x in pv[1]]
    if k == 'T':
        return tuple(build(x) for x in pv[1])
    if k == 'S':
        return set(build(x) for x in pv[1])
    if k == 'F':
        return frozenset(build(x) for x in pv[1])
    if k == 'D':
        out = {}
        for a, b in pv[1]:
            out[build(a)] = build(b)
        return out
    raise ValueError('bad value %r' % (pv,))


def float_text(x, rng):
    """A spelling of a finite float that both JSON and Python read as that float."""
    text = repr(x)
    if x == int(x) and abs(x) < 1e15 and rng.random() < 0.3:
        n = int(x)
        text = rng.choice(['%de0' % n, '%dE0' % n, '%d.0e0' % n]) if not (n == 0 and math.copysign(1, x) < 0) else '-0e0'
        if n == 0 and math.copysign(1, x) < 0:
            text = '-0e0' if rng.random() < 0.5 else '-0.0'
    return text


def nonfinite_text(x, rng):
    if math.isnan(x):
        return "float('nan')"
    if x > 0:
        return rng.choice(["float('inf')", '1e999', "float('Infinity')"])
    return rng.choice(["float('-inf')", '-1e999', "-float('inf')"])


def lit_text(pv, t, rng, p_inner=0.0):
    """Python literal text of an abstract value. With p_inner, some nodes whose declared type is
    neither str nor free are written as a string holding their own literal."""
    k = pv[0]
    if p_inner and t is not None and t[0] not in ('str',) and not is_free(t) and rng.random() < p_inner:
        return lit_str(lit_text(pv, t, rng, 0.0), rng)
    if k == 'i':
        return pv[1]
    if k == 'f':
        x = float(pv[1])
        return float_text(x, rng) if math.isfinite(x) else nonfinite_text(x, rng)
    if k == 's':
        return lit_str(pv[1], rng)
    if k == 'b':
        return 'True' if pv[1] else 'False'
    if k == 'n':
        return 'None'
    if k in ('L', 'T', 'S', 'F'):
        items = [lit_text(x, item_type(t, i), rng, p_inner) for i, x in enumerate(pv[1])]
        if k == 'L':
            return '[' + ', '.join(items) + ']'
        if k == 'T':
            return '(' + ', '.join(items) + (',)' if len(items) == 1 else ')')
        if not items:
            return 'set()' if rng.random() < 0.6 else '{}'
        return '{' + ', '.join(items) + '}'
    if k == 'D':
        kt, vt = dict_types(t)
        parts = []
        for a, b in pv[1]:
            parts.append(lit_text(a, kt, rng, p_inner) + ': ' + lit_text(b, vt, rng, p_inner))
        return '{' + ', '.join(parts) + '}'
    raise ValueError(pv)


def lit_str(s, rng):
    return ascii(s) if rng.random() < 0.3 else repr(s)


def item_type(t, i):
    """The declared type of item i of a container at type t (None when unknown)."""
    if t is None:
        return None
    k = t[0]
    if k in ('List', 'Set', 'FrozenSet', 'TupleV'):
        return t[1]
    if k == 'Tuple':
        return t[1][i] if i < len(t[1]) else None
    if k == 'Optional':
        return item_type(t[1], i)
    if is_free(t):
        return t
    return None  # Union: no single item type, nothing is stringified inside it


def dict_types(t):
    if t is None:
        return None, None
    if t[0] == 'Dict':
        return t[1], t[2]
    if t[0] == 'Optional':
        return dict_types(t[1])
    if is_free(t):
        return t, t
    return None, None


class Inexpressible(Exception):
    pass


class Num:
    """A JSON number with a chosen spelling."""

    def __init__(self, text):
        self.text = text


def json_text(o):
    if o is None:
        return 'null'
    if o is True:
        return 'true'
    if o is False:
        return 'false'
    if isinstance(o, Num):
        return o.text
    if type(o) is int:
        return str(o)
    if type(o) is str:
        return json.dumps(o)  # ensure_ascii: lone surrogates become \udxxx escapes
    if type(o) is list:
        return '[' + ','.join(json_text(x) for x in o) + ']'
    if type(o) is dict:
        return '{' + ','.join(json.dumps(k) + ':' + json_text(v) for k, v in o.items()) + '}'
    raise TypeError(type(o))


def json_form(pv, t, rng, p_str, top=False):
    """The value as JSON data (Num for spelled numbers). With p_str, some nodes whose declared type
    is not free are written as a string holding their Python literal (at str nodes: repr(s), a
    quoted literal). Raises Inexpressible when JSON cannot write it."""
    k = pv[0]
    free = t is None or is_free(t)
    if not free and p_str and rng.random() < p_str:
        text = lit_text(pv, t, rng, 0.0 if t[0] == 'str' else 0.2)
        if t[0] != 'str' and t[0] != 'Union' and rng.random() < 0.15:
            text = repr(text)  # a second layer
        return text
    if k == 'n':
        if t is not None and t[0] in ('Optional', 'None') and rng.random() < 0.25:
            return rng.choice(['None', 'null'])
        return None
    if k == 'b':
        return bool(pv[1])
    if k == 'i':
        n = int(pv[1])
        if top and t is not None and t[0] in ('int', 'Optional') and abs(n) < 2 ** 53 and rng.random() < 0.2:
            return Num(repr(float(n)))  # an integral float where int is declared: coerced back
        return n
    if k == 'f':
        x = float(pv[1])
        if not math.isfinite(x):
            if free or t[0] == 'str':
                raise Inexpressible('JSON has no NaN or Infinity')
            return nonfinite_text(x, rng)
        if top and t is not None and t[0] in ('float', 'Optional') and x == int(x) and abs(x) < 2 ** 53 \
                and math.copysign(1, x) > 0 and rng.random() < 0.4:
            return int(x)  # an int where float is declared: coerced
        return Num(float_text(x, rng))
    if k == 's':
        return pv[1]
    if k in ('L', 'T', 'S', 'F'):
        if k in ('S', 'F') and not pv[1] and not free and rng.random() < 0.3:
            return {}
        return [json_form(x, item_type(t, i), rng, p_str) for i, x in enumerate(pv[1])]
    if k == 'D':
        kt, vt = dict_types(t)
        out = {}
        for a, b in pv[1]:
            key = key_text(a, kt, rng)
            if key in out:
                raise Inexpressible('two keys with the same JSON text %r' % key)
            out[key] = json_form(b, vt, rng, p_str)
        return out
    raise ValueError(pv)


def key_text(pv, kt, rng):
    k = pv[0]
    if k == 's':
        return pv[1]
    if k == 'b':
        return rng.choice(['True', 'true']) if pv[1] else rng.choice(['False', 'false'])
    if k == 'n':
        return rng.choice(['None', 'null'])
    if k == 'i':
        return pv[1]
    return lit_text(pv, kt, rng)


# ---------------------------------------------------------------------------------------------
# Judging a returned value against an expected one (both Python values), as the documented
# rules say: Python's ==, NaN equal to NaN, list and tuple interchangeable, a list or tuple
# returned for a declared set judged as set(value); with strict, bool/int/float distinct and
# only a set or frozenset for a declared set. Values are generated exactly equal or far apart,
# so the float tolerance never decides.

NUM = (bool, int, float)


def judge(e, a, t, strict):
    if t is not None and t[0] == 'Optional':
        if e is None:
            return a is None
        return judge(e, a, t[1], strict)
    if t is not None and t[0] == 'Union':
        for o in t[1]:
            try:
                read(e, o)
            except Mismatch:
                continue
            return judge(e, a, o, strict)
        return judge(e, a, None, strict)
    te, ta = type(e), type(a)
    if te in NUM:
        if ta not in NUM:
            return False
        if strict and te is not ta:
            return False
        if te is float and math.isnan(e):
            return ta is float and math.isnan(a)
        if ta is float and math.isnan(a):
            return False
        if t is not None and t[0] == 'float' and te is not bool and ta is not bool and e != a:
            try:
                return math.isclose(e, a, rel_tol=1e-9, abs_tol=1e-9)
            except OverflowError:
                return False
        return e == a
    if e is None:
        return a is None
    if te is str:
        return ta is str and e == a
    if te in (list, tuple):
        if ta not in (list, tuple) or len(e) != len(a):
            return False
        return all(judge(x, y, item_type(t, i) if t is not None and not is_free(t) else None, strict)
                   for i, (x, y) in enumerate(zip(e, a)))
    if te in (set, frozenset):
        declared_set = t is not None and t[0] in ('Set', 'FrozenSet')
        if ta in (list, tuple) and declared_set and not strict:
            try:
                a = set(a)
            except TypeError:
                return False
            ta = set
        if ta not in (set, frozenset) or len(e) != len(a):
            return False
        # Set items (and dict keys below) meet by Python equality, as set and dict membership
        # does: no float tolerance there.
        rest = list(a)
        for x in e:
            for j, y in enumerate(rest):
                if judge(x, y, None, strict):
                    del rest[j]
                    break
            else:
                return False
        return True
    if te is dict:
        if ta is not dict or len(e) != len(a):
            return False
        kt, vt = dict_types(t) if t is not None and t[0] == 'Dict' else (None, None)
        for ke, ve in e.items():
            for ka, va in a.items():
                if judge(ke, ka, None, strict):
                    if not judge(ve, va, vt, strict):
                        return False
                    break
            else:
                return False
        return True
    return e == a


# Changes applied to an expected value to make the returned one. The judge, not the change,
# decides the verdict.

def mutate(v, t, kind, rng, strict):
    if kind == 'same':
        return v
    if kind == 'equiv':
        return equiv(v, t, rng, strict)
    return breaks(v, t, rng)


def equiv(v, t, rng, strict):
    tv = type(v)
    if tv is bool:
        return int(v) if (not strict and rng.random() < 0.5) else v
    if tv is int:
        if not strict and abs(v) < 2 ** 53 and rng.random() < 0.4:
            return float(v)
        return v
    if tv is float:
        if not strict and math.isfinite(v) and v == int(v) and abs(v) < 2 ** 53 and rng.random() < 0.4:
            return int(v)
        return v
    if tv in (list, tuple):
        items = [equiv(x, item_type(t, i) if t is not None and not is_free(t) else None, rng, strict) for i, x in enumerate(v)]
        flip = rng.random() < 0.5
        return (tuple(items) if tv is list else list(items)) if flip else tv(items)
    if tv in (set, frozenset):
        declared = t is not None and t[0] in ('Set', 'FrozenSet')
        if declared and not strict and rng.random() < 0.4:
            items = list(v)
            if items:
                items.append(items[0])
            rng.shuffle(items)
            return tuple(items) if rng.random() < 0.3 else items
        return frozenset(v) if tv is set else set(v)
    if tv is dict:
        items = list(v.items())
        items.reverse()
        kt, vt = dict_types(t) if t is not None and t[0] == 'Dict' else (None, None)
        return {k: equiv(x, vt, rng, strict) for k, x in items}
    return v


def breaks(v, t, rng):
    tv = type(v)
    r = rng.random()
    if tv is bool:
        return (not v) if r < 0.6 else str(v)
    floaty = t is not None and t[0] == 'float'
    if tv is int:
        if r < 0.4:
            return v + (abs(v) + 5) * 2 if floaty else v + rng.choice([1, -1])
        if r < 0.6:
            return v + 0.5 if abs(v) < 1000 else v + (abs(v) + 5) * 2
        if r < 0.8:
            return str(v) if abs(v) < 10 ** 100 else -v - 1
        return None
    if tv is float:
        if math.isnan(v):
            return 0.0 if r < 0.5 else None
        if math.isinf(v):
            return -v
        if r < 0.7:
            return v + (abs(v) * 1.5 + 1) * rng.choice([1, -1]) if abs(v) < 1e300 else -v
        return repr(v)
    if tv is str:
        return v + 'x' if r < 0.7 else None
    if v is None:
        return 0 if r < 0.5 else 'None'
    if tv in (list, tuple):
        if not v:
            return tv([0])
        if r < 0.3:
            return v[:-1]
        if r < 0.45:
            return v + v[-1:]
        i = rng.randrange(len(v))
        items = list(v)
        items[i] = breaks(items[i], item_type(t, i) if t is not None and not is_free(t) else None, rng)
        return tv(items)
    if tv in (set, frozenset):
        items = list(v)
        if not items or r < 0.3:
            return tv(items + [987654321])
        if r < 0.5:
            return tv(items[1:])
        items[0] = breaks(items[0], None, rng)
        try:
            return tv(items)
        except TypeError:
            return tv(items[1:])
    if tv is dict:
        items = list(v.items())
        if not items:
            return {'extra': 1}
        k0, x0 = items[0]
        if r < 0.4:
            kt, vt = dict_types(t) if t is not None and t[0] == 'Dict' else (None, None)
            return dict([(k0, breaks(x0, vt, rng))] + items[1:])
        if r < 0.6 and type(k0) is not str:
            return dict([(repr(k0), x0)] + items[1:])
        return dict(items[1:])
    return None


def code_repr(v):
    """Python source for a value, for the candidates' CASES (not a literal: frozenset(), nan)."""
    tv = type(v)
    if tv is bool or v is None:
        return repr(v)
    if tv is int:
        return hex(v) if abs(v) > 10 ** 15 else repr(v)  # hex: no digit limit in source
    if tv is float:
        if math.isnan(v):
            return 'nan'
        if math.isinf(v):
            return 'inf' if v > 0 else '-inf'
        return repr(v)
    if tv is str:
        return ascii(v)
    if tv is list:
        return '[' + ', '.join(code_repr(x) for x in v) + ']'
    if tv is tuple:
        return '(' + ', '.join(code_repr(x) for x in v) + (',)' if len(v) == 1 else ')')
    if tv is set:
        return '{' + ', '.join(code_repr(x) for x in v) + '}' if v else 'set()'
    if tv is frozenset:
        return 'frozenset([' + ', '.join(code_repr(x) for x in v) + '])'
    if tv is dict:
        return '{' + ', '.join(code_repr(k) + ': ' + code_repr(x) for k, x in v.items()) + '}'
    raise TypeError(tv)


# ---------------------------------------------------------------------------------------------
# The scorecard's wire JSON, decoded by the documented tags.

def from_wire(o):
    if type(o) is list:
        return [from_wire(x) for x in o]
    if type(o) is dict:
        if '$evalrun' in o:
            tag = o['$evalrun']
            if tag == 'tuple':
                return tuple(from_wire(x) for x in o['items'])
            if tag == 'set':
                return set(from_wire(x) for x in o['items'])
            if tag == 'frozenset':
                return frozenset(from_wire(x) for x in o['items'])
            if tag == 'dict':
                out = {}
                for k, v in o['entries']:
                    out[from_wire(k)] = from_wire(v)
                return out
            if tag == 'int':
                return int(o['value'])
            if tag == 'float':
                return float({'NaN': 'nan', 'Infinity': 'inf', '-Infinity': '-inf'}.get(o['value'], o['value']))
            raise ValueError('unknown tag %r' % (tag,))
        return {k: from_wire(v) for k, v in o.items()}
    return o


def wire_issues(o, path='$'):
    """Where a recorded value breaks the documented wire form (plain JSON only where it may be)."""
    out = []
    if type(o) is int and abs(o) > 2 ** 53 - 1:
        out.append('%s: bare integer beyond 2**53-1' % path)
    if type(o) is float and (o == int(o) if math.isfinite(o) else True):
        out.append('%s: bare integral float %r (must be a float tag)' % (path, o))
    if type(o) is list:
        for i, x in enumerate(o):
            out += wire_issues(x, '%s[%d]' % (path, i))
    if type(o) is dict:
        for k, x in o.items():
            if k in ('items', 'entries', 'value') and '$evalrun' in o:
                out += wire_issues(x, '%s.%s' % (path, k))
            elif '$evalrun' not in o:
                out += wire_issues(x, '%s.%s' % (path, k))
    return out


# ---------------------------------------------------------------------------------------------
# prepare

def short(text, n=300):
    return text if len(text) <= n else text[:n] + '... [%d chars]' % len(text)


def show(v):
    try:
        r = repr(v)
    except ValueError:
        r = '<int of %d bits>' % v.bit_length()
    return short(r, 240)


def input_problem(pid, group, rng):
    """One problem per group: parameters of the group's types; a test per (value, form)."""
    types = group['types']
    names = ['p%d' % i for i in range(len(types))]
    tests, subcases = [], []
    for case in group['cases']:
        crng = random.Random(case['rseed'])
        for form in case['forms']:
            written, expected = [], []
            try:
                for pv, t in zip(case['values'], types):
                    if form == 'json':
                        w = json_form(pv, t, crng, 0.0, top=True)
                    elif form == 'mixed':
                        w = json_form(pv, t, crng, 0.35, top=True)
                    elif form == 'literal':
                        w = lit_text(pv, t, crng, 0.0)
                    elif form == 'literal-mixed':
                        w = lit_text(pv, t, crng, 0.3)
                    else:
                        raise ValueError(form)
                    text = json_text(w)
                    value = read(json.loads(text), t, top=True, whole=True)
                    written.append(text)
                    expected.append(value)
            except Inexpressible:
                continue
            except Mismatch as e:
                if 'unhashable' in str(e):
                    continue  # JSON wrote a tuple as a list where Any keeps it: set() could not hold it either
                subcases.append({'id': '%s.%s' % (case['id'], form), 'skip': 'the rules cannot read it: %s' % e})
                continue
            as_array = group.get('array_input', False)
            inp = '[' + ','.join(written) + ']' if as_array else '{' + ','.join(
                json.dumps(n) + ':' + w for n, w in zip(names, written)) + '}'
            want = '|'.join(desc(v) for v in expected)
            out = '[' + json.dumps(want) + ']' if crng.random() < 0.7 else '{"result":' + json.dumps(want) + '}'
            sid = '%s.%s' % (case['id'], form)
            tests.append((sid, '{"input":%s,"expected_output":%s}' % (inp, out)))
            subcases.append({
                'id': sid, 'cat': group['cat'], 'dir': 'in', 'problem': pid, 'test': None,
                'type': ', '.join(type_text(t) for t in types), 'form': form,
                'written': short(', '.join(written)), 'want': want,
                'want_repr': short(' | '.join(show(v) for v in expected)),
            })
    code = DESC_SRC + '\ndef probe(%s):\n    return %s\n' % (
        ', '.join(names), " + '|' + ".join('_d(%s)' % n for n in names))
    proto = {'function_name': 'probe', 'parameters': [{'name': n, 'type': type_text(t)} for n, t in zip(names, types)],
             'return_values': [{'type': 'str'}]}
    return proto, code, tests, subcases


def return_problem(pid, group, rng):
    t = group['types'][0]
    strict = group.get('strict', False)
    tests, subcases, cases_src = [], [], []
    for case in group['cases']:
        crng = random.Random(case['rseed'])
        pv = case['values'][0]
        form = case['forms'][0]
        try:
            if form == 'json':
                w = json_form(pv, t, crng, 0.0, top=True)
            elif form == 'mixed':
                w = json_form(pv, t, crng, 0.35, top=True)
            else:
                w = lit_text(pv, t, crng, 0.0)
            text = json_text(w)
            e = read(json.loads(text), t, top=True, whole=True)
            a = mutate(e, t, case['mutation'], crng, strict)
            src = code_repr(a)
            verdict = 'pass' if judge(e, a, t, strict) else 'fail'
        except Inexpressible:
            continue
        except Mismatch as err:
            subcases.append({'id': case['id'], 'skip': 'the rules cannot read it: %s' % err})
            continue
        i = len(cases_src)
        cases_src.append(src)
        out = '[' + text + ']' if crng.random() < 0.7 else '{"result":' + text + '}'
        sid = case['id']
        tests.append((sid, '{"input":{"i":%d},"expected_output":%s}' % (i, out)))
        subcases.append({
            'id': sid, 'cat': group['cat'], 'dir': 'ret', 'problem': pid, 'test': None,
            'type': type_text(t), 'form': form, 'mutation': case['mutation'], 'strict': strict,
            'written': short(text), 'returned': short(src), 'verdict': verdict,
            'want_expected': desc(e), 'want_actual': desc(a),
            'expected_repr': show(e), 'actual_repr': show(a),
            'wire_actual': wire_len(a),
        })
    code = 'from math import nan, inf\nCASES = [\n' + ''.join('    %s,\n' % s for s in cases_src) + ']\n' \
        + 'def give(i):\n    return CASES[i]\n'
    proto = {'function_name': 'give', 'parameters': [{'name': 'i', 'type': 'int'}],
             'return_values': [{'type': type_text(t)}]}
    return proto, code, tests, subcases


def wire_len(v):
    """Rough size of a value's wire JSON, to know when the scorecard truncates it."""
    tv = type(v)
    if tv is int:
        return len(hex(v)) * 1.2 + 30
    if tv in (list, tuple, set, frozenset):
        return 30 + sum(wire_len(x) + 1 for x in v)
    if tv is dict:
        return 30 + sum(wire_len(k) + wire_len(x) + 4 for k, x in v.items())
    if tv is str:
        return len(v) * 6 + 2
    return 30


def prepare(spec_path, outdir, only_path=None):
    with open(spec_path) as f:
        spec = json.load(f)
    only = None
    if only_path:
        with open(only_path) as f:
            only = set(json.load(f))
    rng = random.Random(spec['seed'])
    manifest = {'problems': {}, 'subcases': []}
    for g, group in enumerate(spec['groups']):
        pid = 'diff_%d_%s' % (g, ''.join(ch if ch.isalnum() else '_' for ch in group['cat'].lower())[:40].strip('_'))
        maker = return_problem if group['dir'] == 'ret' else input_problem
        proto, code, tests, subcases = maker(pid, group, rng)
        if only is not None:
            tests = [x for x in tests if x[0] in only]
            subcases = [s for s in subcases if s['id'] in only]
        for s in subcases:
            s.setdefault('cat', group['cat'])
        manifest['subcases'] += subcases
        if not tests:
            continue
        index = {sid: i for i, (sid, _) in enumerate(tests)}
        for s in subcases:
            if s['id'] in index:
                s['test'] = index[s['id']]
        folder = os.path.join(outdir, 'strict' if group.get('strict') else 'default')
        os.makedirs(folder, exist_ok=True)
        text = ('{"identifier":%s,"description":"differential values","prompts":[{"prompt_id":"p","prompt":"x"}],'
                '"function_prototype":%s,"correctness_test_suite":[%s],"optimal_solution":%s,"tags":["diff"]}') % (
            json.dumps(pid), json.dumps(proto), ','.join(t for _, t in tests), json.dumps(code))
        json.loads(text)  # well-formed
        with open(os.path.join(folder, pid + '.json'), 'w') as f:
            f.write(text)
        manifest['problems'][pid] = {'folder': 'strict' if group.get('strict') else 'default', 'tests': len(tests)}
    with open(os.path.join(outdir, 'manifest.json'), 'w') as f:
        json.dump(manifest, f)


# ---------------------------------------------------------------------------------------------
# check

def check(manifest_path, card_paths):
    with open(manifest_path) as f:
        manifest = json.load(f)
    tests, invalid = {}, {}
    for path in card_paths:
        with open(path) as f:
            card = json.load(f)
        for p in card.get('problems', []):
            if not p.get('valid', True) and p.get('problem_id'):
                invalid[p['problem_id']] = p.get('errors', [])
        for c in card['candidates']:
            if c['model_id'] != 'optimal_solution':
                continue
            if c['status'] in ('load-error', 'unsupported'):
                invalid.setdefault(c['problem_id'], ['candidate %s: %s' % (c['status'], c.get('error'))])
                continue
            for t in c['tests']:
                if t['suite'] == 'correctness':
                    tests[(c['problem_id'], t['index'])] = t
    results = []
    for s in manifest['subcases']:
        if 'skip' in s:
            results.append({'id': s['id'], 'cat': s['cat'], 'status': 'skipped', 'msg': s['skip']})
            continue
        pid, ti = s['problem'], s['test']
        res = {'id': s['id'], 'cat': s['cat'], 'dir': s['dir']}
        if pid in invalid:
            errs = invalid[pid]
            mine = [e for e in errs if 'correctness_test_suite[%d]' % ti in e]
            if mine or not any('correctness_test_suite[' in e for e in errs):
                res.update(status='fail', msg=describe(s, 'evalrun rejected the problem file: ' + short('; '.join(mine or errs), 600)))
            else:
                res.update(status='unjudged', msg='problem rejected because of other tests')
            results.append(res)
            continue
        t = tests.get((pid, ti))
        if t is None:
            res.update(status='fail', msg=describe(s, 'no result for test %d of %s' % (ti, pid)))
            results.append(res)
            continue
        if s['dir'] == 'in':
            if t['status'] == 'pass':
                res.update(status='ok')
            else:
                got = t.get('actual')
                got_text = got if type(got) is str else json.dumps(got)
                res.update(status='fail', msg=describe(s, 'evalrun gave: %s%s' % (
                    short(str(got_text), 600), '' if t['status'] == 'fail' else ' (%s: %s)' % (t['status'], short(str(t.get('error')), 400)))))
        else:
            res['record_issues'] = record_issues(s, t)
            if t['status'] == s['verdict']:
                res.update(status='ok')
            else:
                res.update(status='fail', msg=describe(s, 'evalrun said %s (%s), the oracle says %s' % (
                    t['status'], short(str(t.get('error')), 400), s['verdict'])))
        results.append(res)
    json.dump(results, sys.stdout)


def record_issues(s, t):
    issues = []
    for field, want in (('expected', s['want_expected']), ('actual', s['want_actual'])):
        if field not in t:  # null is a value (None), not a missing record
            issues.append('%s: not recorded' % field)
            continue
        rec = t[field]
        if type(rec) is dict and '$truncated' in rec:
            if s['want_expected'] != want or s['wire_actual'] > 3000:
                continue  # a long value, truncated as documented: its text cannot be compared
            issues.append('%s: truncated although short' % field)
            continue
        try:
            got = desc(from_wire(rec))
        except Exception as e:  # noqa: BLE001
            issues.append('%s: recorded %s does not decode: %s' % (field, short(json.dumps(rec), 200), e))
            continue
        if got != want:
            issues.append('%s: recorded %s, which reads as %s; the %s value is %s' % (
                field, short(json.dumps(rec), 300), short(got, 300), 'returned' if field == 'actual' else 'expected',
                short(want, 300)))
        shape = wire_issues(rec)
        if shape:
            issues.append('%s: recorded %s: %s' % (field, short(json.dumps(rec), 200), '; '.join(shape[:3])))
    return [describe(s, i) for i in issues]


def describe(s, what):
    lines = ['type %s, written %s: %s' % (s['type'], s['form'], s['written'])]
    if s['dir'] == 'in':
        lines.append('  oracle: the candidate sees %s' % s['want_repr'])
        lines.append('  oracle descriptor: %s' % short(s['want'], 600))
    else:
        lines.append('  candidate returned (%s%s): %s' % (s['mutation'], ', strict' if s['strict'] else '', s['returned']))
        lines.append('  oracle: expected %s; returned %s; verdict %s' % (s['expected_repr'], s['actual_repr'], s['verdict']))
    lines.append('  ' + what)
    return '\n'.join(lines)


if __name__ == '__main__':
    if sys.argv[1] == 'prepare':
        prepare(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif sys.argv[1] == 'check':
        check(sys.argv[2], sys.argv[3:])
    else:
        raise SystemExit('usage: oracle.py prepare SPEC OUTDIR [ONLY] | check MANIFEST CARD...')
