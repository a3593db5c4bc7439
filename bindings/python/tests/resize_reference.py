"""The references and helpers of the resize tests (test_resize_*.py; issue 14).
They run on the CPU backend against the libraries users resize with today, on
random uint8 images (odd sizes, 1-pixel sides, up and down, extreme aspect
ratios, 1, 3 and 4 channels):

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

import ferry

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
I = ferry.Interpolation
# float output against a float reference, on the 0..255 scale (see the table above)
FLOAT_TOL = 5e-3
SPEC_FLOAT_TOL = 1e-3


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


# ---- cv2 --------------------------------------------------------------------------------

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
    """(H, W) bools: where cv2 may read across an edge that ferry does not (see this module's docstring)."""
    of = {I.NEAREST: nearest_ties, I.AREA: area_ties}.get(interpolation)
    if of is None:
        return np.zeros(dst_hw, bool)
    return of(src_hw[0], dst_hw[0])[:, None] | of(src_hw[1], dst_hw[1])[None, :]


def assert_matches_cv2(got, want, interpolation, src_hw, dst_hw, what, spec=None):
    """got and want: (..., H, W, c). The ties (see this module's docstring) are compared
    with `spec` (the header's float reference, same shape), the rest with cv2."""
    ties = ties_of(interpolation, src_hw, dst_hw)
    assert_within(got[..., ~ties, :], want[..., ~ties, :], TOLERANCE_U8[interpolation], what)
    if ties.any():
        assert spec is not None, what + ": ties need the header's reference"
        assert_within(got[..., ties, :], np.rint(np.clip(spec[..., ties, :], 0, 255)), 1,
                      what + " (ties, against the header's reference)")


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


# ---- torchvision ------------------------------------------------------------------------

def tv_resize(tv, images, size_hw, antialias, as_float=False):
    import torch
    import torchvision.transforms as T
    t = torch.from_numpy(images).permute(0, 3, 1, 2)
    if as_float:
        t = t.float()
    out = tv.resize(t, list(size_hw), interpolation=T.InterpolationMode.BILINEAR, antialias=antialias)
    return out.permute(0, 2, 3, 1).numpy()


# ---- letterbox --------------------------------------------------------------------------

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
