"""ferry.ResidentDataset and ferry.ResidentLoader (resident datasets,
include/ferry/dataset.h) on the CPU backend: every gather is compared element
by element with the same samples submitted from host memory (augmentation
included), outputs outlive the dataset and the context, bad input raises
ferry's exceptions naming the argument. torch cases skip visibly without torch."""
import array
import threading

import numpy as np
import pytest

import ferry
from conftest import needs_gpu, needs_torch, torch

MEAN, STD = [0.49, 0.48, 0.45], [0.25, 0.24, 0.26]


def images(n=24, h=12, w=10, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (n, h, w, c), dtype=np.uint8)


def host(ctx, samples, **kwargs):
    """The same conversion from host memory (Context.submit), as a NumPy array."""
    with ctx.submit(samples, **kwargs) as batch:
        return np.from_dlpack(batch).copy()


def gathered(ds, indices, **kwargs):
    with ds.gather(indices, **kwargs) as batch:
        return np.from_dlpack(batch).copy()


@pytest.fixture
def data():
    return images()


@pytest.fixture
def ds(ctx, data):
    with ferry.ResidentDataset(ctx, data) as d:
        yield d


# ---- the dataset ----

def test_info_len_repr_and_stats(ctx, data, ds):
    info = ds.info
    assert len(ds) == info["count"] == info["source_count"] == info["epoch_size"] == 24
    assert (info["h"], info["w"], info["c"], info["bytes"]) == (12, 10, 3, data.nbytes)
    assert info["layout"] == ferry.Layout.NHWC and info["device_kind"] == ferry.Device.CPU
    assert info["placement"] == ferry.Placement.REPLICA and info["variable_sizes"] is False
    assert info["upload_seconds"] >= 0
    assert repr(ds) == f"<ferry.ResidentDataset 24 samples 12x10x3 uint8 NHWC replica on CPU, {data.nbytes} bytes>"
    assert ctx.stats()["resident_bytes"] == data.nbytes and ctx.stats()["resident_datasets"] == 1
    ds.close()
    assert ds.closed and repr(ds) == "<ferry.ResidentDataset closed>"
    assert ctx.stats()["resident_bytes"] == 0 and ctx.stats()["resident_datasets"] == 0


@pytest.mark.parametrize("kwargs", [dict(mean=MEAN, std=STD), dict(dtype="uint8", layout="NHWC"),
                                    dict(dtype="float16", layout="NHWC", scale=1.0),
                                    dict(crop=(1, 2, 6, 7), mirror=ferry.Mirror.X, channel_map=[2, 1, 0]),
                                    dict(resize=(7, 9), interpolation="area", mean=0.5)])
