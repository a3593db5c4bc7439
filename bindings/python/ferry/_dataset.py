"""ResidentDataset: uint8 samples held in the context's device memory
(ferry/dataset.h), moved once through the staging pipeline; every batch after
that is a gather on the device, with any transform and augmentation, and no
bus traffic. A gather is an ordinary :class:`ferry.Batch`: its output goes to
torch, NumPy or CuPy by DLPack and the array interfaces, and outlives the
dataset and the context by the same rules as a submitted batch's."""
from __future__ import annotations

import operator
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import ferry_swig as _swig
from ._arrays import stream_address
from ._augment import Augment, _integer, empty_params, raw_for
from ._batch import Batch
from ._context import Context, Transform, _spec, augment_of, check_context
from ._descriptors import TransformSpec, _positive_int, make_output, make_source, output_description, struct_fields
from ._enums import Device, Layout, Placement, SourcePolicy, Status, parse_placement
from ._errors import error
from ._indices import device_indices, host_indices, writer_stream

_U64 = "an int in [0, 2^64)"


def _invalid(message: str) -> Exception:
    return error(Status.INVALID_ARGUMENT, message)


def _index(value: Any, name: str) -> int:
    """An int (Python or NumPy, not bool); its range is ferry's to check."""
    if isinstance(value, (bool, np.bool_)):
        raise _invalid(f"{name} is {value!r}: an int expected")
    try:
        return operator.index(value)
    except TypeError:
        raise _invalid(f"{name} is {value!r}: an int expected") from None


def _size(nbytes: int) -> str:
    return f"{nbytes} bytes" if nbytes < 1 << 20 else f"{nbytes / (1 << 20):.1f} MiB"


