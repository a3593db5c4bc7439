"""GPU check of ferry's Python binding (run on an H100/H200 by hand):
torch.from_dlpack tensors feed a small model on the GPU without a copy (the
data pointers match), the hand-off stream orders the model after the batch,
and CuPy reads __cuda_array_interface__ with the same pointer and values.
Run: PYTHONPATH=<build>/bindings/python python3 bindings/python/gpu_check.py
Prints "gpu_check: ok" or raises."""
import os
import sys

import numpy as np
import torch

# This script lives beside the source package ferry/ (without its compiled
# module): keep Python from importing that instead of the built one.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != _here]
import ferry  # noqa: E402

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]


def reference(x):
    y = (torch.from_numpy(x).float() / 255 - torch.tensor(MEAN)) / torch.tensor(STD)
    return y.permute(0, 3, 1, 2).contiguous()


def main() -> None:
    assert ferry.device_count() > 0, "no CUDA device visible to ferry"
    images = np.random.default_rng(0).integers(0, 256, size=(64, 224, 224, 3), dtype=np.uint8)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU()).cuda()
    with ferry.Context(ferry.Device.CUDA) as ctx:
        stream = torch.cuda.current_stream()
        for dtype, tdtype, tol in [(ferry.DType.FLOAT32, torch.float32, 1e-5),
                                   (ferry.DType.FLOAT16, torch.float16, 2e-3),
                                   (ferry.DType.BFLOAT16, torch.bfloat16, 2e-2)]:
            with ctx.submit(images, dtype=dtype, mean=MEAN, std=STD, stream=stream) as batch:
                x = torch.from_dlpack(batch)
                assert x.is_cuda and x.dtype == tdtype and tuple(x.shape) == (64, 3, 224, 224)
                assert x.data_ptr() == batch.data_ptr, "torch.from_dlpack copied"
                out = model(x.float())
                torch.testing.assert_close(x.float().cpu(), reference(images), atol=tol * 50, rtol=tol)
                print(f"{dtype.name}: data_ptr 0x{x.data_ptr():x} == batch 0x{batch.data_ptr:x}, "
                      f"model out {tuple(out.shape)}")
        # A caller's device buffer as the destination.
        dst = torch.empty((64, 3, 224, 224), device="cuda", dtype=torch.float32)
        with ctx.submit(images, out=dst, mean=MEAN, std=STD, stream=stream) as batch:
            assert batch.data_ptr == dst.data_ptr()
            torch.testing.assert_close(dst.cpu(), reference(images), atol=1e-4, rtol=1e-5)
        try:
            import cupy
        except ImportError:
            print("cupy not installed: __cuda_array_interface__ check skipped")
        else:
            with ctx.submit(images, mean=MEAN, std=STD) as batch:
                cai = batch.__cuda_array_interface__
                assert cai["version"] == 3 and cai["typestr"] == "<f4"
                arr = cupy.asarray(batch)
                assert arr.data.ptr == batch.data_ptr, "cupy copied"
                np.testing.assert_allclose(cupy.asnumpy(arr), reference(images).numpy(), atol=1e-4, rtol=1e-5)
                print(f"cupy: __cuda_array_interface__ v3, data_ptr 0x{arr.data.ptr:x}, stream {cai['stream']}")
    print("gpu_check: ok")


if __name__ == "__main__":
    main()
