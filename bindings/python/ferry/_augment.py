"""Random augmentation drawn per sample, in the conversion itself (ferry/augment.h).

``ferry.Augment(...)`` describes it with torchvision's names and defaults;
pass it as ``augment=`` to Context.submit / convert, output_info, Transform
and PrefetchLoader. Each sample's parameters are a pure function of (seed,
step, first_index + i): the same on the CPU and a GPU, on any machine, so a
run resumes from any step.

What each sample drew comes back as a NumPy structured array of n records
(``Batch.augment_params``, the return value of ``Context.convert``,
``ferry.augment_draw``), one field per ferry_augment_params member:

============  ===========  ==================================================
field         dtype        meaning
============  ===========  ==================================================
crop          int64 (4,)   the window x, y, w, h in source pixels (RANDOM and
                           CENTER may reach outside: 0 there)
flip          int32        ferry.Mirror bits drawn (X: horizontal)
grayscale     int32        1: converted to gray
brightness,   float32      the factors drawn (1 where off; hue 0, in turns)
contrast,
saturation,
hue
jitter_order  int32 (4,)   the order the operations ran (0 brightness,
                           1 contrast, 2 saturation, 3 hue; off ones last)
erased        int32        1: the erase box below was applied
erase         int64 (4,)   x, y, w, h in output pixels
============  ===========  ==================================================

``params["crop"]`` is then an (n, 4) array; ``ferry.augment_boxes`` maps
detection boxes through it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import ferry_swig as _swig
from ._enums import AugmentCrop, Mirror, Status, parse_augment_crop
from ._errors import FerryError, error


def _params_dtype() -> np.dtype:
    size, *offsets = _swig.augment_params_layout()
    names = ("crop", "flip", "grayscale", "brightness", "contrast", "saturation", "hue", "jitter_order", "erased",
             "erase")
    formats = (("<i8", (4,)), "<i4", "<i4", "<f4", "<f4", "<f4", "<f4", ("<i4", (4,)), "<i4", ("<i8", (4,)))
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size})


#: The NumPy dtype of one sample's drawn parameters (ferry_augment_params).
PARAMS_DTYPE = _params_dtype()


def empty_params(n: int) -> np.ndarray:
    return np.zeros(n, dtype=PARAMS_DTYPE)


def _invalid(message: str) -> Exception:
    return error(Status.INVALID_ARGUMENT, message)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _integer(value: Any, name: str, what: str, top: int = 1 << 64) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < top:
        raise _invalid(f"{name} is {value!r}: {what}")
    return int(value)


def _probability(value: Any, name: str, what: str) -> float:
    if not _is_number(value) or not 0.0 <= float(value) <= 1.0:
        raise _invalid(f"{name} is {value!r}: a probability in [0, 1] ({what})")
    return float(value)


def _pair(value: Any, name: str, what: str) -> Tuple[float, float]:
    """(lo, hi) as written: two numbers (their ranges are ferry's to check)."""
    if isinstance(value, (list, tuple, np.ndarray)) and len(value) == 2 and all(_is_number(v) for v in value):
        return float(value[0]), float(value[1])
    raise _invalid(f"{name} is {value!r}: {what}")


def _factor(value: Any, name: str) -> Tuple[float, float]:
    """ColorJitter's brightness / contrast / saturation: None or 0 off, b >= 0
    the range [max(0, 1 - b), 1 + b], or (lo, hi)."""
    what = "None (off), a number b >= 0 (the factor range [max(0, 1 - b), 1 + b], torchvision's) or (lo, hi)"
    if value is None:
        return 1.0, 1.0
    if _is_number(value):
        b = float(value)
        if not b >= 0.0 or not np.isfinite(b):
            raise _invalid(f"{name} is {value!r}: {what}")
        return max(0.0, 1.0 - b), 1.0 + b
    return _pair(value, name, what)


def _hue(value: Any) -> Tuple[float, float]:
    what = "None (off), a number h in [0, 0.5] (the shift range [-h, h] in turns, torchvision's) or (lo, hi)"
    if value is None:
        return 0.0, 0.0
    if _is_number(value):
        h = float(value)
        if not 0.0 <= h <= 0.5:
            raise _invalid(f"hue is {value!r}: {what}")
        return -h, h
    return _pair(value, "hue", what)


def _erase_value(value: Any) -> Any:
    """'random', a number, or 1 to 4 numbers (one per output channel)."""
    what = ("'random' (a standard normal per element; a uniform byte for uint8), a number, or 1 to 4 numbers "
            "(one per output channel), in output units (after mean/std)")
    if isinstance(value, str):
        if value.strip().lower() == "random":
            return "random"
        raise _invalid(f"erase_value is {value!r}: {what}")
    if _is_number(value):
        return float(value)
    if isinstance(value, (list, tuple, np.ndarray)) and 1 <= len(value) <= 4 and all(_is_number(v) for v in value):
        return tuple(float(v) for v in value)
    raise _invalid(f"erase_value is {value!r}: {what}")


_RANGE = "(lo, hi): two numbers"
# keyword -> (parser, default), in the order of ferry_augment.
_FIELDS: Dict[str, Any] = {
    "seed": (lambda v: _integer(v, "seed", "an int in [0, 2^64)"), 0),
    "step": (lambda v: _integer(v, "step", "an int in [0, 2^64): one per batch (a loader advances it)"), 0),
    "first_index": (lambda v: _integer(v, "first_index", "an int >= 0: sample i draws as index first_index + i",
                                             1 << 63),
                    0),
    "crop": (parse_augment_crop, AugmentCrop.NONE),
    "scale": (lambda v: _pair(v, "scale", _RANGE + " (the area fraction, 0 < lo <= hi <= 1)"), (0.08, 1.0)),
    "ratio": (lambda v: _pair(v, "ratio", _RANGE + " (the aspect w / h, 0 < lo <= hi)"), (3 / 4, 4 / 3)),
    "padding": (lambda v: _integer(v, "padding", "an int >= 0: the 0-pixels added on each side (crop='random')",
                                     1 << 63),
                0),
    "hflip": (lambda v: _probability(v, "hflip", "RandomHorizontalFlip's p"), 0.0),
    "vflip": (lambda v: _probability(v, "vflip", "RandomVerticalFlip's p"), 0.0),
    "brightness": (lambda v: _factor(v, "brightness"), (1.0, 1.0)),
    "contrast": (lambda v: _factor(v, "contrast"), (1.0, 1.0)),
    "saturation": (lambda v: _factor(v, "saturation"), (1.0, 1.0)),
    "hue": (_hue, (0.0, 0.0)),
    "grayscale": (lambda v: _probability(v, "grayscale", "RandomGrayscale's p"), 0.0),
    "erase": (lambda v: _probability(v, "erase", "RandomErasing's p"), 0.0),
    "erase_scale": (lambda v: _pair(v, "erase_scale", _RANGE + " (the area fraction, 0 < lo <= hi <= 1)"),
                    (0.02, 0.33)),
    "erase_ratio": (lambda v: _pair(v, "erase_ratio", _RANGE + " (the aspect h / w, 0 < lo <= hi)"), (0.3, 3.3)),
    "erase_value": (_erase_value, 0.0),
}


class Augment:
    """Random augmentation drawn per sample (``ferry_augment``), torchvision
    v2's training ops in one pass: crop (and resize) -> flip -> colour jitter
    (in a drawn order) -> grayscale -> normalize -> erasing.

    seed, step, first_index: the draws of sample i of a call are a function of
        (seed, step, first_index + i) only. step: one per batch (a
        PrefetchLoader advances it); first_index: a shard's offset.
    crop: None, "random_resized" (RandomResizedCrop(resize, scale, ratio)),
        "random" (RandomCrop(resize, padding)), "center" (CenterCrop(resize));
        the output size is the transform's ``resize=`` (mode "stretch").
    scale=(0.08, 1), ratio=(3/4, 4/3): RandomResizedCrop's. padding=0:
        RandomCrop's (0-pixels on each side; only with crop="random").
    hflip, vflip: the flip probabilities (0 = off).
    brightness, contrast, saturation: ColorJitter's: None (off), b (the
        factor range [max(0, 1 - b), 1 + b]) or (lo, hi). hue: None, h
        ([-h, h] turns) or (lo, hi). Colour needs 3 output channels, read
        as R, G, B (a BGR source: channel_map=[2, 1, 0]).
    grayscale: RandomGrayscale's probability.
    erase, erase_scale=(0.02, 0.33), erase_ratio=(0.3, 3.3), erase_value=0:
        RandomErasing's p, scale, ratio and value (output units, after
        mean/std; 'random' for noise).

    Fields may be set afterwards (``aug.step = 10``); each is checked when
    set, ferry's own checks included. Bad input raises InvalidArgumentError
    naming the keyword.
    """

    def __init__(self, **kwargs: Any) -> None:
        from ._descriptors import check_keywords
        check_keywords(kwargs, tuple(_FIELDS), "ferry.Augment", "its keywords")
        values = {name: default for name, (_, default) in _FIELDS.items()}
        values.update((name, _FIELDS[name][0](value)) for name, value in kwargs.items())
        self.__dict__.update(values)
        self.__dict__["_raw"] = self._build()

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _FIELDS:
            raise AttributeError(f"ferry.Augment has no field {name!r}; its fields: {', '.join(_FIELDS)}")
        parsed = _FIELDS[name][0](value)
        if name == "step":  # passed to ferry per call: the description stays
            self.__dict__[name] = parsed
            return
        old = self.__dict__[name]
        self.__dict__[name] = parsed
        try:
            self.__dict__["_raw"] = self._build()
        except FerryError:
            self.__dict__[name] = old
            raise

    def _build(self) -> Any:
        """The ferry_augment (SWIG), checked by ferry itself."""
        raw = _swig.Augment()
        raw.seed, raw.first_index, raw.crop, raw.padding = self.seed, self.first_index, int(self.crop), self.padding
        raw.set_scale(list(self.scale))
        raw.set_ratio(list(self.ratio))
        raw.flip_x_probability, raw.flip_y_probability = self.hflip, self.vflip
        raw.set_brightness(list(self.brightness))
        raw.set_contrast(list(self.contrast))
        raw.set_saturation(list(self.saturation))
        raw.set_hue(list(self.hue))
        raw.grayscale_probability = self.grayscale
        raw.erase_probability = self.erase
        raw.set_erase_scale(list(self.erase_scale))
        raw.set_erase_ratio(list(self.erase_ratio))
        if self.erase_value == "random":
            raw.erase_fill = _swig.FERRY_ERASE_RANDOM
        else:
            values = self.erase_value if isinstance(self.erase_value, tuple) else (self.erase_value,)
            raw.set_erase_value(list(values) * 4 if len(values) == 1 else list(values))
        try:
            _swig.augment_draw(raw, 0, 0, 0, 0, 1, 1, 0)  # n = 0: ferry checks every field
        except FerryError as e:  # ferry's message names the field: say where it comes from
            raise type(e)("ferry.Augment: " + e.message.replace("ferry_augment_draw: ", ""), e.status) from None
        return raw

    def _with_step(self, step: int) -> "Augment":
        """A copy at another step (the description shared: it is rebuilt, never changed, when a field is set)."""
        copy = object.__new__(Augment)
        copy.__dict__.update(self.__dict__)
        copy.__dict__["step"] = step
        return copy

    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, Any]]]:
        """Pickles (and copies) as its keywords: the ferry_augment is rebuilt."""
        return _from_fields, ({name: self.__dict__[name] for name in _FIELDS},)

    def __repr__(self) -> str:
        parts = []
        for name, (_, default) in _FIELDS.items():
            value = self.__dict__[name]
            if value != default:
                parts.append(f"{name}={value.name.lower()!r}" if isinstance(value, AugmentCrop) else
                             f"{name}={value!r}")
        return f"ferry.Augment({', '.join(parts)})"


