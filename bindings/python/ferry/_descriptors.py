"""Python inputs -> ferry's descriptor structs (Source, Transform, Output)."""
from __future__ import annotations

import difflib
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import ferry_swig as _swig
from ._arrays import ArrayView, view
from ._augment import check_augment
from ._enums import (DType, Interpolation, Layout, LetterboxAlign, Mirror, ResizeMode, Status, parse_dtype,
                     parse_interpolation, parse_layout, parse_letterbox_align, parse_mirror, parse_resize_mode)
from ._errors import error


def _sample_dims(shape: Tuple[int, ...], layout: Layout, name: str) -> Tuple[int, int, int]:
    """(h, w, c) of one image: (h, w), (h, w, c) for NHWC or (c, h, w) for NCHW."""
    if len(shape) == 2:
        return shape[0], shape[1], 1
    if len(shape) == 3:
        if layout == Layout.NHWC:
            return shape[0], shape[1], shape[2]
        return shape[1], shape[2], shape[0]
    raise error(Status.INVALID_ARGUMENT, f"{name} has shape {shape}: one image is (h, w) or 3-D")


def _check_uint8(v: ArrayView, name: str) -> None:
    if v.dtype != DType.UINT8:
        raise error(Status.INVALID_ARGUMENT,
                    f"{name} dtype is {v.type_name}: ferry reads uint8 samples "
                    "(the output dtype is chosen with dtype=)")
    if any(s < 0 for s in v.strides):
        raise error(Status.UNSUPPORTED,
                    f"{name} strides are {v.strides}: negative strides (a flipped view) cannot be handled; "
                    "pass numpy.ascontiguousarray(...) or mirror with mirror=ferry.Mirror.X")


def _set_strides(src: Any, strides: Tuple[int, ...], layout: Layout, with_n: bool) -> None:
    """Byte strides of the array (in its own dimension order) into stride_n/c/h/w."""
    s = list(strides)
    if len(s) == (3 if with_n else 2):  # no channel dimension: c == 1
        s.append(1)
    if not with_n:
        s.insert(0, 0)
    if layout == Layout.NHWC:
        src.stride_n, src.stride_h, src.stride_w, src.stride_c = s
    else:
        src.stride_n, src.stride_c, src.stride_h, src.stride_w = s


def _sample_descs(src: Any, views: List[ArrayView], layout: Layout, name: str) -> None:
    """ferry_source.sample_descs: a list of images of different sizes (one c)."""
    flat: List[int] = []
    c0 = None
    for i, v in enumerate(views):
        h, w, c = _sample_dims(v.shape, layout, f"{name}[{i}]")
        if c0 is None:
            c0 = c
        elif c != c0:
            raise error(Status.INVALID_ARGUMENT,
                        f"{name}[{i}] has shape {v.shape}: {c} channel{'s' if c != 1 else ''} where {name}[0] has "
                        f"{c0}; samples of different sizes share one channel count")
        s = list(v.strides) + ([1] if len(v.shape) == 2 else [])
        sh, sw, sc = s if layout == Layout.NHWC else (s[1], s[2], s[0])
        flat += [v.address, v.extent, h, w, sc, sh, sw]
    src.c = c0
    src.set_sample_descs(flat)


