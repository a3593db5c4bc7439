"""Batch: one submitted batch and its converted output.

The output is handed to other libraries without a copy: ``__dlpack__`` /
``__dlpack_device__`` (``torch.from_dlpack(batch)``, CuPy, JAX, NumPy),
``__cuda_array_interface__`` v3 on a GPU, ``__array_interface__`` on the CPU
backend.

Lifetimes follow each protocol's rule, whatever is closed first:
- a DLPack export holds a ferry tensor reference (ferry/tensor.h): the output
  lives until the consumer's tensor is freed, after ``close()`` and after
  ``Context.close()`` too (``numpy()`` goes through DLPack);
- an array made through ``__array_interface__`` / ``__cuda_array_interface__``
  holds this object, which then holds a tensor reference past ``close()``;
- the source (and a caller's ``out``) are held by ferry until the batch has
  completed, however this object is dropped.
``close()`` never blocks: the release is stream-ordered.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from . import ferry_swig as _swig
from ._arrays import stream_address, typestr
from ._enums import Device, DType, Layout, Status
from ._errors import error

_KDL_CPU, _KDL_CUDA = 1, 2

# (current stream of a device index -> int cudaStream_t, capsule -> tensor), looked up on
# first use (torch_interop()): torch's own raw lookups, each about 1 us a call, where
# torch.cuda.current_stream(i).cuda_stream builds a Stream object (25-30 us on an H200 host)
# and torch.from_dlpack(capsule) passes through a Python wrapper first.
_TORCH_INTEROP: Optional[Tuple[Any, Any]] = None


def torch_interop() -> Tuple[Any, Any]:
    """(current_stream(index) -> int, from_capsule(capsule) -> tensor) for torch,
    imported on the first call; torch's public calls where its private ones
    are missing."""
    global _TORCH_INTEROP
    if _TORCH_INTEROP is None:
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        current = raw if raw is not None else (lambda index: torch.cuda.current_stream(index).cuda_stream)
        _TORCH_INTEROP = (current, getattr(torch._C, "_from_dlpack", None) or torch.from_dlpack)
    return _TORCH_INTEROP


class Batch:
    """A batch in flight or complete. Made by :meth:`Context.submit`.

    Use it as a context manager, or call :meth:`close`, to release it at once.
    Thread-safe: several threads may wait on one batch.
    """

    # Slots: every batch's attributes are set and read on the hot path (a one-image call's cost).
    __slots__ = ("_h", "_augment_params", "_context", "_out", "_handoff_stream", "_closed", "_reference",
                 "_output", "_complete", "__weakref__")

    def __init__(self, handle: Any, context: Any, out: Any, handoff_stream: Optional[int],
                 augment_params: Any = None) -> None:
        self._h = handle
        self._augment_params = augment_params  # what each sample drew (ferry/_augment.py), or None
        self._context = context          # a batch keeps its context alive
        self._out = out                  # the caller's destination, or None
        self._handoff_stream = handoff_stream
        self._closed = False
        self._reference: Optional[_OutputReference] = None  # made by the array interfaces
        self._output: Any = None         # the output's description, read once (it never changes)
        self._complete = False           # a wait returned: later waits (an export's) need no call

    def _handle(self) -> Any:
        if self._h is None:
            raise error(Status.INVALID_HANDLE, "batch is closed: Batch.close() was called before this use")
        return self._h

    # ---- completion ----
    def wait(self) -> "Batch":
        """Blocks (without the GIL) until the batch completes; raises the error
        that failed it. Returns self."""
        # _handle() and _wait() inlined: this is on every batch's path (a one-image call's cost).
        handle = self._h
        if handle is None:
            self._handle()  # raises
        if not self._complete:
            handle.wait()
            self._complete = True
        return self

    def _wait(self, handle: Any) -> None:
        if not self._complete:
            handle.wait()
            self._complete = True

    def done(self) -> bool:
        """True when complete, False while in flight; raises if it failed."""
        return self._handle().query()

    def stream_wait(self, stream: Any) -> None:
        """Makes `stream` (int cudaStream_t, torch/CuPy stream) wait for the
        output on the device, without a host sync."""
        self._handle().stream_wait(stream_address(stream))

    def _hand_off(self, stream: int) -> None:
        """stream_wait(stream), kept as the batch's hand-off stream: exports
        to that stream then need no second wait, and __cuda_array_interface__
        names it."""
        self.stream_wait(stream)
        self._handoff_stream = stream

    @property
    def source_reusable(self) -> bool:
        """True once the source memory may be overwritten."""
        return self._handle().source_reusable()

    def wait_source(self) -> None:
        """Blocks until the source memory may be overwritten."""
        self._handle().wait_source()

    @property
    def augment_params(self) -> Any:
        """What each sample drew with ``augment=`` (written before submit
        returned): a NumPy structured array of n records (crop, flip,
        grayscale, brightness, contrast, saturation, hue, jitter_order,
        erased, erase; ferry/_augment.py), or None without augment.
        Readable after close() too."""
        return self._augment_params

    # ---- the output ----
    def _info(self) -> Any:
        handle = self._handle()
        if self._output is None:
            self._output = handle.output()
        return self._output

    @property
    def shape(self) -> Tuple[int, ...]:
        """In memory-layout order: (N, C, H, W) for NCHW, (N, H, W, C) for NHWC."""
        info = self._info()
        return tuple(info.shape_at(i) for i in range(info.ndim))

    @property
    def strides(self) -> Tuple[int, ...]:
        """Byte strides, in the order of :attr:`shape`."""
        info = self._info()
        return tuple(info.stride_at(i) for i in range(info.ndim))

    @property
    def dtype(self) -> DType:
        return DType(self._info().dtype)

    @property
    def layout(self) -> Layout:
        return Layout(self._info().layout)

    @property
    def device(self) -> Device:
        return Device(self._info().device_kind)

    @property
    def device_index(self) -> int:
        return self._info().device_index

    @property
    def data_ptr(self) -> int:
        """Address of the output (device memory on a GPU context)."""
        return self._info().data

    @property
    def nbytes(self) -> int:
        return self._info().bytes

    # ---- interop ----
    def __dlpack_device__(self) -> Tuple[int, int]:
        self._handle()  # raises once closed
        return self._context._dlpack_device

    def __dlpack__(self, *, stream: Any = None, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> Any:
        """A DLPack capsule of the output (no copy). On a GPU, `stream` is the
        consumer's stream (array API: None or 1 the legacy default stream,
        2 per-thread, -1 no synchronization); it is made to wait for the batch.
        On the CPU the call waits for the batch."""
        handle = self._h
        if handle is None:
            self._handle()  # raises
        device = self._context._dlpack_device
        if dl_device is not None and tuple(dl_device) != device:
            raise BufferError(f"dl_device is {tuple(dl_device)}: the batch is on {device}; ferry does not copy")
        if copy:
            raise BufferError("copy is True: ferry exports its output without a copy")
        if device[0] == _KDL_CUDA:
            if stream != -1:
                s = stream if type(stream) is int else stream_address(stream)
                s = 0 if s is None or s == 1 else s  # None and 1: the legacy default stream
                if s != self._handoff_stream:  # the hand-off at submit already ordered that stream
                    handle.stream_wait(s)
        elif not self._complete:
            handle.wait()
            self._complete = True
        return _swig.dlpack_capsule(handle, self._out, max_version is not None and max_version[0] >= 1)

    def torch(self) -> Any:
        """The output as a torch tensor (no copy), ready on torch's current
        stream: ``torch.from_dlpack(batch)`` in one step. torch.from_dlpack
        looks up the current stream through a torch.cuda.Stream object and
        calls ``__dlpack__`` with keywords, 10-16 us a call on an H200 host,
        about as much as the rest of a one-image call from Python; this
        asks torch for the raw stream (about 1 us) and hands torch the
        capsule. The tensor holds the output past close(), as any DLPack
        export does. On a GPU it needs no wait: take it first, then wait
        where the host must. torch must be importable."""
        current, from_capsule = _TORCH_INTEROP or torch_interop()
        handle = self._h
        if handle is None:
            self._handle()  # raises
        kind, index = self._context._dlpack_device
        if kind == _KDL_CUDA:
            stream = current(index)
            if stream != self._handoff_stream:  # the hand-off at submit already ordered that stream
                handle.stream_wait(stream)
        elif not self._complete:
            handle.wait()
            self._complete = True
        # __dlpack__(stream=...) inlined: the capsule, to torch as it is.
        return from_capsule(_swig.dlpack_capsule(handle, self._out, False))

    def _hold_output(self) -> None:
        """An array interface hands out a bare address: this object, which the
        consumer keeps, must keep the memory, also after close()."""
        if self._reference is None:
            self._reference = _OutputReference(_swig.retain_output(self._handle()))

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        """CUDA array interface v3 (GPU batches only). With a hand-off stream
        at submit, 'stream' is that stream (the consumer orders its work after
        it); otherwise the batch is waited for and 'stream' is None."""
        info = self._info()
        if info.device_kind != Device.CUDA:
            raise AttributeError("__cuda_array_interface__: the batch is on the CPU (use __array_interface__)")
        stream = self._handoff_stream
        if stream is None:
            self._wait(self._handle())
        self._hold_output()
        return {"shape": self.shape, "typestr": typestr(DType(info.dtype)), "data": (info.data, False),
                "strides": self.strides, "version": 3,
                "stream": None if stream is None else (1 if stream == 0 else stream)}

    @property
    def __array_interface__(self) -> Dict[str, Any]:
        """NumPy array interface v3 (CPU batches only); waits for the batch."""
        info = self._info()
        if info.device_kind == Device.CUDA:
            raise AttributeError("__array_interface__: the batch is on a GPU (use __dlpack__ or __cuda_array_interface__)")
        self._wait(self._handle())
        self._hold_output()
        return {"shape": self.shape, "typestr": typestr(DType(info.dtype)), "data": (info.data, False),
                "strides": self.strides, "version": 3}

    def numpy(self) -> Any:
        """The output as a NumPy array without a copy (CPU backend)."""
        import numpy as np
        return np.from_dlpack(self)

    # ---- release ----
    def close(self) -> None:
        """Releases the batch (ferry_batch_release) without waiting: work in
        flight finishes on its own, and the output's memory goes back in
        stream order once no export of it is alive. Idempotent."""
        if not self._closed:
            self._closed = True
            handle, self._h = self._h, None
            _swig._ferry_swig.delete_Batch(handle)  # the proxy keeps the (now invalid) handle id

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self._closed:  # close() inlined (every batch's path)
            self._closed = True
            handle, self._h = self._h, None
            _swig._ferry_swig.delete_Batch(handle)

    def __repr__(self) -> str:
        # Public properties only; a repr never raises (a failed batch says so).
        if self.closed:
            return "<ferry.Batch closed>"
        try:
            where = f"CUDA:{self.device_index}" if self.device == Device.CUDA else "CPU"
            what = f"shape={self.shape} dtype={self.dtype.name} layout={self.layout.name} device={where}"
        except Exception as exc:
            return f"<ferry.Batch ({type(exc).__name__}: {exc})>"
        try:
            state = "done" if self.done() else "in flight"
        except Exception as exc:
            state = f"failed ({getattr(exc, 'status', type(exc).__name__)!s})"
        return f"<ferry.Batch {what} {state}>"


class _OutputReference:
    """A ferry tensor reference (by id), released when this object is freed."""

    __slots__ = ("_id",)

    def __init__(self, reference: int) -> None:
        self._id = reference

    def __del__(self) -> None:
        try:
            _swig.release_output(self._id)
        except Exception:  # at interpreter exit the module may be gone
            pass
