"""PrefetchLoader: batches from any iterable staged `depth` ahead by ferry.

What users know from timm's PrefetchLoader, torchtnt's CudaDataPrefetcher and
tf.data's prefetch_to_device, with ferry doing the copy and the conversion:
while the caller works on batch k, batches k+1 .. k+depth are already being
copied and converted. Each is submitted without a hand-off and made to wait
on the stream that is current when it is yielded (PyTorch's current CUDA
stream when torch uses CUDA), so what the loader yields is ready on the
caller's stream without a host sync. (A hand-off at submit would make the
submit of a pageable batch wait until every byte was gathered, so the next
batch's gathering could not begin until the loop came round again.)
"""
from __future__ import annotations

import sys
from collections import deque
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, Optional, Tuple

from ._ahead import release
from ._augment import Augment, check_augment
from ._batch import Batch, torch_interop
from ._context import Context, Transform, check_context
from ._enums import Device, Layout, SourcePolicy, Status
from ._errors import FerryError, error
from ._frames import frame_spec

def _is_torch(obj: Any) -> bool:
    return type(obj).__module__.startswith("torch")


def _ndim(obj: Any) -> Optional[int]:
    shape = getattr(obj, "shape", None)
    return len(shape) if shape is not None else None


class _Item:
    """One item of the iterable: the uint8 batch ferry stages, and the item
    itself for the fields that pass through (rebuilt around the output)."""

    __slots__ = ("images", "record", "key")

    def __init__(self, item: Any, field: Any) -> None:
        self.record: Any = None  # the dict / tuple / list the batch came in, or None
        self.key: Any = None     # its key or index
        if isinstance(item, dict):
            self.key = self._dict_key(item, field)
        elif isinstance(item, tuple) or (isinstance(item, list) and item and
                                         (field is not None or _ndim(item[0]) == 4)):
            # A record (images, labels, ...); a DataLoader collates tuples into lists. A list
            # whose first element is one image (2-D or 3-D) is a list of samples instead.
            index = 0 if field is None else field
            if isinstance(index, bool) or not isinstance(index, int) or not -len(item) <= index < len(item):
                raise error(Status.INVALID_ARGUMENT,
                            f"field is {index!r}: the item is a record of {len(item)} fields, indexed by an int")
            self.key = index % len(item)
        else:
            self.images = item
            return
        self.record = item
        self.images = item[self.key]

    @staticmethod
    def _dict_key(item: dict, field: Any) -> Any:
        if field is not None:
            if field not in item:
                raise error(Status.INVALID_ARGUMENT, f"field is {field!r}: the item's keys are {list(item)}")
            return field
        images = [k for k, v in item.items() if _ndim(v) in (3, 4) and str(getattr(v, "dtype", "")).endswith("uint8")]
        if len(images) != 1:
            raise error(Status.INVALID_ARGUMENT,
                        f"the item is a dict with {len(images)} uint8 image fields {images}: "
                        "name the one to stage with field=")
        return images[0]

    def move_rest(self, move: Any) -> None:
        """Moves the passing-through fields (PyTorch tensors) to the device."""
        if isinstance(self.record, dict):
            self.record = {k: (v if k == self.key else move(v)) for k, v in self.record.items()}
        elif self.record is not None:
            self.record = type(self.record)(v if i == self.key else move(v) for i, v in enumerate(self.record))

    def rebuild(self, output: Any) -> Any:
        """The item with the staged batch replaced by `output`."""
        if self.record is None:
            return output
        if isinstance(self.record, dict):
            return {k: (output if k == self.key else v) for k, v in self.record.items()}
        return type(self.record)(output if i == self.key else v for i, v in enumerate(self.record))


