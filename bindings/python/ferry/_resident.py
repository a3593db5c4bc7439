"""ResidentLoader: a ResidentDataset read epoch by epoch in batches, as a
training loop reads a DataLoader with a DistributedSampler.

The epoch's order is ferry_dataset_epoch's (drawn once per epoch from
(seed, epoch), split among ranks by DistributedSampler's rule); each batch is
one gather on the device, `depth` of them made ahead of the one yielded on a
thread of the loader's own (ferry/_ahead.py says why), each handed off at
submit to torch's CUDA stream current when the pass began (and to another
one current when it is yielded), so what the loop gets is ready on its stream
without a host sync, as with PrefetchLoader (ferry/_prefetch.py). A gather
into ferry's own output does not wait for the work queued on that stream. On
a GPU the order is copied there once an epoch, and the gathers
(ferry_dataset_gather_device; samples of one size) and the labels (taken once
an epoch, sliced per batch) read their indices there: nothing crosses the bus
per batch.
"""
from __future__ import annotations

import sys
from typing import Any, Iterator, Optional, Tuple

import numpy as np

from ._ahead import made_ahead, release
from ._augment import Augment, _integer
from ._batch import Batch, torch_interop
from ._context import Transform, _is_torch
from ._dataset import ResidentDataset
from ._descriptors import _positive_int
from ._enums import Device, Status
from ._errors import error
from ._prefetch import check_depth, device_hooks, loader_transform, torch_output

_U64 = "an int in [0, 2^64)"


class _Labels:
    """The label of each dataset sample (labels[source_index(i)] for sample
    i), kept where the batches' labels are taken from: a torch tensor on
    `device` (the context's GPU: taken there with index_select, beside the
    images; or the CPU), or a NumPy array where device is None."""

    def __init__(self, labels: Any, dataset: ResidentDataset, torch: Any, device: Any) -> None:
        source_count = dataset.info["source_count"]
        try:
            count = len(labels)
        except TypeError:
            count = None
        if count != source_count:
            raise error(Status.INVALID_ARGUMENT,
                        f"labels {f'is {labels!r}' if count is None else f'has {count} entries'}: the dataset was "
                        f"made from {source_count} samples, one label each, in their order")
        where = dataset.source_indices()
        self._torch, self._device = torch, device
        if device is None:
            self._held = np.asarray(labels)[where]
        else:
            tensor = labels if _is_torch(labels) else torch.as_tensor(np.asarray(labels))
            self._held = tensor.to(device).index_select(0, self.where(where))

    def where(self, indices: np.ndarray) -> Any:
        """Dataset indices where the labels are."""
        return indices if self._device is None else self._torch.from_numpy(indices).to(self._device)

    def take(self, indices: Any) -> Any:
        """The labels of dataset samples `indices` (as `where` gives them)."""
        return self._held[indices] if self._device is None else self._held.index_select(0, indices)


