"""Dataset indices as a gather reads them.

Host indices (a sequence, NumPy array or CPU tensor of ints) become one
contiguous int64 array that ferry_dataset_gather reads during the call
(in place: ferry_python.i's buffer typemap), checked against the dataset
before anything runs. Device indices (a CUDA int64 tensor, or an int64
``__cuda_array_interface__`` array, on the context's GPU) are passed by
address to ferry_dataset_gather_device, which reads them when the gather runs:
an epoch's order kept on the GPU is sliced batch by batch with no host copy
(out-of-range values are clamped there, not reported).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._arrays import ArrayView, view
from ._context import Context, _is_torch, _torch_as_numpy
from ._enums import Device, Status
from ._errors import error

_WHAT = "dataset indices: a 1-D sequence, NumPy array or tensor of ints"


def _invalid(message: str) -> Exception:
    return error(Status.INVALID_ARGUMENT, message)


def host_indices(indices: Any) -> np.ndarray:
    """`indices` in host memory as a contiguous int64 array."""
    if _is_torch(indices):
        indices = _torch_as_numpy(indices)
    try:
        arr = np.asarray(indices)
    except (TypeError, ValueError):  # ragged
        raise _invalid(f"indices is {indices!r}: {_WHAT}") from None
    if arr.ndim != 1:
        raise _invalid(f"indices has shape {arr.shape}: {_WHAT}")
    if arr.size == 0:  # before the dtype: [] is float64 to NumPy
        raise _invalid("indices is empty: a gather needs at least one dataset index")
    if arr.dtype.kind not in "iu":
        raise _invalid(f"indices has dtype {arr.dtype}: {_WHAT}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def device_indices(indices: Any, context: Context) -> Optional[ArrayView]:
    """The view of `indices` where they are in device memory (checked: int64,
    1-D, contiguous, on `context`'s GPU); None for host indices."""
    if not ((_is_torch(indices) and getattr(indices, "is_cuda", False)) or
            hasattr(indices, "__cuda_array_interface__")):
        return None
    v = view(indices, "indices")
    if v.type_name not in ("torch.int64", "<i8"):
        raise _invalid(f"indices has dtype {v.type_name}: indices in GPU memory are int64")
    if len(v.shape) != 1:
        raise _invalid(f"indices has shape {v.shape}: {_WHAT}")
    if v.shape[0] == 0:
        raise _invalid("indices is empty: a gather needs at least one dataset index")
    if v.shape[0] > 1 and v.strides[0] != 8:
        raise _invalid(f"indices has strides {v.strides}: indices in GPU memory are contiguous")
    if context.device != Device.CUDA:
        raise _invalid("indices are in GPU memory: the dataset's context is on the CPU backend (pass host indices)")
    index = getattr(getattr(indices, "device", None), "index", context.device_index)
    if index != context.device_index:
        raise _invalid(f"indices are on cuda:{index}: the dataset is on cuda:{context.device_index}")
    return v


def writer_stream(indices: Any) -> Optional[int]:
    """The stream that wrote `indices` as far as ferry can tell: torch's
    current stream on their GPU for a torch tensor (the gather then reads them
    after its work), else None (they must be written already)."""
    if not _is_torch(indices):
        return None
    import torch
    return torch.cuda.current_stream(indices.device).cuda_stream