def make_source(data: Any, layout: Layout = Layout.NHWC, name: str = "source") -> Tuple[Any, List[Any]]:
    """A Source for one array (n, h, w, c) / one image / a list of images
    (of one size, or of different sizes: ferry_source.sample_descs, which a
    resize or per_sample_crop windows of one size bring to one output size).
    Returns the Source and the objects that keep its memory alive. `name`:
    the argument the messages name."""
    layout = parse_layout(layout, "source_layout")
    src = _swig.Source()
    src.layout = int(layout)
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            raise error(Status.INVALID_ARGUMENT, f"{name} is an empty list: at least one sample is required")
        views = [view(item, f"{name}[{i}]") for i, item in enumerate(data)]
        first = views[0]
        for i, v in enumerate(views):
            _check_uint8(v, f"{name}[{i}]")
            if len(v.shape) != len(first.shape):
                raise error(Status.INVALID_ARGUMENT,
                            f"{name}[{i}] has shape {v.shape}: every sample must have the dimensions of "
                            f"{name}[0] (shape {first.shape})")
        if any(v.shape != first.shape or v.strides != first.strides for v in views):
            _sample_descs(src, views, layout, name)
            return src, [v.keepalive for v in views]
        src.h, src.w, src.c = _sample_dims(first.shape, layout, f"{name}[0]")
        _set_strides(src, first.strides, layout, with_n=False)
        src.sample_bytes = first.extent
        src.set_samples([v.address for v in views])
        return src, [v.keepalive for v in views]
    v = view(data, name)
    _check_uint8(v, name)
    if len(v.shape) == 4:
        n = v.shape[0]
        src.h, src.w, src.c = _sample_dims(v.shape[1:], layout, name)
        _set_strides(src, v.strides, layout, with_n=True)
    else:
        n = 1
        src.h, src.w, src.c = _sample_dims(v.shape, layout, name)
        _set_strides(src, v.strides, layout, with_n=False)
    src.n = n
    src.data = v.address
    src.bytes = v.extent
    return src, [v.keepalive]


# The transform keywords, in the order of ferry_transform.
TRANSFORM_KEYWORDS = ("dtype", "layout", "channel_map", "pad_channels_to_4", "pad_value", "scale", "mean", "std",
                      "crop", "mirror", "per_sample_mean", "per_sample_std", "per_sample_crop",
                      "per_sample_mirror", "pad_outside", "fill_value",
                      # resize (ferry_transform's fields appended after 0.2.0)
                      "resize", "interpolation", "resize_mode", "resize_shorter", "letterbox_align",
                      "letterbox_value", "window", "per_sample_window",
                      # random augmentation (ferry_transform.augment, ferry/_augment.py)
                      "augment")
# The keywords that only mean something with resize=.
_RESIZE_ONLY = ("interpolation", "resize_mode", "resize_shorter", "letterbox_align", "letterbox_value", "window",
                "per_sample_window")


def check_keywords(kwargs: Dict[str, Any], known: Sequence[str], caller: str, what: str) -> None:
    """TypeError for a keyword `caller` does not take, with the closest known one."""
    for name in kwargs:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TypeError(f"{caller} got an unexpected keyword argument {name!r}{hint}; "
                            f"{what}: {', '.join(known)}")


def _invalid(message: str) -> Exception:
    return error(Status.INVALID_ARGUMENT, message)


def _is_number(value: Any) -> bool:
    if type(value) in (float, int):
        return True
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _number(value: Any, name: str) -> float:
    if not _is_number(value):
        raise _invalid(f"{name} is {value!r}: a number expected")
    return float(value)


def _array(values: Any, name: str, kinds: str, what: str) -> np.ndarray:
    """`values` (a number, a sequence, a NumPy array or a CPU tensor) as a
    NumPy array whose dtype kind is one of `kinds`, else InvalidArgumentError."""
    if isinstance(values, (str, bytes)):
        raise _invalid(f"{name} is {values!r}: {what}")
    if hasattr(values, "tolist") and not isinstance(values, np.ndarray):
        values = values.tolist()  # torch tensors of any dtype
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):  # ragged
        raise _invalid(f"{name} is {values!r}: {what}") from None
    if arr.dtype.kind not in kinds:
        raise _invalid(f"{name} is {values!r}: {what}")
    return arr


def _channel_values(values: Any, name: str) -> Optional[Tuple[float, ...]]:
    """mean / std as written: a number or a flat sequence of numbers (its
    length is checked against the channel count in TransformSpec.build)."""
    if values is None:
        return None
    if _is_number(values):  # the common spellings, without NumPy's cost
        return (float(values),)
    if isinstance(values, (list, tuple)) and all(_is_number(v) for v in values):
        return tuple(float(v) for v in values)
    what = "a number, or a sequence of numbers (1 value, or one per output channel)"
    arr = _array(values, name, "iuf", what)
    if arr.ndim > 1:
        raise _invalid(f"{name} has shape {arr.shape}: {what}")
    return tuple(float(v) for v in arr.reshape(-1))