def _from_fields(fields: Dict[str, Any]) -> Augment:
    return Augment(**fields)


def check_augment(augment: Any) -> Optional[Augment]:
    if augment is not None and not isinstance(augment, Augment):
        raise _invalid(f"augment is a {type(augment).__name__}: a ferry.Augment expected (or None)")
    return augment


def raw_for(augment: Augment, spec: Any, source: Any) -> Any:
    """The ferry_augment for a call on `source` with the TransformSpec `spec`,
    erase_value's count checked against the output channels (as torchvision's)."""
    values = augment.erase_value
    if isinstance(values, tuple) and len(values) > 1:
        count, why = spec.channels(int(source.c))
        if len(values) != count and not (spec.pad_channels_to_4 and len(values) == 4):
            raise _invalid(f"erase_value has {len(values)} values for {count} output channel{'s' if count != 1 else ''}"
                           f" ({why}): give 1 value (every channel) or {count}")
    return augment._raw


def _out_size(value: Any) -> Tuple[int, int]:
    from ._descriptors import _resize
    size = _resize(value)
    if size is None:
        raise _invalid("out_size is None: the output size (h, w), as resize=")
    return size


def augment_draw(augment: Augment, sizes: Any, out_size: Any, *, step: Optional[int] = None) -> np.ndarray:
    """ferry_augment_draw: the parameters a conversion with `augment` (at
    `step`, default augment.step) would draw for images of `sizes` ((h, w)
    each: an (n, 2) array, a list of pairs, or one pair) to the output size
    `out_size` ((h, w) or one int, as resize=), without converting: to
    transform labels before the images convert, or to check a run. Returns
    the structured array of the module docstring (n records)."""
    check_augment(augment)
    if augment is None:
        raise _invalid("augment is None: a ferry.Augment expected")
    what = "the images' sizes: (h, w) pairs of positive ints, as an (n, 2) array, a list of pairs or one pair"
    try:
        hw = np.asarray(sizes)
    except (TypeError, ValueError):
        raise _invalid(f"sizes is {sizes!r}: {what}") from None
    if hw.ndim == 1 and hw.shape[0] == 2:
        hw = hw.reshape(1, 2)
    if hw.ndim != 2 or hw.shape[1] != 2 or hw.dtype.kind not in "iu":
        raise _invalid(f"sizes has shape {hw.shape} and dtype {hw.dtype}: {what}")
    out_h, out_w = _out_size(out_size)
    if step is not None:
        augment = augment._with_step(_integer(step, "step", "an int in [0, 2^64)"))
    h = np.ascontiguousarray(hw[:, 0], dtype=np.int64)
    w = np.ascontiguousarray(hw[:, 1], dtype=np.int64)
    out = empty_params(len(h))
    _swig.augment_draw(augment._raw, augment.step, len(h), h.ctypes.data, w.ctypes.data, out_w, out_h,
                       out.ctypes.data)
    return out


