# evalrun's Python harness. It runs once, as the module __evalrun_harness__,
# when the interpreter's memory snapshot is made; every interpreter booted
# from the snapshot takes it out of sys.modules before any candidate runs,
# so no candidate can import it. The JavaScript half, harness.js, calls:
#
#   lockdown()                      once, after boot, before the state every
#                                   candidate starts from is recorded
#   begin_load(code, function_name, seed) -> "" | "load-error <msg>" | "m<msg>"
#   end_load()                      -> "ok <entry>" | "load-error <msg>" | "m<msg>"
#   begin_test(args_wire_json)      -> "" | "t<msg>"
#   end_test()                      -> "r<json>" | "t<msg>" | "u<msg>" | "m<msg>"
#   call_candidate()                between a begin that returned "" and its end:
#                                   runs the candidate's code (see "The call")
#   trace_start() / trace_peak()    around call_candidate in a measured run's
#                                   memory pass: the peak of traced allocations
#
# There is no clean-up step: before every candidate harness.js writes back the
# interpreter's whole memory as it was after lockdown(), so nothing a
# candidate changes (modules, caches, hooks, this harness's own state) is
# there for the next one.
#
# Semantics follow the reference framework's execution.py: the code is
# executed with fresh globals, then the function named by the prototype is
# called, else the last callable the code defines. Expected outputs never
# enter this interpreter: it only reports what the candidate returned.
#
# Everything this file needs is bound at import time, so that a candidate
# that replaces builtins (len, sorted, str...) cannot change how results are
# encoded.

import builtins as _builtins_module
import gc as _gc
import json as _json
import json.scanner  # noqa: F401  (the C scanner, see _read_arguments)
import os as _os
import random as _random
import sys as _sys
import types as _types
import typing as _typing
import _tracemalloc
from json.encoder import encode_basestring_ascii as _quote
from importlib.machinery import ModuleSpec as _ModuleSpec

# Modules that candidates commonly import: loaded now, so that importing
# them later is a cache hit instead of a read from the standard library.
import abc, array, bisect, cmath, collections, collections.abc, copy, dataclasses, logging  # noqa: E401,F401
import datetime, decimal, enum, fractions, functools, heapq, itertools, math  # noqa: E401,F401
import numbers, operator, queue, re, statistics, string, time, unicodedata  # noqa: E401,F401

_type = type
_len = len
_isinstance = isinstance
_issubclass = issubclass
_callable = callable
_sorted = sorted
_all = all
_is = operator.is_
_list = list
_tuple = tuple
_dict = dict
_set = set
_frozenset = frozenset
# A subclass's items as the base type holds them, which is what == compares:
# its own __iter__ or items() may say anything.
_list_iter = list.__iter__
_tuple_iter = tuple.__iter__
_set_iter = set.__iter__
_frozenset_iter = frozenset.__iter__
_dict_items = dict.items
_str = str
_repr_int = int.__repr__
_repr_float = float.__repr__
_float = float
_map = map
_min = min
_max = max
_repeat = itertools.repeat
_list_repr = list.__repr__
_str_replace = str.replace
_join = ''.join
_compile = compile
_exec = exec
_getattr = getattr
_type_dict = type.__dict__['__dict__'].__get__
_type_mro = type.__dict__['__mro__'].__get__
_type_flags = type.__dict__['__flags__'].__get__
_HEAPTYPE = 1 << 9
_str_getitem = str.__getitem__
_gc_disable = _gc.disable
_gc_enable = _gc.enable
_gc_isenabled = _gc.isenabled
_hasattr = hasattr
_BaseException = BaseException
_MemoryError = MemoryError
_RecursionError = RecursionError
_SyntaxError = SyntaxError
_TypeError = TypeError
_ValueError = ValueError
_ModuleNotFoundError = ModuleNotFoundError
_int = int
_bool = bool
_float_is_integer = float.is_integer
_FunctionType = _types.FunctionType
_ModuleType = _types.ModuleType
_staticmethod = staticmethod
_classmethod = classmethod
_isnan = math.isnan
# Types JSON cannot hold whose values == equates with ones it can (see _encode and _encode_number).
_DictKeys = type({}.keys())
_DictItems = type({}.items())
# The collections module's wrappers compare as what they wrap (UserList([1]) == [1]).
_USER_WRAPPERS = (collections.UserList, collections.UserString, collections.UserDict)
_Fraction = fractions.Fraction
_fraction_numerator = fractions.Fraction.numerator.fget
_fraction_denominator = fractions.Fraction.denominator.fget
_Decimal = decimal.Decimal
_decimal_is_finite = decimal.Decimal.is_finite
_decimal_eq = decimal.Decimal.__eq__
_decimal_to_integral = decimal.Decimal.to_integral_value
_decimal_int = decimal.Decimal.__int__
_decimal_float = decimal.Decimal.__float__
_complex = complex
_complex_real = complex.__dict__['real'].__get__
_complex_imag = complex.__dict__['imag'].__get__
_isinf = math.isinf
_get_int_digits = _sys.get_int_max_str_digits
_set_int_digits = _sys.set_int_max_str_digits

CANDIDATE_MODULE = '__candidate__'
CANDIDATE_FILE = '<candidate>'
MAX_MESSAGE = 2000
MAX_RESULT_CHARS = 32 * 1024 * 1024
MAX_DEPTH = 500

# ---------------------------------------------------------------------------
# Candidate output goes nowhere; input() sees end of file. The classes are
# made in a namespace of their own: a candidate can reach them (through
# sys.stdout, or object.__subclasses__()), and from a method, its
# __globals__, which here hold nothing of the harness.

