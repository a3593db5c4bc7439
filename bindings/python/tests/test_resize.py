"""Resize in the fused pass (issue 14) on the CPU backend, against the
libraries users resize with today, on random uint8 images (odd sizes,
1-pixel sides, up and down, extreme aspect ratios, 1, 3 and 4 channels):

- OpenCV ``cv2.resize``: NEAREST against INTER_NEAREST_EXACT, LINEAR against
  INTER_LINEAR, CUBIC against INTER_CUBIC, AREA against INTER_AREA;
- torchvision: LINEAR_ANTIALIAS against ``resize(..., antialias=True)``,
  SHORTER_SIDE against ``Resize(s)`` + ``CenterCrop(out)``, per-sample windows
  against ``resized_crop`` (RandomResizedCrop's call);
- LETTERBOX against ``cv2.resize`` + NumPy padding (ultralytics' rule);
- fractional windows against a NumPy reference written from the arithmetic in
  include/ferry/transform.h (checked itself against OpenCV on whole pixels);
- a list of images of different sizes (ferry_source.sample_descs), each
  against cv2.resize of its own.

Tolerances (what these tests found, and assert):

=================  ==============================  ==========================
mode               uint8 output                    float32 output (0..255)
=================  ==============================  ==========================
NEAREST            equal to INTER_NEAREST_EXACT    equal
                   but on ties (see below)
LINEAR             within 1 (cv2: 11-bit weights)  within 5e-3 of cv2's float
CUBIC              within 1 (cv2 saturates too)    within 5e-3 of cv2's float
AREA               within 1                        within 5e-3 of cv2's float
LINEAR_ANTIALIAS   within 1 of torchvision         within 5e-3 of torch's float
spec reference     equal but on .5 ties (within 1) within 1e-3
=================  ==============================  ==========================

Ties: where an output pixel's center (NEAREST) or, growing, its footprint's
start (AREA) falls exactly on a source pixel's edge ((r + 0.5) * w / W, or
r * w / W with r > 0, a whole number), the header's float arithmetic reads the
pixel after the edge; OpenCV's 16-bit fixed-point step (NEAREST) or its float
start (AREA) may land on the one before it (40 -> 7 columns: column 3's center
is 20.0, ferry reads 20, cv2 19; 224 -> 640 rows: row 180 starts at 63.0, ferry
reads 63, cv2 62). Those rows and columns are compared with the NumPy
reference of the header instead; everywhere else the tolerances above hold.

float16 output: within 2e-3 + 1e-3 relative of the float32 reference after
normalization (half's rounding). SHORTER_SIDE, LETTERBOX and the per-sample
windows: as their interpolation above (uint8 within 1 of torchvision's
Resize + CenterCrop and resized_crop, LINEAR and LINEAR_ANTIALIAS). OpenCV's
INTER_AREA is compared where both axes shrink or both grow (cv2 mixes linear
weights into the axis that shrinks when the other grows; there the header's
reference instead). LETTERBOX rounds the resized size half away from zero, as
ferry's header does (ultralytics' Python round() is half to even: the two
differ only on an exact .5).
"""
import math

import numpy as np
import pytest

import ferry

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
I = ferry.Interpolation
# float output against a float reference, on the 0..255 scale (see the table above)
FLOAT_TOL = 5e-3
SPEC_FLOAT_TOL = 1e-3


@pytest.fixture(scope="module")
def ctx():
    with ferry.Context(ferry.Device.CPU, cpu_threads=2) as c:
        yield c


@pytest.fixture(scope="module")
def tv():
    """torchvision's functional transforms (v2's where present)."""
    pytest.importorskip("torch", reason="torch (python3-torch) is not installed for this Python")
    pytest.importorskip("torchvision", reason="torchvision (python3-torchvision) is not installed for this Python: "
                        "the comparisons with torchvision are skipped")
    try:
        import torchvision.transforms.v2.functional as F
    except ImportError:
        import torchvision.transforms.functional as F
    return F


def random_images(shape, seed):
    return np.random.default_rng(seed).integers(0, 256, size=shape, dtype=np.uint8)


