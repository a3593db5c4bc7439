"""ferry's C enums as Python enums (values are the C values)."""
from __future__ import annotations

import enum

from . import ferry_swig as _swig


class Status(enum.IntEnum):
    """ferry_status."""
    OK = _swig.FERRY_OK
    INVALID_ARGUMENT = _swig.FERRY_ERR_INVALID_ARGUMENT
    INVALID_HANDLE = _swig.FERRY_ERR_INVALID_HANDLE
    STRUCT_SIZE = _swig.FERRY_ERR_STRUCT_SIZE
    UNSUPPORTED = _swig.FERRY_ERR_UNSUPPORTED
    OVERFLOW = _swig.FERRY_ERR_OVERFLOW
    OUT_OF_RANGE = _swig.FERRY_ERR_OUT_OF_RANGE
    OUT_OF_MEMORY = _swig.FERRY_ERR_OUT_OF_MEMORY
    NO_DEVICE = _swig.FERRY_ERR_NO_DEVICE
    CUDA = _swig.FERRY_ERR_CUDA
    NOT_FOUND = _swig.FERRY_ERR_NOT_FOUND
    ALREADY_EXISTS = _swig.FERRY_ERR_ALREADY_EXISTS
    NOT_READY = _swig.FERRY_ERR_NOT_READY
    BUSY = _swig.FERRY_ERR_BUSY
    SOURCE_TOO_SMALL = _swig.FERRY_ERR_SOURCE_TOO_SMALL
    INTERNAL = _swig.FERRY_ERR_INTERNAL
    OUTPUT_TOO_SMALL = _swig.FERRY_ERR_OUTPUT_TOO_SMALL


class Device(enum.IntEnum):
    """ferry_device_kind: AUTO is the first working GPU, else the CPU."""
    AUTO = _swig.FERRY_DEVICE_AUTO
    CPU = _swig.FERRY_DEVICE_CPU
    CUDA = _swig.FERRY_DEVICE_CUDA


class DType(enum.IntEnum):
    """ferry_dtype of an output."""
    UINT8 = _swig.FERRY_DTYPE_UINT8
    FLOAT32 = _swig.FERRY_DTYPE_FLOAT32
    FLOAT16 = _swig.FERRY_DTYPE_FLOAT16
    BFLOAT16 = _swig.FERRY_DTYPE_BFLOAT16


class Layout(enum.IntEnum):
    """ferry_layout: NHWC interleaved, NCHW planar."""
    NHWC = _swig.FERRY_LAYOUT_NHWC
    NCHW = _swig.FERRY_LAYOUT_NCHW


class Mirror(enum.IntFlag):
    """ferry_mirror bits."""
    NONE = _swig.FERRY_MIRROR_NONE
    X = _swig.FERRY_MIRROR_X
    Y = _swig.FERRY_MIRROR_Y


class SourcePolicy(enum.IntEnum):
    """ferry_source_policy: how a host source reaches the device."""
    AUTO = _swig.FERRY_SOURCE_AUTO
    STAGE = _swig.FERRY_SOURCE_STAGE
    REGISTER = _swig.FERRY_SOURCE_REGISTER


class MemoryKind(enum.IntFlag):
    """ferry_memory_kind bits for Context.trim."""
    PINNED = _swig.FERRY_MEMORY_PINNED
    REGISTERED = _swig.FERRY_MEMORY_REGISTERED
    DEVICE = _swig.FERRY_MEMORY_DEVICE
    ALL = _swig.FERRY_MEMORY_ALL


# ---- what users write for an enum argument --------------------------------
# Parsers return the enum member or raise ferry's InvalidArgumentError naming
# the argument, the value and everything accepted. (They raise through
# _errors, imported late: _errors imports this module.)

_DTYPE_NAMES = {
    "float32": DType.FLOAT32, "f32": DType.FLOAT32,
    "float16": DType.FLOAT16, "f16": DType.FLOAT16,
    "bfloat16": DType.BFLOAT16, "bf16": DType.BFLOAT16,
    "uint8": DType.UINT8, "u8": DType.UINT8,
}
_DTYPE_ACCEPTED = ("ferry.DType.FLOAT32/FLOAT16/BFLOAT16/UINT8, the strings "
                   "'float32' 'float16' 'bfloat16' 'uint8' ('f32' 'f16' 'bf16' 'u8'), "
                   "numpy.float32/float16/uint8 (or numpy.dtype of them), "
                   "torch.float32/float16/bfloat16/uint8")


def _invalid(message: str) -> Exception:
    from ._errors import error
    return error(Status.INVALID_ARGUMENT, message)


def _enum_int(enum_type: type, value: object) -> object:
    """A plain int that is one of the enum's values (bool excluded), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return enum_type(value)
        except ValueError:
            return None
    return None


def parse_dtype(value: object, name: str = "dtype") -> DType:
    """ferry.DType, a NumPy dtype or scalar type, a PyTorch dtype (torch is
    never imported for this), or a name: "float32" "float16" "bfloat16"
    "uint8", "f32" "f16" "bf16" "u8" (any case)."""
    if isinstance(value, DType):
        return value
    found = _enum_int(DType, value)
    if found is not None:
        return found
    if isinstance(value, str):
        found = _DTYPE_NAMES.get(value.strip().lower())
        if found is not None:
            return found
    elif type(value).__module__ == "torch" and type(value).__name__ == "dtype":
        found = _DTYPE_NAMES.get(str(value)[len("torch."):])  # "torch.float16"
        if found is not None:
            return found
    else:
        import numpy as np
        try:
            if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
                np_dtype = np.dtype(value)
                if np_dtype.byteorder in "=|<" and np_dtype.name in _DTYPE_NAMES:
                    return _DTYPE_NAMES[np_dtype.name]
        except TypeError:
            pass
    raise _invalid(f"{name} is {value!r}: not an output dtype ferry writes; accepted: {_DTYPE_ACCEPTED}")


def parse_layout(value: object, name: str = "layout") -> Layout:
    """ferry.Layout or "NCHW" / "NHWC" (any case)."""
    if isinstance(value, Layout):
        return value
    found = _enum_int(Layout, value)
    if found is None and isinstance(value, str):
        found = Layout.__members__.get(value.strip().upper())
    if found is None:
        raise _invalid(f"{name} is {value!r}: accepted: ferry.Layout.NCHW or NHWC, or the strings 'NCHW' 'NHWC'")
    return found


def parse_mirror(value: object, name: str = "mirror") -> Mirror:
    """ferry.Mirror bits (NONE, X, Y, X | Y), or their int values 0..3."""
    if isinstance(value, Mirror):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return Mirror(value)
    raise _invalid(f"{name} is {value!r}: accepted: ferry.Mirror.NONE, X, Y or X | Y (the ints 0..3)")
