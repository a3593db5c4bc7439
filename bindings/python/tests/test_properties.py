"""Property tests (hypothesis): random shapes, strides and transforms through
Context.submit and Context.convert on the CPU backend, against a NumPy
reference written from the C header's definitions (the folded arithmetic
alpha = scale/std, beta = -mean/std in double, rounded to float32 once, then
one float32 multiply and one add; float16 and bfloat16 rounded to nearest even).
A window outside the image without pad_outside must raise OutOfRangeError.
Resize (issue 14) to the window's own size, by every interpolation, must give
the same bits (bindings/python/tests/test_resize_*.py compare real resizes with
OpenCV and torchvision)."""
import numpy as np
import pytest

import ferry

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def ctx():
    with ferry.Context(ferry.Device.CPU, cpu_threads=2) as c:
        yield c


def bf16_bits(v):
    """float32 -> bfloat16 bits, round to nearest even (no NaN arises here)."""
    bits = np.ascontiguousarray(v, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def reference(x, t):
    """x: (n, h, w, c) uint8. t: the case's transform keywords. Returns the
    output as raw bits (uint8/float32/uint16 array) in the output layout."""
    n, h, w, c = x.shape
    dtype = t["dtype"]
    cmap = list(t["channel_map"]) if t.get("channel_map") is not None else list(range(c))
    oc = len(cmap)
    oct_ = 4 if t.get("pad_channels_to_4") else oc
    crop = t.get("crop")
    cx, cy, ow, oh = crop if crop is not None else (0, 0, w, h)
    mirror = t.get("mirror", 0)
    per_mirror = t.get("per_sample_mirror")
    fill = np.float32(t.get("fill_value", 0.0))
    pad = np.float32(t.get("pad_value", 0.0))
    scale = np.float32(t["scale"] if t.get("scale") is not None else 1.0 / 255.0)
    mean = np.float32(t["mean"]) if t.get("mean") is not None else np.zeros(oc, np.float32)
    std = np.float32(t["std"]) if t.get("std") is not None else np.ones(oc, np.float32)
    mean = np.broadcast_to(mean, (oc,))
    std = np.broadcast_to(std, (oc,))
    alpha = (np.float64(scale) / std.astype(np.float64)).astype(np.float32)
    beta = (-mean.astype(np.float64) / std.astype(np.float64)).astype(np.float32)

    out = np.zeros((n, oct_, oh, ow), np.float32)
    inside = np.zeros((n, oh, ow), bool)
    for i in range(n):
        m = per_mirror[i] if per_mirror is not None else mirror
        xs = np.arange(ow)
        ys = np.arange(oh)
        sx = cx + (ow - 1 - xs if m & 1 else xs)
        sy = cy + (oh - 1 - ys if m & 2 else ys)
        ok = (sx[None, :] >= 0) & (sx[None, :] < w) & (sy[:, None] >= 0) & (sy[:, None] < h)
        inside[i] = ok
        sxc = np.clip(sx, 0, w - 1)
        syc = np.clip(sy, 0, h - 1)
        for k in range(oc):
            v = x[i][np.ix_(syc, sxc)][:, :, cmap[k]].astype(np.float32)
            if dtype != ferry.DType.UINT8:
                v = (v * alpha[k]).astype(np.float32) + beta[k]
            out[i, k] = np.where(ok, v, fill)
        for k in range(oc, oct_):
            out[i, k] = pad
    if t["layout"] == ferry.Layout.NHWC:
        out = out.transpose(0, 2, 3, 1)
    out = np.ascontiguousarray(out, np.float32)
    if dtype == ferry.DType.UINT8:
        return out.astype(np.uint8)
    if dtype == ferry.DType.FLOAT32:
        return out.view(np.uint32)
    if dtype == ferry.DType.FLOAT16:
        return out.astype(np.float16).view(np.uint16)
    return bf16_bits(out)


def as_bits(arr, dtype):
    """A converted output (NumPy, or a torch tensor for bfloat16) as raw bits."""
    if dtype == ferry.DType.BFLOAT16:
        import torch
        return arr.contiguous().view(torch.int16).numpy().view(np.uint16)
    a = np.ascontiguousarray(arr)
    if dtype == ferry.DType.FLOAT32:
        return a.view(np.uint32)
    if dtype == ferry.DType.FLOAT16:
        return a.view(np.uint16)
    return a


@st.composite
def cases(draw):
    n = draw(st.integers(1, 3))
    h = draw(st.integers(1, 9))
    w = draw(st.integers(1, 19))
    c = draw(st.sampled_from([1, 3, 4]))
    seed = draw(st.integers(0, 2**31))
    x = np.random.default_rng(seed).integers(0, 256, size=(n, h, w, c), dtype=np.uint8)
    form = draw(st.sampled_from(["packed", "padded", "nchw", "samples"]))
    dtype = draw(st.sampled_from(list(ferry.DType)))
    t = {"dtype": dtype, "layout": draw(st.sampled_from([ferry.Layout.NCHW, ferry.Layout.NHWC]))}
    if draw(st.booleans()):
        t["channel_map"] = draw(st.lists(st.integers(0, c - 1), min_size=1, max_size=4))
    oc = len(t["channel_map"]) if "channel_map" in t else c
    if draw(st.integers(0, 3)) == 0:
        t["pad_channels_to_4"] = True
        t["pad_value"] = float(draw(st.integers(0, 255))) if dtype == ferry.DType.UINT8 else \
            draw(st.sampled_from([0.0, -1.5, 0.25, 1000.0]))
    if dtype != ferry.DType.UINT8 and draw(st.booleans()):
        finite = st.floats(-4.0, 4.0, allow_nan=False, width=32)
        t["mean"] = draw(st.lists(finite, min_size=oc, max_size=oc))
        t["std"] = draw(st.lists(st.floats(0.0625, 3.0, width=32) | st.floats(-3.0, -0.0625, width=32),
                                 min_size=oc, max_size=oc))
        if draw(st.booleans()):
            t["scale"] = draw(st.sampled_from([1.0, 1.0 / 255.0, 0.5, 2.0]))
    if draw(st.booleans()):
        cw = draw(st.integers(1, w + 3))
        ch = draw(st.integers(1, h + 3))
        t["crop"] = (draw(st.integers(-cw - 2, w + 2)), draw(st.integers(-ch - 2, h + 2)), cw, ch)
        t["pad_outside"] = draw(st.booleans())
        if t["pad_outside"]:
            t["fill_value"] = float(draw(st.integers(0, 255))) if dtype == ferry.DType.UINT8 else \
                draw(st.sampled_from([0.0, -7.25, 3.0]))
    if draw(st.booleans()):
        t["per_sample_mirror"] = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    else:
        t["mirror"] = draw(st.integers(0, 3))
    return x, form, t


def make_source(x, form):
    """The source array (and its source_layout) in the case's memory form."""
    n, h, w, c = x.shape
    if form == "packed":
        return x.copy(), ferry.Layout.NHWC
    if form == "padded":  # row pitch and a gap between samples: not contiguous
        big = np.zeros((n + 1, h + 1, w + 3, c), np.uint8)
        big[:n, :h, 1:w + 1] = x
        return big[:n, :h, 1:w + 1], ferry.Layout.NHWC
    if form == "nchw":
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2)), ferry.Layout.NCHW
    return [np.ascontiguousarray(x[i]) for i in range(n)], ferry.Layout.NHWC


