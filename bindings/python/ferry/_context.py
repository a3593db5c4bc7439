"""Context: everything ferry owns for one device (streams, pools, caches)."""
from __future__ import annotations

import atexit
import weakref
from typing import Any, Dict, Optional

from . import ferry_swig as _swig
from ._arrays import stream_address, view
from ._augment import Augment, check_augment, empty_params, raw_for
from ._batch import _KDL_CPU, _KDL_CUDA, Batch
from ._descriptors import TransformSpec, make_output, make_transform, struct_fields
from ._transform_cache import cached_transform
from ._enums import Device, Layout, MemoryKind, SourcePolicy, Status, parse_layout
from ._errors import error
from ._frames import frame_spec, make_frame_source

_OPTION_FIELDS = ("device_index", "stream_count", "high_priority_streams", "pinned_cache_bytes",
                  "pinned_prealloc_bytes", "pinned_wait_at_cap", "registry_cache_bytes",
                  "device_cache_bytes", "staging_threads", "cpu_threads", "chunk_bytes",
                  "max_batches_in_flight", "max_staging_bytes", "submit_nonblocking", "max_unreleased_batches",
                  "pinned_method", "device_timing")


def _spec(transform: Any, kwargs: Dict[str, Any]) -> TransformSpec:
    """The TransformSpec of a Transform or of the keywords (cached per keyword set)."""
    if transform is not None and kwargs:
        raise error(Status.INVALID_ARGUMENT,
                    f"transform and {sorted(kwargs)} are both given: pass a Transform or keywords")
    if transform is not None:
        if not isinstance(transform, Transform):
            raise error(Status.INVALID_ARGUMENT,
                        f"transform is a {type(transform).__name__}: a ferry.Transform expected "
                        "(or pass the transform keywords themselves)")
        return transform._spec
    return cached_transform(kwargs)


def augment_of(augment: Any, spec: TransformSpec) -> Optional[Augment]:
    """The call's augment= (it overrides a Transform's), else the Transform's."""
    return check_augment(augment) if augment is not None else spec.augment


def _is_torch(obj: Any) -> bool:
    return type(obj).__module__.startswith("torch")


def _torch_as_numpy(tensor: Any) -> Any:
    """A PyTorch CPU tensor as the NumPy array over its memory (no copy) for the
    buffer-protocol path; the tensor itself where that cannot be (the general
    path describes it: a CUDA tensor, one that requires grad)."""
    try:
        return tensor.numpy()
    except (RuntimeError, TypeError):
        return tensor


class Transform:
    """A reusable conversion (see ``ferry_transform``). Keywords as for
    :meth:`Context.submit`: dtype, layout, channel_map, pad_channels_to_4,
    pad_value, scale, mean, std, crop, mirror, per_sample_mean,
    per_sample_std, per_sample_crop, per_sample_mirror, pad_outside,
    fill_value, and the resize keywords resize, interpolation, resize_mode,
    resize_shorter, letterbox_align, letterbox_value, window,
    per_sample_window, and augment (a :class:`ferry.Augment`)."""

    def __init__(self, **kwargs: Any) -> None:
        self._spec = make_transform(**kwargs)  # checked here; mean/std against a source's channels at use

    @classmethod
    def _of_keywords(cls, kwargs: Dict[str, Any]) -> "Transform":
        """Transform(**kwargs) with the spec cached_transform keeps for these
        keywords: a loader made anew each epoch then finds its transform
        built for the source's shape, where a new spec builds it again at
        the pass's first submit (tens of microseconds before the first copy)."""
        made = cls.__new__(cls)
        made._spec = cached_transform(kwargs)
        return made

    def __repr__(self) -> str:
        return f"ferry.Transform({self._spec.keywords()})"