def run(ctx, images, via="submit", **kwargs):
    """ferry's output as a NumPy array (a copy), through the pipeline
    (Context.submit) or Context.convert into an array sized by output_info."""
    if via == "submit":
        with ctx.submit(images, **kwargs) as batch:
            return np.array(batch.numpy())
    info = ferry.output_info(images, **kwargs)
    out = np.empty(info["shape"], {ferry.DType.UINT8: np.uint8, ferry.DType.FLOAT32: np.float32,
                                   ferry.DType.FLOAT16: np.float16}[info["dtype"]])
    ctx.convert(images, out, **kwargs)
    return out


def run_u8(ctx, images, via="submit", **kwargs):
    """uint8 NHWC output."""
    return run(ctx, images, via, dtype="uint8", layout="NHWC", **kwargs)


def assert_within(got, want, tol, what):
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    worst = float(diff.max()) if diff.size else 0.0
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    assert worst <= tol, (f"{what}: max difference {worst} > {tol} at {np.unravel_index(diff.argmax(), diff.shape)} "
                          f"({int((diff > tol).sum())} of {diff.size} elements)")


def normalize(x_nhwc, mean=MEAN, std=STD):
    """The float reference of ferry's arithmetic: NHWC values on 0..255 -> normalized NCHW."""
    x = np.asarray(x_nhwc, np.float64) / 255.0
    return ((x - np.asarray(mean, np.float64)) / np.asarray(std, np.float64)).transpose(0, 3, 1, 2)


# ---- cv2 ---------------------------------------------------------------------------------

def cv2_flag(cv2, interpolation):
    return {I.NEAREST: cv2.INTER_NEAREST_EXACT, I.LINEAR: cv2.INTER_LINEAR, I.CUBIC: cv2.INTER_CUBIC,
            I.AREA: cv2.INTER_AREA}[interpolation]


def cv2_resize(cv2, image, size_hw, interpolation):
    """One (h, w, c) image (uint8 or float32) resized by OpenCV, always 3-D."""
    h, w = size_hw
    c = image.shape[2]
    out = cv2.resize(np.ascontiguousarray(image), (w, h), interpolation=cv2_flag(cv2, interpolation))
    return out.reshape(h, w, c)


def cv2_batch(cv2, images, size_hw, interpolation):
    return np.stack([cv2_resize(cv2, im, size_hw, interpolation) for im in images])


# (source h, w) -> (output h, w): odd sizes, 1-pixel sides, up and down, extreme aspect ratios.
SIZES = [((17, 23), (9, 31)), ((1, 40), (5, 7)), ((40, 1), (3, 3)), ((1, 1), (4, 5)), ((64, 48), (32, 24)),
         ((15, 300), (30, 20)), ((300, 7), (11, 4)), ((33, 33), (100, 100)), ((37, 53), (37, 53)),
         ((120, 90), (41, 29)), ((2, 3), (7, 1)), ((224, 224), (640, 480))]


def same_direction(src, dst):
    """Both axes shrink (or keep) or both grow (or keep): where cv2's INTER_AREA is an area average."""
    return (src[0] >= dst[0] and src[1] >= dst[1]) or (src[0] <= dst[0] and src[1] <= dst[1])


TOLERANCE_U8 = {I.NEAREST: 0, I.LINEAR: 1, I.CUBIC: 1, I.AREA: 1}


def nearest_ties(src_len, dst_len):
    """The output indices whose center (r + 0.5) * src / dst lies exactly on a source pixel's edge."""
    r = np.arange(dst_len)
    return (2 * r + 1) * src_len % (2 * dst_len) == 0


def area_ties(src_len, dst_len):
    """Growing: the output indices r > 0 whose footprint starts (r * src / dst) exactly on a source pixel's edge."""
    r = np.arange(dst_len)
    return (r > 0) & (r * src_len % dst_len == 0) & (src_len < dst_len)


def ties_of(interpolation, src_hw, dst_hw):
    """(H, W) bools: where cv2 may read across an edge that ferry does not (see the module's docstring)."""
    of = {I.NEAREST: nearest_ties, I.AREA: area_ties}.get(interpolation)
    if of is None:
        return np.zeros(dst_hw, bool)
    return of(src_hw[0], dst_hw[0])[:, None] | of(src_hw[1], dst_hw[1])[None, :]


