"""ferry.Augment (random augmentation drawn per sample, ferry/augment.h) on
the CPU backend: the keywords and their defaults, bad input per field (each
error names the keyword), determinism and resuming, the drawn parameters of
submit / convert equal to ferry.augment_draw, the PrefetchLoader's step, and
the ops checked against ferry itself (a flip, a window, grayscale, erasing).
The comparisons with torchvision are in test_augment_torchvision.py."""
import numpy as np
import pytest

import ferry

RNG = np.random.default_rng(11)
IMAGES = RNG.integers(0, 256, (5, 31, 45, 3), dtype=np.uint8)
FULL = dict(crop="random_resized", hflip=0.5, vflip=0.5, brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1,
            grayscale=0.3, erase=0.5)


def run(ctx, images, augment, **kwargs):
    """submit, waited: (output as NumPy, the drawn parameters)."""
    with ctx.submit(images, augment=augment, **kwargs) as batch:
        return batch.numpy().copy(), batch.augment_params


# ---- keywords and defaults ----
def test_defaults_are_torchvision_s_and_off():
    a = ferry.Augment()
    assert (a.seed, a.step, a.first_index, a.crop, a.padding) == (0, 0, 0, ferry.AugmentCrop.NONE, 0)
    assert a.scale == (0.08, 1.0) and a.ratio == (3 / 4, 4 / 3)
    assert (a.hflip, a.vflip, a.grayscale, a.erase) == (0.0, 0.0, 0.0, 0.0)
    assert (a.brightness, a.contrast, a.saturation, a.hue) == ((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0))
    assert a.erase_scale == (0.02, 0.33) and a.erase_ratio == (0.3, 3.3) and a.erase_value == 0.0
    assert repr(a) == "ferry.Augment()"


def test_keywords_as_torchvision_writes_them():
    a = ferry.Augment(seed=5, crop="random", padding=4, brightness=0.4, contrast=(0.5, 2), saturation=1.5, hue=0.1,
                      erase_value="random")
    assert a.crop == ferry.AugmentCrop.RANDOM and a.padding == 4
    assert a.brightness == pytest.approx((0.6, 1.4)) and a.contrast == (0.5, 2.0)
    assert a.saturation == (0.0, 2.5)  # max(0, 1 - b)
    assert a.hue == (-0.1, 0.1) and a.erase_value == "random"
    assert "crop='random'" in repr(a) and "padding=4" in repr(a)
    for name, crop in (("random_resized", "RANDOM_RESIZED"), ("CENTER", "CENTER"), (None, "NONE"),
                       (ferry.AugmentCrop.RANDOM, "RANDOM"), ("center_crop", "CENTER")):
        assert ferry.Augment(crop=name).crop == ferry.AugmentCrop[crop]
    assert ferry.Augment(erase_value=(1, 2, 3)).erase_value == (1.0, 2.0, 3.0)
    assert ferry.Augment(brightness=0).brightness == (1.0, 1.0)  # 0: off, as torchvision


def test_fields_can_be_set_and_are_checked_when_set():
    a = ferry.Augment(hflip=0.5)
    a.step = 7
    a.hflip = 1.0
    assert a.step == 7 and a.hflip == 1.0
    with pytest.raises(ferry.InvalidArgumentError, match="hflip is 2"):
        a.hflip = 2
    assert a.hflip == 1.0  # unchanged
    with pytest.raises(ferry.InvalidArgumentError, match="augment.padding"):
        a.padding = 4  # only crop='random' is padded: ferry's own check
    assert a.padding == 0
    with pytest.raises(AttributeError, match="no field 'flip'"):
        a.flip = 1


def test_pickles_and_copies_with_its_fields():
    import copy
    import pickle
    a = ferry.Augment(seed=3, step=4, crop="random", padding=2, hue=0.2, erase_value="random")
    for b in (pickle.loads(pickle.dumps(a)), copy.deepcopy(a)):
        assert repr(b) == repr(a) and b._raw is not a._raw
        assert ferry.augment_draw(b, [(20, 30)], 16).tobytes() == ferry.augment_draw(a, [(20, 30)], 16).tobytes()