class Context:
    """A ferry context. ``with ferry.Context() as ctx:`` destroys it at the
    end of the block (waiting for its batches); ``close()`` does the same.

    All keyword options are those of ``ferry_context_options``; None (the
    default) keeps ferry's default. Thread-safe. A context still open at
    interpreter exit is closed then (an atexit handler).
    """

    def __init__(self, device: Device = Device.AUTO, **options: Any) -> None:
        unknown = set(options) - set(_OPTION_FIELDS)
        if unknown:
            raise TypeError(f"unknown Context options {sorted(unknown)}; known: {', '.join(_OPTION_FIELDS)}")
        raw = _swig.ContextOptions()
        raw.device_kind = int(Device(device))
        for name, value in options.items():
            if value is not None:
                setattr(raw, name, int(value))
        self._h = _swig.Context(raw)
        # Read once: every batch's output is on the context's device (Batch.__dlpack_device__).
        kind, index = self._h.device_kind(), self._h.device_index()
        self._dlpack_device = (_KDL_CUDA, index) if kind == Device.CUDA else (_KDL_CPU, 0)
        # Cached: loaders ask for them per batch, and a call into ferry costs tens of microseconds there.
        self._device, self._device_index = Device(kind), index
        self._closed = False
        self._registered: Dict[int, Any] = {}
        _OPEN.add(self)

    # ---- device ----
    @property
    def device(self) -> Device:
        """CPU or CUDA (AUTO resolved)."""
        if self._closed:
            return Device(self._h.device_kind())  # raises ferry's InvalidHandleError
        return self._device

    @property
    def device_index(self) -> int:
        if self._closed:
            return self._h.device_index()  # raises ferry's InvalidHandleError
        return self._device_index

    # ---- batches ----
    def submit(self, source: Any = None, transform: Optional[Transform] = None, *,
               source_layout: Layout = Layout.NHWC, out: Any = None, stream: Any = None,
               priority: int = 0, source_policy: SourcePolicy = SourcePolicy.AUTO,
               chunk_bytes: int = 0, format: Any = None, size: Any = None, planes: Any = None,
               color_matrix: Any = None, color_range: Any = None, chroma_filter: Any = None,
               augment: Optional[Augment] = None, **transform_kwargs: Any) -> Batch:
        """Submits a uint8 batch; returns at once with a :class:`Batch`.

        source: an (n, h, w, c) array (or (h, w, c) / (h, w) for one image;
            (n, c, h, w) with source_layout=NCHW), contiguous or strided, from
            NumPy, a buffer (bytes, bytearray, memoryview) or a PyTorch CPU
            tensor; or a list of per-sample arrays (of different sizes where
            a resize, or per_sample_crop windows of one size, give one
            output size). Not copied: it is kept
            alive by the batch and must not change until ``source_reusable``.
        frames (camera and video; decoded to R, G, B in the same pass, then
            every transform keyword applies; see ferry/_frames.py):
            format=PixelFormat.NV12 (or "nv12", "nv21", "i420", "yv12",
            "yuyv", "uyvy", "bayer_rggb", "bayer_bggr", "bayer_grbg",
            "bayer_gbrg"), the source one frame ((h * 3/2, w) for 4:2:0 as
            OpenCV's, (h, w, 2) for YUYV/UYVY, (h, w) for Bayer, or 1-D),
            a batch of them along a leading dimension, or a list of frames;
            size=(h, w) where the shape does not tell it (flat, odd sizes);
            planes=(y, uv) / (y, u, v) instead of source: one array per
            plane; color_matrix=ColorMatrix.BT601 (or "bt709", "bt2020"),
            color_range=ColorRange.LIMITED (or "full"),
            chroma_filter=ChromaFilter.NEAREST (or "linear").
        out: the caller's destination (NumPy on the CPU backend, a CUDA
            tensor/array on a GPU), shaped as the transform's output in its
            layout's order; None: ferry allocates it.
        stream: the caller's CUDA stream to hand the batch off to (it waits
            for the batch on the device); also the stream given as
            ``__cuda_array_interface__['stream']``.
        transform keywords: dtype=DType.FLOAT32 (also "float16"/"f16",
            np.float16, torch.bfloat16, ...), layout=Layout.NCHW (or "NHWC"),
            channel_map, scale=1/255, mean, std (each a number, 1 value or
            one per output channel), crop=(x, y, w, h), mirror,
            per_sample_mean/std ((n, channels), (n, 1) or (n,)),
            per_sample_crop ((n, 4)), per_sample_mirror ((n,)),
            pad_channels_to_4, pad_value, pad_outside, fill_value.
        resize keywords (the window resampled to the output size in the same
            pass, on either backend):
            resize=(h, w) (or one int for a square), interpolation=
            Interpolation.LINEAR (or "nearest" (half-pixel centers, cv2's
            INTER_NEAREST_EXACT), "linear", "cubic", "area",
            "linear_antialias" (torchvision's antialias=True)),
            resize_mode=ResizeMode.STRETCH (or "letterbox": aspect kept,
            bars of letterbox_value; "shorter_side": torchvision's
            Resize(resize_shorter) + CenterCrop(resize)), resize_shorter,
            letterbox_align ("center" or "top_left"), letterbox_value (output
            units, a number or one per output channel), window=(x, y, w, h)
            (floats, fractional edges), per_sample_window ((n, 4) floats); the
            window is per_sample_window, window, per_sample_crop (whose rows may
            then differ in size) or crop, else the whole image, and must lie
            inside it.
        augment: a :class:`ferry.Augment`, drawn per sample at its step and
            applied in the same pass (it overrides a Transform's augment);
            what each sample drew is ``batch.augment_params``, written
            before this returns (ferry/_augment.py says its fields).
        """
        # The common case (keywords, a NumPy array, ferry's output) is written for a one-image
        # call's cost (issue 11): each step below is inlined where a helper call would cost more.
        spec = cached_transform(transform_kwargs) if transform is None else _spec(transform, transform_kwargs)
        aug = spec.augment if augment is None else check_augment(augment)
        handoff = stream if stream is None or type(stream) is int else stream_address(stream)
        frame = None  # a camera or video frame (ferry/_frames.py); checked only where a keyword is given
        if format is not None or planes is not None or size is not None or color_matrix is not None or \
                color_range is not None or chroma_filter is not None:
            frame = frame_spec(format, size, color_matrix, color_range, chroma_filter, planes)
        if out is None and frame is None and aug is None and not isinstance(source, (list, tuple)):
            # The common case in one crossing (ferry_python.i: submit_array); None where the
            # general path below must look at the source, or build the transform first.
            array = _torch_as_numpy(source) if type(source).__module__.startswith("torch") else source
            layout = source_layout if type(source_layout) is Layout else parse_layout(source_layout, "source_layout")
            policy = source_policy if type(source_policy) is SourcePolicy else SourcePolicy(source_policy)
            handle = self._h.submit_array(array, int(layout), spec.built, handoff,
                                          priority if type(priority) is int else int(priority), int(policy),
                                          chunk_bytes if type(chunk_bytes) is int else int(chunk_bytes))
            if handle is not None:
                return Batch(handle, self, None, handoff)
        src, keepalive = make_frame_source(source, source_layout, frame, planes)
        t = spec.build(src)
        output = None
        if out is not None:
            output, out_keep = make_output(out, _swig.transform_output_info(src, t))
            keepalive.append(out_keep)
        opts = _swig.SubmitOptions()
        if handoff is not None:
            opts.handoff_stream = handoff
            opts.has_handoff_stream = 1
        opts.priority = int(priority)
        opts.source_policy = int(SourcePolicy(source_policy))
        opts.chunk_bytes = int(chunk_bytes)
        # ferry holds what the batch reads and writes until it completes
        # (a completion callback drops it), however the Batch is dropped.
        held = (keepalive, src, t, output)
        if aug is None:
            return Batch(self._h.submit_holding(src, t, output, opts, held), self, out, handoff)
        drawn = empty_params(int(src.n))
        handle = self._h.submit_augmented(src, t, output, opts, held, raw_for(aug, spec, src), aug.step,
                                          drawn.ctypes.data)
        return Batch(handle, self, out, handoff, drawn)

    def convert(self, source: Any = None, out: Any = None, transform: Optional[Transform] = None, *,
                source_layout: Layout = Layout.NHWC, stream: Any = None, format: Any = None, size: Any = None,
                planes: Any = None, color_matrix: Any = None, color_range: Any = None, chroma_filter: Any = None,
                augment: Optional[Augment] = None, **transform_kwargs: Any) -> Any:
        """ferry_transform_apply: a source already in this context's memory (device
        arrays on a GPU, host arrays on the CPU) into `out`, one launch on
        `stream`. Asynchronous on a GPU, complete on return on the CPU.
        Frames: the keywords of :meth:`submit` (``convert(planes=(y, uv), out=out, format="nv12")``).
        augment: as for :meth:`submit`; returns what each sample drew (the
        ``augment_params`` array), else None."""
        frame = frame_spec(format, size, color_matrix, color_range, chroma_filter, planes)
        src, _keep = make_frame_source(source, source_layout, frame, planes)
        spec = _spec(transform, transform_kwargs)
        aug = augment_of(augment, spec)
        t = spec.build(src)
        if aug is None:
            output, _out_keep = make_output(out, _swig.transform_output_info(src, t))
            self._h.convert(src, t, output, stream_address(stream))
            return None
        raw = raw_for(aug, spec, src)
        output, _out_keep = make_output(out, _swig.transform_output_info_augmented(src, t, raw))
        drawn = empty_params(int(src.n))
        self._h.convert_augmented(src, t, output, stream_address(stream), raw, aug.step, drawn.ctypes.data)
        return drawn

    # ---- memory ----
    def host_alloc(self, nbytes: int) -> "HostBuffer":
        """Pinned host memory from the context's pool (aligned host memory on
        the CPU backend), as a writable buffer; free with close()."""
        return HostBuffer(self, self._h.host_alloc(int(nbytes)), int(nbytes))

    def register(self, buffer: Any) -> None:
        """ferry_memory_register_host: pins a buffer the caller reuses. The buffer is
        kept alive until :meth:`unregister` or close()."""
        v = view(buffer, "buffer")
        self._h.host_register(v.address, v.extent)
        self._registered[v.address] = v.keepalive

    def unregister(self, buffer: Any) -> None:
        """ferry_memory_unregister_host: a buffer registered before (or cached)."""
        v = view(buffer, "buffer")
        self._h.host_unregister(v.address)
        self._registered.pop(v.address, None)

    def device_alloc(self, nbytes: int, stream: Any = None) -> int:
        """Device memory (host memory on the CPU backend) from the caching
        allocator, usable at once on `stream`. Returns its address."""
        return self._h.device_alloc(int(nbytes), stream_address(stream))

    def device_free(self, address: int, stream: Any = None) -> None:
        self._h.device_free(address, stream_address(stream))

    def trim(self, kinds: MemoryKind = MemoryKind.ALL) -> None:
        """Gives cached, unused memory of `kinds` back to the system."""
        self._h.memory_trim(int(kinds))

    def stats(self) -> Dict[str, Any]:
        """A snapshot of the context's counters (``ferry_stats``) as a dict."""
        return struct_fields(self._h.stats())

    def reset_stats(self) -> None:
        self._h.reset_stats()

    # ---- release ----
    def close(self) -> None:
        """ferry_context_destroy: waits for batches in flight, then frees all
        the context owns. Idempotent; any later use raises InvalidHandleError."""
        if not self._closed:
            self._closed = True
            self._registered.clear()
            _swig._ferry_swig.delete_Context(self._h)  # the proxy keeps the (now invalid) handle id
            _swig.release_held()  # the sources its batches held, dropped now, not at the next submit

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return "<ferry.Context closed>"
        if self.device != Device.CUDA:
            return "<ferry.Context CPU>"
        try:
            name = f" {_swig.device_properties(self.device_index).name!r}"
        except Exception:  # a repr never raises
            name = ""
        return f"<ferry.Context CUDA:{self.device_index}{name}>"


