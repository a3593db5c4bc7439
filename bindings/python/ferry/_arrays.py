"""How ferry sees a Python array: address, shape, byte strides, type, device.

Host inputs are anything with the buffer protocol (bytes, bytearray,
memoryview, array.array, NumPy arrays) or NumPy's array interface (a PyTorch
CPU tensor through ``__array__``): never copied. Device arrays come through
``__cuda_array_interface__`` (CuPy, Numba, PyTorch) or, for PyTorch tensors of
any dtype (bfloat16 included), through ``data_ptr()`` and ``stride()``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np

from ._enums import DType, Status
from ._errors import error

# typestr (array interfaces) and torch dtype names per ferry dtype.
_TYPESTR = {DType.UINT8: "|u1", DType.FLOAT32: "<f4", DType.FLOAT16: "<f2"}
_TORCH_DTYPE = {"torch.uint8": DType.UINT8, "torch.float32": DType.FLOAT32,
                "torch.float16": DType.FLOAT16, "torch.bfloat16": DType.BFLOAT16}
_TYPESTR_DTYPE = {v: k for k, v in _TYPESTR.items()}
_TYPESTR_DTYPE.update({"<u1": DType.UINT8, "=u1": DType.UINT8, "|u1": DType.UINT8})


@dataclass
class ArrayView:
    """One array as ferry needs it. ``keepalive`` holds what keeps the memory
    valid (the exporting object or a memoryview of it)."""
    address: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]  # bytes
    dtype: Optional[DType]    # None: a type ferry has no DType for
    type_name: str
    readonly: bool
    on_device: bool
    keepalive: Any

    @property
    def extent(self) -> int:
        """Bytes from the lowest to one past the highest element."""
        if any(s == 0 for s in self.shape):
            return 0
        item = 2 if self.dtype in (DType.FLOAT16, DType.BFLOAT16) else (4 if self.dtype == DType.FLOAT32 else 1)
        return sum((n - 1) * s for n, s in zip(self.shape, self.strides)) + item


def typestr(dtype: DType) -> str:
    """The array-interface type string of a ferry dtype (AttributeError for
    bfloat16, which the array interfaces cannot describe: use DLPack)."""
    try:
        return _TYPESTR[dtype]
    except KeyError:
        raise AttributeError(f"dtype {dtype.name} has no array-interface type string; use __dlpack__") from None


def _contiguous_strides(shape, item: int) -> Tuple[int, ...]:
    strides, step = [], item
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


_NUMPY_TYPE_NAMES: Dict[Any, str] = {}  # str(dtype) costs microseconds: once per dtype


def _numpy_type_name(dtype: Any) -> str:
    name = _NUMPY_TYPE_NAMES.get(dtype)
    if name is None:
        name = _NUMPY_TYPE_NAMES[dtype] = str(dtype)
    return name


def _from_numpy(arr: np.ndarray, keepalive: Any) -> ArrayView:
    dtype = arr.dtype
    return ArrayView(address=arr.ctypes.data, shape=arr.shape, strides=arr.strides,
                     dtype=_TYPESTR_DTYPE.get(dtype.str), type_name=_numpy_type_name(dtype),
                     readonly=not arr.flags.writeable, on_device=False, keepalive=keepalive)


def _from_cuda_interface(obj: Any) -> ArrayView:
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    typestr_ = cai["typestr"]
    item = int(typestr_[2:])
    strides = tuple(cai.get("strides") or _contiguous_strides(shape, item))
    address, readonly = cai["data"]
    return ArrayView(address=address, shape=shape, strides=strides,
                     dtype=_TYPESTR_DTYPE.get(typestr_), type_name=typestr_, readonly=bool(readonly),
                     on_device=True, keepalive=obj)


def _from_torch(obj: Any) -> ArrayView:
    item = obj.element_size()
    return ArrayView(address=obj.data_ptr(), shape=tuple(obj.shape),
                     strides=tuple(s * item for s in obj.stride()),
                     dtype=_TORCH_DTYPE.get(str(obj.dtype)), type_name=str(obj.dtype),
                     readonly=False, on_device=obj.device.type != "cpu", keepalive=obj)


def view(obj: Any, name: str) -> ArrayView:
    """Describes `obj` without copying it; raises ferry's InvalidArgumentError
    for None and for objects that are no array."""
    if obj is None:
        raise error(Status.INVALID_ARGUMENT, f"{name} is None: an array or buffer is required")
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, obj)
    if type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        return _from_torch(obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_interface(obj)
    try:
        mv = memoryview(obj)
    except TypeError:
        mv = None
    if mv is not None:
        return _from_numpy(np.asarray(mv), mv)
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
        return _from_numpy(np.asarray(obj), obj)
    raise error(Status.INVALID_ARGUMENT,
                f"{name} is a {type(obj).__name__}: not an array (buffer protocol, __array_interface__, "
                f"__cuda_array_interface__ or a torch.Tensor expected)")


def stream_address(stream: Any) -> Optional[int]:
    """A cudaStream_t as an int from an int, None, a torch.cuda.Stream
    (.cuda_stream) or a CuPy stream (.ptr)."""
    if stream is None or isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise error(Status.INVALID_ARGUMENT,
                f"stream is a {type(stream).__name__}: an int cudaStream_t, a torch.cuda.Stream or a CuPy stream expected")