_SINK_SOURCE = """
class _Stream:
    # What code that writes to or reads from the standard streams asks of
    # them besides reading and writing (sys.stdout.encoding, .buffer,
    # fileno() to tell a terminal) answers as a pipe with nothing on it would.
    # The descriptors are the interpreter's own 0, 1 and 2 (boot.js): reading
    # 0 meets the end of input and what 1 and 2 are given goes nowhere, so a
    # fast-input template (os.read(0, ...), a FastIO class over fileno())
    # loads as it would with its input at /dev/null.
    encoding = 'utf-8'
    errors = 'strict'
    newlines = None
    line_buffering = False
    write_through = False
    closed = False

    def flush(self):
        pass

    def close(self):
        pass

    def isatty(self):
        return False

    def seekable(self):
        return False

    def fileno(self):
        return self.fd

    def reconfigure(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _ByteSink(_Stream):
    def write(self, data, _len=len):
        return _len(data)

    def writelines(self, lines):
        for line in lines:
            pass

    def readable(self):
        return False

    def writable(self):
        return True


class Sink(_ByteSink):
    def __init__(self, name, fd):
        self.name = name
        self.fd = fd
        self.mode = 'w'
        self.buffer = _ByteSink()
        self.buffer.fd = fd


class _ByteInput(_Stream):
    empty = b''

    def read(self, *args):
        return self.empty

    def read1(self, *args):
        return self.empty

    def readline(self, *args):
        return self.empty

    def readlines(self, *args):
        return []

    def __iter__(self):
        return iter(())

    def readable(self):
        return True

    def writable(self):
        return False


class EmptyInput(_ByteInput):
    empty = ''

    def __init__(self):
        self.name = '<stdin>'
        self.fd = 0
        self.mode = 'r'
        self.buffer = _ByteInput()
        self.buffer.fd = 0
"""


def _sink_classes():
    space = {'__builtins__': {'__build_class__': _builtins_module.__build_class__, 'len': _len, 'iter': iter, 'OSError': OSError},
             '__name__': 'evalrun'}
    _exec(_compile(_SINK_SOURCE, '<evalrun-sinks>', 'exec'), space)
    return space['Sink'], space['EmptyInput']


# ---------------------------------------------------------------------------
# time.sleep. Pyodide's version asks JavaScript whether it may suspend,
# which the sealed bridge refuses, and CPython's own spins on the clock. This
# one checks its argument as CPython does, then waits in poll(2) with no
# file descriptors, which boot.js turns into a real wait that uses no CPU
# (the host counts it like CPU against the time limit). Like the sinks it
# is made in a namespace of its own: its __globals__ hold the poll object
# and a few builtins, nothing of the harness, and poll is reachable from
# the select module anyway.

_SLEEP_SOURCE = """
def sleep(secs, /):
    if isinstance(secs, float):
        secs = as_float(secs)
        if secs != secs:
            raise ValueError('Invalid value NaN (not a number)')
        if not -NS_LIMIT <= secs * 1e9 < NS_LIMIT:
            raise OverflowError('timestamp out of range for platform time_t')
    else:
        try:
            secs = index(secs)
        except TypeError:
            kind = type(secs)
            name = kind.__qualname__ if kind.__module__ == 'builtins' else kind.__module__ + '.' + kind.__qualname__
            raise TypeError("'" + name + "' object cannot be interpreted as an integer or float") from None
        if not -NS_LIMIT <= secs * 1000000000 < NS_LIMIT:
            raise OverflowError('timestamp too large to convert to C PyTime_t')
    if secs < 0:
        raise ValueError('sleep length must be non-negative')
    ms = secs * 1000
    while ms > 0:
        step = CHUNK if ms > CHUNK else ms
        wait(step)
        ms -= step
"""


# asyncio without a browser: Pyodide's event loop (and its asyncio.run)
# schedule through JavaScript, which is sealed. This loop has no I/O to wait
# for, so waiting is sleeping until the next timer. Its own namespace, as the
# sleep above: a candidate that finds the class finds nothing of the harness.
_ASYNCIO_SOURCE = """
import asyncio.base_events
import asyncio.events
import time


class _NoIo:
    def select(self, timeout):
        if timeout is None:
            raise RuntimeError('the event loop has nothing left to run: every task waits, and nothing can wake it')
        if timeout > 0:
            time.sleep(timeout)
        return []

    def close(self):
        pass


class SandboxEventLoop(asyncio.base_events.BaseEventLoop):
    def __init__(self):
        super().__init__()
        self._selector = _NoIo()

    def _process_events(self, event_list):
        pass

    def _write_to_self(self):
        pass


_Policy = getattr(asyncio.events, '_BaseDefaultEventLoopPolicy', None) or asyncio.events.BaseDefaultEventLoopPolicy


class SandboxEventLoopPolicy(_Policy):
    _loop_factory = SandboxEventLoop
"""


def _install_event_loop():
    import asyncio
    import asyncio.events
    space = {'__name__': 'asyncio.sandbox'}
    _exec(_compile(_ASYNCIO_SOURCE, '<evalrun-asyncio>', 'exec'), space)
    # Pyodide's asyncio.run wraps the standard one (functools.wraps keeps it as __wrapped__).
    asyncio.run = _getattr(asyncio.run, '__wrapped__', asyncio.run)
    set_policy = _getattr(asyncio.events, '_set_event_loop_policy', None) or asyncio.set_event_loop_policy
    set_policy(space['SandboxEventLoopPolicy']())
    # Pyodide marks its loop as always running, which would make every asyncio.run refuse.
    asyncio.events._set_running_loop(None)


