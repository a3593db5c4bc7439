"""Results made `depth` ahead on a thread of their own (ResidentLoader's gathers).

In a training loop the loader's host work competes with the model's for the
one Python thread that enqueues both. Measured on an H200 host (ResNet-18,
64x64, batch 256; the step takes about 10 ms of host time, the GPU less): a
gather with its augmentation, its torch tensor and its release took 105 us
back to back but 350-450 us between training steps (the caller's caches
cold after a step), 4% of the step. Made here on a worker thread, each
batch costs the caller's thread only a queue's get: ferry's calls release
the GIL, and torch's backward pass, which runs without it, leaves the worker
milliseconds a step.
"""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Iterator

from ._batch import Batch
from ._errors import FerryError

_END = object()


class _Failed:
    """An exception raised while making a result, raised on the caller's thread in its turn."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def release(batch: Batch) -> None:
    """Waits for a batch nobody will see (its error is not the one to report) and releases it."""
    try:
        batch.wait()
    except FerryError:
        pass
    finally:
        batch.close()


def made_ahead(make: Callable[[int], Any], count: int, depth: int,
               discard: Callable[[Any], None]) -> Iterator[Any]:
    """make(0) .. make(count - 1), made in order on a worker thread, at most
    `depth` made and not yet taken by the caller. An exception from make
    reaches the caller after the results made before it. Closing this
    generator (a loop left early, an error) stops the worker and passes each
    result made and not taken to discard.

    The worker makes them in bursts of depth // 2, once there is room for a
    whole burst: made back to back they find the caches warm, and the worker
    is woken once a burst, not once a result (each wake-up takes the GIL,
    which the caller's thread must then give up)."""
    ready: "queue.Queue[Any]" = queue.Queue()
    burst = max(1, depth // 2)
    room = threading.Condition()
    free = [depth]  # results the worker may make now (guarded by room)
    wanted = [burst]  # what the worker waits for (guarded by room)
    stop = threading.Event()

    def wait_for_burst(want: int) -> bool:
        with room:
            wanted[0] = want
            while free[0] < want:
                if stop.is_set():
                    return False
                room.wait(0.05)
            free[0] -= want
            return not stop.is_set()

    def work() -> None:
        try:
            k = 0
            while k < count:
                want = min(burst, count - k)
                if not wait_for_burst(want):
                    return
                for _ in range(want):
                    if stop.is_set():
                        return
                    ready.put(make(k))
                    k += 1
            ready.put(_END)
        except BaseException as e:  # noqa: B902: the caller's thread raises it
            ready.put(_Failed(e))

    worker = threading.Thread(target=work, name="ferry-loader-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item = ready.get()
            with room:
                free[0] += 1
                if free[0] == wanted[0]:
                    room.notify()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item
    finally:
        stop.set()
        with room:
            room.notify()
        worker.join()
        while not ready.empty():
            item = ready.get_nowait()
            if item is not _END and not isinstance(item, _Failed):
                discard(item)