BAD = [
    (dict(seed=-1), "seed is -1"), (dict(seed=1.5), "seed is 1.5"), (dict(step="1"), "step is '1'"),
    (dict(first_index=-2), "first_index is -2"), (dict(first_index=1 << 40), "augment.first_index"),
    (dict(crop="diagonal"), "crop is 'diagonal'"), (dict(crop=7), "crop is 7"),
    (dict(scale=0.5), "scale is 0.5"), (dict(scale=(0, 1)), "augment.scale"), (dict(scale=(0.5, 1.5)), "augment.scale"),
    (dict(scale=(0.9, 0.1)), "augment.scale is [0.9, 0.1]"), (dict(ratio=(0, 1)), "augment.ratio"),
    (dict(ratio=(1, 2, 3)), "ratio is (1, 2, 3)"), (dict(padding=-1), "padding is -1"),
    (dict(padding=4), "augment.padding is 4"), (dict(crop="random", padding=2.5), "padding is 2.5"),
    (dict(hflip=1.5), "hflip is 1.5"), (dict(hflip=True), "hflip is True"), (dict(vflip=-0.1), "vflip is -0.1"),
    (dict(brightness=-0.5), "brightness is -0.5"), (dict(brightness=(1.2, 0.8)), "augment.brightness"),
    (dict(brightness="x"), "brightness is 'x'"), (dict(contrast=(-1, 1)), "augment.contrast"),
    (dict(contrast=float("nan")), "contrast is nan"), (dict(saturation=[1, 2, 3]), "saturation is"),
    (dict(hue=0.6), "hue is 0.6"), (dict(hue=(-0.7, 0)), "augment.hue"), (dict(hue=(0.2, 0.1)), "augment.hue"),
    (dict(grayscale=2), "grayscale is 2"), (dict(erase=-1), "erase is -1"),
    (dict(erase_scale=(0.5, 2)), "augment.erase_scale"), (dict(erase_ratio=(0, 1)), "augment.erase_ratio"),
    (dict(erase_value="noise"), "erase_value is 'noise'"), (dict(erase_value=[1, 2, 3, 4, 5]), "erase_value is"),
    (dict(erase_value=float("inf")), "augment.erase_value"),
]


@pytest.mark.parametrize("kwargs,message", BAD, ids=[next(iter(k)) + str(i) for i, (k, _) in enumerate(BAD)])
def test_bad_input_names_the_keyword(kwargs, message):
    with pytest.raises(ferry.InvalidArgumentError) as info:
        ferry.Augment(**kwargs)
    assert message in str(info.value)


def test_an_unknown_keyword_is_a_type_error_with_the_closest():
    with pytest.raises(TypeError, match="did you mean 'hflip'"):
        ferry.Augment(hflp=0.5)


def test_bad_use_in_a_call_is_ferry_s_message(ctx):
    with pytest.raises(ferry.InvalidArgumentError, match="augment is a str"):
        ctx.submit(IMAGES, augment="random")
    with pytest.raises(ferry.InvalidArgumentError, match="resize"):
        ctx.submit(IMAGES, augment=ferry.Augment(crop="random_resized")).wait()  # a crop needs resize=
    with pytest.raises(ferry.InvalidArgumentError, match="3"):
        ctx.submit(IMAGES, channel_map=[0], augment=ferry.Augment(brightness=0.5)).wait()  # colour needs R, G, B
    with pytest.raises(ferry.InvalidArgumentError, match="erase_value has 2 values for 3 output channels"):
        ctx.submit(IMAGES, augment=ferry.Augment(erase=0.5, erase_value=(1, 2)))
    with pytest.raises(ferry.InvalidArgumentError, match="erase_value has 3 values for 1 output channel"):
        ferry.output_info(IMAGES[..., :1], augment=ferry.Augment(erase=0.5, erase_value=(1, 2, 3)))
    with pytest.raises(ferry.OutOfRangeError, match="augment.padding"):
        ctx.submit(IMAGES, resize=64, augment=ferry.Augment(crop="random", padding=2)).wait()  # 45 + 4 < 64


def test_augment_draw_checks_its_arguments():
    a = ferry.Augment(crop="random_resized")
    with pytest.raises(ferry.InvalidArgumentError, match="sizes"):
        ferry.augment_draw(a, [(1, 2, 3)], 8)
    with pytest.raises(ferry.InvalidArgumentError, match="resize"):
        ferry.augment_draw(a, [(10, 10)], (0, 4))
    with pytest.raises(ferry.InvalidArgumentError, match="h\\[0\\]"):
        ferry.augment_draw(a, [(0, 10)], 8)
    with pytest.raises(ferry.InvalidArgumentError, match="augment is None"):
        ferry.augment_draw(None, [(10, 10)], 8)


# ---- determinism, resuming, the drawn parameters ----
def test_drawn_params_of_submit_and_convert_equal_augment_draw(ctx):
    a = ferry.Augment(seed=3, step=2, **FULL)
    out, params = run(ctx, IMAGES, a, resize=(20, 24))
    assert params.dtype == ferry.AUGMENT_PARAMS_DTYPE and params.shape == (5,)
    drawn = ferry.augment_draw(a, [(31, 45)] * 5, (20, 24))
    assert params.tobytes() == drawn.tobytes()
    target = np.empty_like(out)
    assert ctx.convert(IMAGES, target, resize=(20, 24), augment=a).tobytes() == drawn.tobytes()
    np.testing.assert_array_equal(target, out)
    assert ctx.convert(IMAGES, target, resize=(20, 24)) is None  # without augment: nothing drawn
    # each field as augment.h says
    assert ((params["crop"][:, 2] > 0) & (params["crop"][:, 0] + params["crop"][:, 2] <= 45)).all()
    assert set(params["flip"]) <= {0, 1, 2, 3} and set(params["grayscale"]) <= {0, 1}
    assert (np.sort(params["jitter_order"], axis=1) == [0, 1, 2, 3]).all()
    assert ((params["brightness"] >= 0.6) & (params["brightness"] <= 1.4)).all()
    assert ((params["hue"] >= -0.1) & (params["hue"] <= 0.1)).all()
    assert (params["erase"][params["erased"] == 0] == 0).all()


