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