class PrefetchLoader:
    """Wraps an iterable of uint8 host batches and yields them converted on
    the context's device, `depth` batches submitted ahead.

    iterable: yields uint8 batches: (n, h, w, c) arrays (NumPy, a PyTorch CPU
        tensor, any buffer), lists of per-sample arrays, or records: tuples
        (or a DataLoader's lists) whose `field` (default 0) is the batch, and
        dicts whose `field` (default: the one uint8 image field) is. The other
        fields pass through; PyTorch tensors among them are moved to the
        context's device (non_blocking).
    context: the ferry.Context that stages (it stays the caller's to close).
    depth: batches in flight ahead of the one yielded (default 2, >= 1).
    torch: yield PyTorch tensors (torch.from_dlpack, the batch released at
        once); False: yield the ferry.Batch itself, which any DLPack consumer
        takes and which is closed when the next item is asked for.
    transform, transform keywords (mean=, std=, dtype=, layout=, ...),
    source_layout, source_policy: as for Context.submit.
    format, size, color_matrix, color_range, chroma_filter: the iterable
        yields camera or video frames (one buffer a batch), as for
        Context.submit.
    augment: a ferry.Augment (or the Transform's): the k-th batch the loader
        yields draws at step augment.step + k (augment.step read when the
        loader is made), counted on across passes, so each epoch draws anew.
        ``loader.step`` is the step of the next batch to be yielded (batches
        submitted ahead of a loop left early do not count): save it, and
        resume with ``loader.step = saved`` (or augment.step = saved in a new
        loader). ``loader.augment_params`` is what the last yielded batch
        drew (also its Batch.augment_params).

    len(loader) is len(iterable). Leaving the loop (break, an exception in the
    loop or in the iterable) waits for the batches in flight and releases them,
    then the error, if any, reaches the caller. A loader may be iterated again
    (each pass iterates the iterable anew). One loop at a time per iterator:
    an iterator is not thread-safe; the context is.
    """

    def __init__(self, iterable: Iterable[Any], context: Context, *, depth: int = 2, torch: bool = False,
                 field: Any = None, transform: Optional[Transform] = None, source_layout: Layout = Layout.NHWC,
                 source_policy: SourcePolicy = SourcePolicy.AUTO, format: Any = None, size: Any = None,
                 color_matrix: Any = None, color_range: Any = None, chroma_filter: Any = None,
                 augment: Optional[Augment] = None, **transform_kwargs: Any) -> None:
        self._iterable = iterable
        self._context = check_context(context)
        self._depth = check_depth(depth)
        self._torch = bool(torch)
        self._field = field
        self._submit_args = dict(source_layout=source_layout, source_policy=source_policy)
        frame = dict(format=format, size=size, color_matrix=color_matrix, color_range=color_range,
                     chroma_filter=chroma_filter)
        frame_spec(**frame)  # checked now, as the transform keywords are
        self._submit_args.update((k, v) for k, v in frame.items() if v is not None)
        self._transform, self._augment = loader_transform(transform, augment, transform_kwargs)
        self._step = self._augment.step if self._augment is not None else 0
        self.augment_params: Any = None

    @property
    def step(self) -> int:
        """The augmentation step of the next batch yielded (see augment)."""
        return self._step

    @step.setter
    def step(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
            raise error(Status.INVALID_ARGUMENT, f"step is {value!r}: an int in [0, 2^64)")
        self._step = value

    @property
    def depth(self) -> int:
        return self._depth

    def __len__(self) -> int:
        return len(self._iterable)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Any]:
        if self._context.closed:
            raise error(Status.INVALID_HANDLE, "the loader's context is closed: Context.close() was called "
                        "before iterating")
        return self._run()

    # ---- the loop ----
    def _run(self) -> Iterator[Any]:
        stream, move = device_hooks(self._context)
        first_step = self._step  # batch k of this pass draws at first_step + k

        def submitted() -> Iterator[Tuple[Batch, Any, Any]]:
            for index, item in enumerate(self._iterable):
                yield self._submit(item, index, first_step + index, stream, move)

        batches = in_flight(submitted(), self._depth, self._torch, stream)
        try:
            for output, batch, (parts, step) in batches:
                self._step, self.augment_params = step + 1, batch.augment_params
                yield parts.rebuild(output)
        finally:
            batches.close()  # a loop left early: nothing stays in flight

    def _submit(self, item: Any, index: int, step: int, stream: Any, move: Any) -> Tuple[Batch, Any, Any]:
        parts = _Item(item, self._field)
        augment = None if self._augment is None else self._augment._with_step(step % (1 << 64))
        try:
            # No hand-off: submit returns at once, and in_flight makes the stream current at
            # yield time wait for the batch.
            batch = self._context.submit(parts.images, self._transform, augment=augment, **self._submit_args)
        except FerryError as e:
            raise type(e)(f"batch {index} from the iterable: {e.message}", e.status) from None
        parts.images = None  # ferry holds the source until it has read it
        parts.move_rest(move)  # now, so that these copies overlap with the loop's work too
        return batch, None, (parts, step)


