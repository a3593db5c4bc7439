#!/usr/bin/env python3
"""The Python module's per-call cost (issue 11 item 2): one 224x224x3 uint8
image submitted, taken with from_dlpack and closed, on whatever device the
context gets (the CPU backend without a GPU). Prints the median per call and,
beside it, the same submit + wait + describe + release through the C ABI
measured by the C helper ferry_bench_one_image (built by CMake next to this
folder's build), on the same device in the same run, twice: reading the
output's description, and holding the output through a tensor reference as a
DLPack export does (the like-for-like row: torch.from_dlpack's capsule holds
one). The difference is what the binding costs.

  python3 bench/python/hot_path_bench.py [--calls 2000] [--repeats 7] [--device cpu|cuda|auto]
                                         [--helper build/bench/python/ferry_bench_one_image]
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import ferry

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
HERE = os.path.dirname(os.path.abspath(__file__))


def find_helper(explicit):
    """The C helper: --helper, else the newest build*/bench/python/ferry_bench_one_image."""
    if explicit:
        return explicit
    root = os.path.dirname(os.path.dirname(HERE))
    found = glob.glob(os.path.join(root, "build*", "bench", "python", "ferry_bench_one_image"))
    return max(found, key=os.path.getmtime) if found else None


def c_abi_us(helper, device, calls, repeats):
    """The helper's median microseconds per call, each (wall clock, calling
    thread's CPU): {"describe": submit + wait + describe + release,
    "tensor": the same with the output held by a tensor reference, as a
    DLPack export holds it (what torch.from_dlpack costs ferry in C)}."""
    out = subprocess.run([helper, device, str(calls), str(repeats)], check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    figures = dict(line.split() for line in out.splitlines() if line.endswith(tuple("0123456789")))
    names = ("us_per_call", "cpu_us_per_call", "tensor_us_per_call", "tensor_cpu_us_per_call")
    if any(name not in figures for name in names):
        raise RuntimeError(f"{helper} did not print every line of {names}:\n{out}")
    return {"describe": (float(figures["us_per_call"]), float(figures["cpu_us_per_call"])),
            "tensor": (float(figures["tensor_us_per_call"]), float(figures["tensor_cpu_us_per_call"]))}


def print_comparison(python, c):
    """The module's cost beside the C ABI's (pipeline_bench.py prints the same)."""
    print(f"  c abi, submit + wait + describe + release:             {c['describe'][0]:8.1f} / {c['describe'][1]:6.1f}")
    print(f"  c abi, the same through a tensor reference (DLPack's): {c['tensor'][0]:8.1f} / {c['tensor'][1]:6.1f}")
    for name, key in (("tensor reference", "tensor"), ("describe only", "describe")):
        print(f"  python - c abi ({name}): {python[0] - c[key][0]:+.1f} / {python[1] - c[key][1]:+.1f} us per call"
              + ("  (target: at most +10)" if key == "tensor" else ""))


def python_us(device, calls, repeats, consume):
    """Median microseconds of submit + wait + from_dlpack + close through the
    module: (wall clock, this thread's CPU time)."""
    image = np.random.default_rng(0).integers(0, 256, (224, 224, 3), dtype=np.uint8)
    with ferry.Context(device) as ctx:
        stream = None
        if ctx.device == ferry.Device.CUDA:
            import torch
            stream = torch.cuda.current_stream()

        def one():  # the C helper's steps: submit (hand-off), wait, describe (from_dlpack), release
            with ctx.submit(image, mean=MEAN, std=STD, stream=stream) as batch:
                batch.wait()
                consume(batch)

        for _ in range(50):
            one()
        runs, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.thread_time()
            for _ in range(calls):
                one()
            runs.append((time.perf_counter() - start) / calls * 1e6)
            cpu.append((time.thread_time() - start_cpu) / calls * 1e6)
        return (statistics.median(runs), statistics.median(cpu)), ctx.device


def consumer(device):
    """torch.from_dlpack where torch imports (the README idiom), else NumPy's."""
    try:
        import torch
        return torch.from_dlpack, "torch.from_dlpack"
    except ImportError:
        if device == ferry.Device.CUDA:
            raise
        return np.from_dlpack, "numpy.from_dlpack"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    ap.add_argument("--helper", default=None, help="the C helper ferry_bench_one_image")
    ap.add_argument("--profile", action="store_true", help="cProfile the Python calls instead")
    a = ap.parse_args()
    device = {"auto": ferry.Device.AUTO, "cpu": ferry.Device.CPU, "cuda": ferry.Device.CUDA}[a.device]
    consume, consumer_name = consumer(device)
    if a.profile:
        import cProfile
        import pstats
        profile = cProfile.Profile()
        profile.runcall(python_us, device, a.calls, 1, consume)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return 0
    py, resolved = python_us(device, a.calls, a.repeats, consume)
    where = "cuda" if resolved == ferry.Device.CUDA else "cpu"
    print(f"hot_path_bench: one 224x224x3 uint8 image -> normalized f32 NCHW on {where}, "
          f"median of {a.repeats} x {a.calls} calls; us per call, wall clock / the calling thread's CPU time")
    print(f"  python: submit + wait + {consumer_name} + close {py[0]:8.1f} / {py[1]:6.1f}")
    helper = find_helper(a.helper)
    if helper is None or not os.path.exists(helper):
        print("  c abi: helper ferry_bench_one_image not found (build it: cmake --build <build> "
              "--target ferry_bench_one_image, or pass --helper)")
        return 0
    print_comparison(py, c_abi_us(helper, where, a.calls, a.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
