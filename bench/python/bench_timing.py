"""The Python benchmarks' host clock: whole runs of calls with the device
synchronized around them, so queued GPU work is counted, not hidden."""
import statistics
import time


def timed(torch, fn, iters, repeats):
    """Seconds per call of fn, the device synchronized around each run of iters calls; median of repeats."""
    fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - start) / iters)
    return statistics.median(runs)
