"""``python -m ferry``: what this ferry is and whether it works here.

Prints the version, the backends built in and every device ferry can use
(name, memory, compute capability, PCIe link, NUMA node), then runs a short
self-check conversion: on the CPU backend against NumPy, on each GPU against
the CPU backend. Prints OK or FAIL per check; exits 1 when one fails.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Dict, List, Tuple

import numpy as np

import ferry

# The checks: (name, transform keywords). Values that exercise the fused
# arithmetic (mean/std), the channel map and both layouts and float dtypes.
_MEAN, _STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
_CHECKS: List[Tuple[str, Dict[str, Any]]] = [
    ("uint8 BGR -> float32 NCHW RGB, normalized",
     dict(dtype="float32", layout="NCHW", channel_map=[2, 1, 0], mean=_MEAN, std=_STD)),
    ("uint8 -> float16 NHWC, scaled", dict(dtype="float16", layout="NHWC")),
]
_TOLERANCE = {ferry.DType.FLOAT32: 1e-5, ferry.DType.FLOAT16: 1e-3}  # relative to |value| + 1


def backends() -> List[str]:
    """The backends this libferry was built with (from ferry_version_string)."""
    text = ferry.version_string()
    return ["CUDA", "CPU"] if "CUDA" in text and "CPU backend only" not in text else ["CPU"]


def _known(value: int, unit: str = "") -> str:
    return "unknown" if value is None or value < 0 else f"{value}{unit}"


def describe_device(index: int) -> str:
    p = ferry.device_properties(index)
    link = "unknown"
    if p["pcie_generation"] >= 0 or p["pcie_link_width"] >= 0:
        link = f"gen {_known(p['pcie_generation'])} x{_known(p['pcie_link_width'])}"
    bus = ""
    if p["pci_bus_id"] >= 0:
        bus = f", PCI {p['pci_domain_id']:04x}:{p['pci_bus_id']:02x}:{p['pci_device_id']:02x}.0"
    return (f"cuda:{index}  {p['name']}, {p['total_memory_bytes'] / 2**30:.1f} GiB, "
            f"compute capability {p['compute_capability_major']}.{p['compute_capability_minor']}, "
            f"{p['multiprocessor_count']} SMs, {p['async_engine_count']} copy engines, "
            f"PCIe {link}, NUMA node {_known(p['numa_node'])}{bus}")


def describe_cpu() -> str:
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB host memory"
    except (ValueError, OSError, AttributeError):
        memory = ""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip() + ", "
                    break
    except OSError:
        pass
    return f"cpu     {model}{threads} threads usable{memory}"


def _images() -> np.ndarray:
    """A deterministic batch with every byte value and odd sizes (tails)."""
    return (np.arange(3 * 19 * 37 * 3, dtype=np.int64) * 7919 % 256).astype(np.uint8).reshape(3, 19, 37, 3)


def _reference(images: np.ndarray, kwargs: Dict[str, Any]) -> np.ndarray:
    """What the transform gives, computed in float64 by NumPy."""
    x = images[..., kwargs.get("channel_map", [0, 1, 2])].astype(np.float64) / 255.0
    x = (x - np.asarray(kwargs.get("mean", 0.0))) / np.asarray(kwargs.get("std", 1.0))
    if ferry.Layout[kwargs["layout"]] == ferry.Layout.NCHW:
        x = x.transpose(0, 3, 1, 2)
    return x


def _np_dtype(dtype: ferry.DType) -> Any:
    return {ferry.DType.FLOAT32: np.float32, ferry.DType.FLOAT16: np.float16}[dtype]


def _run(ctx: ferry.Context, images: np.ndarray, kwargs: Dict[str, Any]) -> np.ndarray:
    """One conversion on `ctx`, into host memory the device can write
    (pinned memory from the context on a GPU), copied out."""
    info = ferry.output_info(images, **kwargs)
    if ctx.device == ferry.Device.CPU:
        out = np.empty(info["shape"], _np_dtype(info["dtype"]))
        with ctx.submit(images, out=out, **kwargs) as batch:
            batch.wait()
        return out
    with ctx.host_alloc(info["nbytes"]) as buffer:
        out = np.asarray(buffer).view(_np_dtype(info["dtype"])).reshape(info["shape"])
        with ctx.submit(images, out=out, **kwargs) as batch:
            batch.wait()
        return out.copy()


def _compare(got: np.ndarray, want: np.ndarray, dtype: ferry.DType) -> Tuple[bool, float]:
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    if got.shape != want.shape:
        return False, float("inf")
    error = float(np.max(np.abs(got - want) / (np.abs(want) + 1.0)))
    return error <= _TOLERANCE[dtype], error


def self_check(devices: int) -> bool:
    """Runs the checks; prints one line each. True when all pass."""
    images = _images()
    ok = True
    with ferry.Context(ferry.Device.CPU) as cpu:
        cpu_results = []
        for name, kwargs in _CHECKS:
            dtype = ferry.DType[kwargs["dtype"].upper()]
            try:
                got = _run(cpu, images, kwargs)
                passed, error = _compare(got, _reference(images, kwargs), dtype)
                detail = f"max relative error {error:.2g} against NumPy"
            except ferry.FerryError as exc:
                got, passed, detail = None, False, str(exc)
            cpu_results.append(got)
            ok &= passed
            print(f"  {'OK  ' if passed else 'FAIL'}  cpu     {name}: {detail}")
    for index in range(devices):
        try:
            ctx = ferry.Context(ferry.Device.CUDA, device_index=index)
        except ferry.FerryError as exc:
            ok = False
            print(f"  FAIL  cuda:{index}  context: {exc}")
            continue
        with ctx:
            for (name, kwargs), want in zip(_CHECKS, cpu_results):
                dtype = ferry.DType[kwargs["dtype"].upper()]
                try:
                    got = _run(ctx, images, kwargs)
                    if want is None:
                        want = _reference(images, kwargs)
                    passed, error = _compare(got, want, dtype)
                    detail = f"max relative error {error:.2g} against the CPU backend"
                except ferry.FerryError as exc:
                    passed, detail = False, str(exc)
                ok &= passed
                print(f"  {'OK  ' if passed else 'FAIL'}  cuda:{index}  {name}: {detail}")
    return ok


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ferry", description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-check", action="store_true", help="only describe; skip the self-check")
    args = parser.parse_args(argv)

    print(f"ferry {ferry.version_string()}")
    print(f"  python package {os.path.dirname(os.path.abspath(ferry.__file__))}")
    built = backends()
    print(f"backends: {', '.join(built)}" + ("" if "CUDA" in built else " (built without CUDA: FERRY_CUDA=OFF)"))
    count = ferry.device_count()
    print("devices:")
    print(f"  {describe_cpu()}")
    for index in range(count):
        try:
            print(f"  {describe_device(index)}")
        except ferry.FerryError as exc:
            print(f"  cuda:{index}  properties unavailable: {exc}")
    if count == 0 and "CUDA" in built:
        print("  no CUDA device usable (no driver or no GPU): ferry runs on the CPU backend")
    if args.no_check:
        return 0
    print("self-check:")
    try:
        ok = self_check(count)
    except Exception as exc:  # any failure of the check is a FAIL, with what went wrong
        print(f"  FAIL  {type(exc).__name__}: {exc}")
        ok = False
    print("OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
