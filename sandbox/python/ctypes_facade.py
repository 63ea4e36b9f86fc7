# evalrun's `ctypes` for Python candidates: C values without memory.
#
# The real ctypes reads and writes any address of the interpreter's
# WebAssembly memory (pointers, from_address, memmove, string_at), calls any
# entry of its function table (CFUNCTYPE, cast), and loads libraries
# (CDLL); the function table holds the JavaScript functions the interpreter
# imports. None of that can be offered to a candidate, and most of it runs
# without an audit event. What packages need at import time is far less:
# sympy reads `sizeof(c_long)` to learn the width of a C long. So this
# module, made once when the memory snapshot is taken and installed as
# sys.modules['ctypes'] at lockdown (harness.py), is plain Python holding
# plain values: the C scalar types with `.value`, their sizes on wasm32
# (where long and pointers are 4 bytes), arrays (`c_int * 3`) and
# structures, all without an address. Everything that would need one is
# absent; reading it raises an AttributeError that says so. The C module
# `_ctypes` stays sealed (harness.py, boot.js).
#
# Nothing here imports a module a candidate could not import itself.

import struct as _struct

__version__ = '1.1.0'

_NO_MEMORY = ('evalrun: ctypes.{} is not available in the sandbox (its ctypes has C values only:'
              ' no addresses, pointers, functions or libraries)')

# What the real module has and this one leaves out on purpose.
_UNAVAILABLE = frozenset((
    'CDLL', 'PyDLL', 'WinDLL', 'OleDLL', 'LibraryLoader', 'cdll', 'pydll', 'windll', 'oledll', 'pythonapi',
    'CFUNCTYPE', 'PYFUNCTYPE', 'WINFUNCTYPE', 'cast', 'memmove', 'memset', 'string_at', 'wstring_at',
    'memoryview_at', 'addressof', 'byref', 'pointer', 'POINTER', 'SetPointerType', 'resize',
    'create_string_buffer', 'create_unicode_buffer', 'c_buffer', 'py_object', 'Union', 'BigEndianUnion',
    'LittleEndianUnion', 'BigEndianStructure', 'LittleEndianStructure', 'ARRAY', 'get_errno', 'set_errno',
    'get_last_error', 'set_last_error', 'GetLastError', 'FormatError', 'WinError', 'HRESULT', 'CField',
    'DEFAULT_MODE', 'RTLD_LOCAL', 'RTLD_GLOBAL', 'util', 'wintypes', 'macholib',
    '_Pointer', '_CFuncPtr', '_CData', '_dlopen', '_memmove_addr', '_memset_addr', '_string_at_addr',
    '_wstring_at_addr', '_cast_addr', '_ctypes', '_pointer_type_cache', '_c_functype_cache',
))


def __getattr__(name):
    if name in _UNAVAILABLE:
        raise AttributeError(_NO_MEMORY.format(name), name=name)
    raise AttributeError("module 'ctypes' has no attribute " + repr(name), name=name)


class ArgumentError(Exception):
    pass


class _CType(type):
    """The metaclass of every C type here: `T * n` makes an array type."""

    def __mul__(cls, length):
        return _array_type(cls, length)

    __rmul__ = __mul__


def sizeof(obj_or_type):
    kind = obj_or_type if isinstance(obj_or_type, type) else type(obj_or_type)
    size = getattr(kind, '_evalrun_size', None) if isinstance(kind, _CType) else None
    if size is None:
        raise TypeError('this type has no size')
    return size


def alignment(obj_or_type):
    kind = obj_or_type if isinstance(obj_or_type, type) else type(obj_or_type)
    align = getattr(kind, '_evalrun_align', None) if isinstance(kind, _CType) else None
    if align is None:
        raise TypeError('no alignment info')
    return align


# ---------------------------------------------------------------------------
# Scalars. Each class names its code, size, struct format and how a Python
# value becomes its C value (integers wrap around, as in C and ctypes).

