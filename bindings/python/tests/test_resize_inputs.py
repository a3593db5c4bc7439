"""Resize's inputs: lists of images of different sizes, the PrefetchLoader and
output_info keywords, spellings, bad arguments, and the GPU against the CPU backend.
"""
import numpy as np
import pytest

import ferry
from resize_reference import (
    I, MEAN, STD, assert_within, cv2_batch, cv2_resize, random_images, run_u8)


@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("source_layout", ["NHWC", "NCHW"])
def test_a_list_of_images_of_different_sizes_is_resized_each(ctx, cv2, via, source_layout):
    sizes = [(30, 40), (17, 9), (64, 64), (1, 23)]
    images = [random_images((h, w, 3), seed=h * w) for h, w in sizes]
    images[2] = images[2][5:50, 3:60]  # a region of interest: its own strides
    source = images if source_layout == "NHWC" else [np.ascontiguousarray(im.transpose(2, 0, 1)) for im in images]
    got = run_u8(ctx, source, via, source_layout=source_layout, resize=(16, 20), interpolation="linear")
    assert got.shape == (4, 16, 20, 3)
    for i, image in enumerate(images):
        assert_within(got[i], cv2_resize(cv2, image, (16, 20), I.LINEAR), 1, f"sample {i} {image.shape}")
    # per_sample_crop windows of one size need no resize
    got = run_u8(ctx, source, via, source_layout=source_layout, per_sample_crop=[[0, 0, 5, 1]] * 4)
    for i, image in enumerate(images):
        assert np.array_equal(got[i], image[:1, :5])
    with ctx.submit(images[:3], resize=8, interpolation="area", mean=MEAN, std=STD) as batch:
        assert batch.shape == (3, 3, 8, 8)


def test_a_list_of_images_of_different_sizes_needs_one_output_size(ctx):
    images = [random_images((h, w, 3), seed=1) for h, w in [(10, 12), (7, 9)]]
    with pytest.raises(ferry.InvalidArgumentError, match=r"sample_descs\[1\] is 7x9.*a resize"):
        ctx.submit(images)
    with pytest.raises(ferry.InvalidArgumentError, match=r"source\[1\] has shape \(7, 9, 1\): 1 channel where"):
        ferry.output_info([images[0], images[1][..., :1]], resize=4)
    with pytest.raises(ferry.InvalidArgumentError, match=r"source\[1\] has shape \(7, 9\)"):
        ferry.output_info([images[0], images[1][..., 0]], resize=4)
    with pytest.raises(ferry.OutOfRangeError, match=r"per_sample_crop\[1\]"):
        ferry.output_info(images, per_sample_crop=[[0, 0, 10, 10], [0, 0, 10, 10]])


def test_prefetch_loader_and_output_info_take_the_resize_keywords(ctx, cv2):
    batches = [random_images((2, 31, 45, 3), seed=s) for s in range(3)]
    kwargs = dict(resize=(16, 20), interpolation="area", dtype="uint8", layout="NHWC")
    assert ferry.output_info(batches[0], **kwargs)["shape"] == (2, 16, 20, 3)
    assert ferry.output_info(batches[0], resize=24)["shape"] == (2, 3, 24, 24)
    transform = ferry.Transform(**kwargs)
    assert "resize=(16, 20)" in repr(transform) and "interpolation='area'" in repr(transform)
    loader = ferry.PrefetchLoader(batches, ctx, **kwargs)
    for batch, images in zip(loader, batches):
        assert_within(batch.numpy(), cv2_batch(cv2, images, (16, 20), I.AREA), 1, "PrefetchLoader")
    with ctx.submit(batches[0], transform) as batch:
        assert batch.shape == (2, 16, 20, 3)
    lists = [[random_images((h, w, 3), seed=h) for h, w in [(20, 30), (40, 25)]] for _ in range(2)]
    for batch, images in zip(ferry.PrefetchLoader(lists, ctx, **kwargs), lists):  # samples of different sizes
        for i, image in enumerate(images):
            assert_within(batch.numpy()[i], cv2_resize(cv2, image, (16, 20), I.AREA), 1, "PrefetchLoader, sizes")


def test_enum_and_string_spellings_agree(ctx):
    images = random_images((1, 9, 13, 3), seed=4)
    a = run_u8(ctx, images, resize=(5, 6), interpolation=ferry.Interpolation.CUBIC,
               resize_mode=ferry.ResizeMode.LETTERBOX, letterbox_align=ferry.LetterboxAlign.TOP_LEFT)
    b = run_u8(ctx, images, resize=[5, 6], interpolation="Cubic", resize_mode="LETTERBOX",
               letterbox_align="top_left")
    c = run_u8(ctx, images, resize=np.array([5, 6]), interpolation=3, resize_mode=2, letterbox_align=1)
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert run_u8(ctx, images, resize=7).shape == (1, 7, 7, 3)


