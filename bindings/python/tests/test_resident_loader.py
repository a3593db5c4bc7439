"""ferry.ResidentLoader on the CPU backend: an epoch's batches are the
dataset's epoch order cut in batch_size pieces, each equal to the same samples
submitted from host memory; labels ride with their samples; set_epoch,
drop_last, shuffle and augmentation steps as documented; reproducible runs;
nothing left in flight after a loop left early. torch cases skip visibly."""
import time

import numpy as np
import pytest

import ferry
from conftest import needs_gpu, needs_torch, nothing_in_flight, torch

MEAN, STD = [0.49, 0.48, 0.45], [0.25, 0.24, 0.26]
N = 23  # not a multiple of the batch sizes: a last, smaller batch


@pytest.fixture
def data():
    return np.random.default_rng(0).integers(0, 256, (N, 8, 6, 3), dtype=np.uint8)


@pytest.fixture
def ds(ctx, data):
    with ferry.ResidentDataset(ctx, data) as d:
        yield d


def copies(loader):
    """Each batch as NumPy copies: images, or (images, labels)."""
    def own(x):
        return x.numpy().copy() if torch is not None and isinstance(x, torch.Tensor) else np.from_dlpack(x).copy() \
            if isinstance(x, ferry.Batch) else np.asarray(x).copy()
    return [tuple(own(part) for part in item) if isinstance(item, tuple) else own(item) for item in loader]


def test_len_follows_the_epoch_size_and_drop_last(ctx, data, ds):
    assert len(ferry.ResidentLoader(ds, 5)) == 5 and len(ferry.ResidentLoader(ds, 5, drop_last=True)) == 4
    assert len(ferry.ResidentLoader(ds, 23)) == len(ferry.ResidentLoader(ds, 23, drop_last=True)) == 1
    assert len(ferry.ResidentLoader(ds, 24, drop_last=True)) == 0 and len(ferry.ResidentLoader(ds, 24)) == 1
    with ferry.ResidentDataset(ctx, data, placement="shard", rank=2, world_size=3) as shard:
        assert len(ferry.ResidentLoader(shard, 3)) == 3  # ceil(23 / 3) = 8 samples
    with ferry.ResidentDataset(ctx, data, rank=1, world_size=4) as replica:
        assert len(ferry.ResidentLoader(replica, 3, drop_last=True)) == 2  # 6 places of the epoch


@pytest.mark.parametrize("shuffle, drop_last", [(True, False), (False, False), (True, True)])
def test_batches_are_the_epoch_order_in_pieces(ctx, data, ds, shuffle, drop_last):
    loader = ferry.ResidentLoader(ds, 5, shuffle=shuffle, drop_last=drop_last, seed=9, epoch=2, mean=MEAN, std=STD)
    order = ds.epoch(9, 2, shuffle)
    got = copies(loader)
    assert len(got) == len(loader)
    for k, images in enumerate(got):
        with ctx.submit(data[order[5 * k:5 * k + 5]], mean=MEAN, std=STD) as want:
            np.testing.assert_array_equal(images, np.from_dlpack(want), err_msg=f"batch {k}")
    seen = np.concatenate([order[5 * k:5 * k + 5] for k in range(len(got))])
    assert len(seen) == (20 if drop_last else N) and (shuffle or list(seen) == list(range(N)))


def test_labels_ride_with_their_samples_in_replicas_and_shards(ctx, data):
    labels = np.arange(N) * 7 + 3  # the source index, recoverable from the label
    pairs = np.stack([labels, -labels], axis=1)  # any trailing shape
    for options in (dict(), dict(placement="shard", rank=1, world_size=3), dict(rank=2, world_size=3)):
        with ferry.ResidentDataset(ctx, data, **options) as ds:
            for given in (labels, pairs, labels.tolist()) + ((torch.from_numpy(pairs),) if torch else ()):
                for images, y in copies(ferry.ResidentLoader(ds, 4, labels=given, dtype="uint8", layout="NHWC")):
                    source = (np.asarray(y).reshape(len(images), -1)[:, 0] - 3) // 7
                    np.testing.assert_array_equal(images, data[source], err_msg=repr(options))
                    np.testing.assert_array_equal(y, np.asarray(given)[source])