def _make_sleep(original):
    import select
    # The checks and messages are CPython 3.14's (_PyTime_FromSecondsObject,
    # then time.sleep's own): a sleep is a 64-bit count of nanoseconds, and
    # poll takes a C int of milliseconds, hence the chunks.
    space = {'__builtins__': {}, '__name__': 'time', 'isinstance': _isinstance, 'float': _float, 'type': _type,
             'as_float': _float.__float__, 'index': operator.index, 'TypeError': _TypeError,
             'ValueError': _ValueError, 'OverflowError': OverflowError, 'wait': select.poll().poll,
             'NS_LIMIT': 2 ** 63, 'CHUNK': 2 ** 31 - 1}
    _exec(_compile(_SLEEP_SOURCE, '<evalrun-sleep>', 'exec'), space)
    sleep = space['sleep']
    sleep.__doc__ = _getattr(original, '__doc__', None)
    return sleep


# ---------------------------------------------------------------------------
# The seal. An audit hook, added at lockdown and active from the moment a
# candidate's code first runs, refuses the operations that reach beneath
# the language to objects the candidate was not given: frames (and through
# them this harness's globals), the collector's object lists, trace and
# profile functions (which are handed frames), further audit hooks, ctypes
# (raw memory), and imports of Pyodide's bridge to JavaScript. Audit hooks
# cannot be removed, and the flag that arms this one is reachable only
# through this namespace, which is reachable only through what it refuses.
# The bridge is sealed in boot.js as well, where Python cannot reach.

_active = [False]
_PermissionError = PermissionError
_ModuleNotFoundError = ModuleNotFoundError
_DENIED_EVENTS = frozenset((
    'sys._current_frames', 'sys._current_exceptions',
    'sys.settrace', 'sys.setprofile', 'sys._settraceallthreads', 'sys._setprofileallthreads',
    'sys.monitoring.register_callback',
    'sys.addaudithook', 'gc.get_objects', 'gc.get_referrers', 'gc.get_referents',
))
# Frames of generators, coroutines and async generators: their f_back is
# whoever resumes them next, which may be this harness (encoding iterates
# what a candidate returned).
_RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200
# Read through object.__getattr__ events: the ways from an object to a frame.
_DENIED_ATTRIBUTES = frozenset(('tb_frame', 'gi_frame', 'cr_frame', 'ag_frame', 'f_back'))
# Top-level names of the modules that lead to JavaScript, and ctypes.
# tracemalloc measures a measured run's memory: a candidate that could stop
# it or reset its peak would lower its own figure.
_SEALED_MODULES = frozenset(('js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'ctypes', '_ctypes',
                             'tracemalloc', '_tracemalloc'))


def _frame_allowed(frame):
    # sys._getframe hands out `frame`, and f_back (which raises no audit
    # event) leads from it down to the bottom of the stack: allowed only
    # when nothing down there is this harness's (its frames, and through
    # them its globals) or a frame that may later be resumed by it.
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        if name.startswith('<evalrun-') and name != CALL_FILE:
            return False
        if code.co_flags & _RESUMABLE:
            return False
        frame = frame.f_back
    return True


def _audit(event, args):
    if not _active[0]:
        return
    if event == 'sys._getframe':
        if _len(args) > 0 and _frame_allowed(args[0]):
            return
        raise _PermissionError('evalrun: sys._getframe is not available to candidates')
    if event in _DENIED_EVENTS or event.startswith('ctypes.'):
        raise _PermissionError('evalrun: ' + event + ' is not available to candidates')
    if event == 'object.__getattr__':
        if _len(args) > 1 and args[1] in _DENIED_ATTRIBUTES:
            raise _PermissionError('evalrun: reading ' + _str(args[1]) + ' is not available to candidates')
    elif event == 'import':
        name = args[0] if _len(args) > 0 else None
        if _isinstance(name, _str) and name.partition('.')[0] in _SEALED_MODULES:
            raise _ModuleNotFoundError('No module named ' + _quote_py(name), name=name)


def _quote_py(name):
    return "'" + name + "'"


# A signal handler is handed the frame the signal interrupted, and from a
# frame f_back leads (with no audit event) to this harness's frames and
# globals. Candidates get a signal.signal that refuses, made in a namespace
# of its own that holds no reference to the real one.
# Also a ValueError, which is what CPython's signal.signal raises where
# signals cannot be handled (another thread): asyncio.run catches that and
# runs without its Ctrl-C handler.
_SIGNAL_SOURCE = '''
class SignalsUnavailable(PermissionError, ValueError):
    pass


def signal(signalnum, handler):
    raise SignalsUnavailable('evalrun: signal handlers are not available to candidates')
'''


# Clearing a trace or profile function that was never set is allowed: doctest
# and others restore the one they found (None) when they finish, and the
# audit event sys.settrace does not say which function it is given.
_UNTRACED_SOURCE = '''
def settrace(function, /):
    if function is not None:
        real_settrace(function)


def setprofile(function, /):
    if function is not None:
        real_setprofile(function)
'''


def _untraced():
    space = {'__builtins__': {}, '__name__': 'sys', 'real_settrace': _sys.settrace, 'real_setprofile': _sys.setprofile}
    _exec(_compile(_UNTRACED_SOURCE, '<evalrun-trace>', 'exec'), space)
    return space['settrace'], space['setprofile']


