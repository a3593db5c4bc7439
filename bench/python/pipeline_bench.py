#!/usr/bin/env python3
"""PyTorch's host-to-GPU pipelines (the baselines the project measures against) beside
ferry's, measured in the same process on the same batch, in ONE table.

Batch: N x H x W x 3 uint8 NHWC in host memory; output: float NCHW on the GPU,
normalized with ImageNet mean/std. Every row is timed with CUDA events on the
current stream (ferry's batches hand off to it), warm-up first, median of
--repeats runs of --iters batches.

ferry is used through its Python module (`import ferry`) when that imports,
else through libferry.so with ctypes (--lib PATH, $FERRY_LIB, or the build
folders next to this file).

  python3 bench/python/pipeline_bench.py [--n 256 --h 224 --w 224] [--iters 20]
                                         [--repeats 5] [--lib build/libferry.so] [--json out.json]
"""
import argparse
import ctypes
import glob
import json
import os
import statistics
import sys

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)

# ---------------------------------------------------------------- ctypes ABI
# Mirrors of include/ferry/*.h (append-only structs: these field lists are the
# headers' own, in order).
c_size, c_i64, c_u64, c_int, c_float, c_vp = (ctypes.c_size_t, ctypes.c_int64, ctypes.c_uint64, ctypes.c_int,
                                              ctypes.c_float, ctypes.c_void_p)


class Source(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("data", c_vp), ("bytes", c_size), ("samples", c_vp),
                ("sample_bytes", c_size), ("n", c_i64), ("h", c_i64), ("w", c_i64), ("c", c_i64),
                ("layout", c_int), ("stride_n", c_i64), ("stride_c", c_i64), ("stride_h", c_i64),
                ("stride_w", c_i64)]


class Rect(ctypes.Structure):
    _fields_ = [("x", c_i64), ("y", c_i64), ("w", c_i64), ("h", c_i64)]


class Transform(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("out_dtype", c_int), ("out_layout", c_int), ("out_channels", c_int),
                ("channel_map", c_int * 4), ("pad_channels_to_4", c_int), ("pad_value", c_float),
                ("scale", c_float), ("mean", c_float * 4), ("std", c_float * 4), ("per_sample_mean", c_vp),
                ("per_sample_std", c_vp), ("crop", Rect), ("per_sample_crop", c_vp), ("mirror", c_int),
                ("per_sample_mirror", c_vp), ("per_sample_count", c_i64), ("pad_outside", c_int),
                ("fill_value", c_float)]


CALLBACK = ctypes.CFUNCTYPE(None, c_vp, c_int, c_vp)


class SubmitOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("handoff_stream", c_vp), ("has_handoff_stream", c_int),
                ("priority", c_int), ("source_policy", c_int), ("chunk_bytes", c_u64), ("callback", c_vp),
                ("user_data", c_vp)]


class ContextOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("device_kind", c_int), ("device_index", c_int), ("stream_count", c_int),
                ("high_priority_streams", c_int), ("pinned_cache_bytes", c_u64), ("pinned_prealloc_bytes", c_u64),
                ("pinned_wait_at_cap", c_int), ("registry_cache_bytes", c_u64), ("device_cache_bytes", c_u64),
                ("staging_threads", c_int), ("cpu_threads", c_int), ("chunk_bytes", c_u64),
                ("max_batches_in_flight", c_int), ("max_staging_bytes", c_u64), ("submit_nonblocking", c_int)]


DEVICE_CUDA, DTYPE_F32, DTYPE_F16, LAYOUT_NCHW = 2, 2, 3, 2
POLICY_AUTO, POLICY_STAGE, POLICY_REGISTER = 0, 1, 2


def find_lib(explicit):
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    candidates = [explicit, os.environ.get("FERRY_LIB")]
    candidates += sorted(glob.glob(os.path.join(root, "build*", "core", "libferry.so")))
    candidates += sorted(glob.glob(os.path.join(root, "build*", "libferry.so")))
    for c in candidates:
        if c and os.path.exists(c):
            return c
    return None