class ResidentLoader:
    """Batches of a :class:`ferry.ResidentDataset`, one epoch per pass.

    batch_size: samples a batch; len(loader) = the batches of an epoch for this
        rank: epoch_size // batch_size with drop_last, else rounded up (the
        last batch smaller).
    shuffle, seed: each epoch a permutation drawn from (seed, epoch), the same
        on every rank and run (``dataset.epoch``); in order without shuffle.
    epoch, set_epoch(e): the epoch the next pass reads (DistributedSampler's
        set_epoch: call it before each epoch; a pass does not advance it).
    labels: one label per sample of the images the dataset was made from (a
        NumPy array or torch tensor, any trailing shape); each batch then comes
        as (images, labels), the labels of its samples. They are torch tensors
        on the context's device where torch is loaded and the context is on a
        GPU (gathered there beside the images), the labels are a tensor, or
        torch=True; else NumPy arrays. Without labels, each batch is images.
    depth: gathers made ahead of the batch yielded (default 8), on the
        loader's own thread, in bursts of depth // 2: made back to back,
        their host work costs a third of what it costs one at a time between
        training steps (ferry/_ahead.py). Each holds one batch's output.
    torch: images as torch tensors (by DLPack); False: the
        ferry.Batch, closed when the next batch is asked for.
    transform, transform keywords (dtype, layout, mean, std, resize, ...),
        augment: as for ResidentDataset.gather. Batch k of epoch e draws at
        step augment.step + e * len(loader) + k (first_index: the Augment's,
        0 by default): every batch of every epoch draws anew, and a run
        resumed at an epoch draws as the first run did.
        ``loader.augment_params`` is what the last batch yielded drew.

    Leaving a loop early waits for the gathers in flight and releases them.
    """

    def __init__(self, dataset: ResidentDataset, batch_size: int, *, shuffle: bool = True, drop_last: bool = False,
                 seed: int = 0, labels: Any = None, depth: int = 8, epoch: int = 0, torch: bool = False,
                 transform: Optional[Transform] = None, augment: Optional[Augment] = None,
                 **transform_kwargs: Any) -> None:
        if not isinstance(dataset, ResidentDataset):
            raise error(Status.INVALID_ARGUMENT,
                        f"dataset is a {type(dataset).__name__}: a ferry.ResidentDataset expected")
        self._dataset = dataset
        self._batch_size = _positive_int(batch_size, "batch_size", "the samples of a batch, an int >= 1")
        self._shuffle, self._drop_last, self._torch = bool(shuffle), bool(drop_last), bool(torch)
        self._seed = _integer(seed, "seed", _U64)
        self._epoch = _integer(epoch, "epoch", _U64)
        self._depth = check_depth(depth)
        self._transform, self._augment = loader_transform(transform, augment, transform_kwargs)
        # Checked now, as a PrefetchLoader checks its keywords: a bad transform fails here.
        dataset.output_info(min(self._batch_size, len(dataset)), self._transform, augment=self._augment)
        self._epoch_size = dataset.info["epoch_size"]
        torch_module = sys.modules.get("torch")
        if self._torch:  # the labels follow the images into torch
            import torch as torch_module
        context = dataset.context
        # The context's GPU where torch is loaded: each epoch's order goes there once, the gathers
        # (one sample size) and the labels read it there.
        on_gpu = context.device == Device.CUDA and torch_module is not None and torch_module.cuda.is_available()
        self._gpu = torch_module.device("cuda", context.device_index) if on_gpu else None
        self._device_gathers = on_gpu and not dataset.info["variable_sizes"]
        if labels is not None:
            in_torch = torch_module is not None and (self._torch or _is_torch(labels))
            where = self._gpu if on_gpu else torch_module.device("cpu") if in_torch else None
            labels = _Labels(labels, dataset, torch_module, where)
        self._labels = labels
        # (epoch, the order the gathers read, the epoch's labels in that order, the event their GPU work is done at)
        self._order: Optional[Tuple[int, Any, Any, Any]] = None
        self.augment_params: Any = None

    @property
    def dataset(self) -> ResidentDataset:
        return self._dataset

    @property
    def batch_size(self) -> int:
        return self._batch_size

    @property
    def depth(self) -> int:
        return self._depth

    @property
    def epoch(self) -> int:
        return self._epoch

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next pass reads (its order and augmentation steps)."""
        self._epoch = _integer(epoch, "epoch", _U64)

    def __len__(self) -> int:
        n, b = self._epoch_size, self._batch_size
        return n // b if self._drop_last else -(-n // b)

    def __iter__(self) -> Iterator[Any]:
        self._dataset._handle()  # a closed dataset raises here, not at the first batch
        return self._run()

    def _epoch_order(self, epoch: int) -> Tuple[Any, Any, Any]:
        """The epoch's order where the gathers read it (ferry_dataset_epoch,
        once per epoch), the labels of the epoch's samples in that order (one
        take per epoch: each batch's labels are then a slice of them), and the
        event the GPU work of both is done at."""
        if self._order is None or self._order[0] != epoch:
            order = self._dataset.epoch(self._seed, epoch, self._shuffle)
            if self._gpu is None:
                labels = None if self._labels is None else self._labels.take(self._labels.where(order))
                self._order = (epoch, order, labels, None)
            else:
                import torch
                on_gpu = torch.from_numpy(order).to(self._gpu)
                labels = None if self._labels is None else self._labels.take(on_gpu)
                done = torch.cuda.Event()
                done.record(torch.cuda.current_stream(self._gpu))
                self._order = (epoch, on_gpu if self._device_gathers else order, labels, done)
        return self._order[1:]

    def _run(self) -> Iterator[Any]:
        epoch, count, size = self._epoch, len(self), self._batch_size
        order, epoch_labels, done = self._epoch_order(epoch)
        if done is not None:
            done.synchronize()  # once a pass: then the gathers read the order with no stream to wait on
        stream, _ = device_hooks(self._dataset.context)
        # Each gather is handed off at submit to the stream current when the pass
        # begins (torch's; None on the CPU backend); a batch yielded while
        # another is current is made to wait there too.
        handoff = stream()
        torch: Any = None
        if self._torch or handoff is not None:
            import torch
        handoff_stream = torch.cuda.current_stream(self._gpu) if handoff is not None else None
        first_step = (0 if self._augment is None else self._augment.step) + epoch * count
        spec = self._transform._spec
        # Device gathers read their slice of the order where it lies: its address,
        # checked once (the order is ferry's own int64 array on the context's GPU).
        address = order.data_ptr() if self._device_gathers else None
        from_capsule = torch_interop()[1] if self._torch else None

        def make(k: int) -> Tuple[Any, Any, Any]:
            """(images: a torch tensor, its batch released, or the Batch; the
            augmentation's draws; the labels), on the loader's thread."""
            augment = None if self._augment is None else self._augment._with_step((first_step + k) % (1 << 64))
            first, last = k * size, min((k + 1) * size, len(order))
            labels = None if epoch_labels is None else epoch_labels[first:last]
            if address is not None and self._torch:  # the common case in one crossing
                capsule, params = self._dataset._gather_device_capsule(address + 8 * first, last - first, spec,
                                                                       augment, handoff, order)
                return from_capsule(capsule), params, labels
            if address is None:
                batch = self._dataset.gather(order[first:last], self._transform, stream=handoff, augment=augment)
            else:
                batch = self._dataset._gather_device(address + 8 * first, last - first, spec, augment, handoff,
                                                     order)
            if not self._torch:
                return batch, batch.augment_params, labels
            with batch:  # the tensor holds the output; the hand-off at submit ordered `handoff` after the batch
                return torch_output(batch, -1 if handoff is None else handoff), batch.augment_params, labels

        def discard(made: Tuple[Any, Any, Any]) -> None:
            if isinstance(made[0], Batch):
                release(made[0])

        results = made_ahead(make, count, self._depth, discard)
        yielded: Optional[Batch] = None
        try:
            for images, params, labels in results:
                if yielded is not None:
                    yielded.close()
                    yielded = None
                current = stream()
                if current != handoff:  # the caller moved to another stream
                    if self._torch:
                        torch.cuda.current_stream(self._gpu).wait_stream(handoff_stream)
                    else:
                        images._hand_off(current)
                if not self._torch:
                    yielded = images  # closed when the next batch is asked for
                self.augment_params = params
                yield images if self._labels is None else (images, labels)
        finally:
            results.close()  # a loop left early: nothing stays in flight
            if yielded is not None:
                yielded.close()

    def __repr__(self) -> str:
        return (f"<ferry.ResidentLoader {len(self)} batches of {self._batch_size} (epoch {self._epoch}, "
                f"{'shuffled' if self._shuffle else 'in order'}, depth {self._depth})>")
