"""ferry's C enums as Python enums (values are the C values)."""
from __future__ import annotations

import enum

from . import ferry_swig as _swig


class Status(enum.IntEnum):
    """ferry_status."""
    OK = _swig.FERRY_OK
    INVALID_ARGUMENT = _swig.FERRY_ERR_INVALID_ARGUMENT
    INVALID_HANDLE = _swig.FERRY_ERR_INVALID_HANDLE
    STRUCT_SIZE = _swig.FERRY_ERR_STRUCT_SIZE
    UNSUPPORTED = _swig.FERRY_ERR_UNSUPPORTED
    OVERFLOW = _swig.FERRY_ERR_OVERFLOW
    OUT_OF_RANGE = _swig.FERRY_ERR_OUT_OF_RANGE
    OUT_OF_MEMORY = _swig.FERRY_ERR_OUT_OF_MEMORY
    NO_DEVICE = _swig.FERRY_ERR_NO_DEVICE
    CUDA = _swig.FERRY_ERR_CUDA
    NOT_FOUND = _swig.FERRY_ERR_NOT_FOUND
    ALREADY_EXISTS = _swig.FERRY_ERR_ALREADY_EXISTS
    NOT_READY = _swig.FERRY_ERR_NOT_READY
    BUSY = _swig.FERRY_ERR_BUSY
    SOURCE_TOO_SMALL = _swig.FERRY_ERR_SOURCE_TOO_SMALL
    INTERNAL = _swig.FERRY_ERR_INTERNAL
    OUTPUT_TOO_SMALL = _swig.FERRY_ERR_OUTPUT_TOO_SMALL


class Device(enum.IntEnum):
    """ferry_device_kind: AUTO is the first working GPU, else the CPU."""
    AUTO = _swig.FERRY_DEVICE_AUTO
    CPU = _swig.FERRY_DEVICE_CPU
    CUDA = _swig.FERRY_DEVICE_CUDA


class DType(enum.IntEnum):
    """ferry_dtype of an output."""
    UINT8 = _swig.FERRY_DTYPE_UINT8
    FLOAT32 = _swig.FERRY_DTYPE_FLOAT32
    FLOAT16 = _swig.FERRY_DTYPE_FLOAT16
    BFLOAT16 = _swig.FERRY_DTYPE_BFLOAT16


class Layout(enum.IntEnum):
    """ferry_layout: NHWC interleaved, NCHW planar."""
    NHWC = _swig.FERRY_LAYOUT_NHWC
    NCHW = _swig.FERRY_LAYOUT_NCHW


class Mirror(enum.IntFlag):
    """ferry_mirror bits."""
    NONE = _swig.FERRY_MIRROR_NONE
    X = _swig.FERRY_MIRROR_X
    Y = _swig.FERRY_MIRROR_Y


class Interpolation(enum.IntEnum):
    """ferry_interpolation: how a resized output pixel reads its window."""
    NEAREST = _swig.FERRY_INTERP_NEAREST  # half-pixel centers: cv2.INTER_NEAREST_EXACT
    LINEAR = _swig.FERRY_INTERP_LINEAR  # cv2.INTER_LINEAR, torchvision BILINEAR (antialias=False)
    CUBIC = _swig.FERRY_INTERP_CUBIC  # a = -0.75: cv2.INTER_CUBIC
    AREA = _swig.FERRY_INTERP_AREA  # cv2.INTER_AREA
    LINEAR_ANTIALIAS = _swig.FERRY_INTERP_LINEAR_ANTIALIAS  # PIL, torchvision BILINEAR antialias=True


class ResizeMode(enum.IntEnum):
    """ferry_resize_mode: how the window is fitted to the resize size."""
    STRETCH = _swig.FERRY_RESIZE_STRETCH  # fills the output; the aspect ratio may change
    LETTERBOX = _swig.FERRY_RESIZE_LETTERBOX  # aspect kept, the longer side fits; bars of letterbox_value
    SHORTER_SIDE = _swig.FERRY_RESIZE_SHORTER_SIDE  # torchvision Resize(resize_shorter) + CenterCrop(resize)


class LetterboxAlign(enum.IntEnum):
    """ferry_letterbox_align: where a resized image smaller than the output lies."""
    CENTER = _swig.FERRY_ALIGN_CENTER  # the bars split evenly, the extra pixel right and bottom
    TOP_LEFT = _swig.FERRY_ALIGN_TOP_LEFT  # at the origin, the bars right and bottom