def test_gather_equals_the_same_samples_from_host_memory(ctx, data, ds, kwargs):
    indices = [5, 0, 23, 5, 17, 2]  # repeats allowed
    got = gathered(ds, indices, **kwargs)
    want = host(ctx, data[indices], **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_indices_from_lists_arrays_and_tensors(ctx, data, ds):
    want = host(ctx, data[[3, 1, 4]], mean=MEAN, std=STD)
    for indices in ([3, 1, 4], (3, 1, 4), np.array([3, 1, 4], np.int32), np.array([3, 1, 4], np.uint16),
                    np.array([9, 3, 8, 1, 7, 4])[1::2], array.array("q", [3, 1, 4])):
        np.testing.assert_array_equal(gathered(ds, indices, mean=MEAN, std=STD), want, err_msg=repr(indices))
    if torch is not None:
        np.testing.assert_array_equal(gathered(ds, torch.tensor([3, 1, 4]), mean=MEAN, std=STD), want)


def test_swig_index_typemaps_read_buffers_in_place_and_sequences_otherwise(ds):
    raw = ds._h  # the binding under ResidentDataset: (values, count) and (out, count) typemaps
    for values in (np.array([2, 0], np.int64), np.array([0, 2], np.int64)[::-1], [2, 0], np.array([2, 0], np.int32)):
        batch = raw.gather(values)
        batch.wait()
        assert batch.output().shape_at(0) == 2
    out = array.array("q", [0] * 24)
    raw.epoch(out, 3, 1, True)
    assert sorted(out) == list(range(24))
    for bad in (np.empty(24, np.int32), np.empty((4, 6), np.int64), b"\0" * 192, np.empty(48, np.int64)[::2]):
        with pytest.raises(TypeError, match="out is a .*: a writable, contiguous, 1-D int64 buffer"):
            raw.epoch(bad, 3, 1, True)


def test_swig_gather_device_reads_indices_in_the_contexts_memory(ds):
    # On the CPU backend the context's memory is host memory: the binding's device path, clamping included.
    want = gathered(ds, [5, 0, 23, 0])
    idx = np.array([5, -3, 23, 0], np.int64)  # -3: clamped to sample 0 (device indices are not checked)
    with ferry.Batch(ds._h.gather_device_holding(idx.ctypes.data, 4, None, None, None, idx), ds.context, None,
                     None) as batch:
        np.testing.assert_array_equal(np.from_dlpack(batch), want)


class CudaArray:
    """Something in GPU memory by the CUDA array interface (never read here)."""

    def __init__(self, shape, typestr="<i8", strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (1 << 40, False),
                                         "strides": strides, "version": 3}


def test_indices_in_gpu_memory_are_checked_before_use(ds):
    for indices, text in ((CudaArray((4,), "<i4"), "indices has dtype <i4: indices in GPU memory are int64"),
                          (CudaArray((2, 2)), r"indices has shape \(2, 2\)"), (CudaArray((0,)), "indices is empty"),
                          (CudaArray((4,), strides=(16,)), r"indices has strides \(16,\): .* contiguous"),
                          (CudaArray((4,)), "indices are in GPU memory: the dataset's context is on the CPU")):
        with pytest.raises(ferry.InvalidArgumentError, match=text):
            ds.gather(indices)


def test_caller_output_poisoned_before_is_written_everywhere(ctx, data, ds):
    indices = np.array([7, 7, 0, 19])
    want = host(ctx, data[indices], mean=MEAN, std=STD)
    out = np.full(want.shape, np.nan, np.float32)
    ds.gather(indices, out=out, mean=MEAN, std=STD).close()  # ferry holds `out` until written
    ds.close()
    ctx.close()  # waits for the gather
    np.testing.assert_array_equal(out, want)


def test_augmented_gather_draws_as_the_same_batch_from_host(ctx, data, ds):
    indices = [3, 9, 1, 23, 0, 12, 7, 7]
    for step in (0, 1, 5):
        aug = ferry.Augment(seed=7, step=step, crop="random", padding=4, hflip=0.5, brightness=0.3, erase=0.5)
        kwargs = dict(augment=aug, resize=(12, 10), dtype="float16", mean=MEAN, std=STD)
        with ds.gather(indices, **kwargs) as batch:
            got, params = np.from_dlpack(batch).copy(), batch.augment_params
        with ctx.submit(data[indices], **kwargs) as batch:
            np.testing.assert_array_equal(got, np.from_dlpack(batch), err_msg=f"step {step}")
            np.testing.assert_array_equal(params, batch.augment_params)


def test_samples_of_different_sizes_are_resized_on_the_way_out(ctx):
    rng = np.random.default_rng(3)
    sizes = [(20, 30), (20, 30), (33, 17), (8, 8), (20, 30)]
    samples = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in sizes]
    with ferry.ResidentDataset(ctx, samples) as ds:
        info = ds.info
        assert info["variable_sizes"] and (info["h"], info["w"]) == (33, 30)
        assert info["bytes"] == sum(s.nbytes for s in samples)
        assert "up to 33x30x3" in repr(ds)
        indices = [2, 4, 3, 0]
        np.testing.assert_array_equal(gathered(ds, indices, resize=(10, 12), mean=MEAN, std=STD),
                                      host(ctx, [samples[i] for i in indices], resize=(10, 12), mean=MEAN, std=STD))
        with pytest.raises(ferry.InvalidArgumentError, match="resize"):
            ds.gather(indices)


def test_nchw_source_layout(ctx, data):
    planar = np.ascontiguousarray(data.transpose(0, 3, 1, 2))
    with ferry.ResidentDataset(ctx, planar, source_layout="NCHW", part_bytes=700) as ds:
        assert ds.info["layout"] == ferry.Layout.NCHW and (ds.info["h"], ds.info["c"]) == (12, 3)
        np.testing.assert_array_equal(gathered(ds, [4, 2], dtype="uint8", layout="NHWC"), data[[4, 2]])


def test_a_shard_holds_its_ranks_samples(ctx):
    data = images(n=10, h=3, w=4, c=1, seed=4)
    with ferry.ResidentDataset(ctx, data, placement="shard", rank=1, world_size=3, part_bytes=1) as ds:
        assert len(ds) == ds.info["epoch_size"] == 4 and ds.info["source_count"] == 10
        assert [ds.source_index(i) for i in range(4)] == [1, 4, 7, 0]  # 10 wraps round to 0
        np.testing.assert_array_equal(ds.source_indices(), [1, 4, 7, 0])
        np.testing.assert_array_equal(gathered(ds, [0, 1, 2, 3], dtype="uint8", layout="NHWC"), data[[1, 4, 7, 0]])
        assert "shard 1/3 of 10" in repr(ds)
        assert sorted(ds.epoch(5, 2)) == [0, 1, 2, 3]


