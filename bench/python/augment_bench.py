#!/usr/bin/env python3
"""Random augmentation in the fused pass (issue 16), through ferry's Python
module beside torchvision v2 and Kornia, measured in the same process on the
same images, in one table.

The batch: --n images of 224x224x3 uint8 in one pageable NumPy array, each
RandomResizedCrop (scale 0.08-1, ratio 3/4-4/3) to 224x224, horizontal flip
with p = 0.5, ColorJitter(0.4, 0.4, 0.4, 0.1), normalized float16 NCHW on the
GPU, drawn per sample. Each row does that whole job; its rate is the source
bytes per second against the bus limit (a pinned copy of the same bytes,
torch's copy_ from pinned memory, in this run; target 0.9 for ferry).

Rows: the bus limit; ferry (one submit of the array with augment=, the step
advanced per batch, --depth batches in flight, the pipeline staging the
pageable array); torchvision v2 on the GPU, per image as its transforms draw
per call (the uint8 batch copied from pinned memory, then each image
RandomResizedCrop(antialias=True) + RandomHorizontalFlip + ColorJitter on
its uint8 CUDA tensor, stacked, converted and normalized); Kornia if it
imports (the batch copied, converted to float, then
kornia.augmentation's RandomResizedCrop + RandomHorizontalFlip +
ColorJitter drawn per sample on the batch, normalized, halved). Host clock
around whole batches with the device synchronized, warm-up first, median of
--repeats runs of --iters batches.

  PYTHONPATH=build/bindings/python python3 bench/python/augment_bench.py [--n 256] [--iters 10] [--repeats 3]
"""
import argparse
import sys

from bench_timing import timed

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


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
        print(f"augment_bench: SKIPPED ({e})")
        return 0
    if not torch.cuda.is_available() or ferry.device_count() == 0:
        print("augment_bench: SKIPPED (no CUDA device)")
        return 0
    dev = torch.device("cuda")
    images = np.random.default_rng(1).integers(0, 256, size=(a.n, 224, 224, 3), dtype=np.uint8)
    source_bytes = images.nbytes
    rows = []

    pinned = torch.from_numpy(images).pin_memory()
    on_gpu = torch.empty_like(pinned, device=dev)
    limit_s = timed(torch, lambda: on_gpu.copy_(pinned, non_blocking=True), a.iters * 4, a.repeats)
    rows.append(("bus limit: pinned copy of the same bytes", limit_s))

    ctx = ferry.Context(ferry.Device.CUDA)
    aug = ferry.Augment(crop="random_resized", hflip=0.5, brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
    kwargs = dict(resize=224, interpolation="linear", dtype="float16", mean=MEAN, std=STD)
    in_flight = []

    def ferry_batch():
        in_flight.append(ctx.submit(images, augment=aug, **kwargs))
        aug.step += 1
        if len(in_flight) >= a.depth:
            b = in_flight.pop(0)
            b.wait()
            b.close()

    def ferry_drain():
        while in_flight:
            b = in_flight.pop(0)
            b.wait()
            b.close()

    ferry_batches = 4 * a.iters  # filling and draining the pipeline weigh little against its steady rate

    def ferry_run():
        for _ in range(ferry_batches):
            ferry_batch()
        ferry_drain()

    rows.append((f"ferry: one submit with augment=, {a.depth} in flight",
                 timed(torch, ferry_run, 1, a.repeats) / ferry_batches))

    mean = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    try:
        from torchvision.transforms import v2
        per_image = v2.Compose([v2.RandomResizedCrop(224, antialias=True), v2.RandomHorizontalFlip(),
                                v2.ColorJitter(0.4, 0.4, 0.4, 0.1)])

        def torchvision_batch():
            batch = pinned.to(dev, non_blocking=True).permute(0, 3, 1, 2)
            out = torch.stack([per_image(batch[i]) for i in range(a.n)])
            ((out.to(torch.float32) / 255 - mean) / std).to(torch.float16)

        rows.append(("torchvision v2 on the GPU, per image (uint8)", timed(torch, torchvision_batch, a.iters, a.repeats)))
    except ImportError as e:
        print(f"augment_bench: torchvision row SKIPPED ({e})")
    try:
        import kornia.augmentation as K
        kornia_aug = torch.nn.Sequential(K.RandomResizedCrop((224, 224)), K.RandomHorizontalFlip(),
                                         K.ColorJitter(0.4, 0.4, 0.4, 0.1, p=1.0))

        def kornia_batch():
            batch = pinned.to(dev, non_blocking=True).permute(0, 3, 1, 2).to(torch.float32) / 255
            ((kornia_aug(batch) - mean) / std).to(torch.float16)

        rows.append((f"Kornia {__import__('kornia').__version__} on the GPU, per sample on the batch (float32)",
                     timed(torch, kornia_batch, a.iters, a.repeats)))
    except Exception as e:  # not installed, or its import fails on this host
        print(f"augment_bench: Kornia row SKIPPED ({type(e).__name__}: {e})")

    print(f"\n## augmented training input: {a.n} images 224x224x3 pageable uint8 ({source_bytes / 1e6:.1f} MB), "
          f"RandomResizedCrop + flip + ColorJitter(0.4, 0.4, 0.4, 0.1) -> 224x224 normalized f16 NCHW on "
          f"{torch.cuda.get_device_name()}")
    print("| row | ms / batch | GB/s of source | x bus limit |\n|---|---|---|---|")
    for name, s in rows:
        print(f"| {name} | {s * 1e3:.3f} | {source_bytes / s / 1e9:.2f} | {limit_s / s:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