def assert_matches_cv2(got, want, interpolation, src_hw, dst_hw, what, spec=None):
    """got and want: (..., H, W, c). The ties (see the module's docstring) are compared
    with `spec` (the header's float reference, same shape), the rest with cv2."""
    ties = ties_of(interpolation, src_hw, dst_hw)
    assert_within(got[..., ~ties, :], want[..., ~ties, :], TOLERANCE_U8[interpolation], what)
    if ties.any():
        assert spec is not None, what + ": ties need the header's reference"
        assert_within(got[..., ties, :], np.rint(np.clip(spec[..., ties, :], 0, 255)), 1,
                      what + " (ties, against the header's reference)")


@pytest.mark.parametrize("interpolation", [I.NEAREST, I.LINEAR, I.CUBIC, I.AREA], ids=lambda m: m.name)
@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("src,dst", SIZES, ids=[f"{s[0]}x{s[1]}-{d[0]}x{d[1]}" for s, d in SIZES])
def test_uint8_matches_cv2_resize(ctx, cv2, interpolation, channels, src, dst):
    images = random_images((2, *src, channels), seed=src[0] * 1000 + src[1] + channels)
    got = run_u8(ctx, images, resize=dst, interpolation=interpolation)
    if interpolation == I.AREA and not same_direction(src, dst):
        # cv2's INTER_AREA mixes linear weights into the axis that shrinks: the header's reference instead
        for i, image in enumerate(images):
            assert_u8_near(got[i], spec_resize(image, (0, 0, src[1], src[0]), dst, I.AREA), f"AREA {src}->{dst}")
        return
    want = cv2_batch(cv2, images, dst, interpolation)
    spec = None
    if ties_of(interpolation, src, dst).any():
        spec = np.stack([spec_resize(im, (0, 0, src[1], src[0]), dst, interpolation) for im in images])
    assert_matches_cv2(got, want, interpolation, src, dst, f"{interpolation.name} {src}->{dst} c={channels}", spec)


@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("interpolation", [I.NEAREST, I.LINEAR, I.CUBIC, I.AREA], ids=lambda m: m.name)
@pytest.mark.parametrize("src,dst", [((37, 53), (24, 24)), ((20, 30), (45, 61)), ((1, 9), (3, 4))])
def test_float_output_matches_cv2_float(ctx, cv2, via, interpolation, src, dst):
    """float32 and float16 NCHW, normalized, against cv2.resize of the float32
    image (no rounding to uint8 in between; CUBIC keeps its overshoot)."""
    images = random_images((2, *src, 3), seed=7 + src[0])
    if interpolation == I.NEAREST or (interpolation == I.AREA and not same_direction(src, dst)):
        # NEAREST: the header's reference decides the ties; AREA: cv2's is not an area average here
        want = normalize(np.stack([spec_resize(im, (0, 0, src[1], src[0]), dst, interpolation) for im in images]))
    else:
        want = normalize(cv2_batch(cv2, images.astype(np.float32), dst, interpolation))
    got = run(ctx, images, via, resize=dst, interpolation=interpolation, mean=MEAN, std=STD)
    assert got.dtype == np.float32
    assert_within(got, want, FLOAT_TOL / 255 / min(STD), f"float32 {interpolation.name}")
    got16 = run(ctx, images, via, resize=dst, interpolation=interpolation, mean=MEAN, std=STD, dtype="f16")
    assert got16.dtype == np.float16
    np.testing.assert_allclose(got16.astype(np.float64), want, atol=2e-3, rtol=1e-3)


def test_cubic_overshoot_saturates_in_uint8_and_stays_in_float(ctx, cv2):
    """A step edge: CUBIC rings past 0 and 255; uint8 saturates (as cv2), float keeps it."""
    image = np.zeros((1, 8, 8, 1), np.uint8)
    image[:, :, 4:] = 255
    got = run_u8(ctx, image, resize=(8, 20), interpolation="cubic")
    assert_within(got, cv2_batch(cv2, image, (8, 20), I.CUBIC), 1, "cubic uint8")
    raw = run(ctx, image, resize=(8, 20), interpolation="cubic", scale=1.0)
    assert raw.min() < 0 and raw.max() > 255
    assert_within(raw[:, 0], cv2_batch(cv2, image.astype(np.float32), (8, 20), I.CUBIC)[..., 0], FLOAT_TOL,
                  "cubic float")


