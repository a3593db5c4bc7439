#!/usr/bin/env python3
"""The Python module's per-call cost (issue 11 item 2): one 224x224x3 uint8
image submitted, its output taken and the batch closed, on whatever device
the context gets (the CPU backend without a GPU). The output is taken two
ways: torch.from_dlpack(batch) (the README idiom) and batch.torch() (the
same tensor, without torch.from_dlpack's own stream lookup); without torch,
NumPy's from_dlpack. And in two orders: after batch.wait() ("wait +
take"), or first, then the wait ("take + wait"): the order of a consumer on
the GPU, whose export is ordered on its stream and needs no wait (the
README's idiom takes the output and never waits), so the export's host work
runs while the GPU copies and converts. Beside them, the same submit + wait
+ release through the C ABI, taking the output as a description read from
the batch, or held through a tensor reference as a DLPack export holds it,
in either order (the like-for-like rows). And what torch.from_dlpack costs
on a tensor torch made itself: the consumer's share of the exchange, which
no producer can shed.

The C rows run in this process, through ctypes, from the library
libferry_bench_one_image.so that CMake builds beside the program
ferry_bench_one_image (bench/python/one_image_latency.c), alternated with the
Python rows: --rounds runs of --calls calls of each row, one after the other,
so that each round's rows see the same machine (a virtual machine's speed
drifts by half from process to process and over seconds). Printed: each
row's median over the rounds (wall clock / the calling thread's CPU time),
and the median over the rounds of each Python row minus the C tensor row of
its order in its round.

  python3 bench/python/hot_path_bench.py [--calls 1000] [--rounds 15]
      [--device cpu|cuda|auto] [--helper build/bench/python/libferry_bench_one_image.so]
"""
import argparse
import ctypes
import glob
import os
import statistics
import sys
import time

import numpy as np

import ferry

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libferry_bench_one_image.so"


def find_helper(explicit):
    """The C helper library: --helper (the library, or the program beside it),
    else the newest build*/bench/python/libferry_bench_one_image.so; None if none."""
    if explicit:
        path = explicit if explicit.endswith(".so") else os.path.join(os.path.dirname(explicit), LIBRARY)
        return path if os.path.exists(path) else None
    root = os.path.dirname(os.path.dirname(HERE))
    found = glob.glob(os.path.join(root, "build*", "bench", "python", LIBRARY))
    return max(found, key=os.path.getmtime) if found else None


C_TENSOR = {"wait + take": "c abi, wait + tensor", "take + wait": "c abi, tensor + wait"}  # a Python row's C row


def c_abi_rows(library, where):
    """{row: run(calls) -> (wall us, cpu us) per call} for the C ABI's three rows."""
    run = ctypes.CDLL(library).ferry_bench_one_image_us
    run.restype = ctypes.c_double
    run.argtypes = (ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_double))

    def row(how):  # one_image_latency.c's TAKE_*: 0 describe, 1 tensor after the wait, 2 tensor first
        def calls_of(calls):
            cpu = ctypes.c_double()
            wall = run(where.encode(), how, calls, ctypes.byref(cpu))
            if wall < 0:
                raise RuntimeError(f"{library}: the C ABI calls failed (the error is printed above)")
            return wall, cpu.value
        return calls_of
    return {"c abi, wait + describe": row(0), C_TENSOR["wait + take"]: row(1), C_TENSOR["take + wait"]: row(2)}


def timed(one, calls):
    """Microseconds per call of one(), `calls` times: (wall clock, this thread's CPU time)."""
    start, start_cpu = time.perf_counter(), time.thread_time()
    for _ in range(calls):
        one()
    return (time.perf_counter() - start) / calls * 1e6, (time.thread_time() - start_cpu) / calls * 1e6