_OPEN: "weakref.WeakSet[Context]" = weakref.WeakSet()


@atexit.register
def _close_open_contexts() -> None:
    """At interpreter exit, the contexts still open are closed while Python
    still serves other threads: ferry's completion thread may have a batch's
    held objects (its source, a caller's output) left to drop, and a thread
    that asks for the GIL once finalization has begun is ended, which aborts
    the process ("FATAL: exception not rethrown")."""
    for context in list(_OPEN):
        context.close()


def check_context(context: Any) -> Context:
    """`context` when it is a ferry.Context (the loaders' and datasets' argument), else InvalidArgumentError."""
    if not isinstance(context, Context):
        raise error(Status.INVALID_ARGUMENT, f"context is a {type(context).__name__}: a ferry.Context expected")
    return context


class HostBuffer:
    """Pinned host memory from :meth:`Context.host_alloc`: a writable buffer
    (``numpy.asarray(buf)`` views it as uint8) to write frames into and to
    submit without a staging copy."""

    def __init__(self, context: Context, address: int, nbytes: int) -> None:
        self._context = context
        self.address = address
        self.nbytes = nbytes
        self._freed = False

    @property
    def __array_interface__(self) -> Dict[str, Any]:
        if self._freed:
            raise error(Status.INVALID_ARGUMENT, f"buffer 0x{self.address:x} was freed (HostBuffer.close())")
        return {"shape": (self.nbytes,), "typestr": "|u1", "data": (self.address, False), "version": 3}

    def close(self, stream: Any = None) -> None:
        """ferry_memory_free_host (ferry_memory_free_host_on_stream with a stream). Idempotent."""
        if not self._freed:
            self._freed = True
            s = stream_address(stream)
            if s is None:
                self._context._h.host_free(self.address)
            else:
                self._context._h.host_free_on_stream(self.address, s)

    def __repr__(self) -> str:
        state = "freed" if self._freed else ("context closed" if self._context.closed else
                                             "pinned" if self._context.device == Device.CUDA else "host")
        return f"<ferry.HostBuffer address=0x{self.address:x} nbytes={self.nbytes} {state}>"

    def __enter__(self) -> "HostBuffer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