def _per_sample_values(values: Any, name: str) -> Optional[np.ndarray]:
    """per_sample_mean / std: (n, channels), (n, 1) or (n,) numbers, float64."""
    if values is None:
        return None
    what = "one row per sample: shape (n, channels), (n, 1) or (n,) of numbers"
    arr = _array(values, name, "iuf", what)
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise _invalid(f"{name} has shape {arr.shape}: {what}")
    return arr.astype(np.float64)


def _ints(values: Any, name: str, what: str) -> np.ndarray:
    return _array(values, name, "iu", what).astype(np.int64)


def _channel_map(values: Any) -> Optional[Tuple[int, ...]]:
    if values is None:
        return None
    what = ("a sequence of 1 to 4 input channel indices, output channel k reading input channel "
            "channel_map[k] (BGR->RGB: [2, 1, 0]; BGRA->RGB: [2, 1, 0]; gray->RGB: [0, 0, 0])")
    arr = _ints(values, "channel_map", what)
    if arr.ndim != 1 or not 1 <= arr.size <= 4:
        raise _invalid(f"channel_map has {'shape ' + str(arr.shape) if arr.ndim != 1 else str(arr.size) + ' entries'}"
                       f": {what}")
    if arr.min() < 0 or arr.max() > 3:
        raise _invalid(f"channel_map is {arr.tolist()}: {what}")
    return tuple(int(v) for v in arr)


def _crop(values: Any) -> Optional[Tuple[int, int, int, int]]:
    if values is None:
        return None
    what = "4 integers (x, y, w, h): the window's corner and size in input pixels"
    arr = _ints(values, "crop", what)
    if arr.shape != (4,):
        raise _invalid(f"crop is {values!r} ({arr.size} value{'s' if arr.size != 1 else ''}): {what}")
    x, y, w, h = (int(v) for v in arr)
    return x, y, w, h


def _resize(values: Any) -> Optional[Tuple[int, int]]:
    """resize=: (h, w), or one int for a square."""
    if values is None:
        return None
    what = "the output size: (h, w) in pixels, or one int for h = w (both positive)"
    if isinstance(values, (int, np.integer)) and not isinstance(values, (bool, np.bool_)):
        values = (values, values)
    arr = _ints(values, "resize", what)
    if arr.shape != (2,):
        raise _invalid(f"resize is {values!r}: {what}")
    h, w = (int(v) for v in arr)
    if h <= 0 or w <= 0:
        raise _invalid(f"resize is {values!r}: {what}")
    return h, w