# Pyodide has no resource module. Programs that raise their stack limit
# before recursing (resource.setrlimit(RLIMIT_STACK, ...)) get one that
# keeps the limits it is told and reports none set: evalrun sets the real
# ones. Its values are Linux's.
_RESOURCE_SOURCE = '''
error = OSError
RLIM_INFINITY = -1
(RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_DATA, RLIMIT_STACK, RLIMIT_CORE, RLIMIT_RSS, RLIMIT_NPROC, RLIMIT_NOFILE,
 RLIMIT_MEMLOCK, RLIMIT_AS, _, RLIMIT_SIGPENDING, RLIMIT_MSGQUEUE, RLIMIT_NICE, RLIMIT_RTPRIO, RLIMIT_RTTIME) = range(16)
RLIMIT_OFILE = RLIMIT_NOFILE
del _
RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD = 0, -1, 1
_limits = {}


def _known(resource):
    if not isinstance(resource, int) or isinstance(resource, bool):
        raise TypeError('an integer is required')
    if not 0 <= resource < 16 or resource == 10:
        raise ValueError('invalid resource specified')


def getrlimit(resource, /):
    _known(resource)
    return _limits.get(resource, (RLIM_INFINITY, RLIM_INFINITY))


def setrlimit(resource, limits, /):
    _known(resource)
    soft, hard = limits
    soft, hard = int(soft), int(hard)
    if hard != RLIM_INFINITY and (soft == RLIM_INFINITY or soft > hard):
        raise ValueError('current limit exceeds maximum limit')
    _limits[resource] = (soft, hard)


def prlimit(pid, resource, limits=None, /):
    previous = getrlimit(resource)
    if limits is not None:
        setrlimit(resource, limits)
    return previous


class struct_rusage(tuple):
    _fields = ('ru_utime', 'ru_stime', 'ru_maxrss', 'ru_ixrss', 'ru_idrss', 'ru_isrss', 'ru_minflt', 'ru_majflt',
               'ru_nswap', 'ru_inblock', 'ru_oublock', 'ru_msgsnd', 'ru_msgrcv', 'ru_nsignals', 'ru_nvcsw', 'ru_nivcsw')

    def __getattr__(self, name):
        try:
            return self[self._fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None


def getrusage(who, /):
    if who not in (RUSAGE_SELF, RUSAGE_CHILDREN, RUSAGE_THREAD):
        raise ValueError('invalid who parameter')
    return struct_rusage((0.0, 0.0) + (0,) * 14)


def getpagesize():
    return 4096
'''


def _resource_module():
    module = _types.ModuleType('resource')
    module.__spec__ = _ModuleSpec('resource', None, origin='evalrun')
    _exec(_compile(_RESOURCE_SOURCE, '<evalrun-resource>', 'exec'), module.__dict__)
    return module


def _refusing_signal():
    space = {'__builtins__': {'PermissionError': PermissionError, 'ValueError': ValueError,
                              '__build_class__': _builtins_module.__build_class__}, '__name__': 'evalrun'}
    _exec(_compile(_SIGNAL_SOURCE, '<evalrun-signal>', 'exec'), space)
    return space['signal']


def lockdown():
    refused = _refusing_signal()
    import signal as _signal_py
    import _signal as _signal_c
    _signal_py.signal = refused
    _signal_c.signal = refused
    sink, empty_input = _sink_classes()
    _sys.stdout = sink('<stdout>', 1)
    _sys.stderr = sink('<stderr>', 2)
    _sys.stdin = empty_input()
    time.sleep = _make_sleep(time.sleep)
    _sys.settrace, _sys.setprofile = _untraced()
    _sys.modules.setdefault('resource', _resource_module())
    _install_event_loop()
    for name in _list(_sys.modules):
        if name.partition('.')[0] in _SEALED_MODULES:
            del _sys.modules[name]
    # What candidates get as ctypes: C values without memory (ctypes_facade.py,
    # made with the snapshot). Found in sys.modules, it is imported without
    # an import event; the real ctypes, its submodules and _ctypes stay sealed.
    _sys.modules['ctypes'] = _sys.modules.pop('__evalrun_ctypes__')
    # Pyodide's own finders (JavaScript modules, packages it could fetch).
    _sys.meta_path[:] = [finder for finder in _sys.meta_path
                         if not _str(_getattr(_type(finder), '__module__', '')).startswith(('_pyodide', 'pyodide'))]
    # Logging looks up its caller's frame only for this; frames are sealed.
    logging._srcfile = None
    _sys.addaudithook(_audit)
    _CANDIDATE_BUILTINS[0] = _candidate_builtins()
    _gc.collect()
    # Everything alive now belongs to the interpreter, not to a candidate:
    # frozen, the collector skips it when a candidate's allocations trigger it.
    _gc.freeze()


# ---------------------------------------------------------------------------
# Candidate loading and the entry point.

# Read now: some typing names are made lazily by the module's __getattr__,
# which would otherwise change typing's namespace under the first candidate.
_TYPING_SCOPE = {name: _getattr(_typing, name) for name in _getattr(_typing, '__all__', ()) if _hasattr(_typing, name)}
_candidate = {'ns': None, 'call': None, 'entry': '', 'name': ''}


def _candidate_builtins():
    # `from typing import *` is in scope, as in the reference framework, but
    # through builtins: the candidate's namespace holds only what it binds,
    # so "the last callable it defines" is simply the last one in it.
    scope = _dict(_TYPING_SCOPE)
    scope.update(_builtins_module.__dict__)
    return scope


# Made once, when the harness is locked down: every candidate may change it
# as it likes, since the interpreter's memory is restored after each one.
_CANDIDATE_BUILTINS = [None]


