#!/usr/bin/env python3
"""Training input with resize (issue 14), through ferry's Python module beside
torchvision and OpenCV, measured in the same process on the same images, in
one table.

The batch: --n images of 300-500 px per side at their own sizes (uint8 HWC
NumPy arrays, pageable), each a RandomResizedCrop (scale 0.08-1, ratio
3/4-4/3) to 224x224 with a random horizontal flip, normalized float16 NCHW on
the GPU. Each row does that whole job; its rate is the images' source bytes
per second, against the bus limit (a pinned cudaMemcpy of the same bytes,
torch's copy_ from pinned memory, in this run).

Rows: the bus limit; ferry (the list of arrays submitted as one batch,
--depth batches in flight, the pipeline's staging); torchvision v2 on GPU
tensors: each image copied as uint8 (.cuda() from pageable, and from pinned
memory with non_blocking), then resized_crop (antialias=True) + flip on the
GPU, stacked, normalized; resizing on the CPU first: cv2.resize of each crop
(INTER_LINEAR, on a thread per core) + flip, then the 224x224 uint8 batch
copied and normalized on the GPU. Host clock around whole batches with the
device synchronized, warm-up first, median of --repeats runs of --iters
batches.

  PYTHONPATH=build/bindings/python python3 bench/python/resize_bench.py [--n 256] [--iters 10] [--repeats 3]
"""
import argparse
import concurrent.futures
import math
import os
import sys

from bench_timing import timed

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def draw_batch(np, n, seed):
    rng = np.random.default_rng(seed)
    images, windows, flips = [], [], []
    for _ in range(n):
        h, w = (int(v) for v in rng.integers(300, 501, size=2))
        images.append(rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8))
        area = rng.uniform(0.08, 1.0) * h * w
        ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
        cw = int(min(w, math.sqrt(area * ratio)))
        ch = int(min(h, math.sqrt(area / ratio)))
        x = int(rng.integers(0, w - cw + 1))
        y = int(rng.integers(0, h - ch + 1))
        windows.append((x, y, cw, ch))
        flips.append(int(rng.integers(0, 2)))
    return images, windows, flips


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--depth", type=int, default=3, help="ferry batches in flight")
    a = ap.parse_args()
    try:
        import numpy as np
        import torch
        import ferry
    except ImportError as e:
        print(f"resize_bench: SKIPPED ({e})")
        return 0
    if not torch.cuda.is_available() or ferry.device_count() == 0:
        print("resize_bench: SKIPPED (no CUDA device)")
        return 0
    dev = torch.device("cuda")
    images, windows, flips = draw_batch(np, a.n, 1)
    source_bytes = sum(im.nbytes for im in images)
    rows = []

    # The bus limit: one pinned copy of all the images' bytes.
    pinned_all = torch.empty(source_bytes, dtype=torch.uint8).pin_memory()
    on_gpu = torch.empty(source_bytes, dtype=torch.uint8, device=dev)
    limit_s = timed(torch, lambda: on_gpu.copy_(pinned_all, non_blocking=True), a.iters * 4, a.repeats)
    rows.append(("bus limit: pinned cudaMemcpy of the same bytes", limit_s))

    # ferry: one submit per batch, --depth in flight.
    ctx = ferry.Context(ferry.Device.CUDA)
    kwargs = dict(resize=224, interpolation="linear", dtype="float16", mean=MEAN, std=STD,
                  per_sample_window=np.asarray(windows, dtype=np.float32),
                  per_sample_mirror=np.asarray(flips, dtype=np.uint8))
    in_flight = []

    def ferry_batch():
        in_flight.append(ctx.submit(images, **kwargs))
        if len(in_flight) >= a.depth:
            b = in_flight.pop(0)
            b.wait()
            b.close()

    def ferry_drain():
        while in_flight:
            b = in_flight.pop(0)
            b.wait()
            b.close()

    # Every batch waited for (none left staging when the clock stops), and 4x
    # the other rows' batches, so that filling and draining the pipeline
    # weighs little against its steady rate.
    ferry_batches = 4 * a.iters

    def ferry_run():
        for _ in range(ferry_batches):
            ferry_batch()
        ferry_drain()

    ferry_s = timed(torch, ferry_run, 1, a.repeats) / ferry_batches
    rows.append((f"ferry: one submit of the list, {a.depth} in flight", ferry_s))

    mean = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1) * 255
    std = torch.tensor(STD, device=dev).view(1, 3, 1, 1) * 255
    try:
        from torchvision.transforms.v2 import functional as F
    except ImportError as e:
        F = None
        print(f"resize_bench: torchvision rows SKIPPED ({e})")
    if F is not None:
        torch_images = [torch.from_numpy(im) for im in images]
        pinned_images = [t.pin_memory() for t in torch_images]

        def torchvision_batch(sources, non_blocking):
            out = []
            for src, (x, y, w, h), flip in zip(sources, windows, flips):
                img = src.to(dev, non_blocking=non_blocking).permute(2, 0, 1)
                img = F.resized_crop(img, y, x, h, w, [224, 224], antialias=True)
                out.append(F.horizontal_flip(img) if flip else img)
            batch = torch.stack(out).half()
            return (batch - mean.half()) / std.half()

        rows.append(("torchvision v2 on GPU: per-image .cuda() (pageable) + resized_crop",
                     timed(torch, lambda: torchvision_batch(torch_images, False), a.iters, a.repeats)))
        rows.append(("torchvision v2 on GPU: per-image copy from pinned + resized_crop",
                     timed(torch, lambda: torchvision_batch(pinned_images, True), a.iters, a.repeats)))
    try:
        import cv2
    except ImportError as e:
        cv2 = None
        print(f"resize_bench: OpenCV row SKIPPED ({e})")
    if cv2 is not None:
        cv2.setNumThreads(1)  # one image per thread below
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count())
        staged = torch.empty((a.n, 224, 224, 3), dtype=torch.uint8).pin_memory()
        staged_np = staged.numpy()

        def cpu_one(i):
            x, y, w, h = windows[i]
            small = cv2.resize(images[i][y:y + h, x:x + w], (224, 224), interpolation=cv2.INTER_LINEAR)
            staged_np[i] = small[:, ::-1] if flips[i] else small

        def cpu_first_batch():
            list(pool.map(cpu_one, range(a.n)))
            batch = staged.to(dev, non_blocking=True).permute(0, 3, 1, 2).half()
            out = (batch - mean.half()) / std.half()
            torch.cuda.current_stream().synchronize()  # the pinned buffer is reused by the next batch
            return out

        rows.append((f"CPU first: cv2.resize on {os.cpu_count()} threads, then copy + normalize",
                     timed(torch, cpu_first_batch, a.iters, a.repeats)))
        pool.shutdown()

    print(f"resize_bench on {torch.cuda.get_device_name()}: {a.n} images 300-500 px "
          f"({source_bytes / 1e6:.1f} MB uint8) -> RandomResizedCrop 224 + flip, f16 NCHW; same run")
    print("| row | ms / batch | GB/s of source | x bus limit |\n|---|---|---|---|")
    for name, s in rows:
        print(f"| {name} | {s * 1e3:.3f} | {source_bytes / s / 1e9:.2f} | {limit_s / s:.3f} |")
    ratio = limit_s / ferry_s
    print(f"resize_bench: ferry at {ratio:.3f} of the bus limit (target 0.9): {'met' if ratio >= 0.9 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