class CtypesFerry:
    """ferry through its C ABI: one CUDA context, pinned buffers, submit/hand-off/wait/release."""
    name = "ctypes"

    def __init__(self, lib_path):
        self.lib = ctypes.CDLL(lib_path)
        L = self.lib
        for fn, args in {
            "ferry_context_options_init": [c_vp, c_size], "ferry_context_create": [c_vp, c_vp],
            "ferry_context_destroy": [c_vp], "ferry_source_init": [c_vp, c_size],
            "ferry_transform_init": [c_vp, c_size], "ferry_submit_options_init": [c_vp, c_size],
            "ferry_batch_submit": [c_vp, c_vp, c_vp, c_vp, c_vp, c_vp], "ferry_batch_wait": [c_vp],
            "ferry_batch_release": [c_vp], "ferry_batch_handoff": [c_vp, c_vp],
            "ferry_memory_alloc_host": [c_vp, c_vp, c_size], "ferry_memory_free_host": [c_vp, c_vp],
            "ferry_memory_unregister_host": [c_vp, c_vp],
        }.items():
            getattr(L, fn).argtypes = args
            getattr(L, fn).restype = c_int
        L.ferry_last_error.restype = ctypes.c_char_p
        L.ferry_last_error.argtypes = []
        opts = ContextOptions()
        self.check(L.ferry_context_options_init(ctypes.byref(opts), ctypes.sizeof(opts)), "options_init")
        opts.device_kind = DEVICE_CUDA
        self.ctx = c_vp()
        self.check(L.ferry_context_create(ctypes.byref(self.ctx), ctypes.byref(opts)), "ferry_context_create")

    def check(self, status, what):
        if status != 0:
            raise RuntimeError(f"{what}: status {status}: {self.lib.ferry_last_error().decode()}")

    def transform(self, dtype):
        t = Transform()
        self.check(self.lib.ferry_transform_init(ctypes.byref(t), ctypes.sizeof(t)), "transform_init")
        t.out_dtype, t.out_layout = dtype, LAYOUT_NCHW
        for k in range(3):
            t.mean[k], t.std[k] = MEAN[k], STD[k]
        return t

    def host_alloc(self, nbytes):
        p = c_vp()
        self.check(self.lib.ferry_memory_alloc_host(ctypes.byref(p), self.ctx, nbytes), "ferry_memory_alloc_host")
        return p.value

    def host_free(self, ptr):
        self.lib.ferry_memory_free_host(self.ctx, c_vp(ptr))

    def unregister(self, ptr):
        self.lib.ferry_memory_unregister_host(self.ctx, c_vp(ptr))

    def submit(self, ptr, shape, transform, policy, stream):
        n, h, w, c = shape
        s = Source()
        self.lib.ferry_source_init(ctypes.byref(s), ctypes.sizeof(s))
        s.data, s.bytes, s.n, s.h, s.w, s.c = ptr, n * h * w * c, n, h, w, c
        o = SubmitOptions()
        self.lib.ferry_submit_options_init(ctypes.byref(o), ctypes.sizeof(o))
        o.source_policy = policy
        o.handoff_stream, o.has_handoff_stream = stream, 1
        b = c_vp()
        self.check(self.lib.ferry_batch_submit(ctypes.byref(b), self.ctx, ctypes.byref(s), ctypes.byref(transform),
                                               None, ctypes.byref(o)), "ferry_batch_submit")
        return b.value

    def finish(self, batch):
        self.check(self.lib.ferry_batch_wait(c_vp(batch)), "ferry_batch_wait")
        self.check(self.lib.ferry_batch_release(c_vp(batch)), "ferry_batch_release")

    def close(self):
        self.lib.ferry_context_destroy(self.ctx)


class ModuleFerry:
    """ferry through its Python module (SWIG bindings)."""
    name = "python module"

    def __init__(self, ferry):
        self.f = ferry
        self.ctx = ferry.Context(ferry.Device.CUDA)
        self.buffers = {}

    def transform(self, dtype):
        d = self.f.DType.FLOAT32 if dtype == DTYPE_F32 else self.f.DType.FLOAT16
        return self.f.Transform(dtype=d, layout=self.f.Layout.NCHW, mean=MEAN, std=STD)

    def host_alloc(self, nbytes):
        buf = self.ctx.host_alloc(nbytes)
        self.buffers[buf.address] = buf
        return buf.address

    def host_free(self, ptr):
        self.buffers.pop(ptr).close()

    def unregister(self, ptr):
        pass  # the arrays registered through the module are unregistered by it

    def submit(self, array, shape, transform, policy, stream):
        pol = {POLICY_AUTO: self.f.SourcePolicy.AUTO, POLICY_REGISTER: self.f.SourcePolicy.REGISTER}[policy]
        return self.ctx.submit(array, transform, stream=stream, source_policy=pol)

    def finish(self, batch):
        batch.wait()
        batch.close()

    def close(self):
        self.ctx.close()


