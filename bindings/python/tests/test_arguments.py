"""Transform arguments checked as users write them (issue 10, item 2): mean
and std broadcast or match the output channels, dtype and layout in every
spelling users reach for, and clear errors for everything else."""
import subprocess
import sys

import numpy as np
import pytest

import ferry

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


@pytest.fixture(scope="module")
def ctx():
    with ferry.Context(ferry.Device.CPU, cpu_threads=2) as c:
        yield c


@pytest.fixture
def images():
    return np.random.default_rng(11).integers(0, 256, size=(2, 5, 7, 3), dtype=np.uint8)


def convert(ctx, images, transform=None, **kwargs):
    """The output as float64 NCHW (CPU backend), copied."""
    with ctx.submit(images, transform, **kwargs) as batch:
        return np.array(batch.numpy(), dtype=np.float64)


def reference(x_nhwc, mean=0.0, std=1.0, channel_map=None):
    x = x_nhwc.astype(np.float64)
    if channel_map is not None:
        x = x[..., list(channel_map)]
    return ((x / 255.0 - np.asarray(mean, np.float64)) / np.asarray(std, np.float64)).transpose(0, 3, 1, 2)


# ---- mean and std ------------------------------------------------------------

def test_mean_of_two_values_on_three_channels_is_an_error(ctx, images):
    # Before: channel 3 silently kept mean 0.
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ctx.submit(images, mean=[0.5, 0.5])
    message = info.value.message
    assert "mean" in message and "2 values" in message and "3 output channels" in message


def test_mean_of_four_values_on_three_channels_is_an_error(ctx, images):
    # Before: the 4th value was ignored.
    with pytest.raises(ferry.InvalidArgumentError, match=r"mean has 4 values for 3 output channels"):
        ctx.submit(images, mean=[0.1, 0.2, 0.3, 0.4])


def test_five_means_are_invalid_argument_too(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match=r"mean has 5 values for 3"):
        ctx.submit(images, mean=[0.1] * 5)


def test_std_of_wrong_length_is_an_error(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match=r"std has 2 values for 3 output channels"):
        ctx.submit(images, std=[0.5, 0.5])


def test_one_mean_is_used_for_every_channel(ctx, images):
    # Before: only channel 0 was normalized.
    got = convert(ctx, images, mean=[0.5], std=[0.25])
    np.testing.assert_allclose(got, reference(images, 0.5, 0.25), rtol=1e-6, atol=1e-6)


def test_scalar_mean_and_std_broadcast(ctx, images):
    # Before: mean=0.5 was a bare TypeError.
    got = convert(ctx, images, mean=0.5, std=0.25)
    np.testing.assert_allclose(got, reference(images, 0.5, 0.25), rtol=1e-6, atol=1e-6)
    got = convert(ctx, images, mean=np.float32(0.5), std=np.array(0.25))
    np.testing.assert_allclose(got, reference(images, 0.5, 0.25), rtol=1e-6, atol=1e-6)


def test_one_value_per_channel_from_any_sequence(ctx, images):
    want = reference(images, MEAN, STD)
    for mean, std in [(MEAN, STD), (tuple(MEAN), tuple(STD)), (np.array(MEAN), np.array(STD, np.float32))]:
        np.testing.assert_allclose(convert(ctx, images, mean=mean, std=std), want, rtol=1e-5, atol=1e-5)


def test_mean_and_std_from_torch_tensors(ctx, images):
    torch = pytest.importorskip("torch")
    got = convert(ctx, images, mean=torch.tensor(MEAN), std=torch.tensor(0.5))
    np.testing.assert_allclose(got, reference(images, MEAN, 0.5), rtol=1e-5, atol=1e-5)


def test_mean_that_is_not_numbers_is_an_error(ctx, images):
    for bad in ["0.5", [0.5, "x", 0.5], [[0.5, 0.5, 0.5]], [None], True]:
        with pytest.raises(ferry.InvalidArgumentError, match="mean"):
            ctx.submit(images, mean=bad)


def test_channel_count_comes_from_the_channel_map(ctx):
    gray = np.random.default_rng(2).integers(0, 256, size=(2, 4, 6, 1), dtype=np.uint8)
    # gray -> RGB: 3 output channels from a 1-channel source.
    got = convert(ctx, gray, channel_map=[0, 0, 0], mean=MEAN, std=STD)
    np.testing.assert_allclose(got, reference(gray, MEAN, STD, [0, 0, 0]), rtol=1e-5, atol=1e-5)
    with pytest.raises(ferry.InvalidArgumentError, match=r"mean has 2 values for 3 output channels \(channel_map \[0, 0, 0\] gives 3\)"):
        ctx.submit(gray, channel_map=[0, 0, 0], mean=[0.5, 0.5])
    # 1 channel without a map: only a scalar or 1 value.
    with pytest.raises(ferry.InvalidArgumentError, match=r"mean has 3 values for 1 output channel \(the source has c = 1\)"):
        ctx.submit(gray, mean=MEAN)
    np.testing.assert_allclose(convert(ctx, gray, mean=[0.5]), reference(gray, 0.5), rtol=1e-6, atol=1e-6)


