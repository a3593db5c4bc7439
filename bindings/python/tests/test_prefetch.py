"""ferry.PrefetchLoader (issue 11 item 3): any iterable of uint8 host batches,
`depth` submitted ahead, converted outputs yielded; records pass their other
fields through; leaving the loop early leaves nothing in flight. CPU backend
here; the GPU cases (hand-off to torch's current stream) skip without CUDA."""
import numpy as np
import pytest

import ferry
from conftest import needs_gpu, needs_torch, nothing_in_flight, torch

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def reference(images):
    x = (images.astype(np.float32) * np.float32(1 / 255) - np.array(MEAN, np.float32)) / np.array(STD, np.float32)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def batches(count, n=4, h=8, w=6, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (n, h, w, 3), dtype=np.uint8) for _ in range(count)]


class Counting:
    """An iterable that counts how far it was read (to see the depth ahead)."""

    def __init__(self, items, fail_at=None):
        self.items, self.fail_at, self.read = items, fail_at, 0

    def __iter__(self):
        for i, item in enumerate(self.items):
            if i == self.fail_at:
                raise RuntimeError(f"the dataset failed at item {i}")
            self.read += 1
            yield item

    def __len__(self):
        return len(self.items)


def test_numpy_batches_in_order_with_batches_yielded(ctx):
    data = batches(5)
    loader = ferry.PrefetchLoader(data, ctx, mean=MEAN, std=STD)
    assert len(loader) == 5 and loader.depth == 2
    seen = 0
    for i, batch in enumerate(loader):
        assert isinstance(batch, ferry.Batch)
        np.testing.assert_allclose(np.from_dlpack(batch), reference(data[i]), rtol=1e-5, atol=1e-5)
        seen += 1
    assert seen == 5
    assert nothing_in_flight(ctx)


def test_depth_batches_are_submitted_ahead(ctx):
    source = Counting(batches(6))
    for depth in (1, 2, 3):
        source.read = 0
        it = iter(ferry.PrefetchLoader(source, ctx, depth=depth, mean=MEAN, std=STD))
        next(it)
        # the one yielded plus `depth` ahead have been read and submitted
        assert source.read == 1 + depth
        assert ctx.stats()["batches_unreleased"] == 1 + depth
        it.close()
        assert nothing_in_flight(ctx)


def test_transform_object_and_keywords(ctx):
    data = batches(2)
    t = ferry.Transform(dtype="float16", layout="NHWC", mean=MEAN, std=STD)
    out = [np.from_dlpack(b).copy() for b in ferry.PrefetchLoader(data, ctx, transform=t)]
    assert out[0].dtype == np.float16 and out[0].shape == (4, 8, 6, 3)
    np.testing.assert_allclose(out[1], reference(data[1]).transpose(0, 2, 3, 1), rtol=1e-2, atol=1e-2)
    with pytest.raises(ferry.InvalidArgumentError, match="one ferry.Transform, or the transform keywords"):
        ferry.PrefetchLoader(data, ctx, transform=t, mean=MEAN)
    with pytest.raises(TypeError, match="did you mean 'mean'"):
        ferry.PrefetchLoader(data, ctx, maen=MEAN)


def test_list_of_samples_is_one_batch(ctx):
    rng = np.random.default_rng(1)
    samples = [rng.integers(0, 256, (8, 6, 3), dtype=np.uint8) for _ in range(3)]
    (batch,) = [np.from_dlpack(b).copy() for b in ferry.PrefetchLoader([samples], ctx, mean=MEAN, std=STD)]
    np.testing.assert_allclose(batch, reference(np.stack(samples)), rtol=1e-5, atol=1e-5)


