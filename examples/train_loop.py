"""ferry example (Python): feeding a PyTorch training loop.

uint8 images (a stand-in for a decoded dataset) go through ferry to normalized
float tensors, handed to PyTorch without a copy (torch.from_dlpack). On a GPU
the batch is ordered on PyTorch's current stream; on the CPU backend it runs
as is. Run: python3 train_loop.py [steps]
"""
import sys

import numpy as np
import torch

import ferry

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def main(steps: int = 5) -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(256, 32, 32, 3), dtype=np.uint8)
    labels = torch.from_numpy(rng.integers(0, 10, size=256))
    with ferry.Context() as ctx:
        device = "cuda" if ctx.device == ferry.Device.CUDA else "cpu"
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                    torch.nn.Linear(8, 10)).to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        stream = torch.cuda.current_stream() if device == "cuda" else None
        batch_size = 64
        for step in range(steps):
            start = (step * batch_size) % len(images)
            with ctx.submit(images[start:start + batch_size], mean=MEAN, std=STD, stream=stream) as batch:
                x = torch.from_dlpack(batch)  # NCHW float32, no copy
                y = labels[start:start + batch_size].to(device)
                loss = torch.nn.functional.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                print(f"step {step}: loss {loss.item():.4f} ({tuple(x.shape)} on {x.device})")
    print("ok")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