@needs_torch
def test_torch_images_and_labels(ds, data):
    labels = torch.arange(N) * 2
    loader = ferry.ResidentLoader(ds, 8, labels=labels, torch=True, shuffle=False, dtype="uint8", layout="NHWC")
    for k, (x, y) in enumerate(loader):
        assert isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) and y.device.type == "cpu"
        np.testing.assert_array_equal(x.numpy(), data[8 * k:8 * k + 8])
        np.testing.assert_array_equal(y.numpy(), labels[8 * k:8 * k + 8].numpy())
    # NumPy labels follow the images into torch with torch=True; stay NumPy without.
    assert isinstance(next(iter(ferry.ResidentLoader(ds, 4, labels=np.arange(N), torch=True)))[1], torch.Tensor)
    assert isinstance(next(iter(ferry.ResidentLoader(ds, 4, labels=np.arange(N))))[1], np.ndarray)


def test_set_epoch_and_reproducible_runs(ds):
    aug = ferry.Augment(seed=1, crop="random", padding=4, hflip=0.5, brightness=0.4)
    kwargs = dict(labels=np.arange(N), augment=aug, resize=(8, 6), dtype="float16", seed=5)
    first = ferry.ResidentLoader(ds, 6, **kwargs)
    epoch0 = copies(first)
    first.set_epoch(1)
    assert first.epoch == 1
    epoch1 = copies(first)
    again = copies(ferry.ResidentLoader(ds, 6, epoch=1, **kwargs))  # a run resumed at epoch 1
    for a, b in zip(epoch1, again):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(epoch0[0][1], epoch1[0][1])  # another order
    np.testing.assert_array_equal(copies(first)[2][0], epoch1[2][0])  # a pass does not advance the epoch


def test_augmentation_steps_count_batches_across_epochs(ctx, data, ds):
    aug = ferry.Augment(seed=4, step=100, crop="random_resized", hflip=0.5)
    loader = ferry.ResidentLoader(ds, 5, augment=aug, resize=(6, 6), epoch=3)
    order = ds.epoch(0, 3)
    for k, batch in enumerate(loader):
        step = 100 + 3 * len(loader) + k
        idx = order[5 * k:5 * k + 5]
        want = ferry.augment_draw(aug, [(8, 6)] * len(idx), (6, 6), step=step)
        np.testing.assert_array_equal(loader.augment_params, want, err_msg=f"batch {k}")
        np.testing.assert_array_equal(batch.augment_params, want)
        with ctx.submit(data[idx], augment=aug._with_step(step), resize=(6, 6)) as ref:
            np.testing.assert_array_equal(np.from_dlpack(batch), np.from_dlpack(ref))


def test_gathers_run_depth_ahead_and_a_loop_left_early_leaves_nothing(ctx, ds):
    for depth in (1, 3):
        it = iter(ferry.ResidentLoader(ds, 2, depth=depth))
        next(it)
        # The one yielded plus `depth` made ahead by the loader's thread (never more).
        deadline = time.monotonic() + 10
        while ctx.stats()["batches_unreleased"] < 1 + depth and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(0.05)
        assert ctx.stats()["batches_unreleased"] == 1 + depth
        it.close()
        assert nothing_in_flight(ctx)
    for batch in ferry.ResidentLoader(ds, 2):
        break
    assert batch.closed and nothing_in_flight(ctx)


def test_a_gather_failing_mid_epoch_raises_in_the_loop_after_the_batches_before_it(ctx, data):
    # The loader's thread makes the gathers; the dataset closed under it makes the next one fail.
    ds = ferry.ResidentDataset(ctx, data)
    seen = 0
    # The worker's gather meets the closed dataset in the binding or, closed between its check and
    # the call, in ferry: either way INVALID_HANDLE, naming the dataset.
    with pytest.raises(ferry.InvalidHandleError, match="dataset is closed|dataset .* is not a live ferry_dataset_t"):
        for batch in ferry.ResidentLoader(ds, 2, depth=2, shuffle=False, dtype="uint8", layout="NHWC"):
            np.testing.assert_array_equal(np.from_dlpack(batch), data[2 * seen:2 * seen + 2])
            seen += 1
            if seen == 1:
                ds.close()
    assert 1 <= seen <= 4  # the one yielded, then those made before the close
    assert nothing_in_flight(ctx)