class PixelFormat(enum.IntEnum):
    """ferry_pixel_format: how a source's bytes encode its pixels. CHANNELS: c
    channels (the default); the others are camera and video frames, decoded to
    R, G, B in the conversion itself (include/ferry/pixel_format.h)."""
    CHANNELS = _swig.FERRY_FORMAT_CHANNELS
    NV12 = _swig.FERRY_FORMAT_NV12  # Y plane, then U,V pairs (4:2:0)
    NV21 = _swig.FERRY_FORMAT_NV21  # Y plane, then V,U pairs (Android camera)
    I420 = _swig.FERRY_FORMAT_I420  # Y, U, V planes (4:2:0; yuv420p)
    YV12 = _swig.FERRY_FORMAT_YV12  # Y, V, U planes
    YUYV = _swig.FERRY_FORMAT_YUYV  # 4:2:2 packed Y0 U Y1 V (YUY2)
    UYVY = _swig.FERRY_FORMAT_UYVY  # 4:2:2 packed U Y0 V Y1
    BAYER_RGGB = _swig.FERRY_FORMAT_BAYER_RGGB  # raw sensor; the 2x2 tile's top row R G, bottom G B
    BAYER_BGGR = _swig.FERRY_FORMAT_BAYER_BGGR  # top B G, bottom G R
    BAYER_GRBG = _swig.FERRY_FORMAT_BAYER_GRBG  # top G R, bottom B G
    BAYER_GBRG = _swig.FERRY_FORMAT_BAYER_GBRG  # top G B, bottom R G


class ColorMatrix(enum.IntEnum):
    """ferry_color_matrix: a YUV frame's matrix."""
    BT601 = _swig.FERRY_COLOR_BT601  # SD video, JPEG, webcams, cv2.cvtColor
    BT709 = _swig.FERRY_COLOR_BT709  # HD video
    BT2020 = _swig.FERRY_COLOR_BT2020  # UHD video (non-constant luminance)


class ColorRange(enum.IntEnum):
    """ferry_color_range: a YUV frame's range."""
    LIMITED = _swig.FERRY_RANGE_LIMITED  # Y 16..235, U and V 16..240 (video, "tv")
    FULL = _swig.FERRY_RANGE_FULL  # 0..255 (JPEG, "pc")


class ChromaFilter(enum.IntEnum):
    """ferry_chroma_filter: how a 4:2:0 or 4:2:2 frame's chroma reaches every pixel."""
    NEAREST = _swig.FERRY_CHROMA_NEAREST  # the sample of the pixel's block, as cv2.cvtColor
    LINEAR = _swig.FERRY_CHROMA_LINEAR  # MPEG-2 / H.264 siting, interpolated


class SourcePolicy(enum.IntEnum):
    """ferry_source_policy: how a host source reaches the device."""
    AUTO = _swig.FERRY_SOURCE_AUTO
    STAGE = _swig.FERRY_SOURCE_STAGE
    REGISTER = _swig.FERRY_SOURCE_REGISTER


class DeviceTiming(enum.IntEnum):
    """ferry_device_timing: which batches are timed on the GPU for stats()'s h2d_ns
    and convert_ns (Context(device_timing=)); timing events cost a frame's latency."""
    AUTO = _swig.FERRY_DEVICE_TIMING_AUTO  # batches of more than one sample
    ON = _swig.FERRY_DEVICE_TIMING_ON
    OFF = _swig.FERRY_DEVICE_TIMING_OFF


class AugmentCrop(enum.IntEnum):
    """ferry_augment_crop: where each sample's window comes from (ferry.Augment(crop=))."""
    NONE = _swig.FERRY_AUGMENT_CROP_NONE  # the transform's own window and resize
    RANDOM_RESIZED = _swig.FERRY_AUGMENT_CROP_RANDOM_RESIZED  # torchvision RandomResizedCrop(resize, scale, ratio)
    RANDOM = _swig.FERRY_AUGMENT_CROP_RANDOM  # torchvision RandomCrop(resize, padding)
    CENTER = _swig.FERRY_AUGMENT_CROP_CENTER  # torchvision CenterCrop(resize)