def test_epochs_are_permutations_shared_out_among_ranks(ctx):
    data = images(n=11, h=2, w=2, c=1, seed=5)
    with ferry.ResidentDataset(ctx, data) as ds:
        a = ds.epoch(42, 0)
        assert a.dtype == np.int64 and sorted(a) == list(range(11))
        np.testing.assert_array_equal(ds.epoch(42, 0), a)  # same seed and epoch, same order
        assert not np.array_equal(ds.epoch(42, 1), a) and not np.array_equal(ds.epoch(43, 0), a)
        np.testing.assert_array_equal(ds.epoch(42, 1, shuffle=False), np.arange(11))
    seen = []
    for rank in range(3):  # ranks take places rank, rank + 3, ... of one permutation, padded by wrapping
        with ferry.ResidentDataset(ctx, data, rank=rank, world_size=3) as r:
            share = r.epoch(42, 0)
            np.testing.assert_array_equal(share, a[np.arange(rank, 12, 3) % 11])
            np.testing.assert_array_equal(r.epoch(42, 0, shuffle=False), np.arange(rank, 12, 3) % 11)
            seen += share.tolist()
    assert len(seen) == 12 and set(seen) == set(range(11))


# ---- bad input ----

def test_bad_gathers_raise_naming_the_argument(ctx, ds):
    for indices, kind, text in (([0, 24], ferry.OutOfRangeError, r"indices\[1\] is 24: the dataset holds 24"),
                                ([-1], ferry.OutOfRangeError, r"indices\[0\] is -1"),
                                ([], ferry.InvalidArgumentError, "indices is empty"),
                                ([1.5], ferry.InvalidArgumentError, "indices has dtype float64"),
                                ([[1, 2]], ferry.InvalidArgumentError, r"indices has shape \(1, 2\)"),
                                (3, ferry.InvalidArgumentError, r"indices has shape \(\)"),
                                ("12", ferry.InvalidArgumentError, "indices has shape"),
                                ([True], ferry.InvalidArgumentError, "indices has dtype bool")):
        with pytest.raises(kind, match=text):
            ds.gather(indices)
    with pytest.raises(ferry.InvalidArgumentError, match=r"out has shape \(2, 3, 12, 9\)"):
        ds.gather([0, 1], out=np.empty((2, 3, 12, 9), np.float32))
    with pytest.raises(ferry.InvalidArgumentError, match="mean has 2 values for 3 output channels"):
        ds.gather([0], mean=[1, 2])
    with pytest.raises(TypeError, match="did you mean 'mean'"):
        ds.gather([0], maen=MEAN)
    with pytest.raises(ferry.OutOfRangeError, match="index is 24"):
        ds.source_index(24)
    with pytest.raises(ferry.InvalidArgumentError, match="index is 1.0: an int"):
        ds.source_index(1.0)
    for name, kwargs in (("seed", dict(seed=-1)), ("epoch", dict(epoch=1 << 64)), ("seed", dict(seed="0"))):
        with pytest.raises(ferry.InvalidArgumentError, match=f"{name} is .*: an int in"):
            ds.epoch(**kwargs)


def test_bad_datasets_raise_naming_the_argument(ctx, data):
    for kwargs, kind, text in ((dict(rank=2, world_size=2), ferry.InvalidArgumentError, "options->rank is 2"),
                               (dict(world_size=0), ferry.InvalidArgumentError, "options->world_size is 0"),
                               (dict(rank=-1), ferry.InvalidArgumentError, "rank is -1"),
                               (dict(placement="mirror"), ferry.InvalidArgumentError, "placement is 'mirror'"),
                               (dict(source_layout="CHW"), ferry.InvalidArgumentError, "source_layout is 'CHW'")):
        with pytest.raises(kind, match=text):
            ferry.ResidentDataset(ctx, data, **kwargs)
    for images_, text in ((data.astype(np.float32), "images dtype is float32"), ([], "images is an empty list"),
                          (None, "images is None"), (data[:, ::-1], "images strides")):
        with pytest.raises(ferry.FerryError, match=text):
            ferry.ResidentDataset(ctx, images_)
    with pytest.raises(ferry.InvalidArgumentError, match="context is a str: a ferry.Context expected"):
        ferry.ResidentDataset("cpu", data)
    assert ctx.stats()["resident_datasets"] == 0