# ---- crops, windows, mirror, channel maps, per sample ---------------------------------------

@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("interpolation", [I.LINEAR, I.CUBIC, I.AREA, I.NEAREST], ids=lambda m: m.name)
def test_crop_mirror_and_channel_map(ctx, cv2, via, interpolation):
    images = random_images((3, 41, 57, 3), seed=21)
    x, y, w, h = 5, 3, 40, 30
    assert not nearest_ties(w, 16).any() and not nearest_ties(h, 20).any()  # NEAREST equals cv2 here
    want = cv2_batch(cv2, images[:, y:y + h, x:x + w], (20, 16), interpolation)
    got = run_u8(ctx, images, via, resize=(20, 16), interpolation=interpolation, crop=(x, y, w, h))
    assert_within(got, want, TOLERANCE_U8[interpolation], "crop")
    got = run_u8(ctx, images, via, resize=(20, 16), interpolation=interpolation, crop=(x, y, w, h),
                 mirror=ferry.Mirror.X | ferry.Mirror.Y, channel_map=[2, 1, 0])
    assert_within(got, np.flip(want, axis=(1, 2))[..., ::-1], TOLERANCE_U8[interpolation], "crop, mirror, BGR->RGB")
    got = run_u8(ctx, images, via, resize=(20, 16), interpolation=interpolation, crop=(x, y, w, h),
                 per_sample_mirror=[0, 1, 2])
    flipped = np.stack([want[0], np.flip(want[1], axis=1), np.flip(want[2], axis=0)])
    assert_within(got, flipped, TOLERANCE_U8[interpolation], "per_sample_mirror")


@pytest.mark.parametrize("via", ["submit", "convert"])
def test_per_sample_crops_of_different_sizes(ctx, cv2, via):
    images = random_images((4, 50, 70, 3), seed=5)
    crops = np.array([[0, 0, 70, 50], [10, 5, 13, 40], [69, 49, 1, 1], [3, 7, 60, 9]])
    got = run_u8(ctx, images, via, resize=(16, 24), interpolation="area", per_sample_crop=crops)
    for i, (x, y, w, h) in enumerate(crops):
        interp = I.AREA if same_direction((h, w), (16, 24)) else None
        if interp is None:  # compare with the area-average definition instead (see the module's table)
            want = spec_resize(images[i], (x, y, w, h), (16, 24), I.AREA)
            assert_within(got[i], np.rint(np.clip(want, 0, 255)), 1, f"per_sample_crop[{i}] (spec)")
        else:
            assert_within(got[i], cv2_resize(cv2, images[i, y:y + h, x:x + w], (16, 24), interp), 1,
                          f"per_sample_crop[{i}]")


@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("linear", [I.LINEAR, I.LINEAR_ANTIALIAS], ids=lambda m: m.name)
def test_random_resized_crop_windows_match_torchvision(ctx, tv, via, linear):
    """RandomResizedCrop's windows (torchvision's own sampling) as per_sample_window,
    against torchvision's resized_crop on each sample."""
    import torch
    import torchvision.transforms as T
    torch.manual_seed(3)
    images = random_images((5, 48, 64, 3), seed=8)
    params = [T.RandomResizedCrop.get_params(torch.zeros(3, 48, 64), scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3))
              for _ in range(len(images))]
    windows = np.array([[left, top, w, h] for top, left, h, w in params], np.float32)
    got = run_u8(ctx, images, via, resize=(32, 32), interpolation=linear, per_sample_window=windows)
    for i, (top, left, h, w) in enumerate(params):
        t = torch.from_numpy(images[i]).permute(2, 0, 1)
        want = tv.resized_crop(t, top, left, h, w, [32, 32], interpolation=T.InterpolationMode.BILINEAR,
                               antialias=linear == I.LINEAR_ANTIALIAS).permute(1, 2, 0).numpy()
        assert_within(got[i], want, 1, f"window {i} {(left, top, w, h)}")