def test_records_pass_their_other_fields_through(ctx):
    data = batches(3)
    labels = [np.arange(4) + 10 * i for i in range(3)]
    tuples = list(zip(data, labels))
    for i, (x, y) in enumerate(ferry.PrefetchLoader(tuples, ctx, mean=MEAN, std=STD)):
        assert isinstance(x, ferry.Batch)
        np.testing.assert_array_equal(y, labels[i])
        np.testing.assert_allclose(np.from_dlpack(x), reference(data[i]), rtol=1e-5, atol=1e-5)
    dicts = [{"label": y, "image": x, "name": f"b{i}"} for i, (x, y) in enumerate(tuples)]
    for i, d in enumerate(ferry.PrefetchLoader(dicts, ctx, mean=MEAN, std=STD)):
        assert list(d) == ["label", "image", "name"] and d["name"] == f"b{i}"
        np.testing.assert_allclose(np.from_dlpack(d["image"]), reference(data[i]), rtol=1e-5, atol=1e-5)
    # field= picks the batch: by index in a record, by key in a dict
    swapped = [(y, x) for x, y in tuples]
    (first, *_) = [(y.copy(), np.from_dlpack(x).copy()) for y, x in ferry.PrefetchLoader(swapped, ctx, field=1)]
    np.testing.assert_array_equal(first[0], labels[0])
    two = [{"a": x, "b": x} for x in data]
    with pytest.raises(ferry.InvalidArgumentError, match="name the one to stage with field="):
        next(iter(ferry.PrefetchLoader(two, ctx)))
    assert [d["b"].shape for d in ferry.PrefetchLoader(two, ctx, field="a")][0] == (4, 8, 6, 3)
    assert nothing_in_flight(ctx)


@needs_torch
def test_torch_cpu_tensors_in_torch_tensors_out(ctx):
    data = batches(3)
    items = [(torch.from_numpy(x), torch.arange(4)) for x in data]
    out = list(ferry.PrefetchLoader(items, ctx, torch=True, mean=MEAN, std=STD))
    assert len(out) == 3
    for (x, y), want in zip(out, data):
        assert isinstance(x, torch.Tensor) and x.dtype == torch.float32 and tuple(x.shape) == (4, 3, 8, 6)
        np.testing.assert_allclose(x.numpy(), reference(want), rtol=1e-5, atol=1e-5)
        assert torch.equal(y, torch.arange(4))
    # the tensors outlive the loader's batches: all were released
    assert nothing_in_flight(ctx)


@needs_torch
def test_dataloader_with_workers(ctx):
    class Images(torch.utils.data.Dataset):
        def __len__(self):
            return 12

        def __getitem__(self, i):
            return torch.full((8, 6, 3), i, dtype=torch.uint8), i

    dl = torch.utils.data.DataLoader(Images(), batch_size=4, num_workers=2, pin_memory=False)
    loader = ferry.PrefetchLoader(dl, ctx, torch=True, mean=MEAN, std=STD)
    assert len(loader) == 3
    got = []
    for x, y in loader:  # a DataLoader collates (image, label) into a list [images, labels]
        assert tuple(x.shape) == (4, 3, 8, 6)
        for k in range(4):
            want = (y[k].item() / 255 - MEAN[0]) / STD[0]
            assert abs(x[k, 0, 0, 0].item() - want) < 1e-4
        got += y.tolist()
    assert got == list(range(12))
    assert nothing_in_flight(ctx)


def test_break_leaves_nothing_in_flight(ctx):
    data = batches(8, n=16, h=32, w=32)
    for depth in (1, 2, 4):
        for i, batch in enumerate(ferry.PrefetchLoader(data, ctx, depth=depth, mean=MEAN, std=STD)):
            if i == 2:
                break
        assert nothing_in_flight(ctx), ctx.stats()


def test_error_in_the_loop_leaves_nothing_in_flight(ctx):
    data = batches(8, n=16, h=32, w=32)

    def loop():
        for i, batch in enumerate(ferry.PrefetchLoader(data, ctx, depth=3, mean=MEAN, std=STD)):
            if i == 1:
                raise KeyError("the model failed")

    with pytest.raises(KeyError, match="the model failed"):
        loop()
    assert nothing_in_flight(ctx), ctx.stats()


