"""Resize against OpenCV's cv2.resize (NEAREST, LINEAR, CUBIC, AREA), the NumPy
reference of the header against cv2, and LETTERBOX against cv2.resize + padding;
tolerances and ties: resize_reference.py.
"""
import numpy as np
import pytest

import ferry
from resize_reference import (
    FLOAT_TOL, I, MEAN, SIZES, STD, TOLERANCE_U8, assert_matches_cv2, assert_u8_near, assert_within, cv2_batch,
    cv2_letterbox, cv2_resize, letterbox_geometry, normalize, random_images, run, run_u8, same_direction,
    spec_resize, ties_of)


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