@pytest.mark.parametrize("kwargs,error,words", [
    (dict(resize=(0, 4)), ferry.InvalidArgumentError, ["resize is (0, 4)"]),
    (dict(resize=(4, 4, 4)), ferry.InvalidArgumentError, ["resize is (4, 4, 4)", "(h, w)"]),
    (dict(resize=(4.5, 4)), ferry.InvalidArgumentError, ["resize is (4.5, 4)"]),
    (dict(resize="224"), ferry.InvalidArgumentError, ["resize is '224'"]),
    (dict(resize=8, interpolation="bilinear_aa"), ferry.InvalidArgumentError,
     ["interpolation is 'bilinear_aa'", "'linear_antialias'"]),
    (dict(resize=8, resize_mode="fit"), ferry.InvalidArgumentError, ["resize_mode is 'fit'", "'letterbox'"]),
    (dict(resize=8, letterbox_align="middle"), ferry.InvalidArgumentError, ["letterbox_align is 'middle'"]),
    (dict(resize=8, interpolation=9), ferry.InvalidArgumentError, ["interpolation is 9"]),
    (dict(interpolation="area"), ferry.InvalidArgumentError, ["interpolation is given without resize"]),
    (dict(window=(0, 0, 4, 4)), ferry.InvalidArgumentError, ["window is given without resize"]),
    (dict(resize=8, resize_mode="shorter_side"), ferry.InvalidArgumentError, ["without resize_shorter"]),
    (dict(resize=8, resize_shorter=0), ferry.InvalidArgumentError, ["resize_shorter is 0"]),
    (dict(resize=8, letterbox_value=[1, 2]), ferry.InvalidArgumentError, ["letterbox_value has 2 values"]),
    (dict(resize=8, window=(0, 0, 4)), ferry.InvalidArgumentError, ["window is (0, 0, 4)", "(x, y, w, h)"]),
    (dict(resize=8, window=(0, 0, 14, 4)), ferry.OutOfRangeError, ["window", "14", "inside the 13x9 image"]),
    (dict(resize=8, window=(1, 1, 0, 4)), ferry.InvalidArgumentError, ["window", "positive area"]),
    (dict(resize=8, per_sample_window=[[0, 0, 4, 4]] * 3), ferry.InvalidArgumentError,
     ["per_sample_window has 3 rows", "n = 2"]),
    (dict(resize=8, per_sample_window=[[0, 0, 4]] * 2), ferry.InvalidArgumentError,
     ["per_sample_window has shape (2, 3)"]),
    (dict(resize=8, per_sample_window=[[0, 0, 4, 4], [10, 0, 4, 4]]), ferry.OutOfRangeError,
     ["per_sample_window[1]"]),
    (dict(resize=8, per_sample_crop=[[0, 0, 4, 4], [0, 0, 14, 4]]), ferry.OutOfRangeError,
     ["per_sample_crop[1]"]),
    (dict(resize=8, pad_outside=True), ferry.UnsupportedError, ["pad_outside", "LETTERBOX"]),
    (dict(resize=(9000, 9000), interpolation="area", window=(0, 0, 0.5, 0.5)), None, []),
    (dict(resize=1, interpolation="area", crop=(0, 0, 13, 9), dtype="u8"), None, []),
])
def test_bad_resize_arguments_raise_naming_them(ctx, kwargs, error, words):
    images = random_images((2, 9, 13, 3), seed=1)
    if error is None:  # valid: describing works
        ferry.output_info(images, **kwargs)
        return
    def through_a_transform():
        ferry.output_info(images, ferry.Transform(**kwargs))

    for attempt in (lambda: ferry.output_info(images, **kwargs), lambda: ctx.submit(images, **kwargs).wait(),
                    through_a_transform):
        with pytest.raises(error) as e:
            attempt()
        for word in words:
            assert word in str(e.value), (word, str(e.value))


def test_area_shrinking_more_than_256_is_unsupported(ctx):
    images = random_images((1, 1, 600, 1), seed=0)
    with pytest.raises(ferry.UnsupportedError, match="256"):
        ferry.output_info(images, resize=(1, 2), interpolation="area")
    ferry.output_info(images, resize=(1, 3), interpolation="area")  # 200: fine
    ferry.output_info(images, resize=(1, 2), interpolation="linear")  # two taps at any scale


@pytest.mark.skipif(ferry.device_count() == 0, reason="no CUDA device: the GPU's resize is checked on a GPU")
@pytest.mark.parametrize("interpolation", ["nearest", "linear", "cubic", "area", "linear_antialias"])
def test_resize_on_the_gpu_equals_the_cpu_backend(interpolation):
    """The same list of images at their own sizes through a CUDA and a CPU context: every element equal."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    images = [rng.integers(0, 256, (int(h), int(w), 3), dtype=np.uint8)
              for h, w in rng.integers(20, 90, size=(6, 2))]
    windows = np.array([[1.5, 2.25, im.shape[1] * 0.7, im.shape[0] * 0.6] for im in images], dtype=np.float32)
    kwargs = dict(resize=(24, 40), interpolation=interpolation, dtype="float16", per_sample_window=windows,
                  per_sample_mirror=rng.integers(0, 2, len(images)), mean=0.5, std=0.25)
    with ferry.Context(ferry.Device.CPU) as cpu, ferry.Context(ferry.Device.CUDA) as gpu:
        with cpu.submit(images, **kwargs) as batch:
            want = torch.from_dlpack(batch).clone()
        with gpu.submit(images, **kwargs) as batch:
            got = torch.from_dlpack(batch).cpu()
    assert got.shape == want.shape == (6, 3, 24, 40)
    assert torch.equal(got.view(torch.int16), want.view(torch.int16))