def _defined_here(value):
    if _type(value) is _FunctionType:
        return value.__code__.co_filename == CANDIDATE_FILE
    if _isinstance(value, _type):
        return value.__dict__.get('__module__') == CANDIDATE_MODULE
    return False


# This interpreter is 32-bit: sizes that a 64-bit CPython (the reference
# framework's) would try to allocate, and fail with MemoryError, overflow
# Py_ssize_t here first. They are reported as the memory failure they are.
_SIZE_OVERFLOWS = ("cannot fit 'int' into an index-sized integer", 'repeated string is too long',
                   'repeated bytes are too long', 'too large to convert to C ssize_t', 'size does not fit in an int')
_OverflowError = OverflowError


def _is_size_overflow(exc):
    if _type(exc) is not _OverflowError:
        return False
    try:
        text = _str.__str__(_BaseException.__str__(exc))
    except _BaseException:
        return False
    for fragment in _SIZE_OVERFLOWS:
        if fragment in text:
            return True
    return False


def _memory_message(exc):
    if _type(exc) is _OverflowError:
        return 'MemoryError: the requested size does not fit in memory (' + _describe(exc) + ')'
    return _describe(exc)


MISSING_MODULE = "ModuleNotFoundError: module '{}' is not available; add a wheel to --python-packages"


def _describe(exc):
    # An import of a module this interpreter does not have: say how to provide it, not just that it failed.
    if _type(exc) is _ModuleNotFoundError:
        try:
            missing = exc.name
        except _BaseException:
            missing = None
        if _isinstance(missing, _str) and missing:
            top = missing.partition('.')[0]
            # The bridge to JavaScript is sealed on purpose: no wheel can bring it back.
            if top in _SEALED_MODULES:
                return "ModuleNotFoundError: module '" + top + "' is not available in the sandbox"
            return MISSING_MODULE.format(top)
    try:
        name = _type(exc).__name__
    except _BaseException:
        name = 'Exception'
    try:
        text = _str(exc)
    except _BaseException:
        text = '<exception text unavailable>'
    message = name + ': ' + text if text else name
    return message if _len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + '...'


def _resolve(ns, function_name):
    # A target, not a function: the call itself is made by <evalrun-call>
    # (below), so that no frame of this harness is under the candidate's.
    if function_name:
        value = ns.get(function_name)
        if value is not None and _callable(value):
            return ('value', value, None), 'name:' + function_name
        # A method of a top-level class, as in `class Solution: def f(self, ...)`: of the class named
        # Solution when there is one, as LeetCode names it, else of the last class that has it (a
        # helper class written first, a Trie or a Node, may have a method of the same name).
        found = None
        for class_name, owner in _list(ns.items()):
            if not (_isinstance(owner, _type) and _defined_here(owner)) or function_name not in owner.__dict__:
                continue
            member = owner.__dict__[function_name]
            if not (_isinstance(member, (_staticmethod, _classmethod)) or _callable(member)):
                continue
            if found is None or found[0] != 'Solution':
                found = (class_name, owner, member)
        if found is not None:
            class_name, owner, member = found
            label = 'method:' + class_name + '.' + function_name
            if _isinstance(member, (_staticmethod, _classmethod)):
                return ('value', _getattr(owner, function_name), None), label
            return ('method', owner, function_name), label
    last = None
    last_any = None
    for key, value in _list(ns.items()):
        if key.startswith('__') or not _callable(value):
            continue
        last_any = (key, value)
        if _defined_here(value):
            last = (key, value)
    chosen = last or last_any
    if chosen is None:
        return None, ''
    key, value = chosen
    return ('value', value, None), 'last-defined:' + key


# ---------------------------------------------------------------------------
# The call. Candidate code (its module, its function, a method's class) runs
# only under call_candidate, which JavaScript calls directly: made in a
# namespace of its own, it is the bottom frame under every candidate frame,
# so a frame the candidate gets (sys._getframe, inspect.currentframe, as
# sympy uses them) leads through f_back to nothing of this harness. The
# harness puts what to run in the slot, JavaScript calls call_candidate, and
# the harness reads the result or the exception back from the slot.

_CALL_SOURCE = """
slot = [None, None, None, None]


def call():
    target = slot[0]
    args = slot[1]
    slot[0] = slot[1] = None
    try:
        if target[0] == 'exec':
            exec(target[1], target[2])
        elif target[0] == 'method':
            slot[2] = getattr(target[1](), target[2])(*args)
        else:
            slot[2] = target[1](*args)
    except BaseException as exc:
        slot[3] = exc
"""
CALL_FILE = '<evalrun-call>'


def _call_space():
    space = {'__builtins__': {'exec': exec, 'getattr': getattr, 'BaseException': BaseException}, '__name__': 'evalrun'}
    _exec(_compile(_CALL_SOURCE, CALL_FILE, 'exec'), space)
    return space['call'], space['slot']


call_candidate, _slot = _call_space()


def _load_slot(target, args):
    _slot[0] = target
    _slot[1] = args
    _slot[2] = None
    _slot[3] = None


def _take_slot():
    result, exc = _slot[2], _slot[3]
    _slot[2] = _slot[3] = None
    return result, exc


