"""LINEAR_ANTIALIAS against torchvision's resize(antialias=True), LINEAR without
it, and SHORTER_SIDE against Resize + CenterCrop; tolerances: resize_reference.py.
"""
import pytest

from resize_reference import (
    FLOAT_TOL, I, MEAN, SIZES, STD, assert_within, normalize, random_images, run, run_u8, tv_resize)


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