def python_rows(ctx):
    """{row: run(calls)} for the module's rows on `ctx` (and torch's own
    protocol cost where torch imports)."""
    image = np.random.default_rng(0).integers(0, 256, (224, 224, 3), dtype=np.uint8)
    stream = None
    try:
        import torch
    except ImportError:
        if ctx.device == ferry.Device.CUDA:
            raise
        torch = None
    if ctx.device == ferry.Device.CUDA:
        stream = torch.cuda.current_stream()

    def submitted(consume):
        def one():  # the C rows' steps: submit (hand-off), wait, take the output, release
            with ctx.submit(image, mean=MEAN, std=STD, stream=stream) as batch:
                batch.wait()
                consume(batch)
        return lambda calls: timed(one, calls)

    def taken_first(consume):
        def one():  # submit (hand-off), take the output, wait, release
            with ctx.submit(image, mean=MEAN, std=STD, stream=stream) as batch:
                consume(batch)
                batch.wait()
        return lambda calls: timed(one, calls)
    if torch is None:
        return {"python, wait + numpy.from_dlpack(batch)": submitted(np.from_dlpack)}
    own = torch.zeros((1, 3, 224, 224), device="cuda" if ctx.device == ferry.Device.CUDA else "cpu")
    rows = {"python, wait + torch.from_dlpack(batch)": submitted(torch.from_dlpack),
            "python, torch.from_dlpack(batch) + wait": taken_first(torch.from_dlpack)}
    if hasattr(ferry.Batch, "torch"):  # not in a module before 0.3 (a baseline run)
        rows["python, wait + batch.torch()"] = submitted(ferry.Batch.torch)
        rows["python, batch.torch() + wait"] = taken_first(ferry.Batch.torch)
    rows["torch.from_dlpack of torch's own tensor"] = lambda calls: timed(lambda: torch.from_dlpack(own), calls)
    return rows


def c_row_of(name):
    """The C tensor row a Python row compares with: the one that takes the output in its order."""
    return C_TENSOR["take + wait"] if name.endswith("+ wait") else C_TENSOR["wait + take"]


def one_image_table(device, library, calls=1000, rounds=15):
    """Measures and prints the table (see the top of this file); returns
    {row: (wall us, cpu us)} medians, {"python, ... - c abi, ...": (wall, cpu)}
    median differences, and "device"."""
    with ferry.Context(device) as ctx:
        where = "cuda" if ctx.device == ferry.Device.CUDA else "cpu"
        rows = dict(c_abi_rows(library, where)) if library else {}
        rows.update(python_rows(ctx))
        for run in rows.values():  # warm-up: caches, the transform, torch's lazy init
            run(max(calls // 10, 20))
        figures = {name: [] for name in rows}
        names = list(rows)
        for r in range(rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:  # each row first in turn
                figures[name].append(rows[name](calls))
    table = {name: (statistics.median(w for w, _ in f), statistics.median(c for _, c in f))
             for name, f in figures.items()}
    print(f"one 224x224x3 uint8 image -> normalized f32 NCHW on {where}: submit + wait and take the output + close, "
          f"us per call (wall clock / the calling thread's CPU), medians of {rounds} rounds of {calls} calls of "
          f"each row, the rows alternated in one process")
    for name, (wall, cpu) in table.items():
        print(f"  {name:56s} {wall:8.1f} / {cpu:6.1f}")
    if C_TENSOR["wait + take"] in figures:
        print("  the module over the C ABI through a tensor reference (as a DLPack export holds the output), taken in "
              "the same order, median over the rounds of the difference within each round (target: at most +10):")
        for name, f in figures.items():
            if name.startswith("python"):
                base = figures[c_row_of(name)]
                wall = statistics.median(p[0] - c[0] for p, c in zip(f, base))
                cpu = statistics.median(p[1] - c[1] for p, c in zip(f, base))
                table[f"{name} - {c_row_of(name)}"] = (wall, cpu)
                print(f"    {name[8:]:54s} {wall:+8.1f} / {cpu:+6.1f}")
    table["device"] = where
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=1000, help="calls of a row in a round")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    ap.add_argument("--helper", default=None, help="libferry_bench_one_image.so, or the program beside it")
    ap.add_argument("--profile", action="store_true", help="cProfile the Python calls instead")
    a = ap.parse_args()
    device = {"auto": ferry.Device.AUTO, "cpu": ferry.Device.CPU, "cuda": ferry.Device.CUDA}[a.device]
    if a.profile:
        import cProfile
        import pstats
        with ferry.Context(device) as ctx:
            run = next(iter(python_rows(ctx).values()))
            profile = cProfile.Profile()
            profile.runcall(run, a.calls)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return 0
    library = find_helper(a.helper)
    if library is None:
        print(f"hot_path_bench: {LIBRARY} not found (build it: cmake --build <build> --target "
              "ferry_bench_one_image_lib, or pass --helper); the Python rows alone:")
    one_image_table(device, library, a.calls, a.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