# ---- shared with ResidentLoader (ferry/_resident.py) ----

def check_depth(depth: Any) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise error(Status.INVALID_ARGUMENT,
                    f"depth is {depth!r}: the batches kept in flight ahead, an int >= 1 (default 2)")
    return depth


def loader_transform(transform: Optional[Transform], augment: Optional[Augment],
                     transform_kwargs: Dict[str, Any]) -> Tuple[Transform, Optional[Augment]]:
    """A loader's Transform (built now: a bad keyword fails here, not at the
    first batch; reused for every batch) and its augmentation (augment=, else
    the Transform's)."""
    if transform is not None and (transform_kwargs or not isinstance(transform, Transform)):
        raise error(Status.INVALID_ARGUMENT, f"transform is {transform!r} with keywords {sorted(transform_kwargs)}: "
                    "pass one ferry.Transform, or the transform keywords")
    made = transform if transform is not None else Transform._of_keywords(transform_kwargs)
    return made, check_augment(augment) if augment is not None else made._spec.augment


def in_flight(submitted: Iterator[Tuple[Batch, Any, Any]], depth: int, as_torch: bool,
              stream: Callable[[], Any]) -> Iterator[Tuple[Any, Batch, Any]]:
    """The batches `submitted` makes (each next() submits one: (batch, the
    stream it was handed off to or None, what rides along)), kept `depth`
    ahead of the one yielded as (output, batch, what rides along). The output
    is a torch tensor (the batch released at once) with as_torch, else the
    batch itself, closed when the next one is asked for. A batch is made to
    wait on the caller's current stream at yield time unless it was handed off
    to that stream at submit. Closing this generator (a loop left early, an
    error) waits for the batches in flight and releases them."""
    pending: Deque[Tuple[Batch, Any, Any]] = deque()
    yielded: Optional[Batch] = None
    try:
        while True:
            while len(pending) < depth + 1:  # the one to yield plus `depth` ahead
                try:
                    pending.append(next(submitted))
                except StopIteration:
                    break
            if not pending:
                return
            batch, handed_to, along = pending.popleft()
            if yielded is not None:
                yielded.close()
                yielded = None
            current = stream()
            if current is not None and current != handed_to:
                batch._hand_off(current)  # not handed off at submit, or the caller moved to another stream
            if as_torch:
                with batch:
                    output = torch_output(batch, current)
            else:
                output = yielded = batch
            yield output, batch, along
    finally:
        _finish(pending, yielded)


def torch_output(batch: Batch, stream: Optional[int]) -> Any:
    """The batch's output as a torch tensor, the batch already made to wait
    on `stream` (the caller's current stream; None on the CPU backend): its
    capsule is taken directly. torch.from_dlpack(batch) would look the
    current stream up again to pass it to __dlpack__, which waits on it no
    second time: 60 us a batch on an H200 host, against about 10."""
    return torch_interop()[1](batch.__dlpack__(stream=stream))


def _finish(pending: Deque[Tuple[Batch, Any, Any]], yielded: Optional[Batch]) -> None:
    """Nothing left in flight: wait for each submitted batch (its error, if
    any, is not the one to report) and release it."""
    if yielded is not None:
        yielded.close()
    while pending:
        release(pending.popleft()[0])


def device_hooks(context: Context) -> Tuple[Callable[[], Any], Callable[[Any], Any]]:
    """(current stream, move): the stream to hand batches off to (torch's
    current CUDA stream on a CUDA context where torch is loaded, else None),
    and how a tensor reaches the context's device (non_blocking)."""
    torch = sys.modules.get("torch")
    if context.device != Device.CUDA or torch is None or not torch.cuda.is_available():
        return (lambda: None), (lambda v: v)
    device = torch.device("cuda", context.device_index)
    current = torch_interop()[0]
    index = context.device_index

    def stream() -> int:
        return current(index)

    def move(value: Any) -> Any:
        return value.to(device, non_blocking=True) if isinstance(value, torch.Tensor) else value

    return stream, move
