"""Camera and video frames (issue 15: ferry_source.format) through the Python
binding, on the CPU backend, on random frames:

- NV12, NV21, I420, YV12, YUYV, UYVY against OpenCV's cvtColor (BT.601
  limited, chroma nearest): uint8 RGB within 1;
- the Bayer patterns against cvtColor's COLOR_Bayer??2RGB (OpenCV names a
  pattern by its second row: ferry's RGGB is OpenCV's BG, BGGR RG, GRBG GB,
  GBRG GR), the interior (OpenCV's border differs) within 1;
- BT.709, BT.2020 and full range, and chroma LINEAR, against a float
  reference written here from include/ferry/pixel_format.h, odd sizes too;
- separate plane arrays (planes=), padded rows, lists and batches give the
  bytes one packed buffer gives; a batch with resize and normalize equals the
  same transform on each frame's uint8 RGB;
- bad input raises FerryError naming what is wrong.
"""
import numpy as np
import pytest

import ferry

F = ferry.PixelFormat
YUV420 = (F.NV12, F.NV21, F.I420, F.YV12)
PACKED = (F.YUYV, F.UYVY)
BAYER = (F.BAYER_RGGB, F.BAYER_BGGR, F.BAYER_GRBG, F.BAYER_GBRG)
CV_YUV = {F.NV12: "NV12", F.NV21: "NV21", F.I420: "I420", F.YV12: "YV12", F.YUYV: "YUY2", F.UYVY: "UYVY"}
CV_BAYER = {F.BAYER_RGGB: "BG", F.BAYER_BGGR: "RG", F.BAYER_GRBG: "GB", F.BAYER_GBRG: "GR"}
KR_KB = {ferry.ColorMatrix.BT601: (0.299, 0.114), ferry.ColorMatrix.BT709: (0.2126, 0.0722),
         ferry.ColorMatrix.BT2020: (0.2627, 0.0593)}
MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def rgb(ctx, source=None, **kwargs):
    """The uint8 NHWC RGB ferry decodes, as int (n, h, w, 3)."""
    with ctx.submit(source, dtype="uint8", layout="NHWC", **kwargs) as batch:
        return batch.numpy().astype(np.int64)