class Placement(enum.IntEnum):
    """ferry_dataset_placement: which samples a ResidentDataset holds in a job of several ranks."""
    REPLICA = _swig.FERRY_DATASET_REPLICA  # every sample; each rank's epoch is its share of one permutation
    SHARD = _swig.FERRY_DATASET_SHARD  # this rank's samples only (DistributedSampler's split and padding)


class MemoryKind(enum.IntFlag):
    """ferry_memory_kind bits for Context.trim."""
    PINNED = _swig.FERRY_MEMORY_PINNED
    REGISTERED = _swig.FERRY_MEMORY_REGISTERED
    DEVICE = _swig.FERRY_MEMORY_DEVICE
    ALL = _swig.FERRY_MEMORY_ALL


# ---- what users write for an enum argument --------------------------------
# Parsers return the enum member or raise ferry's InvalidArgumentError naming
# the argument, the value and everything accepted. (They raise through
# _errors, imported late: _errors imports this module.)

_DTYPE_NAMES = {
    "float32": DType.FLOAT32, "f32": DType.FLOAT32,
    "float16": DType.FLOAT16, "f16": DType.FLOAT16,
    "bfloat16": DType.BFLOAT16, "bf16": DType.BFLOAT16,
    "uint8": DType.UINT8, "u8": DType.UINT8,
}
_DTYPE_ACCEPTED = ("ferry.DType.FLOAT32/FLOAT16/BFLOAT16/UINT8, the strings "
                   "'float32' 'float16' 'bfloat16' 'uint8' ('f32' 'f16' 'bf16' 'u8'), "
                   "numpy.float32/float16/uint8 (or numpy.dtype of them), "
                   "torch.float32/float16/bfloat16/uint8")


def _invalid(message: str) -> Exception:
    from ._errors import error
    return error(Status.INVALID_ARGUMENT, message)


