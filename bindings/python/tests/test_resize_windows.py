"""Resize over crops, windows (fractional too), mirrors, channel maps and
per-sample windows, against cv2, torchvision's resized_crop and the header's
NumPy reference; tolerances: resize_reference.py.
"""
import numpy as np
import pytest

import ferry
from resize_reference import (
    I, SPEC_FLOAT_TOL, TOLERANCE_U8, assert_u8_near, assert_within, cv2_batch, cv2_resize, nearest_ties,
    random_images, run, run_u8, same_direction, spec_resize)


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
