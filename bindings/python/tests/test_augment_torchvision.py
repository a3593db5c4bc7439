"""ferry.Augment against torchvision, given the parameters ferry drew
(``Batch.augment_params``): each sample's crop, flip, colour factors and
order, grayscale and erase box replayed with torchvision's functional ops on
float32 images in [0, 1] (ferry: float32 output, scale 1/255, no mean/std
unless said), in torchvision's training order:

    resized_crop (BILINEAR, antialias=False; ferry interpolation "linear")
    or pad + crop (RandomCrop with padding) or center_crop
    -> hflip / vflip -> adjust_brightness / contrast / saturation / hue (the
    drawn order) -> rgb_to_grayscale -> normalize -> erase (value fill).

torchvision.transforms.v2.functional where it exists (0.15 on), else the v1
functional ops (Debian's python3-torchvision 0.14), which compute the same on
tensors. Skipped, saying so, where torch or torchvision is missing.

Tolerances (float32 roundings, not different arithmetic): ferry resamples
the uint8 image at absolute source positions (x + (j + 0.5) * w / W - 0.5 in
float32: ulp(53) is 3.8e-6 of a pixel) where torchvision crops first and then
resizes the float image, and ferry jitters in 0..255 (each op rounded on its
own, the contrast mean in fixed point 1/65536) where torchvision works in
0..1. Measured over 20 seeds: at most 3.4e-6 for the crop and flips alone,
5.2e-6 for one colour op, 6.5e-6 with every op on (about 50 ulps of 1 in the
output, 0.002 of a uint8 step); asserted atol 1e-5, and 5e-5 after mean/std
(the differences divided by std 0.224). uint8 output rounds once at the end:
within 1 of torchvision's float result times 255, rounded.

GPU against the CPU backend (skipped without a GPU): uint8 bit for bit,
float32 within 1 ulp.
"""
import numpy as np
import pytest

import ferry

torch = pytest.importorskip("torch", reason="torch (python3-torch) is not installed for this Python")
pytest.importorskip("torchvision", reason="torchvision (python3-torchvision) is not installed for this Python: "
                    "the comparisons with torchvision are skipped")
try:
    from torchvision.transforms.v2 import functional as F  # noqa: N812
except ImportError:  # torchvision < 0.15: the v1 functional ops (the same arithmetic on tensors)
    from torchvision.transforms import functional as F  # noqa: N812
from torchvision.transforms import InterpolationMode  # noqa: E402

HFLIP = getattr(F, "horizontal_flip", None) or F.hflip
VFLIP = getattr(F, "vertical_flip", None) or F.vflip
RNG = np.random.default_rng(23)
IMAGES = RNG.integers(0, 256, (8, 37, 53, 3), dtype=np.uint8)
OUT = (24, 20)  # (h, w)
MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
JITTER = dict(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)


def ferry_run(ctx, augment, images=IMAGES, **kwargs):
    kwargs.setdefault("resize", OUT)
    if kwargs["resize"] is not None:
        kwargs["interpolation"] = "linear"
    with ctx.submit(images, augment=augment, **kwargs) as batch:
        return batch.numpy().copy(), batch.augment_params


def reference(image, p, augment, mean=None, std=None, erase_value=0.0, size=OUT):
    """One sample through torchvision's ops with ferry's drawn parameters p."""
    img = torch.from_numpy(image).permute(2, 0, 1).float() / 255
    x, y, w, h = (int(v) for v in p["crop"])
    if augment.crop == ferry.AugmentCrop.RANDOM_RESIZED:
        img = F.resized_crop(img, y, x, h, w, list(size), InterpolationMode.BILINEAR, antialias=False)
    elif augment.crop == ferry.AugmentCrop.RANDOM:
        pad = augment.padding
        img = F.crop(F.pad(img, [pad, pad, pad, pad], fill=0), y + pad, x + pad, h, w)
    elif augment.crop == ferry.AugmentCrop.CENTER:
        img = F.center_crop(img, [h, w])
    if int(p["flip"]) & ferry.Mirror.X:
        img = HFLIP(img)
    if int(p["flip"]) & ferry.Mirror.Y:
        img = VFLIP(img)
    on = (augment.brightness != (1, 1), augment.contrast != (1, 1), augment.saturation != (1, 1),
          augment.hue != (0, 0))
    ops = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
    names = ("brightness", "contrast", "saturation", "hue")
    for k in p["jitter_order"]:
        if on[k]:
            img = ops[k](img, float(p[names[k]]))
    if p["grayscale"]:
        img = F.rgb_to_grayscale(img, num_output_channels=3)
    if mean is not None:
        img = F.normalize(img, mean, std)
    if p["erased"]:
        ex, ey, ew, eh = (int(v) for v in p["erase"])
        img = F.erase(img, ey, ex, eh, ew, torch.tensor(erase_value, dtype=torch.float32).reshape(-1, 1, 1))
    return img.numpy()


