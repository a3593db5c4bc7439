"""ferry's exceptions: one class per status, each carrying ferry's message.

Every error ferry reports (a C status other than FERRY_OK) is raised as the
class for its status; they all derive from :class:`FerryError`, and the ones
about bad input also from the matching built-in (ValueError, MemoryError...),
so ``except ValueError`` works as Python users expect.
"""
from __future__ import annotations

from . import ferry_swig as _swig
from ._enums import Status


class FerryError(Exception):
    """Base class of every ferry error. ``status`` is the :class:`Status`,
    ``message`` ferry's text (it names the argument and the value)."""

    def __init__(self, message: str, status: int = Status.INTERNAL) -> None:
        super().__init__(message)
        self.message = message
        self.status = Status(status)

    def __str__(self) -> str:
        return f"{self.status.name}: {self.message}"


class InvalidArgumentError(FerryError, ValueError):
    """A None/NULL, a zero or negative size, a bad value, a wrong dtype."""


class InvalidHandleError(FerryError, ValueError):
    """A closed, released or foreign Context or Batch."""


class StructSizeError(FerryError, ValueError):
    """A descriptor from a different version of the header."""


class UnsupportedError(FerryError, ValueError):
    """An unknown enum value, an unsupported combination or array layout."""


class OverflowError_(FerryError, OverflowError):
    """A size computation overflows."""


class OutOfRangeError(FerryError, IndexError):
    """An index past a count, a window outside an image."""


class OutOfMemoryError(FerryError, MemoryError):
    """Device, pinned or host memory exhausted or at its cap."""


class NoDeviceError(FerryError, RuntimeError):
    """A CUDA device was asked for: no driver or no such GPU."""


class CudaError(FerryError, RuntimeError):
    """A CUDA call failed; the message names it."""


class NotFoundError(FerryError, LookupError):
    """A pointer ferry did not allocate or register, or one freed twice."""


class AlreadyExistsError(FerryError, ValueError):
    """A registration that overlaps an existing one."""


class NotReadyError(FerryError):
    """The work is still in flight (Batch.done() returns False instead)."""


class BusyError(FerryError):
    """A non-blocking submit found the in-flight limit reached."""


class SourceTooSmallError(FerryError, ValueError):
    """A source buffer smaller than its shape and strides reach."""


class OutputTooSmallError(FerryError, ValueError):
    """An output buffer smaller than its shape and strides reach."""


class InternalError(FerryError, RuntimeError):
    """A bug in ferry; please report the message."""


ERROR_CLASSES: dict[int, type[FerryError]] = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.INVALID_HANDLE: InvalidHandleError,
    Status.STRUCT_SIZE: StructSizeError,
    Status.UNSUPPORTED: UnsupportedError,
    Status.OVERFLOW: OverflowError_,
    Status.OUT_OF_RANGE: OutOfRangeError,
    Status.OUT_OF_MEMORY: OutOfMemoryError,
    Status.NO_DEVICE: NoDeviceError,
    Status.CUDA: CudaError,
    Status.NOT_FOUND: NotFoundError,
    Status.ALREADY_EXISTS: AlreadyExistsError,
    Status.NOT_READY: NotReadyError,
    Status.BUSY: BusyError,
    Status.SOURCE_TOO_SMALL: SourceTooSmallError,
    Status.INTERNAL: InternalError,
    Status.OUTPUT_TOO_SMALL: OutputTooSmallError,
}

_swig.set_error_classes({int(k): v for k, v in ERROR_CLASSES.items()})


def error(status: Status, message: str) -> FerryError:
    """The exception for a status, for errors the binding finds itself."""
    return ERROR_CLASSES.get(status, InternalError)(message, status)