def begin_load(code, function_name, seed):
    """'' when the module code is in the slot for call_candidate, else the load's outcome."""
    _candidate['ns'] = None
    _candidate['call'] = None
    _candidate['name'] = function_name
    try:
        compiled = _compile(code, CANDIDATE_FILE, 'exec')
    except _SyntaxError as exc:
        line = exc.lineno
        where = ' (line ' + _str(line) + ')' if line else ''
        return 'load-error ' + _type(exc).__name__ + ': ' + _str(exc.msg) + where
    except _MemoryError as exc:
        return 'm' + _describe(exc)
    except _BaseException as exc:
        return 'load-error does not compile: ' + _describe(exc)
    # A module in sys.modules, as an imported file is: dataclasses reads a
    # string annotation (`from __future__ import annotations`) through
    # sys.modules[cls.__module__], and pickle finds classes there too.
    module = _ModuleType(CANDIDATE_MODULE)
    ns = module.__dict__
    ns['__builtins__'] = _CANDIDATE_BUILTINS[0]
    _sys.modules[CANDIDATE_MODULE] = module
    _candidate['ns'] = ns
    _random.seed(seed)
    # Armed until the interpreter's memory is restored for the next candidate.
    _active[0] = True
    _load_slot(('exec', compiled, ns), ())
    return ''


def end_load():
    """After call_candidate ran the module code: "ok <entry>", "load-error <msg>" or "m<msg>"."""
    _, exc = _take_slot()
    if exc is not None:
        if _issubclass(_type(exc), _MemoryError):
            return 'm' + _describe(exc)
        if _is_size_overflow(exc):
            return 'm' + _memory_message(exc)
        return 'load-error threw while loading: ' + _describe(exc)
    ns = _candidate['ns']
    function_name = _candidate['name']
    target, entry = _resolve(ns, function_name)
    if target is None:
        return 'load-error no function named ' + _str(function_name) + ' and no callable defined'
    _candidate['call'] = target
    _candidate['entry'] = entry
    return 'ok ' + entry


# ---------------------------------------------------------------------------
# Wire values: JSON, with tags for what JSON cannot hold (src/values/py-tags.ts):
# non-finite and integral floats, ints beyond 2**53, tuples, sets,
# frozensets, and dicts whose keys are not all strings. Arguments arrive as
# exactly the Python values their declared types say; results leave with
# their kinds recorded.

_FLOATS = {'NaN': _float('nan'), 'Infinity': _float('inf'), '-Infinity': _float('-inf')}
_SAFE_INT = 2 ** 53 - 1
TAG = '$evalrun'


def _freeze(value):
    if _type(value) is _list:
        return _tuple(_freeze(item) for item in value)
    if _type(value) is _dict:
        return _tuple((k, _freeze(v)) for k, v in value.items())
    return value


def _revive(obj):
    tag = obj.get(TAG)
    if tag is None:
        return obj
    if tag == 'float':
        value = obj.get('value')
        if value in _FLOATS:
            return _FLOATS[value]
        return _float(value)
    if tag == 'int':
        return _int(obj['value'])
    if tag == 'tuple':
        return _tuple(obj['items'])
    if tag == 'set' or tag == 'frozenset':
        items = obj['items']
        make = _set if tag == 'set' else _frozenset
        try:
            return make(items)
        except _TypeError:
            return make(_freeze(item) for item in items)
    if tag == 'dict':
        out = {}
        for key, value in obj['entries']:
            if _type(key) is _list:
                key = _freeze(key)
            out[key] = value
        return out
    raise _ValueError('unknown wire tag ' + _repr_str(tag))


def _repr_str(value):
    return _quote(value) if _isinstance(value, _str) else '?'


class _Unencodable(Exception):
    pass


def _encode_float(value):
    if _isnan(value):
        return '{"$evalrun":"float","value":"NaN"}'
    if _isinf(value):
        return '{"$evalrun":"float","value":"' + ('Infinity' if value > 0 else '-Infinity') + '"}'
    # JSON would read 3.0 back as the int 3: an integral float says it is a float.
    if _float_is_integer(value):
        return '{"$evalrun":"float","value":"' + _repr_float(value) + '"}'
    return _repr_float(value)


def _encode_int(value):
    if -_SAFE_INT <= value <= _SAFE_INT:
        return _repr_int(value)
    # Beyond 2**53 a JSON reader would round it: the digits travel as text.
    return '{"$evalrun":"int","value":"' + _repr_int(value) + '"}'


def _encode_flat_list(value):
    # The large values candidates return are mostly lists of ints or of
    # strings. Their text is made by C loops (a list's repr, which for exact
    # ints is each int's digits; json's quoting), not one Python call per item,
    # which took seconds for a million items. None for any other list.
    # Types are told apart by identity: a set of them would trust a metaclass's
    # __eq__, and a type posing as int could then write its own repr.
    if _len(value) == 0:
        return None
    first = _type(value[0])
    if first is not _int and first is not _str:
        return None
    if not _all(_map(_is, _map(_type, value), _repeat(first))):
        return None
    if first is _int:
        if -_SAFE_INT <= _min(value) and _max(value) <= _SAFE_INT:
            return _str_replace(_list_repr(value), ', ', ',')
        return None
    return '[' + ','.join(_map(_quote, value)) + ']'


def _encode_items(items, depth, path):
    return ','.join([_encode(item, depth + 1, path) for item in items])


def _encode_set(value, depth, path):
    items = _list(_set_iter(value) if _issubclass(_type(value), _set) else _frozenset_iter(value))
    kind = 'frozenset' if _issubclass(_type(value), _frozenset) else 'set'
    return _encode_set_items(items, kind, depth, path)


def _encode_set_items(items, kind, depth, path):
    # Sorted by the items' values as their base types hold them, so that no
    # __lt__ of the candidate's runs while its result is being read.
    try:
        keys = [_sort_base(item) for item in items]
        order = _sorted(range(_len(items)), key=keys.__getitem__)
        text = _encode_items([items[i] for i in order], depth, path)
    except _TypeError:
        pairs = [(item, _encode(item, depth + 1, path)) for item in items]
        pairs.sort(key=_sort_key_text)
        text = ','.join([t for _, t in pairs])
    return '{"$evalrun":"' + kind + '","items":[' + text + ']}'


