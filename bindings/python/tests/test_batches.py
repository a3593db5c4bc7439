"""Submitting batches on the CPU backend and handing the output to NumPy and
PyTorch without a copy; bad input raising ferry's errors."""
import numpy as np
import pytest

import ferry

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def reference(x_nhwc, mean=(0, 0, 0), std=(1, 1, 1)):
    """float32 NCHW, (x/255 - mean)/std, computed in float64."""
    y = (x_nhwc.astype(np.float64) / 255.0 - np.asarray(mean)) / np.asarray(std)
    return y.transpose(0, 3, 1, 2).astype(np.float32)


@pytest.fixture
def ctx():
    with ferry.Context(ferry.Device.CPU, cpu_threads=2) as c:
        yield c


@pytest.fixture
def images():
    return np.random.default_rng(7).integers(0, 256, size=(3, 5, 7, 3), dtype=np.uint8)


def test_numpy_in_numpy_out(ctx, images):
    with ctx.submit(images, mean=MEAN, std=STD) as batch:
        out = batch.numpy()
        assert batch.shape == (3, 3, 5, 7) and batch.dtype == ferry.DType.FLOAT32
        np.testing.assert_allclose(out, reference(images, MEAN, STD), rtol=1e-5, atol=1e-5)
        assert out.__array_interface__["data"][0] == batch.data_ptr  # no copy


def test_dlpack_outlives_close(ctx, images):
    batch = ctx.submit(images)
    arr = np.from_dlpack(batch)
    batch.close()
    np.testing.assert_allclose(arr, reference(images), rtol=1e-6)


def test_torch_from_dlpack_on_cpu(ctx, images):
    torch = pytest.importorskip("torch")
    with ctx.submit(images, dtype=ferry.DType.FLOAT32) as batch:
        t = torch.from_dlpack(batch)
        assert t.device.type == "cpu" and t.dtype == torch.float32
        assert tuple(t.shape) == (3, 3, 5, 7)
        assert t.data_ptr() == batch.data_ptr
        np.testing.assert_allclose(t.numpy(), reference(images), rtol=1e-6)


def test_torch_cpu_tensor_as_source(ctx, images):
    torch = pytest.importorskip("torch")
    with ctx.submit(torch.from_numpy(images), layout=ferry.Layout.NHWC) as batch:
        np.testing.assert_allclose(batch.numpy(), reference(images).transpose(0, 2, 3, 1), rtol=1e-6)


def test_bytes_memoryview_and_strided_sources(ctx, images):
    flat = images[0].tobytes()
    with ctx.submit(memoryview(flat).cast("B", shape=[5, 7, 3])) as batch:
        np.testing.assert_allclose(batch.numpy(), reference(images[:1]), rtol=1e-6)
    wide = np.zeros((3, 5, 9, 3), np.uint8)
    wide[:, :, 1:8] = images
    view = wide[:, :, 1:8]  # padded rows: not contiguous
    assert not view.flags.c_contiguous
    with ctx.submit(view) as batch:
        np.testing.assert_allclose(batch.numpy(), reference(images), rtol=1e-6)


def test_list_of_samples(ctx, images):
    samples = [np.ascontiguousarray(images[i]) for i in range(3)]
    with ctx.submit(samples) as batch:
        np.testing.assert_allclose(batch.numpy(), reference(images), rtol=1e-6)


def test_caller_output(ctx, images):
    out = np.full((3, 3, 5, 7), -1, np.float32)
    with ctx.submit(images, out=out) as batch:
        batch.wait()
        assert batch.data_ptr == out.ctypes.data
    np.testing.assert_allclose(out, reference(images), rtol=1e-6)


def test_bad_inputs_raise_ferry_errors(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match="dtype is float32"):
        ctx.submit(images.astype(np.float32))
    with pytest.raises(ferry.UnsupportedError, match="negative strides"):
        ctx.submit(images[:, ::-1])
    with pytest.raises(ferry.InvalidArgumentError, match="is None"):
        ctx.submit(None)
    with pytest.raises(ferry.InvalidArgumentError, match="out has shape"):
        ctx.submit(images, out=np.zeros((3, 3, 5, 6), np.float32))
    with pytest.raises(ferry.InvalidArgumentError, match="out dtype"):
        ctx.submit(images, out=np.zeros((3, 3, 5, 7), np.float64))
    with pytest.raises(ferry.FerryError) as info:  # 5 channels: ferry itself rejects it
        ctx.submit(np.zeros((1, 4, 4, 5), np.uint8))
    assert "5" in info.value.message
    with pytest.raises(ferry.InvalidArgumentError, match="mean has 5 values for 3 output channels"):
        ctx.submit(images, mean=[0.1] * 5)


def test_batch_use_after_close(ctx, images):
    batch = ctx.submit(images)
    batch.close()
    batch.close()  # idempotent
    with pytest.raises(ferry.InvalidHandleError):
        batch.wait()


def test_output_info(images):
    info = ferry.output_info(images, dtype=ferry.DType.FLOAT16, layout=ferry.Layout.NHWC)
    assert info["shape"] == (3, 5, 7, 3) and info["nbytes"] == 3 * 5 * 7 * 3 * 2