def check(out, params, augment, atol, **kwargs):
    assert len(params) == len(out)
    worst = 0.0
    for i, p in enumerate(params):
        want = reference(IMAGES[i], p, augment, **kwargs)
        np.testing.assert_allclose(out[i], want, rtol=0, atol=atol, err_msg=f"sample {i}: {p}")
        worst = max(worst, float(np.abs(out[i] - want).max()))
    return worst


ATOL = 1e-5
CASES = {
    "crop_flip": dict(crop="random_resized", hflip=0.5, vflip=0.5),
    "brightness": dict(crop="random_resized", brightness=(0.3, 1.8)),
    "contrast": dict(crop="random_resized", contrast=(0.2, 1.9)),
    "saturation": dict(crop="random_resized", saturation=(0.0, 2.0)),
    "hue": dict(crop="random_resized", hue=0.5),
    "grayscale": dict(crop="random_resized", grayscale=0.5),
    "erase": dict(crop="random_resized", erase=1.0, erase_value=0.25),
    "everything": dict(crop="random_resized", hflip=0.5, vflip=0.5, grayscale=0.3, erase=0.5, erase_value=0.25,
                       **JITTER),
    "no_crop": dict(hflip=0.5, grayscale=0.3, **JITTER),
}


@pytest.mark.parametrize("case", list(CASES))
def test_float_output_equals_torchvision_replaying_ferry_s_draws(ctx, case):
    augment = ferry.Augment(seed=4, **CASES[case])
    resize = OUT if augment.crop != ferry.AugmentCrop.NONE else None  # no crop: the image at its size
    out, params = ferry_run(ctx, augment, resize=resize)
    if augment.crop == ferry.AugmentCrop.NONE:
        assert (params["crop"] == [0, 0, 53, 37]).all()
    check(out, params, augment, ATOL, erase_value=augment.erase_value)
    if case == "grayscale":
        assert params["grayscale"].any() and not params["grayscale"].all()


@pytest.mark.parametrize("crop", ["random", "center"])
def test_random_crop_with_padding_and_center_crop_equal_pad_and_crop(ctx, crop):
    """The zeros a padded or centered crop shows are jittered like the image (torchvision pads first)."""
    augment = ferry.Augment(seed=2, crop=crop, padding=6 if crop == "random" else 0, hflip=0.5, **JITTER)
    out, params = ferry_run(ctx, augment, resize=(44, 40))
    check(out, params, augment, ATOL, size=(44, 40))
    if crop == "random":
        assert (params["crop"][:, :2] < 0).any()  # some windows reach into the padding


def test_erase_comes_after_normalize_and_grayscale_before(ctx):
    augment = ferry.Augment(seed=9, crop="random_resized", grayscale=0.5, erase=1.0, erase_value=(-1.0, 0.0, 1.0),
                            **JITTER)
    out, params = ferry_run(ctx, augment, mean=MEAN, std=STD)
    check(out, params, augment, 5e-5, mean=MEAN, std=STD, erase_value=[-1.0, 0.0, 1.0])


def test_uint8_output_is_torchvision_s_rounded_within_1(ctx):
    augment = ferry.Augment(seed=5, crop="random_resized", hflip=0.5, grayscale=0.3, **JITTER)
    out, params = ferry_run(ctx, augment, dtype="uint8")
    for i, p in enumerate(params):
        want = np.clip(np.rint(reference(IMAGES[i], p, augment) * 255), 0, 255)
        assert np.abs(out[i].astype(np.int32) - want).max() <= 1, f"sample {i}"


@pytest.mark.skipif(ferry.device_count() == 0, reason="no CUDA device: augmentation on the GPU is checked on a GPU")
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_gpu_equals_the_cpu_backend(dtype):
    augment = ferry.Augment(seed=12, crop="random_resized", hflip=0.5, vflip=0.5, grayscale=0.3, erase=0.5,
                            erase_value="random", **JITTER)
    kwargs = dict(resize=OUT, dtype=dtype, interpolation="linear", augment=augment)
    with ferry.Context(ferry.Device.CPU) as cpu, ferry.Context(ferry.Device.CUDA) as gpu:
        with cpu.submit(IMAGES, **kwargs) as batch:
            want, want_params = batch.numpy().copy(), batch.augment_params
        with gpu.submit(IMAGES, **kwargs) as batch:
            got, got_params = torch.from_dlpack(batch).cpu().numpy(), batch.augment_params
    assert got_params.tobytes() == want_params.tobytes()
    if dtype == "uint8":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_max_ulp(got, want, maxulp=1)