def _encode_dict(value, depth, path):
    pairs = _list(_dict_items(value))
    plain = True
    for k, _ in pairs:
        kt = _type(k)
        if kt is not _str:
            if not _issubclass(kt, _str):
                plain = False
                break
            _check_equality(kt, _str)
        if _str.__eq__(k, TAG) or _is_index_key(k):
            plain = False
            break
    if plain:
        return '{' + ','.join([_quote(_str.__str__(k)) + ':' + _encode(v, depth + 1, path) for k, v in pairs]) + '}'
    # Keys that are not strings keep their kind: a dict tag of [key, value] pairs.
    return ('{"$evalrun":"dict","entries":['
            + ','.join(['[' + _encode(k, depth + 1, path) + ',' + _encode(v, depth + 1, path) + ']' for k, v in pairs])
            + ']}')


_INDEX_DIGITS = frozenset('0123456789')


def _is_index_key(key):
    # A JSON reader in JavaScript puts keys such as "7" first in an object,
    # whatever order they came in: such a dict travels as entries, in order.
    n = _str.__len__(key)
    if n == 0 or n > 10 or (n > 1 and _str_getitem(key, 0) == '0'):
        return False
    for ch in _str.__str__(key):
        if ch not in _INDEX_DIGITS:
            return False
    return _int(_str.__str__(key)) < 4294967295


def _sort_key_text(pair):
    return pair[1]


def _sort_base(item):
    # An item as its base type holds it, for sorting; a TypeError for what
    # has no order of its own (a frozenset's < is a subset test).
    t = _type(item)
    if t is _int or t is _str or t is _float or t is _bool:
        return item
    if _issubclass(t, _int):
        return _int.__index__(item)
    if _issubclass(t, _float):
        return _float.__float__(item)
    if _issubclass(t, _str):
        return _str.__str__(item)
    if _issubclass(t, _tuple):
        return _tuple([_sort_base(x) for x in _tuple_iter(item)])
    raise _TypeError('no order')


def _own_equality(t, base):
    # Whether a class of the candidate's own between t and base defines ==
    # or a hash: then two of its values that JSON writes alike may be
    # unequal to Python (a dict could hold both as keys), or equal ones
    # unequal, and the base type's value no longer stands for it.
    inherited = _type_dict(base)
    for cls in _type_mro(t):
        if cls is base:
            return False
        if _type_flags(cls) & _HEAPTYPE:
            own = _type_dict(cls)
            # A name that is no plain str could answer a lookup with its own ==: such a class is
            # refused before its dict is asked anything.
            for name in own:
                if _type(name) is not _str:
                    return True
            for name in ('__eq__', '__ne__', '__hash__'):
                if name in own and own[name] is not inherited[name]:
                    return True
    return False


def _check_equality(t, base):
    if t is not base and _own_equality(t, base):
        raise _Unencodable('returned a value of type ' + t.__name__ + ', ' + ('an ' if base is _int else 'a ') + base.__name__ +
                           ' subclass with its own == or hash, which JSON cannot record as Python compares it')


def _encode(value, depth, path):
    t = _type(value)
    if t is _str:
        return _quote(value)
    if t is _bool:
        return 'true' if value else 'false'
    if t is _int:
        return _encode_int(value)
    if t is _float:
        return _encode_float(value)
    if value is None:
        return 'null'
    if depth > MAX_DEPTH:
        raise _Unencodable('returned a value that is too deeply nested to encode')
    if t is _list:
        flat = _encode_flat_list(value)
        if flat is not None:
            return flat
    # A value's kind is its type's: isinstance would believe a __class__
    # property, and int() or float() of a subclass would call its own
    # __int__ or __float__. The base types' own slots read the real value.
    if _issubclass(t, _bool):
        return 'true' if _int.__index__(value) else 'false'
    if _issubclass(t, _int):
        _check_equality(t, _int)
        return _encode_int(_int.__index__(value))
    if _issubclass(t, _float):
        _check_equality(t, _float)
        return _encode_float(_float.__float__(value))
    if _issubclass(t, _str):
        _check_equality(t, _str)
        return _quote(_str.__str__(value))
    # The containers being encoded, outermost first; compared with `is`
    # (id() would raise an audit event for every container).
    for outer in path:
        if outer is value:
            raise _Unencodable('returned a value that contains itself (a cycle)')
    path.append(value)
    try:
        if _issubclass(t, _tuple):
            _check_equality(t, _tuple)
            return '{"$evalrun":"tuple","items":[' + _encode_items(_tuple_iter(value), depth, path) + ']}'
        # A deque is no list to Python (deque([1]) == [1] is False): like any
        # other type JSON cannot hold, it has no JSON form.
        if _issubclass(t, _list):
            return '[' + _encode_items(_list_iter(value), depth, path) + ']'
        if _issubclass(t, (_set, _frozenset)):
            if _issubclass(t, _frozenset):
                _check_equality(t, _frozenset)
            return _encode_set(value, depth, path)
        if _issubclass(t, _dict):
            return _encode_dict(value, depth, path)
        # A dict's keys or items are a set to ==, whatever the dict's own methods say.
        if t is _DictKeys or t is _DictItems:
            return _encode_set_items(_list(value), 'set', depth, path)
        # A UserList, UserString or UserDict is what it wraps to ==, which compares its `data`.
        for wrapper in _USER_WRAPPERS:
            if _issubclass(t, wrapper):
                _check_equality(t, wrapper)
                return _encode(value.data, depth + 1, path)
    finally:
        path.pop()
    # These types exactly: a subclass's own attributes (a Fraction's _numerator) or == would
    # answer for its value, and Fraction is an ABC, which Fraction.register(X) makes any X pass
    # issubclass for.
    if t is _Fraction or t is _Decimal or t is _complex:
        return _encode_number(value, t)
    raise _Unencodable('returned a value of type ' + t.__name__ + ', which has no JSON form')