def _positive_int(value: Any, name: str, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise _invalid(f"{name} is {value!r}: {what}")
    return int(value)


def _window(values: Any) -> Optional[Tuple[float, float, float, float]]:
    if values is None:
        return None
    what = ("4 numbers (x, y, w, h): the window's corner and size in input pixels, fractional edges allowed "
            "(pixel j covers [j, j + 1))")
    arr = _array(values, "window", "iuf", what)
    if arr.shape != (4,):
        raise _invalid(f"window is {values!r} ({arr.size} value{'s' if arr.size != 1 else ''}): {what}")
    x, y, w, h = (float(v) for v in arr)
    return x, y, w, h


def _mirror_bits(values: Any, name: str) -> np.ndarray:
    what = "one ferry.Mirror value (0..3: NONE, X, Y, X | Y) per sample"
    arr = _ints(values, name, what)
    if arr.ndim != 1:
        raise _invalid(f"{name} has shape {arr.shape}: {what}")
    if arr.size and (arr.min() < 0 or arr.max() > 3):
        raise _invalid(f"{name} is {arr.tolist()}: {what}")
    return arr


class TransformSpec:
    """The transform keywords, checked as written. The channel count mean
    and std must match depends on the source, so :meth:`build` makes the
    ferry_transform for one source (and keeps the last few it made)."""

    def __init__(self, dtype: Any = DType.FLOAT32, layout: Any = Layout.NCHW, *,
                 channel_map: Optional[Sequence[int]] = None, pad_channels_to_4: bool = False,
                 pad_value: float = 0.0, scale: Optional[float] = None,
                 mean: Any = None, std: Any = None, crop: Optional[Sequence[int]] = None,
                 mirror: Any = Mirror.NONE, per_sample_mean: Any = None, per_sample_std: Any = None,
                 per_sample_crop: Any = None, per_sample_mirror: Any = None,
                 pad_outside: bool = False, fill_value: float = 0.0, resize: Any = None,
                 interpolation: Any = None, resize_mode: Any = None, resize_shorter: Optional[int] = None,
                 letterbox_align: Any = None, letterbox_value: Any = None, window: Any = None,
                 per_sample_window: Any = None, augment: Any = None) -> None:
        self.dtype = parse_dtype(dtype)
        self.layout = parse_layout(layout)
        self.channel_map = _channel_map(channel_map)
        self.pad_channels_to_4 = bool(pad_channels_to_4)
        self.pad_value = _number(pad_value, "pad_value")
        self.scale = None if scale is None else _number(scale, "scale")
        self.mean = _channel_values(mean, "mean")
        self.std = _channel_values(std, "std")
        self.crop = _crop(crop)
        self.mirror = parse_mirror(mirror)
        self.per_sample_mean = _per_sample_values(per_sample_mean, "per_sample_mean")
        self.per_sample_std = _per_sample_values(per_sample_std, "per_sample_std")
        self.per_sample_crop = None
        if per_sample_crop is not None:
            what = "one (x, y, w, h) row of integers per sample: shape (n, 4)"
            self.per_sample_crop = _ints(per_sample_crop, "per_sample_crop", what)
            if self.per_sample_crop.ndim != 2 or self.per_sample_crop.shape[1] != 4:
                raise _invalid(f"per_sample_crop has shape {self.per_sample_crop.shape}: {what}")
        self.per_sample_mirror = None if per_sample_mirror is None else _mirror_bits(per_sample_mirror,
                                                                                      "per_sample_mirror")
        self.pad_outside = bool(pad_outside)
        self.fill_value = _number(fill_value, "fill_value")
        self.resize = _resize(resize)
        self.interpolation = None if interpolation is None else parse_interpolation(interpolation)
        self.resize_mode = None if resize_mode is None else parse_resize_mode(resize_mode)
        self.resize_shorter = None if resize_shorter is None else _positive_int(
            resize_shorter, "resize_shorter", "the length the shorter side is resized to (resize_mode="
            "'shorter_side'), a positive int")
        self.letterbox_align = None if letterbox_align is None else parse_letterbox_align(letterbox_align)
        self.letterbox_value = _channel_values(letterbox_value, "letterbox_value")
        self.window = _window(window)
        self.per_sample_window = None
        if per_sample_window is not None:
            what = "one (x, y, w, h) row of numbers per sample: shape (n, 4)"
            self.per_sample_window = _array(per_sample_window, "per_sample_window", "iuf", what).astype(np.float32)
            if self.per_sample_window.ndim != 2 or self.per_sample_window.shape[1] != 4:
                raise _invalid(f"per_sample_window has shape {self.per_sample_window.shape}: {what}")
        self.augment = check_augment(augment)  # set in each call's copy of the transform (ferry_python.i)
        if self.resize is None:
            given = [name for name in _RESIZE_ONLY if getattr(self, name) is not None]
            if given:
                raise _invalid(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} given without resize: "
                               "set resize=(h, w) (the output size) to resample")
        if self.resize_mode == ResizeMode.SHORTER_SIDE and self.resize_shorter is None:
            raise _invalid("resize_mode is 'shorter_side' without resize_shorter: give the length the shorter "
                           "side is resized to before the center crop to resize=(h, w)")
        # The ferry_transforms built, per source (c, n): read by Context.submit's one-crossing path.
        self.built: Dict[Tuple[int, int], Any] = {}

    def keywords(self) -> str:
        """The keywords as Python source (the defaults left out but dtype and layout)."""
        parts = [f"dtype=ferry.DType.{self.dtype.name}", f"layout=ferry.Layout.{self.layout.name}"]
        for name in TRANSFORM_KEYWORDS[2:]:
            value = getattr(self, name)
            if value is None or value is False or (name in ("pad_value", "fill_value", "mirror") and value == 0):
                continue
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif name == "mirror":
                value = int(value)
            elif isinstance(value, (Interpolation, ResizeMode, LetterboxAlign)):
                value = value.name.lower()
            parts.append(f"{name}={value!r}")
        return ", ".join(parts)

    def channels(self, source_channels: int) -> Tuple[int, str]:
        """The output channels mean and std apply to, and where that count comes from."""
        if self.channel_map is not None:
            why = f"channel_map {list(self.channel_map)} gives {len(self.channel_map)}"
            count = len(self.channel_map)
        else:
            why = f"the source has c = {source_channels}"
            count = source_channels
        if self.pad_channels_to_4 and count < 4:
            why += "; the channels pad_channels_to_4 adds hold pad_value and take no mean/std"
        return count, why

    def _per_channel(self, values: Tuple[float, ...], name: str, count: int, why: str) -> List[float]:
        if len(values) == 1:
            return [values[0]] * count
        if len(values) != count:
            raise _invalid(f"{name} has {len(values)} values for {count} output channel{'s' if count != 1 else ''} "
                           f"({why}): give a scalar, 1 value (used for every channel) or exactly {count}")
        return list(values)

    def _per_sample(self, values: np.ndarray, name: str, n: int, count: int, why: str) -> List[float]:
        rows = values.reshape(values.shape[0], -1)
        if rows.shape[0] != n or rows.shape[1] not in (1, count):
            raise _invalid(f"{name} has shape {values.shape}: the batch has n = {n} samples and {count} output "
                           f"channel{'s' if count != 1 else ''} ({why}); expected shape ({n}, {count}), ({n}, 1) "
                           f"or ({n},)")
        return np.broadcast_to(rows, (n, count)).reshape(-1).tolist()

    def build(self, source: Any) -> Any:
        """The ferry_transform (SWIG Transform) for `source` (a SWIG Source)."""
        key = (int(source.c), int(source.n))
        t = self.built.get(key)
        if t is None:
            t = self._make(*key)
            if len(self.built) >= 8:
                self.built.clear()
            self.built[key] = t
        return t

    def _make(self, source_channels: int, n: int) -> Any:
        t = _swig.Transform()
        t.out_dtype = int(self.dtype)
        t.out_layout = int(self.layout)
        if self.channel_map is not None:
            t.set_channel_map(list(self.channel_map))
            t.out_channels = len(self.channel_map)
        t.pad_channels_to_4 = int(self.pad_channels_to_4)
        t.pad_value = self.pad_value
        if self.scale is not None:
            t.scale = self.scale
        count, why = self.channels(source_channels)
        # A channel count ferry cannot convert (a 2- or 5-channel source) is
        # reported by ferry itself: leave mean/std at their defaults then.
        known = 1 <= count <= 4
        if self.mean is not None and known:
            t.set_mean(self._per_channel(self.mean, "mean", count, why))
        if self.std is not None and known:
            t.set_std(self._per_channel(self.std, "std", count, why))
        if self.crop is not None:
            t.crop.x, t.crop.y, t.crop.w, t.crop.h = self.crop
        t.mirror = int(self.mirror)
        if self.per_sample_mean is not None and known:
            t.set_per_sample_mean(self._per_sample(self.per_sample_mean, "per_sample_mean", n, count, why), n)
        if self.per_sample_std is not None and known:
            t.set_per_sample_std(self._per_sample(self.per_sample_std, "per_sample_std", n, count, why), n)
        if self.per_sample_crop is not None:
            if self.per_sample_crop.shape[0] != n:
                raise _invalid(f"per_sample_crop has {self.per_sample_crop.shape[0]} rows: the batch has n = {n} "
                               f"samples, one (x, y, w, h) row each")
            t.set_per_sample_crop(self.per_sample_crop.reshape(-1).tolist())
        if self.per_sample_mirror is not None:
            if self.per_sample_mirror.size != n:
                k = self.per_sample_mirror.size
                raise _invalid(f"per_sample_mirror has {k} entr{'y' if k == 1 else 'ies'}: the batch has "
                               f"n = {n} samples, one ferry.Mirror value each")
            t.set_per_sample_mirror(self.per_sample_mirror.tolist())
        t.pad_outside = int(self.pad_outside)
        t.fill_value = self.fill_value
        if self.resize is not None:
            self._make_resize(t, n, count, why, known)
        return t

    def _make_resize(self, t: Any, n: int, count: int, why: str, known: bool) -> None:
        t.resize_h, t.resize_w = self.resize
        if self.interpolation is not None:
            t.interpolation = int(self.interpolation)
        if self.resize_mode is not None:
            t.resize_mode = int(self.resize_mode)
        if self.resize_shorter is not None:
            t.resize_shorter = self.resize_shorter
        if self.letterbox_align is not None:
            t.letterbox_align = int(self.letterbox_align)
        if self.letterbox_value is not None and known:
            t.set_letterbox_value(self._per_channel(self.letterbox_value, "letterbox_value", count, why))
        if self.window is not None:
            t.window.x, t.window.y, t.window.w, t.window.h = self.window
        if self.per_sample_window is not None:
            if self.per_sample_window.shape[0] != n:
                raise _invalid(f"per_sample_window has {self.per_sample_window.shape[0]} rows: the batch has "
                               f"n = {n} samples, one (x, y, w, h) row each")
            t.set_per_sample_window(self.per_sample_window.reshape(-1).tolist())


