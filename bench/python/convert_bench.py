#!/usr/bin/env python3
"""PyTorch's unfused equivalent of ferry's conversion, on the same shapes as
bench/convert_bench.cpp: uint8 NHWC on the GPU -> permute, float, div(255),
sub(mean), div(std) (and .half()/.bfloat16()), timed with CUDA events,
warm-up, median of many. Prints effective bandwidth (uint8 read + output
written, the same bytes ferry_bench_convert counts) beside a D2D copy of the
same bytes, so the ratios compare directly with ferry's.

  python3 bench/python/convert_bench.py [--n 256] [--h 224] [--w 224] [--iters 200]
"""
import argparse
import statistics
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--h", type=int, default=224)
    ap.add_argument("--w", type=int, default=224)
    ap.add_argument("--iters", type=int, default=200)
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("python bench: SKIPPED (no torch)")
        return 0
    if not torch.cuda.is_available():
        print("python bench: SKIPPED (no CUDA device)")
        return 0
    dev = torch.device("cuda")
    x = torch.randint(0, 256, (a.n, a.h, a.w, 3), dtype=torch.uint8, device=dev)
    mean = torch.tensor([0.485, 0.456, 0.406], device=dev)
    std = torch.tensor([0.229, 0.224, 0.225], device=dev)
    in_bytes = x.numel()

    def timed(fn):
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
        ms = []
        for _ in range(a.iters):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            ms.append(s.elapsed_time(e))
        return statistics.median(ms)

    m4, s4 = mean.view(1, 3, 1, 1), std.view(1, 3, 1, 1)
    cases = [
        ("float32 NCHW", 4, lambda: x.permute(0, 3, 1, 2).float().div(255).sub(m4).div(s4).contiguous()),
        ("float16 NCHW", 2, lambda: x.permute(0, 3, 1, 2).float().div(255).sub(m4).div(s4).half().contiguous()),
        ("bfloat16 NHWC", 2, lambda: x.float().div(255).sub(mean).div(std).bfloat16().contiguous()),
    ]
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}; batch {a.n}x{a.h}x{a.w}x3 uint8, median of {a.iters}")
    src = torch.empty(in_bytes * 4, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    for name, esize, fn in cases:
        moved = in_bytes + in_bytes * esize
        ms = timed(fn)
        half = moved // 2
        copy_ms = timed(lambda: dst[:half].copy_(src[:half]))
        gbs, copy_gbs = moved / ms / 1e6, moved / copy_ms / 1e6
        print(f"torch unfused {name:14s} {ms:.4f} ms {gbs:7.1f} GB/s | d2d copy {copy_ms:.4f} ms {copy_gbs:7.1f} GB/s | ratio {gbs / copy_gbs:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
