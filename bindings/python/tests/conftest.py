"""pytest setup for ferry's Python binding (run by CTest: ctest -L python).
The package is found through PYTHONPATH (CTest sets it to the build tree)."""
import pytest

import ferry


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
