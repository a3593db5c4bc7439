/* ferry bindings, Python: references to Python objects that ferry's threads
 * let go of.
 *
 * ferry holds a batch's Python objects (its source, a caller's output) until
 * the batch completes, and a DLPack export holds a caller's output until its
 * consumer frees the tensor. Both are dropped from wherever ferry is then:
 * its completion thread, which has no GIL, or a thread of the caller's.
 *
 * A completed batch's objects are dropped later, by a Python thread
 * (release_later). The completion thread and the thread blocked in
 * ferry_batch_wait wake on the same device event; had the callback taken the
 * GIL to drop the objects, the waiter returning to Python would have found
 * it taken and waited for a hand-off: 10-20 us on an H200 host, more than
 * the module's own share of a one-image call (issue 11). The objects are
 * dropped at the next call into the binding that holds the GIL (a submit, a
 * gather, a context's close: release_deferred), or by the pending call the
 * first of them schedules, which the main thread runs between two bytecodes. */
#ifndef FERRY_BINDINGS_HELD_REFERENCES_H
#define FERRY_BINDINGS_HELD_REFERENCES_H

#include <Python.h>

#include <mutex>
#include <new>
#include <vector>

namespace ferry_py {

/* Whether Python objects may still be touched from a thread of ferry's. At
 * interpreter exit the reference is leaked instead (the process is ending). */
inline bool python_alive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

/* A thread of ferry's (the completion thread) keeps one Python thread state
 * for its life. PyGILState_Ensure on a thread without one creates it, and the
 * matching Release destroys it: on every completed batch, that cost more than
 * the decref itself. The first Ensure here is never released (its thread
 * state stays bound to the thread); the GIL is given back at once. A Python
 * thread has a thread state of its own and needs none. */
inline void keep_thread_state() {
  thread_local bool kept = false;
  if (kept || PyGILState_GetThisThreadState() != nullptr) return;
  (void)PyGILState_Ensure();
  (void)PyEval_SaveThread();
  kept = true;
}

/* Drops a Python reference now, from any thread (taking the GIL). */
inline void decref_anywhere(PyObject* object) {
  if (object == nullptr || !python_alive()) return;
  keep_thread_state();
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(object);
  PyGILState_Release(gil);
}

/* The references waiting for a Python thread. Never destroyed: ferry's
 * threads may queue one while the interpreter exits. */
struct Deferred {
  std::mutex mutex;
  std::vector<PyObject*> objects;
  bool scheduled = false;  // a pending call is queued that will drain them
};
inline Deferred& deferred() {
  static Deferred* queue = new Deferred;
  return *queue;
}

/* Drops every reference queued so far. With the GIL held. */
inline void release_deferred() {
  std::vector<PyObject*> objects;
  {
    std::lock_guard<std::mutex> lock(deferred().mutex);
    if (deferred().objects.empty()) return;
    objects.swap(deferred().objects);
    deferred().scheduled = false;
  }
  for (PyObject* object : objects) Py_DECREF(object);
}

inline int release_deferred_pending_call(void*) {
  release_deferred();
  return 0;
}

/* Drops a Python reference later, on a Python thread (see the top of this
 * file). From any thread, with or without the GIL. */
inline void release_later(PyObject* object) {
  if (object == nullptr || !python_alive()) return;
  bool queued = true, schedule = false;
  {
    std::lock_guard<std::mutex> lock(deferred().mutex);
    try {
      deferred().objects.push_back(object);
    } catch (const std::bad_alloc&) {
      queued = false;  // no room to queue it: dropped now, below
    }
    if (queued && !deferred().scheduled) schedule = deferred().scheduled = true;
  }
  if (!queued) {
    decref_anywhere(object);
    return;
  }
  // The interpreter's queue of pending calls may be full: the references stay queued for
  // the next release_deferred, and the next release_later tries to schedule again.
  if (schedule && Py_AddPendingCall(release_deferred_pending_call, nullptr) != 0) {
    std::lock_guard<std::mutex> lock(deferred().mutex);
    deferred().scheduled = false;
  }
}

}  // namespace ferry_py

#endif