def test_bad_loaders_raise_naming_the_argument(ctx, ds):
    for args, kwargs, text in (((ds, 0), {}, "batch_size is 0"), ((ds, True), {}, "batch_size is True"),
                               ((ds, 4), dict(depth=0), "depth is 0"), ((ds, 4), dict(seed=-1), "seed is -1"),
                               ((ds, 4), dict(epoch=1.0), "epoch is 1.0"),
                               ((ds, 4), dict(labels=np.arange(3)), "labels has 3 entries: .* 23 samples"),
                               ((ds, 4), dict(labels=7), "labels is 7: .* 23 samples"),
                               ((ds, 4), dict(mean=[1, 2]), "mean has 2 values"),
                               ((ds, 4), dict(transform=ferry.Transform(), mean=MEAN), "one ferry.Transform"),
                               (("data", 4), {}, "dataset is a str: a ferry.ResidentDataset expected")):
        with pytest.raises(ferry.InvalidArgumentError, match=text):
            ferry.ResidentLoader(*args, **kwargs)
    loader = ferry.ResidentLoader(ds, 4)
    with pytest.raises(ferry.InvalidArgumentError, match="epoch is -2"):
        loader.set_epoch(-2)
    ds.close()
    with pytest.raises(ferry.InvalidHandleError, match="dataset is closed"):
        iter(loader)


@needs_gpu
def test_gpu_batches_and_labels_on_the_device_equal_the_cpu_backends(ctx, data):
    aug = ferry.Augment(seed=2, crop="random", padding=4, hflip=0.5, brightness=0.2)
    kwargs = dict(labels=np.arange(N) * 3, torch=True, augment=aug, resize=(8, 6), mean=MEAN, std=STD, seed=1,
                  epoch=4)
    with ferry.ResidentDataset(ctx, data) as cpu_ds:
        want = [(x.clone(), y.clone()) for x, y in ferry.ResidentLoader(cpu_ds, 6, **kwargs)]
    with ferry.Context(ferry.Device.CUDA) as gpu, ferry.ResidentDataset(gpu, data) as ds:
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):  # handed off to the current stream: no host sync in the loop
            got = [(x.cpu(), y.cpu(), x.device, y.device) for x, y in ferry.ResidentLoader(ds, 6, **kwargs)]
        assert len(got) == len(want) == 4
        for (x, y, x_device, y_device), (wx, wy) in zip(got, want):
            assert x_device.type == y_device.type == "cuda"  # the labels gathered beside the images
            np.testing.assert_allclose(x.numpy(), wx.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_array_equal(y.numpy(), wy.numpy())
        sizes = [(8, 6), (5, 9)] * (N // 2) + [(7, 7)]  # samples of different sizes: gathered by host indices
        samples = [data[i, :h, :w] for i, (h, w) in enumerate(sizes)]
        with ferry.ResidentDataset(ctx, samples) as cpu_var, ferry.ResidentDataset(gpu, samples) as gpu_var:
            want = [(x.clone(), y.clone()) for x, y in ferry.ResidentLoader(cpu_var, 6, **kwargs)]
            got = [(x.cpu(), y.cpu(), y.device) for x, y in ferry.ResidentLoader(gpu_var, 6, **kwargs)]
        for (x, y, y_device), (wx, wy) in zip(got, want):
            assert y_device.type == "cuda"
            np.testing.assert_allclose(x.numpy(), wx.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_array_equal(y.numpy(), wy.numpy())
        assert nothing_in_flight(gpu)


@needs_gpu
def test_gpu_gathers_in_one_crossing_fail_cleanly_and_leave_nothing(data):
    # torch=True on a GPU: each batch is one gather_device_capsule call on the loader's thread.
    with ferry.Context(ferry.Device.CUDA) as gpu:
        ds = ferry.ResidentDataset(gpu, data)
        aug = ferry.Augment(seed=3, crop="random", padding=2, hflip=0.5)
        seen = 0
        with pytest.raises(ferry.InvalidHandleError, match="dataset is closed|dataset .* is not a live ferry_dataset_t"):
            for x in ferry.ResidentLoader(ds, 2, torch=True, augment=aug, resize=(8, 6), dtype="uint8",
                                          layout="NHWC", shuffle=False):
                assert x.is_cuda and tuple(x.shape) == (2, 8, 6, 3)
                seen += 1
                if seen == 1:
                    ds.close()
        assert 1 <= seen <= 4
        assert nothing_in_flight(gpu)