def test_same_seed_and_step_same_batch_another_step_another(ctx):
    a, b = ferry.Augment(seed=9, **FULL), ferry.Augment(seed=9, **FULL)
    out_a, p_a = run(ctx, IMAGES, a, resize=24)
    out_b, p_b = run(ctx, IMAGES, b, resize=24)
    assert p_a.tobytes() == p_b.tobytes() and out_a.tobytes() == out_b.tobytes()
    b.step = 1
    out_c, p_c = run(ctx, IMAGES, b, resize=24)
    assert (p_a["crop"] != p_c["crop"]).any() and out_a.tobytes() != out_c.tobytes()
    assert (ferry.augment_draw(a, [(31, 45)] * 5, 24, step=1) == p_c).all()  # step= of augment_draw


def test_first_index_shifts_the_samples():
    a = ferry.Augment(seed=1, **FULL)
    whole = ferry.augment_draw(a, [(40, 50)] * 8, 16)
    a.first_index = 3
    assert ferry.augment_draw(a, [(40, 50)] * 5, 16).tobytes() == whole[3:].tobytes()  # a shard's offset


def test_draws_are_per_option_streams():
    """Turning an option on leaves the others' draws: a run that adds erasing keeps its crops."""
    base = ferry.augment_draw(ferry.Augment(seed=4, crop="random_resized", hflip=0.5), [(40, 50)] * 6, 16)
    more = ferry.augment_draw(ferry.Augment(seed=4, crop="random_resized", hflip=0.5, erase=1.0, brightness=0.3),
                              [(40, 50)] * 6, 16)
    assert (base["crop"] == more["crop"]).all() and (base["flip"] == more["flip"]).all()
    assert more["erased"].any()


def test_a_transform_carries_augment_and_augment_overrides_it(ctx):
    a, b = ferry.Augment(seed=1, **FULL), ferry.Augment(seed=2, **FULL)
    t = ferry.Transform(resize=24, augment=a)
    assert "augment=ferry.Augment(seed=1" in repr(t)
    _, p_t = run(ctx, IMAGES, None, transform=t)
    assert p_t.tobytes() == ferry.augment_draw(a, [(31, 45)] * 5, 24).tobytes()
    with ctx.submit(IMAGES, t, augment=b) as batch:
        assert batch.augment_params.tobytes() == ferry.augment_draw(b, [(31, 45)] * 5, 24).tobytes()
    with ctx.submit(IMAGES, resize=24) as batch:
        assert batch.augment_params is None
    assert ferry.output_info(IMAGES, resize=24, augment=a)["shape"] == (5, 3, 24, 24)


def test_images_of_different_sizes_draw_for_their_own(ctx):
    images = [IMAGES[0], IMAGES[1, :20, :30], IMAGES[2, 5:, 9:]]
    a = ferry.Augment(seed=6, crop="random_resized", hflip=0.5)
    _, params = run(ctx, images, a, resize=16)
    assert params.tobytes() == ferry.augment_draw(a, [im.shape[:2] for im in images], 16).tobytes()


# ---- the PrefetchLoader ----
def test_loader_advances_step_per_batch_and_across_passes(ctx):
    a = ferry.Augment(seed=8, step=10, **FULL)
    loader = ferry.PrefetchLoader([IMAGES] * 4, ctx, depth=2, resize=24, augment=a)
    assert loader.step == 10
    seen = []
    for k, batch in enumerate(loader):
        assert (batch.augment_params == ferry.augment_draw(a, [(31, 45)] * 5, 24, step=10 + k)).all()
        assert (loader.augment_params == batch.augment_params).all()
        seen.append(batch.numpy().copy())
        assert loader.step == 11 + k
    assert a.step == 10  # the caller's description is not changed
    again = [b.augment_params for b in loader]  # a second pass (epoch) draws on: steps 14 ..
    assert (again[0] == ferry.augment_draw(a, [(31, 45)] * 5, 24, step=14)).all() and loader.step == 18
    # resume at batch 2: a new loader at step 12 gives batches 2 and 3 again, bit for bit
    resumed = ferry.PrefetchLoader([IMAGES] * 2, ctx, resize=24, augment=ferry.Augment(seed=8, step=12, **FULL))
    assert [b.numpy().tobytes() for b in resumed] == [s.tobytes() for s in seen[2:]]