def _enum_int(enum_type: type, value: object) -> object:
    """A plain int that is one of the enum's values (bool excluded), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return enum_type(value)
        except ValueError:
            return None
    return None


def parse_dtype(value: object, name: str = "dtype") -> DType:
    """ferry.DType, a NumPy dtype or scalar type, a PyTorch dtype (torch is
    never imported for this), or a name: "float32" "float16" "bfloat16"
    "uint8", "f32" "f16" "bf16" "u8" (any case)."""
    if isinstance(value, DType):
        return value
    found = _enum_int(DType, value)
    if found is not None:
        return found
    if isinstance(value, str):
        found = _DTYPE_NAMES.get(value.strip().lower())
        if found is not None:
            return found
    elif type(value).__module__ == "torch" and type(value).__name__ == "dtype":
        found = _DTYPE_NAMES.get(str(value)[len("torch."):])  # "torch.float16"
        if found is not None:
            return found
    else:
        import numpy as np
        try:
            if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
                np_dtype = np.dtype(value)
                if np_dtype.byteorder in "=|<" and np_dtype.name in _DTYPE_NAMES:
                    return _DTYPE_NAMES[np_dtype.name]
        except TypeError:
            pass
    raise _invalid(f"{name} is {value!r}: not an output dtype ferry writes; accepted: {_DTYPE_ACCEPTED}")


def parse_layout(value: object, name: str = "layout") -> Layout:
    """ferry.Layout or "NCHW" / "NHWC" (any case)."""
    if isinstance(value, Layout):
        return value
    found = _enum_int(Layout, value)
    if found is None and isinstance(value, str):
        found = Layout.__members__.get(value.strip().upper())
    if found is None:
        raise _invalid(f"{name} is {value!r}: accepted: ferry.Layout.NCHW or NHWC, or the strings 'NCHW' 'NHWC'")
    return found


def parse_mirror(value: object, name: str = "mirror") -> Mirror:
    """ferry.Mirror bits (NONE, X, Y, X | Y), or their int values 0..3."""
    if isinstance(value, Mirror):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return Mirror(value)
    raise _invalid(f"{name} is {value!r}: accepted: ferry.Mirror.NONE, X, Y or X | Y (the ints 0..3)")


def _parse_named(enum_type: type, value: object, name: str, aliases: dict) -> object:
    """An enum member from itself, its int value or its name (any case; the
    aliases too), else InvalidArgumentError listing what is accepted."""
    if isinstance(value, enum_type):
        return value
    found = _enum_int(enum_type, value)
    if found is None and isinstance(value, str):
        key = value.strip().lower()
        found = aliases.get(key)
        if found is None:
            found = enum_type.__members__.get(key.upper())
    if found is None:
        names = " ".join(repr(m.lower()) for m in enum_type.__members__)
        raise _invalid(f"{name} is {value!r}: accepted: ferry.{enum_type.__name__}."
                       f"{'/'.join(enum_type.__members__)}, or the strings {names}")
    return found


def parse_interpolation(value: object, name: str = "interpolation") -> Interpolation:
    """ferry.Interpolation or "nearest" "linear" "cubic" "area" "linear_antialias"
    (any case; "bilinear" and "bicubic" too)."""
    return _parse_named(Interpolation, value, name,
                        {"bilinear": Interpolation.LINEAR, "bicubic": Interpolation.CUBIC})


def parse_resize_mode(value: object, name: str = "resize_mode") -> ResizeMode:
    """ferry.ResizeMode or "stretch" "letterbox" "shorter_side" (any case)."""
    return _parse_named(ResizeMode, value, name, {})


def parse_letterbox_align(value: object, name: str = "letterbox_align") -> LetterboxAlign:
    """ferry.LetterboxAlign or "center" "top_left" (any case)."""
    return _parse_named(LetterboxAlign, value, name, {})


_FORMAT_ALIASES = {"yuy2": PixelFormat.YUYV, "yuyv422": PixelFormat.YUYV, "uyvy422": PixelFormat.UYVY,
                   "yuv420p": PixelFormat.I420, "iyuv": PixelFormat.I420,
                   "rggb": PixelFormat.BAYER_RGGB, "bggr": PixelFormat.BAYER_BGGR,
                   "grbg": PixelFormat.BAYER_GRBG, "gbrg": PixelFormat.BAYER_GBRG}


def parse_pixel_format(value: object, name: str = "format") -> PixelFormat:
    """ferry.PixelFormat or its name: "channels" "nv12" "nv21" "i420" "yv12"
    "yuyv" "uyvy" "bayer_rggb" "bayer_bggr" "bayer_grbg" "bayer_gbrg" (any
    case; FFmpeg's "yuv420p" "yuyv422" "uyvy422", "yuy2", "iyuv", and "rggb" ...
    for the Bayer patterns too)."""
    return _parse_named(PixelFormat, value, name, _FORMAT_ALIASES)


def parse_color_matrix(value: object, name: str = "color_matrix") -> ColorMatrix:
    """ferry.ColorMatrix or "bt601" "bt709" "bt2020" (any case; "bt.709" too)."""
    return _parse_named(ColorMatrix, value, name, {"bt.601": ColorMatrix.BT601, "bt.709": ColorMatrix.BT709,
                                                   "bt.2020": ColorMatrix.BT2020})


def parse_color_range(value: object, name: str = "color_range") -> ColorRange:
    """ferry.ColorRange or "limited" "full" (any case; FFmpeg's "tv" / "mpeg"
    and "pc" / "jpeg" too)."""
    return _parse_named(ColorRange, value, name, {"tv": ColorRange.LIMITED, "mpeg": ColorRange.LIMITED,
                                                  "pc": ColorRange.FULL, "jpeg": ColorRange.FULL})


def parse_chroma_filter(value: object, name: str = "chroma_filter") -> ChromaFilter:
    """ferry.ChromaFilter or "nearest" "linear" (any case; "bilinear" too)."""
    return _parse_named(ChromaFilter, value, name, {"bilinear": ChromaFilter.LINEAR})


def parse_augment_crop(value: object, name: str = "crop") -> AugmentCrop:
    """ferry.AugmentCrop, None (NONE) or "random_resized" "random" "center" "none"
    (any case; "random_resized_crop", "random_crop", "center_crop" too)."""
    if value is None:
        return AugmentCrop.NONE
    return _parse_named(AugmentCrop, value, name, {"random_resized_crop": AugmentCrop.RANDOM_RESIZED,
                                                   "random_crop": AugmentCrop.RANDOM,
                                                   "center_crop": AugmentCrop.CENTER})


def parse_placement(value: object, name: str = "placement") -> Placement:
    """ferry.Placement or "replica" "shard" (any case)."""
    return _parse_named(Placement, value, name, {})