def augment_boxes(params: Any, boxes: Any, out_size: Any) -> Any:
    """Detection boxes through the drawn crop and flip: `boxes` (k, 4) as
    (x1, y1, x2, y2) in source pixels for one record of `params`, or a list
    of such arrays, one per record. Returns float32 arrays in output pixels,
    clipped to the out_size ((h, w) or one int) image; boxes the crop left
    out come back with zero width or height (drop them). Assumes the resize
    mode "stretch" and no transform mirror (that one applies on top)."""
    out_h, out_w = _out_size(out_size)
    one = isinstance(params, np.void)
    rows = [params] if one else list(params)
    groups = [boxes] if one else list(boxes)
    if len(groups) != len(rows):
        raise _invalid(f"boxes has {len(groups)} arrays for {len(rows)} samples' parameters: one (k, 4) array each")
    result: List[np.ndarray] = []
    for i, (p, b) in enumerate(zip(rows, groups)):
        b = np.asarray(b, dtype=np.float64).reshape(-1, 4) if len(b) else np.zeros((0, 4))
        x, y, w, h = (float(v) for v in p["crop"])
        out = np.empty_like(b)
        out[:, 0::2] = (b[:, 0::2] - x) * (out_w / w)
        out[:, 1::2] = (b[:, 1::2] - y) * (out_h / h)
        if int(p["flip"]) & Mirror.X:
            out[:, [0, 2]] = out_w - out[:, [2, 0]]
        if int(p["flip"]) & Mirror.Y:
            out[:, [1, 3]] = out_h - out[:, [3, 1]]
        np.clip(out[:, 0::2], 0, out_w, out=out[:, 0::2])
        np.clip(out[:, 1::2], 0, out_h, out=out[:, 1::2])
        result.append(out.astype(np.float32))
    return result[0] if one else result