def _encode_number(value, t):
    # == equates a Fraction or Decimal with an int when it is whole (Fraction(4) == 4), and
    # the float tolerance reads its other values as the nearest float; a complex
    # number with no imaginary part is its real part (complex(2, 0) == 2.0).
    try:
        if t is _Fraction:
            numerator, denominator = _fraction_numerator(value), _fraction_denominator(value)
            if _type(numerator) is _int and _type(denominator) is _int:
                return _encode_int(numerator) if denominator == 1 else _encode_float(numerator / denominator)
        elif t is _Decimal:
            if _decimal_is_finite(value) and _decimal_eq(value, _decimal_to_integral(value)):
                return _encode_int(_decimal_int(value))
            # A signalling NaN has no float: float() raises.
            return _encode_float(_decimal_float(value))
        elif _complex_imag(value) == 0:
            return _encode_float(_complex_real(value))
    except (_ValueError, ArithmeticError):
        pass
    raise _Unencodable('returned a value of type ' + t.__name__ + ', which has no JSON form')


# The C scanner directly: json.loads runs Python code that looks up `len`
# in builtins, which a candidate may have replaced for its own later tests.
_scan = _json.scanner.make_scanner(_json.JSONDecoder(object_hook=lambda obj: _revive(obj)))


def _read_arguments(text):
    value, end = _scan(text, 0)
    if end != _len(text):
        raise _ValueError('trailing data after the arguments')
    return value


# The harness's own reading and writing of ints is not bound by
# sys.int_max_str_digits, which guards parsing of untrusted text: the wire's
# integers are exact at any size. The candidate's limit, whatever it set it
# to, is back in force as soon as the harness is done. Functions and a
# try/finally, not a class: a class the harness defines is in
# object.__subclasses__(), and its methods' __globals__ would be the
# harness's own namespace.


def _with_all_digits(work, *args):
    limit = _get_int_digits()
    _set_int_digits(0)
    try:
        return work(*args)
    finally:
        _set_int_digits(limit)


_test_args = [None]

# Bound now: after lockdown no candidate can import _tracemalloc (sealed, and
# harness.js makes the built-in module uncreatable), so only these reach it.
_trace_start = _tracemalloc.start
_trace_stop = _tracemalloc.stop
_traced_memory = _tracemalloc.get_traced_memory
_is_tracing = _tracemalloc.is_tracing
del _tracemalloc


def trace_start():
    """Traces allocations from here on (the reference framework's memory figure)."""
    _trace_start(1)


def trace_peak():
    """The peak of what was allocated since trace_start and not freed, in bytes, as text ('-' when tracing was off).

    Text, as every answer to harness.js: a number would cross through the sealed bridge."""
    if not _is_tracing():
        return '-'
    peak = _traced_memory()[1]
    _trace_stop()
    return _str(peak)


def begin_test(args_text):
    """'' when the call is in the slot for call_candidate, else the test's outcome."""
    target = _candidate['call']
    if target is None:
        return 'tno candidate is loaded'
    try:
        args = _with_all_digits(_read_arguments, args_text)
    except _BaseException as exc:
        return 'tharness could not read the arguments: ' + _describe(exc)
    if _type(args) is not _list:
        return 'tharness: the arguments are not an array'
    _load_slot(target, args)
    # Held until end_test, so that freeing the arguments happens there and
    # not when the candidate's frame exits: a metered interpreter counts
    # the call alone (harness.js), and freeing a large argument costs as
    # much as a linear pass over it.
    _test_args[0] = args
    return ''


def end_test():
    """After call_candidate ran the test: "r<json>", "t<msg>", "u<msg>" or "m<msg>"."""
    result, exc = _take_slot()
    # The arguments are freed once the result is written, and no collection runs while it is
    # read: a finalizer or a gc callback of the candidate's could otherwise change the result
    # between its return and its record.
    collecting = _gc_isenabled()
    _gc_disable()
    try:
        return _end_test(result, exc)
    finally:
        if collecting:
            _gc_enable()
        _test_args[0] = None


def _end_test(result, exc):
    if exc is not None:
        if _issubclass(_type(exc), _MemoryError):
            del exc
            return 'mMemoryError: the candidate ran out of memory'
        if _is_size_overflow(exc):
            return 'm' + _memory_message(exc)
        return 't' + _describe(exc)
    try:
        text = _with_all_digits(_encode, result, 0, [])
    except _Unencodable as exc:
        return 'u' + exc.args[0]
    except _RecursionError:
        return 'ureturned a value that is too deeply nested to encode'
    except _MemoryError:
        return 'mMemoryError: the returned value is too large to encode'
    except _ValueError as exc:
        return 'u' + _describe(exc)
    except _BaseException as exc:
        # Encoding reads values through the base types' own slots and sorts
        # by base values, so no candidate code runs in it; this is for what
        # still raises (a value too large for a float, say).
        return 'uencoding the returned value raised ' + _describe(exc)
    if _len(text) > MAX_RESULT_CHARS:
        return 'ureturned a value too large to report (' + _str(_len(text)) + ' characters of JSON)'
    return 'r' + text