class Frame:
    """A random w x h frame: its planes (Y, and U, V at chroma resolution) and
    the format's one packed buffer (pixel_format.h's layout)."""

    def __init__(self, fmt, h, w, rng):
        self.fmt, self.h, self.w = fmt, h, w
        cw, ch = (w + 1) // 2, (h + 1) // 2
        if fmt in BAYER:
            self.y = rng.integers(0, 256, (h, w), dtype=np.uint8)
            self.buffer = self.y.reshape(-1)
            return
        rows = h if fmt in PACKED else ch
        self.y = rng.integers(0, 256, (h, 2 * cw if fmt in PACKED else w), dtype=np.uint8)
        self.u = rng.integers(0, 256, (rows, cw), dtype=np.uint8)
        self.v = rng.integers(0, 256, (rows, cw), dtype=np.uint8)
        self.buffer = np.concatenate([p.reshape(-1) for p in self.planes()])

    def planes(self):
        """The format's planes as arrays: (Y, UV pairs as (ch, cw, 2)), (Y, U, V) or (packed (h, 2 * cw, 2),)."""
        f = self.fmt
        if f in BAYER:
            return (self.y,)
        if f in PACKED:
            packed = np.empty((self.h, self.u.shape[1], 4), np.uint8)
            luma = self.y.reshape(self.h, -1, 2)
            y_at, u_at, v_at = ((0, 2), 1, 3) if f == F.YUYV else ((1, 3), 0, 2)
            packed[..., y_at[0]], packed[..., y_at[1]] = luma[..., 0], luma[..., 1]
            packed[..., u_at], packed[..., v_at] = self.u, self.v
            return (packed.reshape(self.h, -1, 2),)
        if f in (F.NV12, F.NV21):
            first, second = (self.u, self.v) if f == F.NV12 else (self.v, self.u)
            return self.y, np.stack([first, second], axis=-1)
        return (self.y, self.u, self.v) if f == F.I420 else (self.y, self.v, self.u)

    def cv_array(self):
        """The frame as cv2.cvtColor takes it: (h * 3/2, w) for 4:2:0, (h, w, 2) packed."""
        if self.fmt in PACKED:
            return self.planes()[0]
        return self.buffer.reshape(self.h * 3 // 2, self.w)


def chroma(plane, h, w, vertical, linear):
    """A chroma plane at every pixel: the sample of the pixel's block (nearest),
    or pixel_format.h's siting (on the even columns, between the two rows of
    4:2:0; weights 1/2 across, 3/4 and 1/4 down, edges repeated) rounded to uint8."""
    rows, cw = plane.shape
    x, y = np.arange(w), np.arange(h)
    cx, cy = x // 2, (y // 2 if vertical else y)
    if not linear:
        return plane[np.ix_(cy, cx)].astype(np.float64)
    nx = np.where(x % 2 == 1, np.minimum(cx + 1, cw - 1), cx)
    wx = np.where(x % 2 == 1, 0.5, 1.0)
    p = plane.astype(np.float64)
    across = p[:, cx] * wx + p[:, nx] * (1 - wx)
    if vertical:
        ny = np.where(y % 2 == 1, np.minimum(cy + 1, rows - 1), np.maximum(cy - 1, 0))
        across = 0.75 * across[cy] + 0.25 * across[ny]
    return np.floor(across + 0.5)


def reference(frame, matrix=ferry.ColorMatrix.BT601, color_range=ferry.ColorRange.LIMITED, linear=False):
    """RGB (h, w, 3) from the standards' coefficients in float: with Kg = 1 - Kr - Kb,
    R = ys*max(Y-yo, 0) + cs*2(1-Kr)*V', G = ys*.. - cs*2Kb(1-Kb)/Kg*U' - cs*2Kr(1-Kr)/Kg*V',
    B = ys*.. + cs*2(1-Kb)*U' (U' = U - 128, V' = V - 128), rounded and clamped."""
    h, w = frame.h, frame.w
    kr, kb = KR_KB[matrix]
    kg = 1 - kr - kb
    limited = color_range == ferry.ColorRange.LIMITED
    yo, ys, cs = (16, 255 / 219, 255 / 224) if limited else (0, 1.0, 1.0)
    luma = ys * np.maximum(frame.y[:, :w].astype(np.float64) - yo, 0)
    vertical = frame.fmt in YUV420
    u = chroma(frame.u, h, w, vertical, linear) - 128
    v = chroma(frame.v, h, w, vertical, linear) - 128
    r = luma + cs * 2 * (1 - kr) * v
    g = luma - cs * 2 * kb * (1 - kb) / kg * u - cs * 2 * kr * (1 - kr) / kg * v
    b = luma + cs * 2 * (1 - kb) * u
    return np.clip(np.floor(np.stack([r, g, b], axis=-1) + 0.5), 0, 255)


# ---- against OpenCV --------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", YUV420 + PACKED, ids=lambda f: f.name)
@pytest.mark.parametrize("h, w", [(2, 2), (8, 10), (30, 16)])
def test_yuv_matches_opencv(ctx, cv2, fmt, h, w):
    frame = Frame(fmt, h, w, np.random.default_rng(h * 100 + w + int(fmt)))
    want = cv2.cvtColor(frame.cv_array(), getattr(cv2, "COLOR_YUV2RGB_" + CV_YUV[fmt])).astype(np.int64)
    got = rgb(ctx, frame.cv_array(), format=fmt)
    assert got.shape == (1, h, w, 3)
    assert np.abs(got[0] - want).max() <= 1
    # The same frame flat, with its size; and the format by name.
    flat = rgb(ctx, frame.buffer, format=fmt.name.lower(), size=(h, w))
    np.testing.assert_array_equal(flat, got)


@pytest.mark.parametrize("fmt", BAYER, ids=lambda f: f.name)
@pytest.mark.parametrize("h, w", [(8, 10), (7, 9)])
def test_bayer_matches_opencv_inside_the_border(ctx, cv2, fmt, h, w):
    frame = Frame(fmt, h, w, np.random.default_rng(int(fmt) * 7 + h))
    want = cv2.cvtColor(frame.y, getattr(cv2, f"COLOR_Bayer{CV_BAYER[fmt]}2RGB")).astype(np.int64)
    got = rgb(ctx, frame.y, format=fmt)[0]
    assert np.abs(got[1:-1, 1:-1] - want[1:-1, 1:-1]).max() <= 1


# ---- against the float reference of pixel_format.h ----------------------------------------------

@pytest.mark.parametrize("matrix", list(ferry.ColorMatrix), ids=lambda m: m.name)
@pytest.mark.parametrize("color_range", list(ferry.ColorRange), ids=lambda r: r.name)
@pytest.mark.parametrize("fmt", YUV420 + PACKED, ids=lambda f: f.name)
def test_matrices_and_ranges_match_the_standards(ctx, fmt, matrix, color_range):
    for h, w in [(6, 8), (5, 7), (1, 3), (3, 1)]:
        frame = Frame(fmt, h, w, np.random.default_rng(h * w + int(fmt)))
        got = rgb(ctx, frame.buffer, format=fmt, size=(h, w), color_matrix=matrix, color_range=color_range)
        assert np.abs(got[0] - reference(frame, matrix, color_range)).max() <= 1, (h, w)
    # The names work as the enums do.
    names = rgb(ctx, frame.buffer, format=fmt, size=(h, w), color_matrix=matrix.name.lower(),
                color_range=color_range.name.lower())
    np.testing.assert_array_equal(names, got)


@pytest.mark.parametrize("fmt", YUV420 + PACKED, ids=lambda f: f.name)
def test_chroma_linear_matches_the_siting(ctx, fmt):
    for h, w in [(8, 10), (7, 5), (2, 2), (1, 1)]:
        frame = Frame(fmt, h, w, np.random.default_rng(3 * h + w))
        got = rgb(ctx, frame.buffer, format=fmt, size=(h, w), chroma_filter="linear",
                  color_matrix=ferry.ColorMatrix.BT709)
        want = reference(frame, ferry.ColorMatrix.BT709, linear=True)
        assert np.abs(got[0] - want).max() <= 1, (h, w)
        if h > 2 and w > 2:  # nearest differs: the test tells the two apart
            assert np.abs(rgb(ctx, frame.buffer, format=fmt, size=(h, w), color_matrix="bt709")[0] - want).max() > 1


# ---- how a frame is given ------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", YUV420 + PACKED + (F.BAYER_GRBG,), ids=lambda f: f.name)
@pytest.mark.parametrize("h, w", [(6, 8), (5, 7)])
def test_planes_give_what_one_buffer_gives(ctx, fmt, h, w):
    if fmt in BAYER and (h, w) == (5, 7):
        h, w = 5, 6
    frame = Frame(fmt, h, w, np.random.default_rng(h + w))
    want = rgb(ctx, frame.buffer, format=fmt, size=(h, w))
    planes = frame.planes()
    np.testing.assert_array_equal(rgb(ctx, planes=planes, format=fmt, size=(h, w)), want)
    if w % 2 == 0:  # the size read from plane 0
        np.testing.assert_array_equal(rgb(ctx, planes=planes, format=fmt), want)
    # Padded rows and the planes in one allocation in reverse order (the frame starts at the last plane).
    arena = np.zeros(4096, np.uint8)
    at, padded = 0, []
    for plane in reversed(planes):
        rows = plane.reshape(plane.shape[0], -1)
        pitch = rows.shape[1] + 5
        region = arena[at:at + rows.shape[0] * pitch].reshape(rows.shape[0], pitch)[:, :rows.shape[1]]
        region[...] = rows
        padded.insert(0, region.reshape(plane.shape))
        at += rows.shape[0] * pitch + 3
    np.testing.assert_array_equal(rgb(ctx, planes=tuple(padded), format=fmt, size=(h, w)), want)
    if fmt in YUV420:  # flat chroma planes are packed rows, whatever plane 0's pitch
        flat = (padded[0],) + tuple(p.reshape(-1) for p in planes[1:])
        np.testing.assert_array_equal(rgb(ctx, planes=flat, format=fmt, size=(h, w)), want)


def test_padded_rows_of_one_buffer(ctx, cv2):
    """An NV12 frame whose rows are 16 bytes apart (a decoder's pitch), as a (h * 3/2, 16)[:, :w] view."""
    frame = Frame(F.NV12, 6, 10, np.random.default_rng(5))
    padded = np.zeros((9, 16), np.uint8)
    padded[:, :10] = frame.cv_array()
    want = rgb(ctx, frame.cv_array(), format="nv12")
    np.testing.assert_array_equal(rgb(ctx, padded[:, :10], format="nv12"), want)
    with pytest.raises(ferry.UnsupportedError, match="row must be contiguous"):
        rgb(ctx, padded[:, ::2], format="nv12")


def test_batch_resize_normalize_equals_each_frames_rgb(ctx):
    rng = np.random.default_rng(11)
    frames = [Frame(F.NV12, 12, 16, rng) for _ in range(3)]
    batch = np.stack([f.cv_array() for f in frames])  # (3, 18, 16)
    decoded = rgb(ctx, batch, format="nv12").astype(np.uint8)
    assert decoded.shape == (3, 12, 16, 3)
    for i, f in enumerate(frames):
        np.testing.assert_array_equal(decoded[i], rgb(ctx, f.buffer, format="nv12", size=(12, 16))[0])
    kw = dict(resize=(7, 9), mean=MEAN, std=STD, mirror=ferry.Mirror.X)
    with ctx.submit(decoded, **kw) as b:
        want = b.numpy()
    with ctx.submit(batch, format=F.NV12, **kw) as b:
        got = b.numpy()
    assert got.shape == (3, 3, 7, 9) and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    info = ferry.output_info(batch, format="nv12", **kw)
    assert info["shape"] == (3, 3, 7, 9)
    # A list of frames, a strided batch (every other frame), and convert on the CPU.
    with ctx.submit([f.cv_array() for f in frames], format="nv12", **kw) as b:
        np.testing.assert_array_equal(b.numpy(), want)
    strided = np.stack([batch[0], batch[0], batch[1], batch[1], batch[2], batch[2]])[::2]
    with ctx.submit(strided, format="nv12", **kw) as b:
        np.testing.assert_array_equal(b.numpy(), want)
    out = np.empty((3, 3, 7, 9), np.float32)
    ctx.convert(batch, out, format="nv12", **kw)
    np.testing.assert_array_equal(out, want)


def test_frames_of_different_sizes_in_a_list(ctx):
    rng = np.random.default_rng(2)
    small, large = Frame(F.YUYV, 4, 6, rng), Frame(F.YUYV, 8, 10, rng)
    with ctx.submit([small.planes()[0], large.planes()[0]], format="yuyv", resize=(4, 6), dtype="uint8",
                    layout="NHWC", interpolation="nearest") as b:
        got = b.numpy()
    np.testing.assert_array_equal(got[0], rgb(ctx, small.buffer, format="yuyv", size=(4, 6))[0])


def test_prefetch_loader_takes_frames(ctx):
    rng = np.random.default_rng(4)
    batches = [np.stack([Frame(F.I420, 4, 6, rng).cv_array() for _ in range(2)]) for _ in range(3)]
    loader = ferry.PrefetchLoader(batches, ctx, format="i420", color_range="full", dtype="uint8", layout="NHWC")
    for got, frames in zip(loader, batches):
        np.testing.assert_array_equal(got.numpy(), rgb(ctx, frames, format="i420", color_range="full"))


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_frames_raise_naming_the_field(ctx):
    frame = Frame(F.NV12, 6, 8, np.random.default_rng(0))
    with pytest.raises(ferry.SourceTooSmallError, match="source.bytes is 71") as e:
        rgb(ctx, frame.buffer[:-1], format="nv12", size=(6, 8))  # one byte short
    assert isinstance(e.value, ferry.FerryError) and e.value.status == ferry.Status.SOURCE_TOO_SMALL
    for bad in (99, "nv16", -1):
        with pytest.raises(ferry.InvalidArgumentError, match=f"format is {bad!r}: accepted: ferry.PixelFormat"):
            rgb(ctx, frame.buffer, format=bad, size=(6, 8))
    with pytest.raises(ferry.InvalidArgumentError, match=r"planes has 1 array: NV12 has 2 planes \(Y, UV\)"):
        rgb(ctx, planes=(frame.y,), format="nv12")
    with pytest.raises(ferry.InvalidArgumentError, match=r"I420 has 3 planes \(Y, U, V\)"):
        rgb(ctx, planes=frame.planes(), format="i420")
    with pytest.raises(ferry.InvalidArgumentError, match="source and planes are both given"):
        rgb(ctx, frame.buffer, planes=frame.planes(), format="nv12")
    with pytest.raises(ferry.InvalidArgumentError, match="size=.h, w."):
        rgb(ctx, frame.buffer, format="nv12")  # a flat frame does not tell its size
    with pytest.raises(ferry.InvalidArgumentError, match="10 rows are not h . 3/2"):
        rgb(ctx, np.zeros((10, 8), np.uint8), format="nv21")
    with pytest.raises(ferry.InvalidArgumentError, match="size is"):
        rgb(ctx, frame.buffer, format="nv12", size=(6, 0))
    for name in ("color_matrix", "chroma_filter", "size"):
        with pytest.raises(ferry.InvalidArgumentError, match=f"{name} is given without a frame format"):
            rgb(ctx, np.zeros((4, 4, 3), np.uint8), **{name: 1 if name != "size" else (4, 4)})
    with pytest.raises(ferry.InvalidArgumentError, match="color_range is 'hdr'"):
        rgb(ctx, frame.buffer, format="nv12", size=(6, 8), color_range="hdr")
    with pytest.raises(ferry.InvalidArgumentError, match="dtype is float32"):
        rgb(ctx, frame.buffer.astype(np.float32), format="nv12", size=(6, 8))
    # ferry's own checks, with its messages.
    with pytest.raises(ferry.InvalidArgumentError, match="source.layout"):
        rgb(ctx, frame.cv_array(), format="nv12", source_layout="NCHW")
    with pytest.raises(ferry.InvalidArgumentError, match="demosaicing needs at least 2x2"):
        rgb(ctx, np.zeros((1, 5), np.uint8), format="bayer_rggb")
    with pytest.raises(ferry.InvalidArgumentError, match=r"source.plane_pitch\[0\] is 7"):
        rgb(ctx, np.zeros((9, 7), np.uint8), format="nv12", size=(6, 8))  # rows of 7 bytes for w = 8


@pytest.mark.skipif(ferry.device_count() == 0, reason="no CUDA device: the GPU's frames are checked on a GPU")
@pytest.mark.parametrize("fmt", [F.NV12, F.I420, F.UYVY, F.BAYER_GRBG])
def test_frames_on_the_gpu_equal_the_cpu_backend(fmt):
    """Host frames through submit, and device planes (a decoder's surface) through convert, on a CUDA
    context: every element equal to the CPU backend's, the device output poisoned first."""
    torch = pytest.importorskip("torch")
    frame = Frame(fmt, 135, 241, np.random.default_rng(9))
    kwargs = dict(format=fmt, size=(135, 241), color_matrix="bt709", chroma_filter="linear", resize=(48, 64),
                  resize_mode="letterbox", dtype="float16", mean=0.5, std=0.25)
    with ferry.Context(ferry.Device.CPU) as cpu, ferry.Context(ferry.Device.CUDA) as gpu:
        with cpu.submit(planes=frame.planes(), **kwargs) as batch:
            want = torch.from_dlpack(batch).clone()
        with gpu.submit(planes=frame.planes(), **kwargs) as batch:
            got = torch.from_dlpack(batch).cpu()
        assert torch.equal(got.view(torch.int16), want.view(torch.int16))
        device_planes = tuple(torch.from_numpy(np.ascontiguousarray(p)).cuda() for p in frame.planes())
        out = torch.full(tuple(want.shape), float("nan"), dtype=torch.float16, device="cuda")
        gpu.convert(planes=device_planes, out=out, **kwargs)
        torch.cuda.synchronize()
        assert torch.equal(out.cpu().view(torch.int16), want.view(torch.int16))
