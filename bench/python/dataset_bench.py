#!/usr/bin/env python3
"""Datasets that live on the GPU (issue 17), through ferry's Python module
beside PyTorch, measured in one process on the same data, in one table.

Two sets of random uint8 images, NHWC: CIFAR-10's shape (50,000 x 32x32x3)
and a 64x64 set (200,000 x 64x64x3). Each batch of --batch samples, in the
order of one shuffled epoch, gets the CIFAR recipe: RandomCrop(size, padding=4)
+ RandomHorizontalFlip(0.5), drawn per sample, float16 NCHW normalized.

Rows:
  upload      ferry.ResidentDataset from the pageable NumPy array, against the
              bus limit (torch's copy_ of the same bytes from pinned memory).
  ferry       ferry.ResidentLoader: one gather per batch (one kernel, no bus
              traffic), depth 2, handed off to torch's stream.
  torch v2 / batch    the same uint8 tensor on the GPU, indexed per batch,
              torchvision.transforms.v2 RandomCrop + RandomHorizontalFlip on the
              batch (their draws are per call: one crop and one flip for the
              whole batch), ToDtype + Normalize.
  torch v2 / sample   the same with the transforms per sample (what ferry draws), stacked.
  torch vectorized    PyTorch done well: per-sample offsets and flips drawn on
              the GPU, the crops gathered by one advanced index from the padded
              batch, flipped by torch.where, converted and normalized: no loop.
  Host clock around whole epochs' worth of batches with the device synchronized,
  warm-up first, median of --repeats runs of --iters batches.

Training (--train): torchvision's ResNet-18 (bf16 autocast, channels_last, SGD)
on the 64x64 set, blocks of --steps steps fed by the ResidentLoader (its NHWC
output is NCHW channels_last without a copy) against the same steps on one
batch reused (no data loading at all), --pairs pairs of blocks interleaved;
target 0.98 for the ratio of the sums.

  PYTHONPATH=build/bindings/python python3 bench/python/dataset_bench.py [--batch 256] [--small] [--train]
"""
import argparse
import statistics
import sys
import time

from bench_timing import timed

MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2470, 0.2435, 0.2616)


def cycle(loader):
    """Batches of the loader without end, epoch after epoch."""
    epoch = 0
    while True:
        loader.set_epoch(epoch)
        yield from loader
        epoch += 1


def torch_baselines(torch, v2, data, order, batch, dev):
    """The three PyTorch rows' batch functions over `data` (uint8 NHWC on the GPU)."""
    mean = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    n, h, w, _ = data.shape
    size = (h, w)
    per_call = v2.Compose([v2.RandomCrop(size, padding=4), v2.RandomHorizontalFlip(0.5)])
    finish = v2.Compose([v2.ToDtype(torch.float16, scale=True), v2.Normalize(MEAN, STD)])
    order_gpu = torch.as_tensor(order, device=dev)
    state = {"k": 0}

    def next_indices():
        k = state["k"]
        state["k"] = (k + batch) % (len(order) - batch)
        return order_gpu[k:k + batch]

    def v2_batch():
        x = data[next_indices()].permute(0, 3, 1, 2)
        return finish(per_call(x))

    def v2_sample():
        x = data[next_indices()].permute(0, 3, 1, 2)
        return finish(torch.stack([per_call(img) for img in x]))

    rows = torch.arange(h, device=dev).view(1, h, 1)
    cols = torch.arange(w, device=dev).view(1, 1, w)
    batch_index = torch.arange(batch, device=dev).view(batch, 1, 1)

    def vectorized():
        x = data[next_indices()]                                   # (b, h, w, 3) uint8
        padded = torch.nn.functional.pad(x, (0, 0, 4, 4, 4, 4))   # zero padding, as RandomCrop's
        dy = torch.randint(0, 9, (batch, 1, 1), device=dev)
        dx = torch.randint(0, 9, (batch, 1, 1), device=dev)
        flip = torch.rand(batch, 1, 1, device=dev) < 0.5
        xs = torch.where(flip, w - 1 - cols, cols) + dx
        crops = padded[batch_index, rows + dy, xs]                 # (b, h, w, 3): one gather
        y = crops.permute(0, 3, 1, 2).to(torch.float16).div_(255)
        return (y - mean) / std

    return [("torch v2 / batch (one draw per batch)", v2_batch),
            ("torch v2 / sample (per-sample draws)", v2_sample),
            ("torch vectorized (per-sample draws)", vectorized)]