def outside(x, t):
    if "crop" not in t:
        return False
    n, h, w, c = x.shape
    cx, cy, cw, ch = t["crop"]
    return cx < 0 or cy < 0 or cx + cw > w or cy + ch > h


def keywords(t):
    return {k: v for k, v in t.items()}


@SETTINGS
@given(cases())
def test_submit_matches_numpy_reference(ctx, case):
    x, form, t = case
    if t["dtype"] == ferry.DType.BFLOAT16:
        pytest.importorskip("torch")
    source, source_layout = make_source(x, form)
    if outside(x, t) and not t.get("pad_outside"):
        with pytest.raises(ferry.OutOfRangeError):
            ctx.submit(source, source_layout=source_layout, **keywords(t))
        return
    with ctx.submit(source, source_layout=source_layout, **keywords(t)) as batch:
        batch.wait()
        if t["dtype"] == ferry.DType.BFLOAT16:
            import torch
            got = as_bits(torch.from_dlpack(batch), t["dtype"])
        else:
            got = as_bits(batch.numpy(), t["dtype"])
        np.testing.assert_array_equal(got, reference(x, t))


@SETTINGS
@given(cases(), st.booleans())
def test_convert_into_strided_out_matches_numpy_reference(ctx, case, strided_out):
    x, form, t = case
    source, source_layout = make_source(x, form)
    torch = pytest.importorskip("torch") if t["dtype"] == ferry.DType.BFLOAT16 else None
    want = reference(x, t)
    if torch is not None:
        base = torch.full(tuple(s + (1 if strided_out else 0) for s in want.shape), -1, dtype=torch.bfloat16)
        out = base[tuple(slice(0, s) for s in want.shape)]
    else:
        np_dtype = {ferry.DType.UINT8: np.uint8, ferry.DType.FLOAT32: np.float32,
                    ferry.DType.FLOAT16: np.float16}[t["dtype"]]
        base = np.full(tuple(s + (1 if strided_out else 0) for s in want.shape), 77, np_dtype)
        out = base[tuple(slice(0, s) for s in want.shape)]
    if outside(x, t) and not t.get("pad_outside"):
        with pytest.raises(ferry.OutOfRangeError):
            ctx.convert(source, out, source_layout=source_layout, **keywords(t))
        return
    ctx.convert(source, out, source_layout=source_layout, **keywords(t))
    np.testing.assert_array_equal(as_bits(out, t["dtype"]), want)
    if strided_out:  # the gaps around a strided output stay untouched
        inner = tuple(slice(0, s) for s in want.shape)
        mask = np.ones(tuple(base.shape), bool)
        mask[inner] = False
        if torch is not None:
            assert bool((base.float().numpy()[mask] == -1).all())
        else:
            assert (base[mask] == 77).all()

