"""pytest setup for ferry's Python binding (run by CTest: ctest -L python).
The package is found through PYTHONPATH (CTest sets it to the build tree).
Test modules import the torch markers and nothing_in_flight from here."""
import time

import pytest

import ferry

try:
    import torch
except ImportError:  # the NumPy cases still run
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed for this Python")
needs_gpu = pytest.mark.skipif(torch is None or not torch.cuda.is_available() or ferry.device_count() == 0,
                               reason="no CUDA device (and torch with CUDA): the GPU cases run on the GPU machine")


def nothing_in_flight(ctx, timeout=10.0):
    """Every batch released and complete. ferry's completion thread counts a
    batch complete just after a wait on it returns: allow it that moment."""
    deadline = time.monotonic() + timeout
    while True:
        stats = ctx.stats()
        done = stats["batches_completed"] + stats["batches_failed"]
        if stats["batches_unreleased"] == 0 and stats["batches_submitted"] == done:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


@pytest.fixture
def ctx():
    """A CPU context for the test (a test module may define its own)."""
    with ferry.Context(ferry.Device.CPU, cpu_threads=2) as c:
        yield c


@pytest.fixture(scope="module")
def cv2():
    """OpenCV, the outside reference of the resize and frame tests (Debian's python3-opencv)."""
    return pytest.importorskip("cv2", reason="OpenCV (python3-opencv) is not installed for this Python: "
                               "the comparisons with OpenCV are skipped")


@pytest.fixture(scope="module")
def tv():
    """torchvision's functional transforms (v2's where present)."""
    pytest.importorskip("torch", reason="torch (python3-torch) is not installed for this Python")
    pytest.importorskip("torchvision", reason="torchvision (python3-torchvision) is not installed for this Python: "
                        "the comparisons with torchvision are skipped")
    try:
        import torchvision.transforms.v2.functional as F
    except ImportError:
        import torchvision.transforms.functional as F
    return F