def gather_table(torch, ferry, np, ctx, dev, name, n, side, a, lines):
    rng = np.random.default_rng(7)
    images = rng.integers(0, 256, size=(n, side, side, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n)
    pinned = torch.from_numpy(images).pin_memory()
    on_gpu = torch.empty_like(pinned, device=dev)
    limit_s = timed(torch, lambda: on_gpu.copy_(pinned, non_blocking=True), 3, a.repeats)
    del on_gpu
    start = time.perf_counter()
    ds = ferry.ResidentDataset(ctx, images)
    upload_s = time.perf_counter() - start
    lines.append(f"{name}: {n} x {side}x{side}x3 = {images.nbytes / 1e9:.3f} GB")
    lines.append(f"  upload from pageable memory   {upload_s * 1e3:9.2f} ms  {images.nbytes / upload_s / 1e9:7.2f} GB/s"
                 f"  x bus limit {limit_s / upload_s:5.3f} (target 0.9)")
    lines.append(f"  bus limit (pinned copy_)      {limit_s * 1e3:9.2f} ms  {images.nbytes / limit_s / 1e9:7.2f} GB/s")
    augment = ferry.Augment(seed=1, crop="random", padding=4, hflip=0.5)
    loader = ferry.ResidentLoader(ds, a.batch, shuffle=True, drop_last=True, labels=labels, torch=True,
                                  resize=side, dtype="float16", mean=MEAN, std=STD, augment=augment)
    batches = cycle(loader)
    ferry_s = timed(torch, lambda: next(batches), a.iters, a.repeats)
    rows = [("ferry ResidentLoader (per-sample draws)", ferry_s)]
    import torchvision.transforms.v2 as v2
    data = torch.from_numpy(images).to(dev)
    order = ds.epoch(seed=0, epoch=0)
    for label, fn in torch_baselines(torch, v2, data, order, a.batch, dev):
        iters = max(1, a.iters // 10) if "sample" in label and "vectorized" not in label else a.iters
        rows.append((label, timed(torch, fn, iters, a.repeats)))
    gpu_rows = gpu_time_rows(torch, v2, data, order, a, dev, ctx, batches)
    del data
    lines.append(f"  gather + RandomCrop(pad 4) + flip + float16 NCHW normalize, batch {a.batch}:")
    for label, s in rows:
        lines.append(f"    {label:42s} {s * 1e6:10.1f} us/batch {a.batch / s:12.0f} img/s"
                     f"   ferry x {s / ferry_s:7.1f}")
    lines.append("    (targets: ferry >= 5x the PyTorch rows; the kernel's ratio to a D2D copy: ferry_bench_dataset)")
    lines.append("  the same, GPU time a batch with no host work on either side (ferry: its gather kernel as its")
    lines.append("  statistics time it; PyTorch vectorized: CUDA-graph replays between events, drawing on the GPU):")
    ferry_gpu = gpu_rows[0][1]
    for label, s in gpu_rows:
        lines.append(f"    {label:42s} {s * 1e6:10.1f} us/batch   ferry x {s / ferry_gpu:7.1f}")
    return ds, labels


def gpu_time_rows(torch, v2, data, order, a, dev, ctx, batches):
    """GPU seconds a batch: ferry's gather kernel (its statistics' convert_ns
    over a run of loader batches) and the vectorized PyTorch row replayed as a
    CUDA graph (host launch overhead gone, the work the same)."""
    torch.cuda.synchronize()
    before = ctx.stats()["convert_ns"]
    runs = 200
    for _ in range(runs):
        next(batches)
    torch.cuda.synchronize()
    time.sleep(0.05)  # ferry's completion thread adds each batch's timing once it sees it complete
    rows = [("ferry gather kernel (statistics)", (ctx.stats()["convert_ns"] - before) / 1e9 / runs)]
    for label, fn in torch_baselines(torch, v2, data, order, a.batch, dev):
        if "vectorized" not in label:
            # v2's Normalize copies its mean to the GPU per call, which a capture refuses; per
            # sample, a graph of thousands of nodes. The vectorized row is PyTorch done well.
            continue
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                fn()  # warm-up outside the capture
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(a.repeats):
            start.record()
            for _ in range(runs):
                graph.replay()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 1e3 / runs)
        rows.append((label.replace("torch", "torch, CUDA graph:"), statistics.median(samples)))
    return rows


def train_row(torch, ferry, ctx, dev, ds, labels, side, a, lines):
    import torchvision
    model = torchvision.models.resnet18(num_classes=10).to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    augment = ferry.Augment(seed=2, crop="random", padding=4, hflip=0.5)
    loader = ferry.ResidentLoader(ds, a.batch, shuffle=True, drop_last=True, labels=labels, torch=True,
                                  resize=side, dtype="float16", layout="NHWC", mean=MEAN, std=STD, augment=augment,
                                  **({} if a.depth is None else dict(depth=a.depth)))
    batches = cycle(loader)

    def fed():
        x, y = next(batches)
        step(x.permute(0, 3, 1, 2), y)  # NHWC memory: NCHW channels_last, no copy

    x0, y0 = next(batches)
    x0 = x0.permute(0, 3, 1, 2).clone(memory_format=torch.channels_last)
    y0 = y0.clone()

    def block(fn, steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            fn()
        torch.cuda.synchronize()
        return time.perf_counter() - start

    for _ in range(3):  # warm-up
        block(fed, a.steps), block(lambda: step(x0, y0), a.steps)
    # The loop is bound by the host: at 64x64 the GPU does a step's work in less
    # time than Python takes to enqueue it (about 10 ms), and the host's speed
    # drifts between runs by more than the loader costs. Short blocks,
    # interleaved (fed, reused, fed, ...), compare neighbours; the verdict is
    # the ratio of the two sums.
    fed_runs, reused_runs = [], []
    for _ in range(a.pairs):
        fed_runs.append(block(fed, a.steps))
        reused_runs.append(block(lambda: step(x0, y0), a.steps))
    ratios = sorted(r / f for r, f in zip(reused_runs, fed_runs))
    fed_s, reused_s = sum(fed_runs) / (a.pairs * a.steps), sum(reused_runs) / (a.pairs * a.steps)
    loader_alone = block(lambda: next(batches), 200) / 200
    lines.append(f"  ResNet-18 bf16 channels_last, {side}x{side}, batch {a.batch}, loader depth {loader.depth}, "
                 f"{a.pairs} interleaved pairs of {a.steps}-step blocks:")
    lines.append(f"    one batch reused (no loading)   {reused_s * 1e3:8.3f} ms/step")
    lines.append(f"    fed by the ResidentLoader       {fed_s * 1e3:8.3f} ms/step")
    lines.append(f"    ratio reused / fed              {reused_s / fed_s:6.4f} (target 0.98); per pair median "
                 f"{statistics.median(ratios):.4f}, range {ratios[0]:.4f} .. {ratios[-1]:.4f}")
    lines.append(f"    the loader alone, host-bound    {loader_alone * 1e6:8.1f} us/batch")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--small", action="store_true", help="a tenth of each set")
    ap.add_argument("--train", action="store_true", help="the ResNet-18 row on the 64x64 set")
    ap.add_argument("--steps", type=int, default=10, help="training steps a block")
    ap.add_argument("--pairs", type=int, default=60, help="interleaved pairs of training blocks")
    ap.add_argument("--depth", type=int, default=None, help="the training loader's depth (default: the loader's)")
    a = ap.parse_args()
    try:
        import numpy as np
        import torch
        import torchvision  # noqa: F401
        import ferry
    except ImportError as e:
        print(f"dataset_bench: SKIPPED ({e})")
        return 0
    if not torch.cuda.is_available() or ferry.device_count() == 0:
        print("dataset_bench: SKIPPED (no CUDA device)")
        return 0
    dev = torch.device("cuda")
    scale = 10 if a.small else 1
    lines = [f"device: {torch.cuda.get_device_name()}   torch {torch.__version__}   ferry {ferry.version_string()}",
             "command: " + " ".join(sys.argv)]
    with ferry.Context(ferry.Device.CUDA) as ctx:
        ds, _ = gather_table(torch, ferry, np, ctx, dev, "CIFAR-10 shape", 50000 // scale, 32, a, lines)
        ds.close()
        ds, labels = gather_table(torch, ferry, np, ctx, dev, "64x64 set", 200000 // scale, 64, a, lines)
        if a.train:
            train_row(torch, ferry, ctx, dev, ds, labels, 64, a, lines)
        ds.close()
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