class _SimpleCData(metaclass=_CType):
    _type_ = None
    _evalrun_size = None
    _evalrun_align = None
    _evalrun_format = None
    _evalrun_default = 0

    def __init__(self, value=None):
        self.value = self._evalrun_default if value is None else value

    @property
    def value(self):
        return self._evalrun_value

    @value.setter
    def value(self, value):
        self._evalrun_value = self._evalrun_convert(value)

    @classmethod
    def _evalrun_convert(cls, value):
        return value

    @classmethod
    def from_param(cls, value):
        return value if isinstance(value, cls) else cls(value)

    def __bool__(self):
        return bytes(self) != bytes(self._evalrun_size)

    def __bytes__(self):
        value = self._evalrun_value
        if value is None:
            return bytes(self._evalrun_size)
        if isinstance(value, str):
            value = ord(value)
        return _struct.pack('<' + self._evalrun_format, value)

    def __repr__(self):
        return type(self).__name__ + '(' + repr(self._evalrun_value) + ')'

    def __reduce__(self):
        return (type(self), (self._evalrun_value,))


def _integer(value):
    if isinstance(value, (float, str, bytes)) or not hasattr(type(value), '__index__'):
        raise TypeError('int expected instead of ' + type(value).__name__)
    return value.__index__()


def _int_type(name, code, size, signed):
    bits = size * 8
    mask = (1 << bits) - 1
    half = 1 << (bits - 1)

    def convert(cls, value):
        number = _integer(value) & mask
        return number - (1 << bits) if signed and number >= half else number

    fmt = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}[size]
    return _CType(name, (_SimpleCData,), {
        '_type_': code, '_evalrun_size': size, '_evalrun_align': size, '_evalrun_format': fmt if signed else fmt.upper(),
        '_evalrun_convert': classmethod(convert), '__module__': 'ctypes', '__qualname__': name,
    })


c_byte = _int_type('c_byte', 'b', 1, True)
c_ubyte = _int_type('c_ubyte', 'B', 1, False)
c_short = _int_type('c_short', 'h', 2, True)
c_ushort = _int_type('c_ushort', 'H', 2, False)
c_int = _int_type('c_int', 'i', 4, True)
c_uint = _int_type('c_uint', 'I', 4, False)
# wasm32: long is 4 bytes, as on 32-bit platforms.
c_long = _int_type('c_long', 'l', 4, True)
c_ulong = _int_type('c_ulong', 'L', 4, False)
c_longlong = _int_type('c_longlong', 'q', 8, True)
c_ulonglong = _int_type('c_ulonglong', 'Q', 8, False)
c_int8, c_uint8 = c_byte, c_ubyte
c_int16, c_uint16 = c_short, c_ushort
c_int32, c_uint32 = c_int, c_uint
c_int64, c_uint64 = c_longlong, c_ulonglong
c_size_t = c_uint
c_ssize_t = c_int
c_time_t = c_longlong


def _real(value):
    if isinstance(value, (str, bytes)) or not (hasattr(type(value), '__float__') or hasattr(type(value), '__index__')):
        raise TypeError('must be real number, not ' + type(value).__name__)
    return float(value)


class c_float(_SimpleCData):
    _type_ = 'f'
    _evalrun_size = _evalrun_align = 4
    _evalrun_format = 'f'
    _evalrun_default = 0.0

    @classmethod
    def _evalrun_convert(cls, value):
        # Rounded to single precision, as storing it in a C float does.
        return _struct.unpack('<f', _struct.pack('<f', _real(value)))[0]


class c_double(_SimpleCData):
    _type_ = 'd'
    _evalrun_size = _evalrun_align = 8
    _evalrun_format = 'd'
    _evalrun_default = 0.0

    @classmethod
    def _evalrun_convert(cls, value):
        return _real(value)


class c_longdouble(c_double):
    # wasm32's long double is a 16-byte quad; the value is kept as a double.
    _type_ = 'g'
    _evalrun_size = _evalrun_align = 16

    def __bytes__(self):
        raise TypeError('evalrun: the bytes of a c_longdouble are not available in the sandbox')


class c_bool(_SimpleCData):
    _type_ = '?'
    _evalrun_size = _evalrun_align = 1
    _evalrun_format = '?'
    _evalrun_default = False

    @classmethod
    def _evalrun_convert(cls, value):
        return bool(value)