@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("interpolation", list(I), ids=lambda m: m.name)
def test_fractional_windows_match_the_header(ctx, via, interpolation):
    """window and per_sample_window with fractional edges, of different sizes,
    against the NumPy reference of include/ferry/transform.h."""
    images = random_images((3, 30, 44, 3), seed=31)
    windows = np.array([[2.5, 1.25, 10.5, 7.75], [0.0, 0.0, 44.0, 30.0], [40.2, 3.3, 3.7, 26.1]], np.float32)
    got = run(ctx, images, via, resize=(13, 17), interpolation=interpolation, per_sample_window=windows, scale=1.0)
    for i, win in enumerate(windows):
        want = spec_resize(images[i], win, (13, 17), interpolation).transpose(2, 0, 1)
        assert_within(got[i], want, SPEC_FLOAT_TOL, f"float per_sample_window[{i}]")
    got = run_u8(ctx, images, via, resize=(13, 17), interpolation=interpolation, window=tuple(windows[0]),
                 mirror=ferry.Mirror.X)
    for i in range(3):
        want = np.flip(spec_resize(images[i], windows[0], (13, 17), interpolation), axis=1)
        assert_u8_near(got[i], want, f"uint8 window, mirrored, sample {i}")


def assert_u8_near(got, want_float, what):
    """uint8 output against the float64 reference: equal but where the reference
    lies within 2e-3 of a .5 (ferry sums in float32), and there within 1."""
    clipped = np.clip(want_float, 0, 255)
    want = np.rint(clipped)
    assert_within(got, want, 1, what)
    near_half = np.abs(clipped - np.floor(clipped) - 0.5) < 2e-3
    differ = got != want
    assert not (differ & ~near_half).any(), (f"{what}: {int((differ & ~near_half).sum())} of {got.size} differ "
                                             "away from a rounding tie")


# ---- the header's arithmetic, in NumPy ------------------------------------------------------

def axis_weights(x0, size, image_len, out_len, resized, offset, interpolation):
    """(out_len, image_len) weights of one axis, and the rows that are bars."""
    f32 = np.float32
    x0, size = f32(x0), f32(size)
    sx = f32(float(size) / resized)
    lo, hi = math.floor(x0), math.ceil(float(x0) + float(size)) - 1
    weights = np.zeros((out_len, image_len))
    bars = np.zeros(out_len, bool)
    for o in range(out_len):
        r = o + offset
        if not 0 <= r < resized:
            bars[o] = True
            continue
        c = f32(x0 + f32(f32(f32(r) + f32(0.5)) * sx))
        taps = []
        if interpolation == I.NEAREST:
            taps = [(math.floor(c), 1.0)]
        elif interpolation in (I.LINEAR, I.CUBIC):
            t = f32(c - f32(0.5))
            j0 = math.floor(t)
            f = f32(t - f32(j0))
            if interpolation == I.LINEAR:
                taps = [(j0, 1.0 - f), (j0 + 1, f)]
            else:
                a = -0.75
                c0 = ((a * (f + 1) - 5 * a) * (f + 1) + 8 * a) * (f + 1) - 4 * a
                c1 = ((a + 2) * f - (a + 3)) * f * f + 1
                g = 1 - f
                c2 = ((a + 2) * g - (a + 3)) * g * g + 1
                taps = [(j0 - 1, c0), (j0, c1), (j0 + 1, c2), (j0 + 2, 1 - c0 - c1 - c2)]
        elif interpolation == I.AREA:
            a, b = f32(x0 + f32(f32(r) * sx)), f32(x0 + f32(f32(r + 1) * sx))
            taps = [(j, min(b, j + 1) - max(a, j)) for j in range(math.floor(a), math.ceil(b))]
        else:  # LINEAR_ANTIALIAS
            support = max(float(sx), 1.0)
            j_lo, j_hi = math.floor(c - support + 0.5), math.floor(c + support + 0.5)
            taps = [(j, max(0.0, 1 - abs(j + 0.5 - c) / support)) for j in range(j_lo, j_hi)]
        if interpolation in (I.NEAREST, I.LINEAR, I.CUBIC):
            taps = [(min(max(j, lo), hi), wt) for j, wt in taps]  # replicated border
        else:
            taps = [(j, wt) for j, wt in taps if lo <= j <= hi]  # dropped, then normalized
            total = sum(wt for _, wt in taps)
            taps = [(j, wt / total) for j, wt in taps]
        for j, wt in taps:
            weights[o, j] += wt
    return weights, bars