def test_loader_break_resumes_at_the_next_unyielded_batch(ctx):
    a = ferry.Augment(seed=2, crop="random_resized")
    loader = ferry.PrefetchLoader([IMAGES] * 6, ctx, depth=3, resize=16, transform=None, augment=a)
    for k, _ in enumerate(loader):
        if k == 1:
            break
    assert loader.step == 2  # batches 2..4 were submitted ahead but never yielded
    loader.step = 5
    first = next(iter(loader))
    assert (first.augment_params == ferry.augment_draw(a, [(31, 45)] * 5, 16, step=5)).all()
    with pytest.raises(ferry.InvalidArgumentError, match="step is -1"):
        loader.step = -1


def test_loader_takes_a_transform_s_augment(ctx):
    a = ferry.Augment(seed=3, hflip=0.5)
    loader = ferry.PrefetchLoader([IMAGES] * 2, ctx, transform=ferry.Transform(augment=a, dtype="uint8"))
    params = [b.augment_params for b in loader]
    assert (params[1] == ferry.augment_draw(a, [(31, 45)] * 5, (31, 45), step=1)).all()


# ---- the ops against ferry itself ----
def test_flips_and_windows_equal_ferry_s_own_mirror_and_window(ctx):
    a = ferry.Augment(seed=5, crop="random_resized", hflip=0.5, vflip=0.5)
    kw = dict(resize=(18, 22), dtype="uint8")
    out, params = run(ctx, IMAGES, a, **kw)
    for i, p in enumerate(params):
        x, y, w, h = (int(v) for v in p["crop"])
        with ctx.submit(IMAGES[i:i + 1], window=(x, y, w, h), mirror=int(p["flip"]), **kw) as batch:
            np.testing.assert_array_equal(out[i], batch.numpy()[0])


def test_random_crop_with_padding_and_center_crop_show_zeros_outside(ctx):
    padded = np.pad(IMAGES, ((0, 0), (4, 4), (4, 4), (0, 0)))
    out, params = run(ctx, IMAGES, ferry.Augment(seed=2, crop="random", padding=4), resize=(32, 32),
                      dtype="uint8", layout="NHWC")
    for i, p in enumerate(params):
        x, y, w, h = (int(v) for v in p["crop"])
        assert -4 <= x <= 45 + 4 - 32 and (w, h) == (32, 32)
        np.testing.assert_array_equal(out[i], padded[i, y + 4:y + 4 + h, x + 4:x + 4 + w])
    out, params = run(ctx, IMAGES, ferry.Augment(crop="center"), resize=(35, 41), dtype="uint8", layout="NHWC")
    assert tuple(params["crop"][0]) == (2, -2, 41, 35)  # (45 - 41) / 2; -(35 - 31) / 2: zeros above and below
    np.testing.assert_array_equal(out[:, 2:33], IMAGES[:, :, 2:43])
    assert not out[:, :2].any() and not out[:, 33:].any()


def test_grayscale_and_erasing(ctx):
    out, params = run(ctx, IMAGES, ferry.Augment(seed=1, grayscale=1.0, erase=1.0, erase_value=(-1, -2, -3)),
                      mean=0.5, std=0.25)
    assert params["grayscale"].all() and params["erased"].all()
    for i, p in enumerate(params):
        x, y, w, h = (int(v) for v in p["erase"])
        box = np.zeros(out.shape[2:], bool)
        box[y:y + h, x:x + w] = True
        np.testing.assert_array_equal(out[i][:, box], np.array([[-1], [-2], [-3]], np.float32).repeat(box.sum(), 1))
        np.testing.assert_array_equal(out[i][0][~box], out[i][2][~box])  # R = G = B outside the box


def test_augment_boxes_follow_the_crop_and_the_flip():
    p = np.zeros(2, ferry.AUGMENT_PARAMS_DTYPE)
    p["crop"] = [(10, 20, 40, 20), (0, 0, 100, 50)]
    p["flip"] = [0, int(ferry.Mirror.X)]
    boxes = [np.array([[10, 20, 30, 30], [0, 0, 5, 5]]), np.array([[0, 0, 25, 50]])]
    mapped = ferry.augment_boxes(p, boxes, (40, 80))  # (h, w): x * 2, y * 2
    np.testing.assert_array_equal(mapped[0], [[0, 0, 40, 20], [0, 0, 0, 0]])  # the second: cropped away
    np.testing.assert_array_equal(mapped[1], [[60, 0, 80, 40]])  # mirrored: x -> 80 - x
    np.testing.assert_array_equal(ferry.augment_boxes(p[0], boxes[0][:1], (40, 80)), [[0, 0, 40, 20]])
