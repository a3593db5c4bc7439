"""Camera and video frames (ferry_source.format) from Python arrays.

A frame is given as one buffer plus its format (and its size where the
buffer's shape does not tell it), or as separate plane arrays (``planes=``):

=============================  ===============================  =====================
format                         one frame                        a batch of n frames
=============================  ===============================  =====================
NV12, NV21, I420, YV12         (h * 3/2, w) as OpenCV's, or     (n, h * 3/2, w)
                               1-D with size=(h, w)
YUYV, UYVY                     (h, w, 2), (h, 2 * w), or        (n, h, w, 2) or
                               1-D with size=(h, w)             (n, h, 2 * w)
BAYER_RGGB/BGGR/GRBG/GBRG      (h, w), or 1-D with size=(h, w)  (n, h, w)
=============================  ===============================  =====================

The rows may be padded (a row stride above the row: plane 0's pitch, the
chroma pitch following it as include/ferry/transform.h says); the bytes of a
row must be contiguous. Odd sizes (and any padded layout the shape cannot
tell) take size=(h, w). ``planes=(y, uv)`` / ``(y, u, v)`` / ``(packed,)``:
one array per plane of the format, anywhere in memory (all host or all on the
device); each plane's row stride is its pitch, and the binding passes the
lowest plane address as the frame's start with each plane's offset from it.
A list of frames (one buffer each) is a batch too; frames of different sizes
then need a resize to one output size.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import ferry_swig as _swig
from ._arrays import ArrayView, view
from ._descriptors import _check_uint8, make_source
from ._enums import (ChromaFilter, ColorMatrix, ColorRange, Layout, PixelFormat, Status, parse_chroma_filter,
                     parse_color_matrix, parse_color_range, parse_layout, parse_pixel_format)
from ._errors import error

_F = PixelFormat
_YUV420 = (_F.NV12, _F.NV21, _F.I420, _F.YV12)
_PACKED = (_F.YUYV, _F.UYVY)
_PLANE_NAMES = {_F.NV12: ("Y", "UV"), _F.NV21: ("Y", "VU"), _F.I420: ("Y", "U", "V"), _F.YV12: ("Y", "V", "U"),
                _F.YUYV: ("packed YUYV",), _F.UYVY: ("packed UYVY",)}
_SHAPES = {"420": "(h * 3/2, w) (OpenCV's), or 1-D with size=(h, w); a batch (n, h * 3/2, w)",
           "packed": "(h, w, 2) or (h, 2 * w), or 1-D with size=(h, w); a batch (n, h, w, 2) or (n, h, 2 * w)",
           "bayer": "(h, w), or 1-D with size=(h, w); a batch (n, h, w)"}


def _invalid(message: str) -> Exception:
    return error(Status.INVALID_ARGUMENT, message)


def _kind(fmt: PixelFormat) -> str:
    return "420" if fmt in _YUV420 else "packed" if fmt in _PACKED else "bayer"


def _plane_names(fmt: PixelFormat) -> Tuple[str, ...]:
    return _PLANE_NAMES.get(fmt, ("Bayer",))


def _row_bytes(fmt: PixelFormat, w: int) -> Tuple[int, ...]:
    """The bytes of one row of each plane of a w pixels wide frame (pixel_format.h)."""
    cw = (w + 1) // 2
    if fmt in (_F.NV12, _F.NV21):
        return w, 2 * cw
    if fmt in (_F.I420, _F.YV12):
        return w, cw, cw
    return (4 * cw,) if fmt in _PACKED else (w,)


def _size(value: Any) -> Optional[Tuple[int, int]]:
    """size=: (h, w) in pixels, or one int for h = w."""
    if value is None:
        return None
    what = "the frame's size in pixels: (h, w), or one int for h = w (both positive)"
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = (value, value)
    try:
        h, w = value
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v > 0 for v in (h, w))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise _invalid(f"size is {value!r}: {what}")
    return int(h), int(w)


@dataclass
class FrameSpec:
    """The frame keywords, checked as written."""
    format: PixelFormat
    size: Optional[Tuple[int, int]]
    color_matrix: Optional[ColorMatrix]
    color_range: Optional[ColorRange]
    chroma_filter: Optional[ChromaFilter]

    def apply(self, src: Any) -> None:
        """The format and colour fields of a SWIG Source."""
        src.format = int(self.format)
        if self.color_matrix is not None:
            src.color_matrix = int(self.color_matrix)
        if self.color_range is not None:
            src.color_range = int(self.color_range)
        if self.chroma_filter is not None:
            src.chroma_filter = int(self.chroma_filter)


def frame_spec(format: Any = None, size: Any = None, color_matrix: Any = None, color_range: Any = None,
               chroma_filter: Any = None, planes: Any = None) -> Optional[FrameSpec]:
    """The FrameSpec of the keywords; None where they describe no frame (no
    format, or format CHANNELS, and nothing else)."""
    fmt = None if format is None else parse_pixel_format(format)
    spec = FrameSpec(fmt if fmt is not None else PixelFormat.CHANNELS, _size(size),
                     None if color_matrix is None else parse_color_matrix(color_matrix),
                     None if color_range is None else parse_color_range(color_range),
                     None if chroma_filter is None else parse_chroma_filter(chroma_filter))
    if spec.format == PixelFormat.CHANNELS:
        given = [name for name, value in (("size", size), ("color_matrix", color_matrix),
                                          ("color_range", color_range), ("chroma_filter", chroma_filter),
                                          ("planes", planes)) if value is not None]
        if given:
            raise _invalid(f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} given without a frame format: "
                           "set format= (ferry.PixelFormat.NV12, 'nv12', 'yuyv', 'bayer_rggb', ...)")
        return None
    return spec


def _row_pitch(shape: Sequence[int], strides: Sequence[int], name: str) -> int:
    """The pitch of a 1- to 3-D frame (its plane 0) or plane: the row stride
    (0 for a flat or one-row array: the default); the bytes of a row contiguous."""
    inner = list(zip(shape, strides))[1:] if len(shape) > 1 else list(zip(shape, strides))
    step = 1
    for n, s in reversed(inner):
        if n > 1 and s != step:
            raise error(Status.UNSUPPORTED,
                        f"{name} has shape {tuple(shape)} and strides {tuple(strides)}: a frame's row must be "
                        "contiguous bytes (only the rows may be apart); pass numpy.ascontiguousarray(...)")
        step *= n
    return int(strides[0]) if len(shape) > 1 and shape[0] > 1 else 0


def _frame_size(fmt: PixelFormat, shape: Sequence[int], name: str, planar_y: bool = False) -> Tuple[int, int]:
    """(h, w) of one frame from its shape (planar_y: plane 0 of planes=, a Y
    plane (h, w) for 4:2:0), else InvalidArgumentError asking for size=."""
    kind = _kind(fmt)
    need = f"give size=(h, w); {fmt.name} frames are {_SHAPES[kind]}"
    if len(shape) == 1:
        raise _invalid(f"{name} has shape {tuple(shape)}: a flat {fmt.name} frame does not tell its size: {need}")
    rows, cols = shape[0], shape[1]
    if kind == "packed":
        if len(shape) == 3:
            return rows, cols
        if cols % 2:
            raise _invalid(f"{name} has shape {tuple(shape)}: a {fmt.name} row of {cols} bytes is no whole number "
                           f"of pixels: {need}")
        return rows, cols // 2
    if kind == "420" and not planar_y:
        if rows % 3:
            raise _invalid(f"{name} has shape {tuple(shape)}: {rows} rows are not h * 3/2 for an even h (odd sizes "
                           f"and other layouts): {need}")
        return rows * 2 // 3, cols
    return rows, cols


def _frame_dims(fmt: PixelFormat, ndim: int, shape: Sequence[int], name: str) -> int:
    """How many trailing dimensions one frame has; the one before, if any, is n."""
    packed = fmt in _PACKED
    if ndim == 1 or ndim == 2 or (packed and ndim == 3 and shape[-1] == 2):
        return ndim
    if ndim == 3 or (packed and ndim == 4 and shape[-1] == 2):
        return ndim - 1
    raise _invalid(f"{name} has shape {tuple(shape)}: {fmt.name} frames are {_SHAPES[_kind(fmt)]}")


def _one_buffer(src: Any, v: ArrayView, spec: FrameSpec, name: str) -> None:
    """A frame, or a batch of frames along a leading dimension, in one array."""
    frame_dims = _frame_dims(spec.format, len(v.shape), v.shape, name)
    with_n = frame_dims < len(v.shape)
    shape, strides = v.shape[-frame_dims:], v.strides[-frame_dims:]
    src.h, src.w = spec.size if spec.size is not None else _frame_size(spec.format, shape, name)
    src.n = v.shape[0] if with_n else 1
    src.stride_n = v.strides[0] if with_n else 0
    pitch = _row_pitch(shape, strides, name)
    if pitch:
        src.set_plane_pitches([pitch])
    src.data = v.address
    src.bytes = v.extent


def _frame_list(src: Any, views: List[ArrayView], spec: FrameSpec) -> None:
    """A list of frames, one array each: one size (ferry_source.samples), or
    each its own (ferry_source.sample_descs; a resize gives one output size)."""
    flat: List[int] = []
    for i, v in enumerate(views):
        name = f"source[{i}]"
        if _frame_dims(spec.format, len(v.shape), v.shape, name) != len(v.shape):
            raise _invalid(f"{name} has shape {v.shape}: a list holds one frame per item "
                           f"({spec.format.name}: {_SHAPES[_kind(spec.format)]})")
        h, w = spec.size if spec.size is not None else _frame_size(spec.format, v.shape, name)
        flat += [v.address, v.extent, h, w, 0, _row_pitch(v.shape, v.strides, name), 0]
    first = flat[:7]
    if all(flat[7 * i + 2:7 * i + 7] == first[2:] for i in range(len(views))):
        src.h, src.w = first[2], first[3]
        if first[5]:
            src.set_plane_pitches([first[5]])
        src.sample_bytes = min(v.extent for v in views)
        src.set_samples([v.address for v in views])
    else:
        src.set_sample_descs(flat)


def _planes(src: Any, planes: Any, spec: FrameSpec) -> List[Any]:
    """One frame from one array per plane: data at the lowest plane, each
    plane's offset from there and its pitch. Returns the keepalives."""
    fmt, names = spec.format, _plane_names(spec.format)
    count = len(names)
    want = f"{fmt.name} has {count} plane{'s' if count > 1 else ''} ({', '.join(names)})"
    if not isinstance(planes, (list, tuple)):
        raise _invalid(f"planes is a {type(planes).__name__}: a tuple of arrays, one per plane: {want}")
    if len(planes) != count:
        raise _invalid(f"planes has {len(planes)} array{'s' if len(planes) != 1 else ''}: {want}")
    views = [view(p, f"planes[{k}]") for k, p in enumerate(planes)]
    for k, v in enumerate(views):
        _check_uint8(v, f"planes[{k}]")
        if v.extent == 0:
            raise _invalid(f"planes[{k}] ({names[k]}) is empty")
        if v.on_device != views[0].on_device:
            raise _invalid(f"planes[{k}] is in {'device' if v.on_device else 'host'} memory and planes[0] in "
                           f"{'device' if views[0].on_device else 'host'} memory: one frame's planes lie in one")
    addresses = [v.address for v in views]
    if len(set(addresses)) < count:
        raise _invalid(f"planes start at {[hex(a) for a in addresses]}: two planes at one address")
    if spec.size is not None:
        src.h, src.w = spec.size
    else:
        shape = views[0].shape
        one_frame = len(shape) <= 2 or (fmt in _PACKED and len(shape) == 3 and shape[2] == 2)
        if not one_frame:
            raise _invalid(f"planes[0] has shape {shape}: one frame's {names[0]} plane is "
                           f"{'(h, w, 2) or (h, 2 * w)' if fmt in _PACKED else '(h, w)'}, or 1-D with size=(h, w)")
        src.h, src.w = _frame_size(fmt, shape, "planes[0]", planar_y=True)
    base = min(addresses)
    src.data = base
    src.bytes = max(a + v.extent for a, v in zip(addresses, views)) - base
    src.n = 1
    src.set_plane_offsets([a - base for a in addresses])
    # A flat (or one-row) plane is packed: its own row, not the default that follows plane 0's pitch.
    rows = _row_bytes(fmt, int(src.w))
    src.set_plane_pitches([_row_pitch(v.shape, v.strides, f"planes[{k}]") or rows[k] for k, v in enumerate(views)])
    return [v.keepalive for v in views]


def make_frame_source(data: Any, layout: Layout, spec: Optional[FrameSpec], planes: Any = None
                      ) -> Tuple[Any, List[Any]]:
    """make_source, with frames: a Source for `data` (or `planes`) in the
    format of `spec` (None: channels, make_source's). Returns the Source and
    the objects that keep its memory alive."""
    if planes is not None and data is not None:
        raise _invalid("source and planes are both given: a frame is one buffer (source) or its planes (planes=)")
    if spec is None:
        if data is None:
            raise _invalid("source is None: an array, a list of arrays, or planes= with format= is required")
        return make_source(data, layout)
    src = _swig.Source()
    src.layout = int(parse_layout(layout, "source_layout"))
    src.c = 3
    spec.apply(src)
    if planes is not None:
        return src, _planes(src, planes, spec)
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            raise _invalid("source is an empty list: at least one frame is required")
        views = [view(item, f"source[{i}]") for i, item in enumerate(data)]
        for i, v in enumerate(views):
            _check_uint8(v, f"source[{i}]")
        _frame_list(src, views, spec)
        return src, [v.keepalive for v in views]
    v = view(data, "source")
    _check_uint8(v, "source")
    _one_buffer(src, v, spec, "source")
    return src, [v.keepalive]