class ResidentDataset:
    """uint8 samples uploaded once into `context`'s device memory (host
    memory on the CPU backend), gathered into batches from there.

    images: an (n, h, w, c) uint8 array ((n, c, h, w) with
        source_layout="NCHW") from NumPy, a buffer or a PyTorch CPU tensor,
        or a list of per-sample arrays, of different sizes too (a gather then
        needs a transform giving one output size: resize=, or a crop). Read
        during the constructor only: it may be reused or freed afterwards.
    placement: "replica" (every sample; ferry.Placement.REPLICA) or "shard"
        (rank's samples only: rank, rank + world_size, ..., DistributedSampler's
        split and padding); rank in [0, world_size).
    part_bytes: the upload's staging budget per part (0: 64 MiB).
    source_policy: how the host images reach the device, as for Context.submit.

    Thread-safe: several threads may gather at once. ``close()`` (or a with
    block) gives the memory back once the gathers in flight have completed;
    closing the context closes its datasets too.
    """

    def __init__(self, context: Context, images: Any, *, source_layout: Layout = Layout.NHWC,
                 placement: Any = Placement.REPLICA, rank: int = 0, world_size: int = 1, part_bytes: int = 0,
                 source_policy: SourcePolicy = SourcePolicy.AUTO) -> None:
        self._context = check_context(context)  # a dataset keeps its context object alive, as a Batch does
        self._h: Any = None
        opts = _swig.DatasetOptions()
        opts.placement = int(parse_placement(placement))
        opts.rank = _integer(rank, "rank", "an int in [0, world_size)", 1 << 31)
        opts.world_size = _integer(world_size, "world_size", "the number of ranks, an int >= 1", 1 << 31)
        opts.part_bytes = _integer(part_bytes, "part_bytes", f"bytes per upload part, {_U64} (0: 64 MiB)")
        opts.source_policy = int(SourcePolicy(source_policy))
        src, _keep = make_source(images, source_layout, "images")  # _keep: the images, alive through the upload
        self._h = _swig.Dataset(context._h, src, opts)
        info = self.info  # what never changes, read once
        self._count, self._epoch_size = info["count"], info["epoch_size"]
        # A source of `n` samples of the stored size, for what needs one without reading it: the
        # transform built for n samples, the output described for out=. Its data is never read.
        self._shape = (info["h"], info["w"], info["c"], int(info["layout"]))
        self._described: Optional[Any] = None

    def _handle(self) -> Any:
        if self._h is None:
            raise error(Status.INVALID_HANDLE,
                        "dataset is closed: ResidentDataset.close() was called before this use")
        if self._context.closed:  # ferry would say the same ("not a live ferry_dataset_t"), without the why
            raise error(Status.INVALID_HANDLE,
                        "dataset's context is closed: Context.close() destroyed its datasets before this use")
        return self._h

    # ---- what it holds ----
    def __len__(self) -> int:
        """The samples held: every sample of a replica, a shard's own."""
        return self._count

    @property
    def context(self) -> Context:
        return self._context

    @property
    def info(self) -> Dict[str, Any]:
        """``ferry_dataset_info`` as a dict: count, source_count, h, w, c
        (the largest sample's with variable sizes), layout, variable_sizes,
        bytes, device_kind, device_index, placement, rank, world_size,
        epoch_size, upload_seconds."""
        raw = self._handle().info()
        info = struct_fields(raw)
        info.update(layout=Layout(info["layout"]), device_kind=Device(info["device_kind"]),
                    placement=Placement(info["placement"]), variable_sizes=bool(info["variable_sizes"]))
        return info

    def source_index(self, index: int) -> int:
        """The sample of the images given to the constructor that dataset
        sample `index` holds (for labels kept beside the samples)."""
        return self._handle().source_index(_index(index, "index"))

    def source_indices(self) -> np.ndarray:
        """source_index(i) of every sample i, as an int64 array (one crossing)."""
        out = np.empty(self._count, np.int64)
        self._handle().source_indices(out)
        return out

    def epoch(self, seed: int = 0, epoch: int = 0, shuffle: bool = True) -> np.ndarray:
        """This rank's order for one epoch: ``info["epoch_size"]`` dataset
        indices (int64). Shuffled, a permutation drawn from (seed, epoch), the
        same on every backend, rank and run, split among ranks by
        DistributedSampler's rule; else in order."""
        out = np.empty(self._epoch_size, np.int64)
        self._handle().epoch(out, _integer(seed, "seed", _U64), _integer(epoch, "epoch", _U64), bool(shuffle))
        return out

    # ---- batches ----
    def gather(self, indices: Any, transform: Optional[Transform] = None, *, out: Any = None, stream: Any = None,
               priority: int = 0, augment: Optional[Augment] = None, **transform_kwargs: Any) -> Batch:
        """Samples `indices` converted into one :class:`ferry.Batch`, in one
        launch on the device; returns at once. indices: dataset indices
        (repeats allowed) in host memory (a sequence, an int array, a CPU
        tensor), checked before anything runs; or an int64 CUDA tensor on the
        dataset's GPU (one sample size only), read on the device when the
        gather runs, after the work queued on `stream` (default: torch's
        current stream, which wrote them), clamped into range, and held until
        the batch completes. transform, the transform keywords (dtype, layout,
        mean, std, resize, ...), augment, out, stream and priority: as for
        :meth:`Context.submit`. With augment, sample i of the gather draws at
        (seed, step, first_index + i), as the same batch submitted from host
        memory would."""
        handle = self._handle()
        on_device = device_indices(indices, self._context)
        if on_device is None:
            args, keepalive = (host_indices(indices),), None
        else:
            args, keepalive = (on_device.address, on_device.shape[0]), on_device.keepalive
            stream = writer_stream(indices) if stream is None else stream
        spec = _spec(transform, transform_kwargs)
        return self._gather(handle, args, spec, augment_of(augment, spec), out, stream, priority, keepalive)

    def _gather_device(self, address: int, n: int, spec: TransformSpec, aug: Optional[Augment], stream: int,
                       keepalive: Any) -> Batch:
        """A gather of the n int64 dataset indices at `address` on the
        context's GPU, which the caller has checked once for all its gathers
        (ResidentLoader: an epoch's order, sliced per batch): gather()'s
        checks of the indices cost more than the gather's own host work."""
        return self._gather(self._handle(), (address, n), spec, aug, None, stream, 0, keepalive)

    def _gather_device_capsule(self, address: int, n: int, spec: TransformSpec, aug: Optional[Augment],
                               handoff: Optional[int], keepalive: Any) -> Tuple[Any, Any]:
        """_gather_device's gather taken straight to a DLPack capsule of its
        output, the batch released (one crossing: ResidentLoader's thread,
        ferry/_ahead.py), and the draws (None without augment)."""
        handle = self._handle()
        _, t, raw = self._build(spec, aug, n)
        drawn = None if aug is None else empty_params(n)
        capsule = handle.gather_device_capsule(address, n, t, handoff, (t, keepalive), raw,
                                               0 if aug is None else aug.step, 0 if drawn is None else drawn.ctypes.data)
        return capsule, drawn

    def _gather(self, handle: Any, args: tuple, spec: TransformSpec, aug: Optional[Augment], out: Any, stream: Any,
                priority: int, keepalive: Any) -> Batch:
        """The gather of host indices (args: (int64 array,)) or device ones
        (args: (address, count)), its indices checked."""
        if len(args) == 1:
            n, plain, augmented = len(args[0]), handle.gather_holding, handle.gather_augmented
        else:
            n, plain, augmented = args[1], handle.gather_device_holding, handle.gather_device_augmented
        src, t, raw = self._build(spec, aug, n)
        output, keep = None, None
        if out is not None:
            output, keep = make_output(out, self._output_info(src, t, raw))
        opts = _swig.SubmitOptions()
        handoff = stream_address(stream)
        if handoff is not None:
            opts.handoff_stream = handoff
            opts.has_handoff_stream = 1
        opts.priority = int(priority)
        # ferry holds what the gather reads and writes (the caller's output, device indices) until complete
        held = (keep, t, output, keepalive)
        if aug is None:
            return Batch(plain(*args, t, output, opts, held), self._context, out, handoff)
        drawn = empty_params(n)
        batch = augmented(*args, t, output, opts, held, raw, aug.step, drawn.ctypes.data)
        return Batch(batch, self._context, out, handoff, drawn)

    def _build(self, spec: TransformSpec, aug: Optional[Augment], n: int) -> Any:
        """(shape source, ferry_transform, ferry_augment or None) for n samples."""
        src = self._described
        if src is None or src.n != n:
            h, w, c, layout = self._shape
            src = _swig.Source()
            src.n, src.h, src.w, src.c, src.layout = n, h, w, c, layout
            src.data, src.bytes = 1, n * h * w * c  # describing reads no memory; it wants a non-NULL one
            self._described = src
        return src, spec.build(src), None if aug is None else raw_for(aug, spec, src)

    @staticmethod
    def _output_info(src: Any, t: Any, raw: Any) -> Any:
        return (_swig.transform_output_info(src, t) if raw is None else
                _swig.transform_output_info_augmented(src, t, raw))

    def output_info(self, n: int, transform: Optional[Transform] = None, *, augment: Optional[Augment] = None,
                    **transform_kwargs: Any) -> Dict[str, Any]:
        """What a gather of n samples with this transform gives, as
        :func:`ferry.output_info` says it (shape, strides, dtype, layout,
        nbytes): to allocate an ``out``, or to check a transform early."""
        spec = _spec(transform, transform_kwargs)
        src, t, raw = self._build(spec, augment_of(augment, spec),
                                  _positive_int(n, "n", "the samples of the gather, an int >= 1"))
        return output_description(self._output_info(src, t, raw))

    # ---- release ----
    def close(self) -> None:
        """ferry_dataset_destroy: the memory goes back once the gathers in
        flight have completed (their outputs live on by their own rules).
        Idempotent; any later use raises InvalidHandleError."""
        if self._h is not None:
            handle, self._h = self._h, None
            _swig._ferry_swig.delete_Dataset(handle)  # the proxy keeps the (now invalid) handle id

    @property
    def closed(self) -> bool:
        return self._h is None

    def __enter__(self) -> "ResidentDataset":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._h is None or self._context.closed:
            return f"<ferry.ResidentDataset {'closed' if self._h is None else 'context closed'}>"
        try:  # a repr never raises (the context may be closed)
            i = self.info
        except Exception as exc:
            return f"<ferry.ResidentDataset ({type(exc).__name__}: {exc})>"
        size = f"up to {i['h']}x{i['w']}x{i['c']}" if i["variable_sizes"] else f"{i['h']}x{i['w']}x{i['c']}"
        where = f"CUDA:{i['device_index']}" if i["device_kind"] == Device.CUDA else "CPU"
        part = ("replica" if i["placement"] == Placement.REPLICA else
                f"shard {i['rank']}/{i['world_size']} of {i['source_count']}")
        return (f"<ferry.ResidentDataset {i['count']} samples {size} uint8 {i['layout'].name} {part} "
                f"on {where}, {_size(i['bytes'])}>")
