"""Streams cross the binding as ints (a cudaStream_t's value, ferry_cuda_stream
in C) or as the stream objects of PyTorch (.cuda_stream) and CuPy (.ptr). The
CPU backend accepts streams and ignores them, so these tests check the binding
on any machine; what streams do on a GPU is tests/gpu's and test_lifetimes'."""
import numpy as np
import pytest

import ferry
from ferry import ferry_swig as _swig

ADDRESS = 0x7F0012345678  # shaped like a cudaStream_t; the CPU backend never uses it


class TorchLikeStream:
    """torch.cuda.Stream as ferry reads it: the handle is .cuda_stream."""

    def __init__(self, handle):
        self.cuda_stream = handle


class CupyLikeStream:
    """cupy.cuda.Stream as ferry reads it: the handle is .ptr."""

    def __init__(self, handle):
        self.ptr = handle


@pytest.fixture
def images():
    return np.random.default_rng(3).integers(0, 256, size=(2, 4, 5, 3), dtype=np.uint8)


def test_the_handoff_stream_field_is_an_int():
    options = _swig.SubmitOptions()
    options.handoff_stream = ADDRESS
    assert options.handoff_stream == ADDRESS
    options.handoff_stream = None
    assert options.handoff_stream == 0
    with pytest.raises(TypeError, match="int address or None"):
        options.handoff_stream = "stream 1"


@pytest.mark.parametrize("stream", [None, 0, ADDRESS, TorchLikeStream(ADDRESS), CupyLikeStream(ADDRESS)],
                         ids=["none", "zero", "int", "torch", "cupy"])
def test_every_stream_argument(ctx, images, stream):
    with ctx.submit(images, stream=stream) as batch:  # the hand-off stream
        batch.stream_wait(stream)
        np.testing.assert_allclose(batch.numpy(), images.transpose(0, 3, 1, 2) / np.float32(255), rtol=1e-6)
    out = np.empty((2, 3, 4, 5), np.float32)
    ctx.convert(images, out, stream=stream)
    np.testing.assert_allclose(out, images.transpose(0, 3, 1, 2) / np.float32(255), rtol=1e-6)
    address = ctx.device_alloc(64, stream)
    ctx.device_free(address, stream)
    ctx.host_alloc(64).close(stream)


def test_a_stream_of_another_type_is_invalid_argument(ctx, images):
    with pytest.raises(ferry.InvalidArgumentError, match="stream is a str"):
        ctx.submit(images, stream="stream 1")
