"""What users expect of a library module (issue 10, item 6): ``python -m
ferry``, reprs that say what an object is, and ``dir(ferry)`` that shows the
API and nothing else, in sync with the type stub."""
import ast
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import ferry

PUBLIC = set(ferry.__all__) | {"__version__"}


@pytest.fixture
def cli():
    import ferry.__main__
    return ferry.__main__


# ---- dir(ferry), __all__ and the stub -------------------------------------------

def test_dir_shows_the_api_and_nothing_else():
    names = set(dir(ferry))
    assert names == PUBLIC
    for private in ("ferry_swig", "_batch", "_context", "_descriptors", "_enums", "_errors", "_arrays", "_swig",
                    "make_source", "annotations", "Any", "Dict"):
        assert private not in names, private


def test_all_names_exist_and_classes_are_ferrys():
    for name in ferry.__all__:
        obj = getattr(ferry, name)
        if isinstance(obj, type):
            assert obj.__module__ == "ferry", name  # "ferry.InvalidArgumentError" in tracebacks
            assert getattr(ferry, obj.__qualname__) is obj


def _stub_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_") or n == "__version__"}


def _stub():
    path = os.path.join(os.path.dirname(ferry.__file__), "__init__.pyi")
    with open(path) as f:
        return ast.parse(f.read())


def test_stub_declares_exactly_the_public_api():
    assert _stub_names(_stub()) == PUBLIC


def test_stub_transform_keywords_match_the_package():
    from ferry._descriptors import TRANSFORM_KEYWORDS
    init = next(f for c in _stub().body if isinstance(c, ast.ClassDef) and c.name == "Transform"
                for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
    assert tuple(a.arg for a in init.args.kwonlyargs) == TRANSFORM_KEYWORDS


# ---- repr -----------------------------------------------------------------------

def test_context_repr():
    ctx = ferry.Context(ferry.Device.CPU)
    assert repr(ctx) == "<ferry.Context CPU>"  # before: "CPU:-1"
    ctx.close()
    assert repr(ctx) == "<ferry.Context closed>"


def test_batch_repr_says_shape_dtype_layout_device_and_state():
    images = np.zeros((2, 4, 6, 3), np.uint8)
    with ferry.Context(ferry.Device.CPU) as ctx:
        batch = ctx.submit(images, dtype="f16", layout="nhwc")
        batch.wait()
        text = repr(batch)
        assert text == "<ferry.Batch shape=(2, 4, 6, 3) dtype=FLOAT16 layout=NHWC device=CPU done>", text
        batch.close()
        assert repr(batch) == "<ferry.Batch closed>"
        with ctx.submit(images) as batch:
            assert re.fullmatch(r"<ferry\.Batch shape=\(2, 3, 4, 6\) dtype=FLOAT32 layout=NCHW device=CPU "
                                r"(done|in flight)>", repr(batch)), repr(batch)


def test_host_buffer_repr_says_address_and_size():
    with ferry.Context(ferry.Device.CPU) as ctx:
        buffer = ctx.host_alloc(4096)
        assert repr(buffer) == f"<ferry.HostBuffer address=0x{buffer.address:x} nbytes=4096 host>"
        buffer.close()
        assert repr(buffer).endswith("nbytes=4096 freed>")


# ---- python -m ferry ------------------------------------------------------------

def test_python_m_ferry_describes_and_checks():
    run = subprocess.run([sys.executable, "-m", "ferry"], capture_output=True, text=True, timeout=120)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    assert out.startswith(f"ferry {ferry.__version__}")
    assert re.search(r"^backends: .*CPU", out, re.M)
    assert re.search(r"^  cpu ", out, re.M)
    assert "self-check:" in out
    assert re.search(r"^  OK +cpu ", out, re.M)
    assert "FAIL" not in out
    assert out.rstrip().endswith("OK")
    if ferry.device_count() > 0:
        assert re.search(r"^  cuda:0 .*compute capability .*PCIe .*NUMA node", out, re.M)
        assert re.search(r"^  OK +cuda:0 ", out, re.M)


def test_python_m_ferry_help_and_no_check():
    run = subprocess.run([sys.executable, "-m", "ferry", "--no-check"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0 and "self-check" not in run.stdout
    run = subprocess.run([sys.executable, "-m", "ferry", "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "--no-check" in run.stdout


def test_self_check_failure_prints_fail_and_exits_non_zero(cli, monkeypatch, capsys):
    real = cli._reference
    monkeypatch.setattr(cli, "_reference", lambda images, kwargs: real(images, kwargs) + 0.01)
    assert cli.main([]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^  FAIL +cpu ", out, re.M)
    assert out.rstrip().endswith("FAIL")


def test_self_check_error_is_a_fail(cli, monkeypatch, capsys):
    def broken(ctx, images, kwargs):
        raise ferry.InternalError("injected", ferry.Status.INTERNAL)
    monkeypatch.setattr(cli, "_run", broken)
    assert cli.main([]) == 1
    assert "injected" in capsys.readouterr().out


def test_backends_come_from_the_build(cli, monkeypatch):
    assert "CPU" in cli.backends()
    monkeypatch.setattr(ferry, "version_string", lambda: "0.2.0 (CUDA and CPU backends)")
    assert cli.backends() == ["CUDA", "CPU"]
    monkeypatch.setattr(ferry, "version_string", lambda: "0.2.0 (CPU backend only)")
    assert cli.backends() == ["CPU"]


def _properties(**changes):
    p = {"name": "NVIDIA H100 80GB HBM3", "index": 0, "compute_capability_major": 9, "compute_capability_minor": 0,
         "total_memory_bytes": 85045231616, "multiprocessor_count": 132, "async_engine_count": 3,
         "pci_domain_id": 0, "pci_bus_id": 0x1b, "pci_device_id": 0, "numa_node": 0, "pcie_generation": 5,
         "pcie_link_width": 16}
    p.update(changes)
    return p


def test_device_line_has_name_memory_capability_pcie_and_numa(cli, monkeypatch):
    monkeypatch.setattr(ferry, "device_properties", lambda i: _properties())
    line = cli.describe_device(0)
    for part in ("cuda:0", "NVIDIA H100 80GB HBM3", "79.2 GiB", "compute capability 9.0", "PCIe gen 5 x16",
                 "NUMA node 0", "PCI 0000:1b:00.0"):
        assert part in line, (part, line)
    monkeypatch.setattr(ferry, "device_properties",
                        lambda i: _properties(numa_node=-1, pcie_generation=-1, pcie_link_width=-1))
    line = cli.describe_device(0)
    assert "PCIe unknown" in line and "NUMA node unknown" in line


def test_device_properties_carry_the_pcie_and_numa_fields():
    # The struct fields the device line reads, "unknown" (-1) until a GPU fills them.
    raw = ferry.ferry_swig.DeviceProperties()
    for field in ("numa_node", "pcie_generation", "pcie_link_width", "pci_bus_id"):
        assert getattr(raw, field) == -1, field
    if ferry.device_count() == 0:
        with pytest.raises(ferry.NoDeviceError):
            ferry.device_properties(0)
    else:
        p = ferry.device_properties(0)
        assert {"name", "total_memory_bytes", "numa_node", "pcie_generation", "pcie_link_width"} <= set(p)