def test_iterable_that_raises_reaches_the_caller(ctx):
    source = Counting(batches(6), fail_at=3)
    seen = []
    with pytest.raises(RuntimeError, match="the dataset failed at item 3"):
        for batch in ferry.PrefetchLoader(source, ctx, depth=2, mean=MEAN, std=STD):
            seen.append(np.from_dlpack(batch).copy())
    assert len(seen) == 1  # item 3 is read while batch 0 is yielded... then the error, at once
    assert nothing_in_flight(ctx), ctx.stats()


def test_non_uint8_batch_is_a_clear_error(ctx):
    data = batches(3)
    data[1] = data[1].astype(np.float32)
    with pytest.raises(ferry.InvalidArgumentError, match="batch 1 from the iterable: source dtype is float32"):
        for _ in ferry.PrefetchLoader(data, ctx, mean=MEAN, std=STD):
            pass
    assert nothing_in_flight(ctx), ctx.stats()


def test_shape_may_change_mid_stream(ctx):
    data = batches(2, n=4, h=8, w=6) + batches(2, n=3, h=5, w=7, seed=1) + [batches(1, n=2, seed=2)[0][..., :1]]
    shapes = [tuple(np.from_dlpack(b).shape) for b in ferry.PrefetchLoader(data, ctx, mean=0.5, std=0.25)]
    assert shapes == [(4, 3, 8, 6), (4, 3, 8, 6), (3, 3, 5, 7), (3, 3, 5, 7), (2, 1, 8, 6)]
    # mean/std per channel must fit each batch's channels: a 1-channel batch is an error then
    with pytest.raises(ferry.InvalidArgumentError, match="batch 4 from the iterable: mean has 3 values"):
        list(ferry.PrefetchLoader(data, ctx, mean=MEAN, std=STD))
    assert nothing_in_flight(ctx)


def test_closed_context_and_bad_depth(ctx):
    data = batches(2)
    for depth in (0, -1, 1.5, True, "2"):
        with pytest.raises(ferry.InvalidArgumentError, match="depth is"):
            ferry.PrefetchLoader(data, ctx, depth=depth)
    with pytest.raises(ferry.InvalidArgumentError, match="a ferry.Context expected"):
        ferry.PrefetchLoader(data, None)
    other = ferry.Context(ferry.Device.CPU)
    loader = ferry.PrefetchLoader(data, other, mean=MEAN, std=STD)
    other.close()
    with pytest.raises(ferry.InvalidHandleError, match="the loader's context is closed"):
        iter(loader)
    # closed during the loop: the next submit says so
    third = ferry.Context(ferry.Device.CPU)
    with pytest.raises(ferry.InvalidHandleError, match="batch 3 from the iterable"):
        for i, _ in enumerate(ferry.PrefetchLoader(batches(6), third, depth=2)):
            if i == 0:
                third.close()


def test_len_needs_a_sized_iterable(ctx):
    loader = ferry.PrefetchLoader(iter(batches(2)), ctx)
    with pytest.raises(TypeError):
        len(loader)
    assert sum(1 for _ in loader) == 2


@needs_gpu
def test_gpu_hands_off_to_the_current_stream():
    data = batches(4, n=8, h=32, w=32)
    with ferry.Context(ferry.Device.CUDA) as gpu:
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            out = [x.cpu().numpy() for x in ferry.PrefetchLoader(data, gpu, torch=True, mean=MEAN, std=STD)]
        for x, want in zip(out, data):
            np.testing.assert_allclose(x, reference(want), rtol=1e-5, atol=1e-5)
        with torch.cuda.stream(side):  # a yielded Batch names the stream it was made to wait on
            for batch, want in zip(ferry.PrefetchLoader(data, gpu, mean=MEAN, std=STD), data):
                assert batch.__cuda_array_interface__["stream"] == side.cuda_stream
                np.testing.assert_allclose(torch.as_tensor(batch, device="cuda").cpu().numpy(), reference(want),
                                           rtol=1e-5, atol=1e-5)
        labels = [(torch.from_numpy(x), torch.arange(8)) for x in data]
        for x, y in ferry.PrefetchLoader(labels, gpu, torch=True, mean=MEAN, std=STD):
            assert x.is_cuda and y.is_cuda
        assert nothing_in_flight(gpu)