# ---------------------------------------------------------------- the bench
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--h", type=int, default=224)
    ap.add_argument("--w", type=int, default=224)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--lib", default=None)
    ap.add_argument("--ctypes", action="store_true", help="use ctypes even if the ferry module imports")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"pipeline_bench: SKIPPED ({e})")
        return 0
    if not torch.cuda.is_available():
        print("pipeline_bench: SKIPPED (no CUDA device)")
        return 0

    dev = torch.device("cuda")
    shape = (a.n, a.h, a.w, 3)
    nbytes = a.n * a.h * a.w * 3
    host = torch.randint(0, 256, shape, dtype=torch.uint8)          # pageable
    pinned = host.pin_memory()                                      # pre-pinned (best practice)
    mean_gpu = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    std_gpu = torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    mean_cpu, std_cpu = mean_gpu.cpu(), std_gpu.cpu()
    stream = torch.cuda.current_stream()

    def gpu_norm(x, half=False):
        y = x.permute(0, 3, 1, 2).float().div_(255).sub_(mean_gpu).div_(std_gpu)
        return y.half() if half else y

    def timed(step, iters=a.iters, repeats=a.repeats, warmup=3, after=None):
        for _ in range(warmup):
            step(0)
        if after:
            after()
        torch.cuda.synchronize()
        runs = []
        for _ in range(repeats):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for i in range(iters):
                step(i)
            e.record()
            if after:
                after()
            e.synchronize()
            runs.append(s.elapsed_time(e) / iters)
        return statistics.median(runs)

    rows = []

    def add(name, ms, note=""):
        rows.append({"name": name, "ms_per_batch": ms, "gbps": nbytes / (ms / 1e3) / 1e9, "note": note})
        print(f"  measured {name}: {ms:.3f} ms", file=sys.stderr)

    dst_u8 = torch.empty(shape, dtype=torch.uint8, device=dev)
    add("pre-pinned copy alone (bus limit)", timed(lambda i: dst_u8.copy_(pinned, non_blocking=True)))
    add("CPU normalize fp32, pageable .to()",
        timed(lambda i: host.permute(0, 3, 1, 2).float().div(255).sub(mean_cpu).div(std_cpu).to(dev),
              iters=max(2, a.iters // 4), repeats=3, warmup=1))
    add("uint8 pageable .to() + GPU normalize fp32", timed(lambda i: gpu_norm(host.to(dev))))
    add("uint8 pin_memory() per batch + GPU normalize fp32",
        timed(lambda i: gpu_norm(host.pin_memory().to(dev, non_blocking=True))))
    add("uint8 pre-pinned + GPU normalize fp32 (best practice)",
        timed(lambda i: gpu_norm(pinned.to(dev, non_blocking=True))))
    add("uint8 pre-pinned + GPU normalize fp16", timed(lambda i: gpu_norm(pinned.to(dev, non_blocking=True), True)))

    # ferry, handing each batch off to torch's current stream.
    backend = None
    if not a.ctypes:
        try:
            import ferry as ferry_module
            backend = ModuleFerry(ferry_module)
        except Exception as e:  # not built, or no SWIG on this machine
            print(f"  ferry module not usable ({e.__class__.__name__}: {e}); using ctypes", file=sys.stderr)
    if backend is None:
        lib = find_lib(a.lib)
        if lib is None:
            print("pipeline_bench: libferry.so not found (--lib or FERRY_LIB); ferry rows left out", file=sys.stderr)
        else:
            backend = CtypesFerry(lib)
    if backend is not None:
        t32 = backend.transform(DTYPE_F32)
        t16 = backend.transform(DTYPE_F16)
        fpinned = backend.host_alloc(nbytes)
        ctypes.memmove(fpinned, host.data_ptr(), nbytes)
        pageable = [host.numpy().copy() for _ in range(4)]
        handle = stream.cuda_stream
        pending = []

        def ferry_step(source, transform, policy):
            def step(i):
                src = source(i)
                arg = src if isinstance(backend, ModuleFerry) else (src if isinstance(src, int) else src.ctypes.data)
                if isinstance(backend, ModuleFerry) and isinstance(src, int):
                    arg = np.ctypeslib.as_array((ctypes.c_uint8 * nbytes).from_address(src)).reshape(shape)
                pending.append(backend.submit(arg, shape, transform, policy, handle))
                while len(pending) > 4:
                    backend.finish(pending.pop(0))
            return step

        def drain():
            while pending:
                backend.finish(pending.pop(0))

        add(f"ferry pinned source, fp32 ({backend.name})",
            timed(ferry_step(lambda i: fpinned, t32, POLICY_AUTO), after=drain))
        add(f"ferry pinned source, fp16 ({backend.name})",
            timed(ferry_step(lambda i: fpinned, t16, POLICY_AUTO), after=drain))
        add(f"ferry pageable fresh, fp32 ({backend.name})",
            timed(ferry_step(lambda i: pageable[i % 4], t32, POLICY_AUTO), after=drain))
        add(f"ferry pageable reused/registered, fp32 ({backend.name})",
            timed(ferry_step(lambda i: pageable[i % 4], t32, POLICY_REGISTER), warmup=6, after=drain))
        for p in pageable:
            backend.unregister(p.ctypes.data)
        backend.host_free(fpinned)
        backend.close()

    limit = rows[0]["gbps"]
    best = next(r["gbps"] for r in rows if "best practice" in r["name"])
    print(f"\npipeline_bench: torch {torch.__version__} on {torch.cuda.get_device_name()}; batch {a.n}x{a.h}x{a.w}x3 "
          f"uint8 ({nbytes / 1e6:.1f} MB) -> normalized NCHW on the GPU; median of {a.repeats} x {a.iters}")
    print(f"{'pipeline':58s} {'ms/batch':>9s} {'GB/s':>8s} {'x limit':>8s} {'x best practice':>16s}")
    print("-" * 103)
    for r in rows:
        r["ratio_to_limit"] = r["gbps"] / limit
        r["ratio_to_best_practice"] = r["gbps"] / best
        print(f"{r['name']:58s} {r['ms_per_batch']:9.3f} {r['gbps']:8.2f} {r['ratio_to_limit']:8.3f} "
              f"{r['ratio_to_best_practice']:16.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "shape": list(shape),
                       "iters": a.iters, "repeats": a.repeats, "rows": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