class c_char(_SimpleCData):
    _type_ = 'c'
    _evalrun_size = _evalrun_align = 1
    _evalrun_format = 'c'
    _evalrun_default = b'\x00'

    @classmethod
    def _evalrun_convert(cls, value):
        if isinstance(value, (bytes, bytearray)) and len(value) == 1:
            return bytes(value)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 256:
            return bytes((value,))
        raise TypeError('one character bytes, bytearray or integer expected')


class c_wchar(_SimpleCData):
    _type_ = 'u'
    _evalrun_size = _evalrun_align = 4
    _evalrun_format = 'I'
    _evalrun_default = '\x00'

    @classmethod
    def _evalrun_convert(cls, value):
        if isinstance(value, str) and len(value) == 1:
            return value
        raise TypeError('one character unicode string expected')


class c_char_p(_SimpleCData):
    # Holds bytes (or None) itself: there is no address to point at.
    _type_ = 'z'
    _evalrun_size = _evalrun_align = 4
    _evalrun_default = None

    def __init__(self, value=None):
        self.value = value

    @classmethod
    def _evalrun_convert(cls, value):
        if value is None or isinstance(value, bytes):
            return value
        raise TypeError('bytes or None expected (evalrun: a c_char_p holds no address)')

    def __bytes__(self):
        raise TypeError('evalrun: a c_char_p has no address to show')

    def __bool__(self):
        return self._evalrun_value is not None


class c_wchar_p(c_char_p):
    _type_ = 'Z'

    @classmethod
    def _evalrun_convert(cls, value):
        if value is None or isinstance(value, str):
            return value
        raise TypeError('str or None expected (evalrun: a c_wchar_p holds no address)')


class c_void_p(_SimpleCData):
    # A number that nothing here dereferences.
    _type_ = 'P'
    _evalrun_size = _evalrun_align = 4
    _evalrun_format = 'I'
    _evalrun_default = None

    def __init__(self, value=None):
        self.value = value

    @classmethod
    def _evalrun_convert(cls, value):
        if value is None:
            return None
        number = _integer(value) & 0xFFFFFFFF
        return number or None


c_voidp = c_void_p


# ---------------------------------------------------------------------------
# Arrays and structures: values in Python lists and attributes, with the
# sizes and alignments C gives them on wasm32.

class Array(metaclass=_CType):
    _type_ = None
    _length_ = 0

    def __init__(self, *values):
        if len(values) > self._length_:
            raise IndexError('indices must be integers')
        self._evalrun_items = [_fresh(self._type_) for _ in range(self._length_)]
        for index, value in enumerate(values):
            self[index] = value

    def __len__(self):
        return self._length_

    def _evalrun_index(self, index):
        index = _integer(index)
        if index < 0:
            index += self._length_
        if not 0 <= index < self._length_:
            raise IndexError('invalid index')
        return index

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length_))]
        return _read(self._evalrun_items[self._evalrun_index(index)])

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            positions = range(*index.indices(self._length_))
            values = list(value)
            if len(values) != len(positions):
                raise ValueError('Can only assign sequence of same size')
            for i, item in zip(positions, values):
                self[i] = item
            return
        i = self._evalrun_index(index)
        self._evalrun_items[i] = _store(self._type_, value)

    def __iter__(self):
        return (self[i] for i in range(self._length_))

    @property
    def value(self):
        if self._type_ is c_char:
            return b''.join(self._evalrun_items_raw()).split(b'\x00', 1)[0]
        if self._type_ is c_wchar:
            return ''.join(self._evalrun_items_raw()).split('\x00', 1)[0]
        raise AttributeError('value')

    def _evalrun_items_raw(self):
        return [item.value for item in self._evalrun_items]

    def __repr__(self):
        return '<' + type(self).__name__ + ' object>'


_array_types = {}


def _array_type(item, length):
    if not isinstance(length, int) or isinstance(length, bool):
        raise TypeError("can't multiply sequence by non-int")
    if length < 0:
        raise ValueError('Array length must be >= 0, not ' + str(length))
    key = (item, length)
    made = _array_types.get(key)
    if made is None:
        size = sizeof(item) * length
        made = _CType(item.__name__ + '_Array_' + str(length), (Array,), {
            '_type_': item, '_length_': length, '_evalrun_size': size,
            '_evalrun_align': alignment(item), '__module__': 'ctypes',
        })
        _array_types[key] = made
    return made