def test_bgra_to_rgb_takes_three_values(ctx):
    bgra = np.random.default_rng(3).integers(0, 256, size=(2, 4, 6, 4), dtype=np.uint8)
    got = convert(ctx, bgra, channel_map=[2, 1, 0], mean=MEAN, std=STD)
    np.testing.assert_allclose(got, reference(bgra, MEAN, STD, [2, 1, 0]), rtol=1e-5, atol=1e-5)
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ctx.submit(bgra, channel_map=[2, 1, 0], mean=MEAN + [0.5])
    assert "4 values for 3 output channels" in info.value.message and "channel_map [2, 1, 0]" in info.value.message
    # Without a map a 4-channel source takes 4.
    np.testing.assert_allclose(convert(ctx, bgra, mean=MEAN + [0.5]), reference(bgra, MEAN + [0.5]),
                               rtol=1e-5, atol=1e-5)


def test_padded_channels_take_no_mean(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ctx.submit(images, pad_channels_to_4=True, mean=MEAN + [0.5])
    assert "pad_channels_to_4" in info.value.message and "3 output channels" in info.value.message
    with ctx.submit(images, pad_channels_to_4=True, pad_value=7.0, mean=0.5) as batch:
        got = np.array(batch.numpy(), np.float64)
    np.testing.assert_allclose(got[:, :3], reference(images, 0.5), rtol=1e-6, atol=1e-6)
    assert (got[:, 3] == 7.0).all()


def test_one_transform_serves_sources_of_different_channel_counts(ctx, images):
    t = ferry.Transform(mean=0.5, std=[0.25])
    gray = images[..., :1].copy()
    np.testing.assert_allclose(convert(ctx, gray, t), reference(gray, 0.5, 0.25), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(convert(ctx, images, t), reference(images, 0.5, 0.25), rtol=1e-6, atol=1e-6)
    t3 = ferry.Transform(mean=MEAN)
    ctx.submit(images, t3).close()
    with pytest.raises(ferry.InvalidArgumentError, match=r"mean has 3 values for 1 output channel"):
        ctx.submit(gray, t3)


def test_output_info_checks_mean_too(images):
    assert ferry.output_info(images, mean=0.5)["shape"] == (2, 3, 5, 7)
    with pytest.raises(ferry.InvalidArgumentError, match="mean has 2 values"):
        ferry.output_info(images, mean=[0.5, 0.5])


# ---- per-sample mean and std ----------------------------------------------------

def test_per_sample_mean_shapes(ctx, images):
    rows = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    want = np.stack([reference(images[i:i + 1], rows[i])[0] for i in range(2)])
    np.testing.assert_allclose(convert(ctx, images, per_sample_mean=rows), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(convert(ctx, images, per_sample_mean=rows.tolist()), want, rtol=1e-5, atol=1e-5)
    # One value per sample, as (n,) or (n, 1): used for every channel.
    want = np.stack([reference(images[i:i + 1], v)[0] for i, v in enumerate([0.1, 0.7])])
    np.testing.assert_allclose(convert(ctx, images, per_sample_mean=[0.1, 0.7]), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(convert(ctx, images, per_sample_mean=[[0.1], [0.7]]), want, rtol=1e-5, atol=1e-5)


def test_per_sample_std_shapes(ctx, images):
    want = np.stack([reference(images[i:i + 1], 0.0, v)[0] for i, v in enumerate([0.5, 2.0])])
    np.testing.assert_allclose(convert(ctx, images, per_sample_std=np.array([0.5, 2.0])), want, rtol=1e-5, atol=1e-5)


def test_per_sample_mean_of_wrong_shape_is_an_error(ctx, images):
    # Before: (n, 2) rows were read as a flat array of the wrong stride.
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ctx.submit(images, per_sample_mean=np.zeros((2, 2)))
    assert "per_sample_mean has shape (2, 2)" in info.value.message and "(2, 3)" in info.value.message
    with pytest.raises(ferry.InvalidArgumentError, match=r"per_sample_std has shape \(3, 3\).*n = 2"):
        ctx.submit(images, per_sample_std=np.ones((3, 3)))
    with pytest.raises(ferry.InvalidArgumentError, match="per_sample_mean has shape"):
        ctx.submit(images, per_sample_mean=np.zeros((2, 3, 1)))
    with pytest.raises(ferry.InvalidArgumentError, match="per_sample_mean"):
        ctx.submit(images, per_sample_mean=[[0.1, 0.2, 0.3], [0.1]])  # ragged


def test_per_sample_crop_and_mirror_shapes(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match=r"per_sample_crop has shape \(2, 3\)"):
        ctx.submit(images, per_sample_crop=[[0, 0, 2], [0, 0, 2]])
    with pytest.raises(ferry.InvalidArgumentError, match=r"per_sample_crop has 3 rows: the batch has n = 2"):
        ctx.submit(images, per_sample_crop=[[0, 0, 2, 2]] * 3)
    with pytest.raises(ferry.InvalidArgumentError, match=r"per_sample_mirror has 1 entry: the batch has n = 2"):
        ctx.submit(images, per_sample_mirror=[ferry.Mirror.X])
    with pytest.raises(ferry.InvalidArgumentError, match="per_sample_mirror"):
        ctx.submit(images, per_sample_mirror=[1, 9])
    with ctx.submit(images, per_sample_crop=[[0, 0, 3, 2], [1, 1, 3, 2]], per_sample_mirror=[0, 1]) as batch:
        assert batch.shape == (2, 3, 2, 3)


# ---- dtype --------------------------------------------------------------------

@pytest.mark.parametrize("spelling, want", [
    (ferry.DType.FLOAT16, ferry.DType.FLOAT16),
    ("float16", ferry.DType.FLOAT16), ("f16", ferry.DType.FLOAT16), ("FLOAT16", ferry.DType.FLOAT16),
    ("float32", ferry.DType.FLOAT32), ("f32", ferry.DType.FLOAT32),
    ("bfloat16", ferry.DType.BFLOAT16), ("bf16", ferry.DType.BFLOAT16),
    ("uint8", ferry.DType.UINT8), ("u8", ferry.DType.UINT8),
    (np.float16, ferry.DType.FLOAT16), (np.float32, ferry.DType.FLOAT32), (np.uint8, ferry.DType.UINT8),
    (np.dtype("float32"), ferry.DType.FLOAT32), (np.dtype("<f2"), ferry.DType.FLOAT16),
])
def test_dtype_spellings(ctx, images, spelling, want):
    # Before: strings and NumPy dtypes were refused (ValueError from the enum).
    with ctx.submit(images, dtype=spelling) as batch:
        assert batch.dtype == want
    assert ferry.output_info(images, dtype=spelling)["dtype"] == want


def test_torch_dtypes(ctx, images):
    torch = pytest.importorskip("torch")
    for spelling, want in [(torch.float16, ferry.DType.FLOAT16), (torch.bfloat16, ferry.DType.BFLOAT16),
                           (torch.float32, ferry.DType.FLOAT32), (torch.uint8, ferry.DType.UINT8)]:
        with ctx.submit(images, dtype=spelling) as batch:
            assert batch.dtype == want
    with ctx.submit(images, dtype=torch.bfloat16, mean=MEAN, std=STD) as batch:
        got = torch.from_dlpack(batch).float().numpy()
    np.testing.assert_allclose(got, reference(images, MEAN, STD), rtol=1e-2, atol=1e-2)
    with pytest.raises(ferry.InvalidArgumentError, match="accepted"):
        ctx.submit(images, dtype=torch.float64)


@pytest.mark.parametrize("bad", ["float64", "half", "", "fp16", np.float64, np.int16, np.dtype(">f4"), float, int,
                                 True, 99, None, object()])
def test_bad_dtype_lists_what_is_accepted(images, bad):
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ferry.Transform(dtype=bad)
    message = info.value.message
    assert message.startswith("dtype is ")
    for accepted in ("ferry.DType", "'float32'", "'float16'", "'bfloat16'", "'uint8'", "'f16'", "'bf16'",
                     "numpy", "torch"):
        assert accepted in message, accepted


def test_dtype_does_not_import_torch():
    code = ("import sys, numpy, ferry\n"
            "ferry.Transform(dtype='bf16'); ferry.Transform(dtype=numpy.float16)\n"
            "try:\n    ferry.Transform(dtype='float64')\nexcept ferry.InvalidArgumentError:\n    pass\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- layout, mirror, crop, channel_map, keywords ------------------------------

def test_layout_strings(ctx, images):
    for spelling, want in [("NHWC", ferry.Layout.NHWC), ("nchw", ferry.Layout.NCHW), ("Nhwc", ferry.Layout.NHWC),
                           (ferry.Layout.NCHW, ferry.Layout.NCHW)]:
        with ctx.submit(images, layout=spelling) as batch:
            assert batch.layout == want
    nchw = np.ascontiguousarray(images.transpose(0, 3, 1, 2))
    with ctx.submit(nchw, source_layout="nchw", layout="nhwc") as batch:
        assert batch.shape == (2, 5, 7, 3)
    for bad in ["CHW", "planar", 7, None]:
        with pytest.raises(ferry.InvalidArgumentError, match="'NCHW' 'NHWC'"):
            ctx.submit(images, layout=bad)
    with pytest.raises(ferry.InvalidArgumentError, match="source_layout is 'HWC'"):
        ctx.submit(images, source_layout="HWC")


def test_crop_must_be_four_integers(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match=r"crop is \(1, 2, 3\) \(3 values\): 4 integers \(x, y, w, h\)"):
        ctx.submit(images, crop=(1, 2, 3))
    with pytest.raises(ferry.InvalidArgumentError, match="crop"):
        ctx.submit(images, crop=(0, 0, 2.5, 2))  # before: silently truncated
    with pytest.raises(ferry.InvalidArgumentError, match="crop"):
        ctx.submit(images, crop="0,0,2,2")
    with ctx.submit(images, crop=np.array([1, 1, 4, 3])) as batch:
        assert batch.shape == (2, 3, 3, 4)


def test_channel_map_must_be_indices(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ctx.submit(images, channel_map="bgr")
    assert "channel_map is 'bgr'" in info.value.message and "[2, 1, 0]" in info.value.message
    with pytest.raises(ferry.InvalidArgumentError, match="channel_map has 5 entries"):
        ctx.submit(images, channel_map=[0, 1, 2, 0, 1])
    with pytest.raises(ferry.InvalidArgumentError, match=r"channel_map is \[-1, 0, 0\]"):
        ctx.submit(images, channel_map=[-1, 0, 0])
    with pytest.raises(ferry.OutOfRangeError, match=r"channel_map\[0\] is 3"):  # ferry's own check: c = 3
        ctx.submit(images, channel_map=[3, 0, 0])


def test_mirror_values(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match="mirror is 5"):
        ctx.submit(images, mirror=5)
    with pytest.raises(ferry.InvalidArgumentError, match="mirror is 'x'"):
        ctx.submit(images, mirror="x")
    got = convert(ctx, images, mirror=ferry.Mirror.X | ferry.Mirror.Y)
    np.testing.assert_allclose(got, reference(images[:, ::-1, ::-1]), rtol=1e-6, atol=1e-6)


def test_misspelled_keyword_names_the_right_one(ctx, images):
    with pytest.raises(TypeError, match=r"'channelmap' \(did you mean 'channel_map'\?\)"):
        ctx.submit(images, channelmap=[2, 1, 0])
    with pytest.raises(TypeError, match=r"'means' \(did you mean 'mean'\?\)"):
        ferry.Transform(means=MEAN)


def test_transform_is_checked_when_made(images):
    with pytest.raises(ferry.InvalidArgumentError, match="dtype"):
        ferry.Transform(dtype="double")
    with pytest.raises(ferry.InvalidArgumentError, match="crop"):
        ferry.Transform(crop=(1, 2))
    with pytest.raises(ferry.InvalidArgumentError, match="scale"):
        ferry.Transform(scale="1/255")


def test_transform_argument_must_be_a_transform(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match="transform is a dict"):
        ctx.submit(images, {"mean": 0.5})


def test_transform_repr_is_python():
    t = ferry.Transform(dtype="f16", layout="nhwc", mean=0.5, crop=(0, 0, 2, 2), mirror=ferry.Mirror.X)
    text = repr(t)
    assert text.startswith("ferry.Transform(dtype=ferry.DType.FLOAT16, layout=ferry.Layout.NHWC")
    again = eval(text, {"ferry": ferry})
    assert repr(again) == text


def test_keywords_reused_as_objects_follow_their_values(ctx, images):
    # Context.submit finds the last keyword set's transform by its values' identity when they
    # are immutable (a loop's constants); a list changed between calls must be read anew.
    mean = [0.1, 0.2, 0.3]
    first = convert(ctx, images, mean=mean, std=STD)
    mean[0] = 0.9
    second = convert(ctx, images, mean=mean, std=STD)
    np.testing.assert_allclose(first, reference(images, [0.1, 0.2, 0.3], STD), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(second, reference(images, [0.9, 0.2, 0.3], STD), rtol=1e-6, atol=1e-6)
    constant = (0.5, 0.25, 0.125)
    for _ in range(3):  # the same tuple object each time
        np.testing.assert_allclose(convert(ctx, images, mean=constant), reference(images, constant),
                                   rtol=1e-6, atol=1e-6)
    # Then other objects with the same names: never the remembered spec.
    np.testing.assert_allclose(convert(ctx, images, mean=(0.25, 0.25, 0.25)), reference(images, 0.25),
                               rtol=1e-6, atol=1e-6)
    with pytest.raises(ferry.InvalidArgumentError, match="crop"):
        ctx.submit(images, crop=(0, 0, 2.5, 2))
    with ctx.submit(images, crop=(0, 0, 2, 2)) as batch:
        assert batch.shape == (2, 3, 2, 2)
