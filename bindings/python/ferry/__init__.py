"""ferry: uint8 batches from host memory to the GPU at the speed of the bus,
converted there (float32/float16/bfloat16, normalized, NCHW/NHWC).

    import ferry, torch
    with ferry.Context() as ctx:
        with ctx.submit(images_uint8_nhwc, mean=[0.485, 0.456, 0.406],
                        std=[0.229, 0.224, 0.225]) as batch:
            x = torch.from_dlpack(batch)   # no copy; GPU or CPU

Errors raise a subclass of :class:`FerryError` (one per ferry status) with
ferry's message. Every call that works or waits releases the GIL.
"""
from __future__ import annotations

from typing import Any, Dict, List

from . import ferry_swig as _swig
from ._enums import (AugmentCrop, ChromaFilter, ColorMatrix, ColorRange, Device, DeviceTiming, DType, Interpolation,
                     Layout, LetterboxAlign, MemoryKind, Mirror, PixelFormat, Placement, ResizeMode, SourcePolicy,
                     Status)
from ._errors import (AlreadyExistsError, BusyError, CudaError, FerryError, InternalError,
                      InvalidArgumentError, InvalidHandleError, NoDeviceError, NotFoundError,
                      NotReadyError, OutOfMemoryError, OutOfRangeError, OutputTooSmallError, OverflowError_,
                      SourceTooSmallError, StructSizeError, UnsupportedError)
from ._augment import PARAMS_DTYPE as AUGMENT_PARAMS_DTYPE, Augment, augment_boxes, augment_draw, raw_for
from ._batch import Batch
from ._context import Context, HostBuffer, Transform, _spec, augment_of
from ._dataset import ResidentDataset
from ._descriptors import output_description, struct_fields
from ._frames import frame_spec, make_frame_source
from ._prefetch import PrefetchLoader
from ._resident import ResidentLoader

#: The header version this package was built against (FERRY_VERSION_NUMBER).
HEADER_VERSION: int = _swig.FERRY_VERSION_NUMBER


def version() -> int:
    """The loaded library's version number (major*10000 + minor*100 + patch)."""
    return _swig.version()


def version_string() -> str:
    """The loaded library's "major.minor.patch" and build details."""
    return _swig.version_string()


def _abi(number: int) -> str:
    """The ABI series of a version number: "1.x" from 1.0 on, "0.2.x" while 0.x
    (a 0.x minor release may break the ABI)."""
    return f"{number // 10000}.x" if number >= 10000 else f"0.{number // 100}.x"


def _check_version() -> None:
    loaded = version()
    if _abi(loaded) != _abi(HEADER_VERSION) or loaded < HEADER_VERSION:
        raise ImportError(f"ferry: the loaded libferry is version {loaded}, this binding needs "
                          f"{_abi(HEADER_VERSION)} at least {HEADER_VERSION}")


_check_version()
__version__ = f"{HEADER_VERSION // 10000}.{HEADER_VERSION // 100 % 100}.{HEADER_VERSION % 100}"


def status_string(status: Status) -> str:
    """The static name of a status ("FERRY_ERR_INVALID_HANDLE")."""
    return _swig.status_string(int(status))


def last_error() -> str:
    """ferry's last error message on this thread ("" when none)."""
    return _swig.last_error()


def device_count() -> int:
    """CUDA devices ferry can use (0 without a driver or GPU)."""
    return _swig.device_count()


def device_properties(device: int = 0) -> Dict[str, Any]:
    """Properties of CUDA device `device` (``ferry_device_properties``)."""
    return struct_fields(_swig.device_properties(int(device)))


def output_info(source: Any = None, transform: Transform = None, *, source_layout: Layout = Layout.NHWC,
                format: Any = None, size: Any = None, planes: Any = None, color_matrix: Any = None,
                color_range: Any = None, chroma_filter: Any = None, augment: Any = None,
                **transform_kwargs: Any) -> Dict[str, Any]:
    """The packed output a source and transform give: shape (memory-layout
    order), strides (bytes), dtype, layout, nbytes. Validates both. Frames:
    the keywords of Context.submit (format, size, planes, color_matrix, ...);
    augment= as for Context.submit."""
    frame = frame_spec(format, size, color_matrix, color_range, chroma_filter, planes)
    src, _keep = make_frame_source(source, source_layout, frame, planes)
    spec = _spec(transform, transform_kwargs)
    aug = augment_of(augment, spec)
    t = spec.build(src)
    info = (_swig.transform_output_info(src, t) if aug is None else
            _swig.transform_output_info_augmented(src, t, raw_for(aug, spec, src)))
    return output_description(info)


__all__ = [
    "Context", "Batch", "Transform", "HostBuffer", "PrefetchLoader", "Augment", "AugmentCrop",
    "ResidentDataset", "ResidentLoader", "Placement",
    "augment_draw", "augment_boxes", "AUGMENT_PARAMS_DTYPE",
    "Device", "DeviceTiming", "DType", "Layout", "Mirror", "SourcePolicy", "MemoryKind", "Status",
    "Interpolation", "ResizeMode", "LetterboxAlign", "PixelFormat", "ColorMatrix", "ColorRange", "ChromaFilter",
    "FerryError", "InvalidArgumentError", "InvalidHandleError", "StructSizeError", "UnsupportedError",
    "OverflowError_", "OutOfRangeError", "OutOfMemoryError", "NoDeviceError", "CudaError",
    "NotFoundError", "AlreadyExistsError", "NotReadyError", "BusyError", "SourceTooSmallError",
    "InternalError", "OutputTooSmallError",
    "version", "version_string", "status_string", "last_error", "device_count",
    "device_properties", "output_info", "HEADER_VERSION",
]


# The public classes say "ferry.X" in reprs and tracebacks, not the private module they live in.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type):
        _obj.__module__ = __name__
del _name, _obj


def __dir__() -> List[str]:
    """The public API only (the private modules and helpers stay reachable, unlisted)."""
    return sorted(__all__ + ["__version__"])