def _fresh(kind):
    if not isinstance(kind, _CType):
        raise TypeError('_type_ must be a ctypes type')
    return kind()


def _read(item):
    # Scalars read as Python values, as in ctypes; arrays and structures as themselves.
    return item.value if isinstance(item, _SimpleCData) else item


def _store(kind, value):
    if isinstance(value, kind):
        return value if isinstance(value, _SimpleCData) else _copy(value)
    if issubclass(kind, _SimpleCData):
        return kind(value)
    if issubclass(kind, Array) and isinstance(value, (tuple, list)):
        return kind(*value)
    if issubclass(kind, Structure) and isinstance(value, tuple):
        return kind(*value)
    raise TypeError('incompatible types, ' + type(value).__name__ + ' instance instead of ' + kind.__name__ + ' instance')


def _copy(value):
    if isinstance(value, Array):
        return type(value)(*value)
    made = type(value)()
    for name, _ in type(value)._evalrun_layout:
        setattr(made, name, getattr(value, name))
    return made


class _StructType(_CType):
    """Lays out `_fields_` the way C does on wasm32, for sizeof and alignment."""

    def __setattr__(cls, name, value):
        super().__setattr__(name, value)
        if name == '_fields_':
            cls._evalrun_lay_out()

    def __init__(cls, name, bases, namespace):
        super().__init__(name, bases, namespace)
        if '_fields_' in namespace:
            cls._evalrun_lay_out()

    def _evalrun_lay_out(cls):
        layout = []
        for base in cls.__mro__[1:]:
            if '_evalrun_layout' in base.__dict__:
                layout = list(base.__dict__['_evalrun_layout'])
                offset, align = base.__dict__['_evalrun_size'], base.__dict__['_evalrun_align']
                break
        else:
            offset, align = 0, 1
        pack = cls.__dict__.get('_pack_')
        for field in cls.__dict__.get('_fields_', ()):
            if len(field) != 2:
                raise TypeError('evalrun: bit fields are not available in the sandbox' if len(field) == 3
                                else "'_fields_' must be a sequence of (name, C type) pairs")
            name, kind = field
            if not isinstance(name, str) or not isinstance(kind, _CType) or getattr(kind, '_evalrun_size', None) is None:
                raise TypeError('second item in _fields_ tuple (index 0) must be a C type')
            field_align = alignment(kind) if pack is None else min(alignment(kind), pack)
            offset = (offset + field_align - 1) // field_align * field_align
            layout.append((name, kind))
            offset += sizeof(kind)
            align = max(align, field_align)
        type.__setattr__(cls, '_evalrun_layout', tuple(layout))
        type.__setattr__(cls, '_evalrun_align', align)
        type.__setattr__(cls, '_evalrun_size', (offset + align - 1) // align * align)


class Structure(metaclass=_StructType):
    def __init__(self, *args, **kwargs):
        layout = type(self).__dict__.get('_evalrun_layout')
        if layout is None:
            layout = getattr(type(self), '_evalrun_layout', None)
        if layout is None:
            raise TypeError('abstract class')
        if len(args) > len(layout):
            raise TypeError('too many initializers')
        kinds = {}
        for name, kind in layout:
            kinds[name] = kind
            object.__setattr__(self, '_evalrun_' + name, _fresh(kind))
        object.__setattr__(self, '_evalrun_kinds', kinds)
        for (name, _), value in zip(layout, args):
            setattr(self, name, value)
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __getattr__(self, name):
        kinds = self.__dict__.get('_evalrun_kinds', {})
        if name in kinds:
            return _read(self.__dict__['_evalrun_' + name])
        raise AttributeError(type(self).__name__ + ' object has no attribute ' + repr(name))

    def __setattr__(self, name, value):
        kinds = self.__dict__.get('_evalrun_kinds', {})
        if name in kinds:
            object.__setattr__(self, '_evalrun_' + name, _store(kinds[name], value))
        else:
            object.__setattr__(self, name, value)

