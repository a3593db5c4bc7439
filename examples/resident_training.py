"""ferry example (Python): training from a dataset that lives on the GPU.

CIFAR-10 (50,000 uint8 images of 32 x 32, 150 MB) fits in device memory many
times over: ferry.ResidentDataset uploads it once, and every batch after that
is a gather on the GPU with the augmentation in the same pass (random crop
with 4 pixels of padding, horizontal flip, normalized to float16 NCHW), with
nothing on the bus but the indices. The labels are gathered on the GPU beside
the images. Where there is no GPU, the same code runs on ferry's CPU backend
(float32 there).

    python3 resident_training.py [--data DIR] [--steps N] [--batch B]

--data: the folder of CIFAR-10's Python version (cifar-10-batches-py, the
data_batch_1 .. 5 pickles); without it, random images of CIFAR's shape.
Under torchrun, pass placement="shard", rank=..., world_size=... to
ResidentDataset so that each GPU holds its share only.
"""
import argparse
import contextlib
import os
import pickle
import time

import numpy as np
import torch

import ferry

MEAN, STD = [0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]  # CIFAR-10's, per channel


def cifar10(folder):
    """CIFAR-10's training set as stored: uint8 (50000, 3, 32, 32) (NCHW) and int64 labels."""
    images, labels = [], []
    for part in range(1, 6):
        with open(os.path.join(folder, f"data_batch_{part}"), "rb") as f:
            batch = pickle.load(f, encoding="bytes")
        images.append(batch[b"data"].reshape(-1, 3, 32, 32))
        labels += batch[b"labels"]
    return np.concatenate(images), np.array(labels, np.int64)


def synthetic(n=50000):
    rng = np.random.default_rng(0)
    return rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8), rng.integers(0, 10, n)


def model():
    def block(cin, cout):
        return [torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), torch.nn.BatchNorm2d(cout), torch.nn.ReLU()]
    return torch.nn.Sequential(*block(3, 32), *block(32, 64), torch.nn.MaxPool2d(2), *block(64, 128),
                               torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(128, 10))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", help="the cifar-10-batches-py folder (default: random images)")
    parser.add_argument("--steps", type=int, default=200, help="training steps")
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    images, labels = cifar10(args.data) if args.data else synthetic()

    with ferry.Context() as ctx:
        on_gpu = ctx.device == ferry.Device.CUDA
        device = torch.device("cuda", ctx.device_index) if on_gpu else torch.device("cpu")
        # Upload once; `images` may be freed afterwards. CIFAR's pickles are planar: NCHW.
        dataset = ferry.ResidentDataset(ctx, images, source_layout="NCHW")
        print(f"{dataset}, uploaded in {dataset.info['upload_seconds']:.3f} s")
        augment = ferry.Augment(seed=0, crop="random", padding=4, hflip=0.5)  # RandomCrop(32, 4) + flip
        loader = ferry.ResidentLoader(dataset, args.batch, labels=labels, shuffle=True, drop_last=True, torch=True,
                                      augment=augment, resize=32, mean=MEAN, std=STD,
                                      dtype="float16" if on_gpu else "float32", layout="NCHW")

        net = model().to(device)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
        # float16 on the GPU: autocast's mixed precision, the gradients scaled. float32 on the CPU.
        amp = (lambda: torch.autocast("cuda", dtype=torch.float16)) if on_gpu else contextlib.nullcontext
        scaler = torch.amp.GradScaler("cuda") if on_gpu else None
        step, epoch, start = 0, 0, time.perf_counter()
        while step < args.steps:
            loader.set_epoch(epoch)  # each epoch its own order and its own crops and flips
            for x, y in loader:  # x: (B, 3, 32, 32) on the device, y: (B,) beside it
                with amp():
                    loss = torch.nn.functional.cross_entropy(net(x), y)
                optimizer.zero_grad(set_to_none=True)
                if scaler is None:
                    loss.backward()
                    optimizer.step()
                else:
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                    scaler.update()
                step += 1
                if step % 50 == 0 or step <= 3 or step == args.steps:
                    print(f"epoch {epoch} step {step}: loss {loss.item():.4f} "
                          f"({tuple(x.shape)} {x.dtype} on {x.device})")
                if step == args.steps:
                    break
            epoch += 1
        images_per_s = step * args.batch / (time.perf_counter() - start)
        print(f"{step} steps, {images_per_s:.0f} images/s")
        dataset.close()
    print("ok")


if __name__ == "__main__":
    main()