def make_transform(**kwargs: Any) -> TransformSpec:
    """A TransformSpec from the transform keywords (see TRANSFORM_KEYWORDS);
    an unknown keyword is a TypeError naming the closest known one."""
    check_keywords(kwargs, TRANSFORM_KEYWORDS, "the transform", "transform keywords")
    return TransformSpec(**kwargs)


def make_output(out: Any, info: Any) -> Tuple[Any, Any]:
    """An Output over a caller's array; its shape (memory-layout order) and
    dtype must be the transform's. Returns the Output and the keepalive."""
    v = view(out, "out")
    if v.readonly:
        raise error(Status.INVALID_ARGUMENT, "out is read-only: ferry writes the converted batch into it")
    want_dtype = DType(info.dtype)
    if v.dtype != want_dtype:
        raise error(Status.INVALID_ARGUMENT, f"out dtype is {v.type_name}: the transform gives {want_dtype.name}")
    want_shape = tuple(info.shape_at(i) for i in range(info.ndim))
    if v.shape != want_shape:
        raise error(Status.INVALID_ARGUMENT,
                    f"out has shape {v.shape}: the transform gives {want_shape} "
                    f"({Layout(info.layout).name} order)")
    o = _swig.Output()
    o.data = v.address
    o.bytes = v.extent
    if Layout(info.layout) == Layout.NCHW:
        o.stride_n, o.stride_c, o.stride_h, o.stride_w = v.strides
    else:
        o.stride_n, o.stride_h, o.stride_w, o.stride_c = v.strides
    return o, v.keepalive


def output_description(info: Any) -> Dict[str, Any]:
    """A ferry_tensor_info as ferry.output_info gives it: shape (memory-layout
    order), strides (bytes), dtype, layout, nbytes."""
    return {"shape": tuple(info.shape_at(i) for i in range(info.ndim)),
            "strides": tuple(info.stride_at(i) for i in range(info.ndim)),
            "dtype": DType(info.dtype), "layout": Layout(info.layout), "nbytes": info.bytes}


def struct_fields(raw: Any) -> Dict[str, Any]:
    """A SWIG struct ferry filled (stats, device properties, dataset info) as a dict of its fields."""
    return {name: getattr(raw, name) for name in dir(raw)
            if not name.startswith("_") and name not in ("this", "thisown", "struct_size")}
