"""Python inputs -> ferry's descriptor structs (Source, Transform, Output)."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from . import ferry_swig as _swig
from ._arrays import ArrayView, view
from ._enums import DType, Layout, Mirror, Status
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


def make_source(data: Any, layout: Layout = Layout.NHWC) -> Tuple[Any, List[Any]]:
    """A Source for one array (n, h, w, c) / one image / a list of images.
    Returns the Source and the objects that keep its memory alive."""
    layout = Layout(layout)
    src = _swig.Source()
    src.layout = int(layout)
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            raise error(Status.INVALID_ARGUMENT, "source is an empty list: at least one sample is required")
        views = [view(item, f"source[{i}]") for i, item in enumerate(data)]
        first = views[0]
        for i, v in enumerate(views):
            _check_uint8(v, f"source[{i}]")
            if v.shape != first.shape or v.strides != first.strides:
                raise error(Status.INVALID_ARGUMENT,
                            f"source[{i}] has shape {v.shape} and strides {v.strides}: every sample must "
                            f"match source[0] (shape {first.shape}, strides {first.strides})")
        src.h, src.w, src.c = _sample_dims(first.shape, layout, "source[0]")
        _set_strides(src, first.strides, layout, with_n=False)
        src.sample_bytes = first.extent
        src.set_samples([v.address for v in views])
        return src, [v.keepalive for v in views]
    v = view(data, "source")
    _check_uint8(v, "source")
    if len(v.shape) == 4:
        n = v.shape[0]
        src.h, src.w, src.c = _sample_dims(v.shape[1:], layout, "source")
        _set_strides(src, v.strides, layout, with_n=True)
    else:
        n = 1
        src.h, src.w, src.c = _sample_dims(v.shape, layout, "source")
        _set_strides(src, v.strides, layout, with_n=False)
    src.n = n
    src.data = v.address
    src.bytes = v.extent
    return src, [v.keepalive]


def make_transform(dtype: DType = DType.FLOAT32, layout: Layout = Layout.NCHW, *,
                   channel_map: Optional[Sequence[int]] = None, pad_channels_to_4: bool = False,
                   pad_value: float = 0.0, scale: Optional[float] = None,
                   mean: Optional[Sequence[float]] = None, std: Optional[Sequence[float]] = None,
                   crop: Optional[Sequence[int]] = None, mirror: int = Mirror.NONE,
                   per_sample_mean: Any = None, per_sample_std: Any = None,
                   per_sample_crop: Any = None, per_sample_mirror: Any = None,
                   pad_outside: bool = False, fill_value: float = 0.0) -> Any:
    """A Transform from keyword arguments; None keeps ferry's default."""
    t = _swig.Transform()
    t.out_dtype = int(DType(dtype))
    t.out_layout = int(Layout(layout))
    if channel_map is not None:
        channel_map = [int(k) for k in channel_map]
        t.set_channel_map(channel_map)
        t.out_channels = len(channel_map)
    t.pad_channels_to_4 = int(bool(pad_channels_to_4))
    t.pad_value = float(pad_value)
    if scale is not None:
        t.scale = float(scale)
    if mean is not None:
        t.set_mean([float(m) for m in _as_list(mean)])
    if std is not None:
        t.set_std([float(s) for s in _as_list(std)])
    if crop is not None:
        x, y, w, h = (int(v) for v in crop)
        t.crop.x, t.crop.y, t.crop.w, t.crop.h = x, y, w, h
    t.mirror = int(mirror)
    if per_sample_mean is not None:
        rows = _rows(per_sample_mean)
        t.set_per_sample_mean([float(x) for r in rows for x in r], len(rows))
    if per_sample_std is not None:
        rows = _rows(per_sample_std)
        t.set_per_sample_std([float(x) for r in rows for x in r], len(rows))
    if per_sample_crop is not None:
        t.set_per_sample_crop([int(x) for r in _rows(per_sample_crop) for x in r])
    if per_sample_mirror is not None:
        t.set_per_sample_mirror([int(m) for m in _as_list(per_sample_mirror)])
    t.pad_outside = int(bool(pad_outside))
    t.fill_value = float(fill_value)
    return t


def _as_list(values: Any) -> list:
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _rows(values: Any) -> list:
    return [_as_list(r) for r in _as_list(values)]


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
