"""ferry example (Python): one process per GPU under torchrun, the way PyTorch
users run several GPUs.

Each process holds its own ferry context on its local GPU (the CPU backend
where there is none) and feeds its DistributedDataParallel replica from its
DistributedSampler shard through ferry.PrefetchLoader: uint8 NHWC batches from
a DataLoader (--workers worker processes collate them; pin_memory=False:
ferry stages pageable memory itself), two
batches in flight ahead of the model, handed off to PyTorch's stream. NCCL
between GPUs, gloo on the CPU.

    torchrun --nproc_per_node=<GPUs> examples/ddp_train.py [--steps N]
    python3 -m torch.distributed.run --standalone --nproc_per_node=1 examples/ddp_train.py --steps 3

    # The scaling figure (issue 11): ResNet-18, bf16 autocast, channels_last, 224 px
    torchrun --standalone --nproc_per_node=2 examples/ddp_train.py --model resnet18 \
        --batch 256 --size 224 --steps 60 --warmup 10 --workers 4

Rank 0 prints the images per second of every process together (the steps
after --warmup, which cover cuDNN's autotuning and NCCL's first collectives),
then "ok".
"""
import argparse
import contextlib
import os
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler

import ferry

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


class DecodedImages(Dataset):
    """A stand-in for a decoded dataset: uint8 HWC images and their labels on
    the host. `distinct` images are drawn and repeated, so a long run does not
    need gigabytes of random bytes."""

    def __init__(self, samples: int, size: int, distinct: int = 512) -> None:
        rng = np.random.default_rng(0)
        self.images = torch.from_numpy(rng.integers(0, 256, size=(min(samples, distinct), size, size, 3),
                                                    dtype=np.uint8))
        self.labels = torch.from_numpy(rng.integers(0, 10, size=samples))

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int):
        return self.images[i % len(self.images)], self.labels[i]


def make_model(name: str, device: torch.device) -> torch.nn.Module:
    if name == "resnet18":  # needs torchvision
        import torchvision
        return torchvision.models.resnet18(num_classes=10).to(device).to(memory_format=torch.channels_last)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10)).to(device)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20, help="batches per process")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", type=int, default=64, help="image side in pixels")
    parser.add_argument("--warmup", type=int, default=1, help="steps before the timed ones")
    parser.add_argument("--model", choices=("tiny", "resnet18"), default="tiny")
    parser.add_argument("--workers", type=int, default=2,
                        help="DataLoader worker processes per process (0: collate in the training process)")
    args = parser.parse_args()

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(local_rank)
    if "RANK" in os.environ:  # under torchrun
        dist.init_process_group("nccl" if use_cuda else "gloo")
    rank = dist.get_rank() if dist.is_initialized() else 0
    world = dist.get_world_size() if dist.is_initialized() else 1

    if args.warmup >= args.steps:
        parser.error(f"--warmup {args.warmup} must be below --steps {args.steps}")
    dataset = DecodedImages(args.steps * args.batch * world, args.size)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
    # Workers collate the batches: in the training process, collation would take the one Python
    # thread from the model's step, and a process's images/s would follow its host, not its GPU.
    loader = DataLoader(dataset, batch_size=args.batch, sampler=sampler, pin_memory=False, drop_last=True,
                        num_workers=args.workers)

    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    model = make_model(args.model, device)
    if dist.is_initialized():
        model = DistributedDataParallel(model, device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    # ResNet-18 the fast way on a GPU: NHWC output seen as channels_last NCHW (no copy), bf16 autocast.
    channels_last = args.model == "resnet18"
    autocast = (torch.autocast("cuda", dtype=torch.bfloat16) if use_cuda and channels_last
                else contextlib.nullcontext())

    # One context per process, on this process's GPU (device_index); the CPU backend without one.
    options = {"device_index": local_rank} if use_cuda else {}
    with ferry.Context(ferry.Device.CUDA if use_cuda else ferry.Device.CPU, **options) as ctx:
        batches = ferry.PrefetchLoader(loader, ctx, depth=2, torch=True, mean=MEAN, std=STD,
                                       layout="NHWC" if channels_last else "NCHW")
        sampler.set_epoch(0)
        seen = 0
        for step, (x, y) in enumerate(batches):  # x: float32 on the device; y moved there beside it
            if step == args.warmup:  # the timed steps start here, after the warm-up's work has finished
                if use_cuda:
                    torch.cuda.synchronize()
                start, seen = time.perf_counter(), 0
            if channels_last:
                x = x.permute(0, 3, 1, 2)
            with autocast:
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
            print(f"{world} process(es) on {device.type}, {args.model}: {rate.item():.0f} images/s together "
                  f"over {args.steps - args.warmup} steps after {args.warmup} of warm-up, "
                  f"last loss {loss.item():.4f}, {seen} timed images on rank 0")
    if dist.is_initialized():
        dist.destroy_process_group()
    if rank == 0:
        print("ok")


if __name__ == "__main__":
    main()