@SETTINGS
@given(cases(), st.sampled_from(list(ferry.Interpolation)), st.sampled_from(["submit", "convert"]))
def test_resize_to_the_windows_own_size_changes_nothing(ctx, case, interpolation, via):
    """Resize (issue 14) at scale 1: every interpolation's taps are 1 on the pixel
    itself, so the output is the unresized reference, bit for bit."""
    x, form, t = case
    if outside(x, t) or t["dtype"] == ferry.DType.BFLOAT16:
        return  # a resized window lies inside its image; bfloat16 needs torch to read
    t = {k: v for k, v in t.items() if k not in ("pad_outside", "fill_value")}
    want = reference(x, t)
    h, w = x.shape[1:3]
    cw, ch = (t["crop"][2], t["crop"][3]) if "crop" in t else (w, h)
    source, source_layout = make_source(x, form)
    kwargs = dict(keywords(t), resize=(ch, cw), interpolation=interpolation, source_layout=source_layout)
    if via == "submit":
        with ctx.submit(source, **kwargs) as batch:
            got = as_bits(batch.numpy(), t["dtype"])
    else:
        np_dtype = {ferry.DType.UINT8: np.uint8, ferry.DType.FLOAT32: np.float32,
                    ferry.DType.FLOAT16: np.float16}[t["dtype"]]
        out = np.full(want.shape, 77, np_dtype)
        ctx.convert(source, out, **kwargs)
        got = as_bits(out, t["dtype"])
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 12), st.integers(1, 12), st.sampled_from([1, 3, 4]))
def test_output_info_matches_the_output(ctx, n, h, w, c):
    x = np.zeros((n, h, w, c), np.uint8)
    for layout in (ferry.Layout.NCHW, ferry.Layout.NHWC):
        with ctx.submit(x, layout=layout, dtype=ferry.DType.FLOAT16) as batch:
            want = (n, c, h, w) if layout == ferry.Layout.NCHW else (n, h, w, c)
            assert batch.shape == want
            assert batch.nbytes == n * h * w * c * 2