def test_closed_dataset_and_closed_context(data):
    ctx = ferry.Context(ferry.Device.CPU)
    ds = ferry.ResidentDataset(ctx, data)
    other = ferry.ResidentDataset(ctx, data)
    ds.close()
    ds.close()  # a no-op
    for use in (lambda: ds.gather([0]), lambda: ds.epoch(), lambda: ds.info, lambda: ds.source_index(0),
                lambda: ferry.ResidentLoader(ds, 4)):
        with pytest.raises(ferry.InvalidHandleError, match="dataset is closed: ResidentDataset.close"):
            use()
    ctx.close()
    for use in (lambda: other.gather([0]), lambda: other.epoch(), lambda: other.info, lambda: other.source_index(0)):
        with pytest.raises(ferry.InvalidHandleError, match="dataset's context is closed"):
            use()
    assert repr(other) == "<ferry.ResidentDataset context closed>"
    other.close()
    with pytest.raises(ferry.InvalidHandleError):
        ferry.ResidentDataset(ctx, data)


# ---- threads and lifetimes ----

def test_several_threads_gather_at_once(ctx, data, ds):
    aug = ferry.Augment(seed=3, step=3, crop="random", padding=4, hflip=0.5)
    lists = [[(k * 16 + i * 7) % 24 for i in range(16)] for k in range(4)]
    want = [host(ctx, data[idx], augment=aug, resize=(12, 10), dtype="float16") for idx in lists]
    errors = []

    def work(k):
        try:
            for _ in range(15):
                np.testing.assert_array_equal(gathered(ds, lists[k], augment=aug, resize=(12, 10), dtype="float16"),
                                              want[k])
        except Exception as exc:  # reported below
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_outputs_outlive_the_dataset_and_the_context(data):
    ctx = ferry.Context(ferry.Device.CPU)
    ds = ferry.ResidentDataset(ctx, data)
    want = host(ctx, data[[4, 8]], mean=MEAN, std=STD)
    by_dlpack = np.from_dlpack(ds.gather([4, 8], mean=MEAN, std=STD))
    batch = ds.gather([4, 8], mean=MEAN, std=STD)
    by_interface = np.asarray(batch)  # holds the batch, which holds a tensor reference past close()
    batch.close()
    pending = ds.gather([4, 8], mean=MEAN, std=STD)  # in flight when the dataset goes: it keeps the samples
    ds.close()
    late = np.from_dlpack(pending)
    ctx.close()
    junk = [np.full(want.size, 7.0, np.float32) for _ in range(4)]  # freed memory reused would show
    for got in (by_dlpack, by_interface, late):
        np.testing.assert_array_equal(got, want)
    del junk


@needs_torch
def test_torch_tensors_outlive_the_dataset_and_the_context(data):
    with ferry.Context(ferry.Device.CPU) as ctx:
        want = host(ctx, data[[1, 2]], mean=MEAN, std=STD)
        with ferry.ResidentDataset(ctx, data) as ds:
            with ds.gather(torch.tensor([1, 2]), mean=MEAN, std=STD) as batch:
                x = torch.from_dlpack(batch)
    np.testing.assert_array_equal(x.numpy(), want)


@needs_gpu
def test_gpu_gathers_equal_the_cpu_backends_and_outlive_the_context(ctx, data):
    aug = ferry.Augment(seed=5, step=2, crop="random_resized", hflip=0.5, saturation=0.3)
    kwargs = dict(augment=aug, resize=(9, 7), mean=MEAN, std=STD)
    indices = [3, 3, 0, 23, 11]
    with ferry.ResidentDataset(ctx, data) as cpu_ds:
        want = gathered(cpu_ds, indices, **kwargs)
    gpu = ferry.Context(ferry.Device.CUDA)
    ds = ferry.ResidentDataset(gpu, data)
    assert ds.info["device_kind"] == ferry.Device.CUDA and gpu.stats()["resident_bytes"] == data.nbytes
    stream = torch.cuda.current_stream()
    with ds.gather(indices, stream=stream, **kwargs) as batch:
        x = torch.from_dlpack(batch)
    on_gpu = torch.tensor(indices, device="cuda")  # read on the device, after torch's stream wrote them
    with ds.gather(on_gpu, **kwargs) as batch:
        by_device_indices = torch.from_dlpack(batch)
    del on_gpu  # the gather holds them until it completes
    out = torch.full(want.shape, float("nan"), device="cuda")  # a caller's output, poisoned
    ds.gather(indices, out=out, stream=stream, **kwargs).close()
    ds.close()
    gpu.close()
    filler = torch.full((16 << 20,), 3.0, device="cuda")  # reuse of freed memory would show
    for got in (x, out, by_device_indices):
        np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-5, atol=1e-5)
    del filler