def fit(window, out_hw, mode, shorter, align):
    """(resized, offset) per axis (y, x) for a mode, as the header defines them."""
    ww, wh = float(window[2]), float(window[3])
    out_h, out_w = out_hw
    if mode == ferry.ResizeMode.STRETCH:
        return (out_h, 0), (out_w, 0)
    if mode == ferry.ResizeMode.LETTERBOX:
        s = min(out_w / ww, out_h / wh)
        rw = min(max(1, math.floor(ww * s + 0.5)), out_w)
        rh = min(max(1, math.floor(wh * s + 0.5)), out_h)
        bar = (lambda out, r: 0 if align == ferry.LetterboxAlign.TOP_LEFT else -((out - r) // 2))
        return (rh, bar(out_h, rh)), (rw, bar(out_w, rw))
    if ww <= wh:
        rw, rh = shorter, max(1, int(shorter * wh / ww))
    else:
        rh, rw = shorter, max(1, int(shorter * ww / wh))

    def center(out, r):
        if r < out:
            return 0 if align == ferry.LetterboxAlign.TOP_LEFT else -((out - r) // 2)
        return round((r - out) / 2)  # half to even, as CenterCrop
    return (rh, center(out_h, rh)), (rw, center(out_w, rw))


def spec_resize(image, window, out_hw, interpolation, mode=ferry.ResizeMode.STRETCH, shorter=0,
                align=ferry.LetterboxAlign.CENTER, bar_value=0.0):
    """One (h, w, c) uint8 image's window resized as include/ferry/transform.h
    defines it: float64 values on 0..255 (bars: bar_value), (out_h, out_w, c)."""
    x0, y0, ww, wh = (float(v) for v in window)
    (rh, dy), (rw, dx) = fit(window, out_hw, mode, shorter, align)
    wy, bars_y = axis_weights(y0, wh, image.shape[0], out_hw[0], rh, dy, interpolation)
    wx, bars_x = axis_weights(x0, ww, image.shape[1], out_hw[1], rw, dx, interpolation)
    rows = np.einsum("oi,ijc->ojc", wy, image.astype(np.float64))  # V then H: the same sums, in float64
    out = np.einsum("pj,ojc->opc", wx, rows)
    out[bars_y] = bar_value
    out[:, bars_x] = bar_value
    return out


@pytest.mark.parametrize("interpolation", [I.NEAREST, I.LINEAR, I.CUBIC, I.AREA], ids=lambda m: m.name)
def test_the_numpy_reference_agrees_with_cv2(cv2, interpolation):
    """The reference the fractional-window tests use, on whole-pixel windows."""
    for src, dst in SIZES:
        if interpolation == I.AREA and not same_direction(src, dst):
            continue
        image = random_images((*src, 3), seed=src[0] + src[1])
        spec = spec_resize(image, (0, 0, src[1], src[0]), dst, interpolation)
        assert_matches_cv2(np.rint(np.clip(spec, 0, 255)), cv2_resize(cv2, image, dst, interpolation), interpolation,
                           src, dst, f"reference {interpolation.name} {src}->{dst}", spec)


# ---- torchvision -----------------------------------------------------------------------------

def tv_resize(tv, images, size_hw, antialias, as_float=False):
    import torch
    import torchvision.transforms as T
    t = torch.from_numpy(images).permute(0, 3, 1, 2)
    if as_float:
        t = t.float()
    out = tv.resize(t, list(size_hw), interpolation=T.InterpolationMode.BILINEAR, antialias=antialias)
    return out.permute(0, 2, 3, 1).numpy()


@pytest.mark.parametrize("channels", [1, 3, 4])
@pytest.mark.parametrize("src,dst", SIZES, ids=[f"{s[0]}x{s[1]}-{d[0]}x{d[1]}" for s, d in SIZES])
def test_linear_antialias_matches_torchvision(ctx, tv, channels, src, dst):
    images = random_images((2, *src, channels), seed=src[0] * 7 + src[1] + channels)
    got = run_u8(ctx, images, resize=dst, interpolation="linear_antialias")
    assert_within(got, tv_resize(tv, images, dst, antialias=True), 1, f"LINEAR_ANTIALIAS {src}->{dst} c={channels}")


@pytest.mark.parametrize("via", ["submit", "convert"])
def test_linear_antialias_float_matches_torchvision(ctx, tv, via):
    images = random_images((2, 61, 47, 3), seed=12)
    for dst in [(20, 13), (100, 90), (61, 10)]:
        want = normalize(tv_resize(tv, images, dst, antialias=True, as_float=True))
        got = run(ctx, images, via, resize=dst, interpolation=I.LINEAR_ANTIALIAS, mean=MEAN, std=STD)
        assert_within(got, want, FLOAT_TOL / 255 / min(STD), f"float LINEAR_ANTIALIAS -> {dst}")


def test_linear_without_antialias_matches_torchvision(ctx, tv):
    images = random_images((2, 45, 31, 3), seed=14)
    for dst in [(20, 13), (90, 70), (45, 5)]:
        got = run_u8(ctx, images, resize=dst, interpolation="linear")
        assert_within(got, tv_resize(tv, images, dst, antialias=False), 1, f"LINEAR -> {dst}")


SHORTER = [((60, 80), 32, (28, 28)), ((80, 60), 32, (32, 20)), ((33, 97), 17, (17, 17)), ((50, 50), 24, (20, 24)),
           ((40, 30), 8, (12, 12)), ((7, 300), 11, (11, 31)), ((64, 48), 256, (224, 224))]


@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("src,shorter,out", SHORTER, ids=[f"{s[0]}x{s[1]}-{k}-{o[0]}x{o[1]}" for s, k, o in SHORTER])
def test_shorter_side_matches_torchvision_resize_and_center_crop(ctx, tv, via, antialias, src, shorter, out):
    """torchvision's eval transform: Resize(shorter) then CenterCrop(out); a crop larger
    than the resized image is padded with 0 by CenterCrop, with letterbox_value by ferry."""
    import torch
    import torchvision.transforms as T
    images = random_images((2, *src, 3), seed=shorter + src[0])
    pipeline = T.Compose([T.Resize(shorter, interpolation=T.InterpolationMode.BILINEAR, antialias=antialias),
                          T.CenterCrop(list(out))])
    t = torch.from_numpy(images).permute(0, 3, 1, 2)
    want = pipeline(t).permute(0, 2, 3, 1).numpy()
    interpolation = "linear_antialias" if antialias else "linear"
    got = run_u8(ctx, images, via, resize=out, resize_mode="shorter_side", resize_shorter=shorter,
                 interpolation=interpolation)
    assert_within(got, want, 1, f"SHORTER_SIDE {src} -> {shorter} -> {out}")
    # float, normalized: the bars hold the normalized 0 that CenterCrop's padding becomes
    want_f = normalize(pipeline(t.float()).permute(0, 2, 3, 1).numpy())
    got_f = run(ctx, images, via, resize=out, resize_mode="shorter_side", resize_shorter=shorter,
                interpolation=interpolation, mean=MEAN, std=STD,
                letterbox_value=[-m / s for m, s in zip(MEAN, STD)])
    assert_within(got_f, want_f, FLOAT_TOL / 255 / min(STD), f"float SHORTER_SIDE {src} -> {out}")


# ---- letterbox -----------------------------------------------------------------------------

def letterbox_geometry(src_hw, out_hw, top_left):
    """ultralytics' LetterBox: r = min(W / w, H / h), the image resized to
    round(w * r) x round(h * r), bars of floor((W - new) / 2) left and top.
    Returns (new h, new w, top, left)."""
    (h, w), (out_h, out_w) = src_hw, out_hw
    r = min(out_w / w, out_h / h)
    nw = min(max(1, math.floor(w * r + 0.5)), out_w)
    nh = min(max(1, math.floor(h * r + 0.5)), out_h)
    return nh, nw, 0 if top_left else (out_h - nh) // 2, 0 if top_left else (out_w - nw) // 2


def cv2_letterbox(cv2, image, out_hw, interpolation, value, top_left=False):
    nh, nw, top, left = letterbox_geometry(image.shape[:2], out_hw, top_left)
    resized = cv2_resize(cv2, image, (nh, nw), interpolation)
    out_h, out_w = out_hw
    return np.pad(resized, ((top, out_h - nh - top), (left, out_w - nw - left), (0, 0)), constant_values=value)


LETTERBOX = [((480, 640), (64, 64)), ((640, 480), (64, 64)), ((37, 101), (40, 40)), ((5, 3), (64, 48)),
             ((1, 50), (16, 16)), ((64, 64), (32, 48)), ((100, 30), (21, 35))]


@pytest.mark.parametrize("via", ["submit", "convert"])
@pytest.mark.parametrize("align", ["center", "top_left"])
@pytest.mark.parametrize("interpolation", [I.LINEAR, I.AREA, I.NEAREST], ids=lambda m: m.name)
@pytest.mark.parametrize("src,out", LETTERBOX, ids=[f"{s[0]}x{s[1]}-{o[0]}x{o[1]}" for s, o in LETTERBOX])
def test_letterbox_matches_cv2_resize_and_padding(ctx, cv2, via, align, interpolation, src, out):
    images = random_images((2, *src, 3), seed=src[0] + out[1])
    h, w = src
    r = min(out[1] / w, out[0] / h)
    if interpolation == I.AREA and not same_direction(src, (round(h * r), round(w * r))):
        pytest.skip("cv2's INTER_AREA is not an area average where one axis grows and the other shrinks")
    got = run_u8(ctx, images, via, resize=out, resize_mode="letterbox", letterbox_align=align,
                 interpolation=interpolation, letterbox_value=114)
    want = np.stack([cv2_letterbox(cv2, im, out, interpolation, 114, align == "top_left") for im in images])
    what = f"LETTERBOX {align} {src}->{out}"
    # cv2 on all but the ties (see the module's docstring); the header's reference on those
    nh, nw, top, left = letterbox_geometry(src, out, align == "top_left")
    ties = np.zeros(out, bool)
    ties[top:top + nh, left:left + nw] = ties_of(interpolation, (h, w), (nh, nw))
    assert_within(got[:, ~ties], want[:, ~ties], TOLERANCE_U8[interpolation], what)
    if ties.any() or interpolation == I.NEAREST:
        align_enum = ferry.LetterboxAlign.TOP_LEFT if align == "top_left" else ferry.LetterboxAlign.CENTER
        spec = np.stack([spec_resize(im, (0, 0, w, h), out, interpolation, ferry.ResizeMode.LETTERBOX, 0, align_enum,
                                     114) for im in images])
        assert_within(got, np.rint(np.clip(spec, 0, 255)), TOLERANCE_U8[interpolation],
                      what + " (against the header's reference)")


def test_letterbox_float_bars_are_in_output_units(ctx, cv2):
    images = random_images((1, 30, 60, 3), seed=2)
    bars = [-1.0, 0.5, 2.0]
    got = run(ctx, images, resize=(40, 40), resize_mode=ferry.ResizeMode.LETTERBOX, mean=MEAN, std=STD,
              letterbox_value=bars)
    image = normalize(cv2_resize(cv2, images[0].astype(np.float32), (20, 40), I.LINEAR)[None])
    assert_within(got[:, :, 10:30], image, FLOAT_TOL / 255 / min(STD), "the image between the bars")
    for k, v in enumerate(bars):
        assert np.all(got[0, k, :10] == np.float32(v)) and np.all(got[0, k, 30:] == np.float32(v))
    got = run(ctx, images, resize=(40, 40), resize_mode="letterbox", letterbox_value=0.25, dtype="f16")
    assert np.all(got[0, :, :10] == np.float16(0.25))


# ---- samples of different sizes (a list of images at their own sizes) ---------------------------

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


# ---- the loader, describing, and bad input ---------------------------------------------------

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
