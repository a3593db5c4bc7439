"""ferry example (Python): one process per GPU under torchrun, the way PyTorch
users run several GPUs.

Each process holds its own ferry context on its local GPU (the CPU backend
where there is none) and feeds its DistributedDataParallel replica from its
DistributedSampler shard through ferry.PrefetchLoader: uint8 NHWC batches from
a DataLoader (pin_memory=False: ferry stages pageable memory itself), two
batches in flight ahead of the model, handed off to PyTorch's stream. NCCL
between GPUs, gloo on the CPU.

    torchrun --nproc_per_node=<GPUs> examples/ddp_train.py [--steps N]
    python3 -m torch.distributed.run --standalone --nproc_per_node=1 examples/ddp_train.py --steps 3

Rank 0 prints the images per second of every process together, then "ok".
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import ferry

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20, help="batches per process")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=64, help="image side in pixels")
    args = parser.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(local_rank)
    if "RANK" in os.environ:  # under torchrun
        dist.init_process_group("nccl" if use_cuda else "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    world = dist.get_world_size() if dist.is_initialized() else 1

    # A stand-in for a decoded dataset: uint8 NHWC images and their labels, on the host.
    samples = args.steps * args.batch * world
    rng = np.random.default_rng(0)
    images = torch.from_numpy(rng.integers(0, 256, size=(samples, args.size, args.size, 3), dtype=np.uint8))
    labels = torch.from_numpy(rng.integers(0, 10, size=samples))
    dataset = TensorDataset(images, labels)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=args.batch, sampler=sampler, pin_memory=False, drop_last=True)

    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                                torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10)).to(device)
    if dist.is_initialized():
        model = DistributedDataParallel(model, device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    # One context per process, on this process's GPU (device_index); the CPU backend without one.
    options = {"device_index": local_rank} if use_cuda else {}
    with ferry.Context(ferry.Device.CUDA if use_cuda else ferry.Device.CPU, **options) as ctx:
        batches = ferry.PrefetchLoader(loader, ctx, depth=2, torch=True, mean=MEAN, std=STD)
        sampler.set_epoch(0)
        seen = 0
        start = time.perf_counter()
        for x, y in batches:  # x: float32 NCHW on the device; y moved there beside it
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += x.shape[0]
        if use_cuda:
            torch.cuda.synchronize()
        rate = torch.tensor([seen / (time.perf_counter() - start)], dtype=torch.float64, device=device)
        if dist.is_initialized():
            dist.all_reduce(rate)  # the sum over processes (NCCL on the GPU, gloo on the CPU)
        if rank == 0:
            print(f"{world} process(es) on {device.type}: {rate.item():.0f} images/s together, "
                  f"last loss {loss.item():.4f}, {seen} images on rank 0")
    if dist.is_initialized():
        dist.destroy_process_group()
    if rank == 0:
        print("ok")


if __name__ == "__main__":
    main()
