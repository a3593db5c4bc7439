/* ferry bindings, Python: a batch's output as a DLPack capsule.
 *
 * The DLPack structs are declared here as the ABI-stable layout of dlpack.h
 * (v1.x; https://github.com/dmlc/dlpack): a legacy DLManagedTensor, or a
 * DLManagedTensorVersioned when the consumer passes max_version >= (1, 0).
 * The manager context holds a ferry tensor reference (ferry/tensor.h), so the
 * memory lives until the consumer calls the deleter, whether the batch and
 * its context are still open or not; for a caller's own output it also holds
 * that Python object. The deleter may run on any thread, with or without the
 * GIL: releasing the reference needs no Python. */
#ifndef FERRY_BINDINGS_DLPACK_EXPORT_H
#define FERRY_BINDINGS_DLPACK_EXPORT_H

#include <Python.h>

#include "ferry/ferry.h"
#include "ferry_support.h"
#include "held_references.h"

namespace ferry_py {

struct DLDevice { int32_t device_type; int32_t device_id; };
struct DLDataType { uint8_t code; uint8_t bits; uint16_t lanes; };
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides; /* in elements */
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion { uint32_t major; uint32_t minor; };
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

enum { kDLCPU = 1, kDLCUDA = 2 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 };

/* One export: the shape and strides the tensor points to, and its owners. */
struct Export {
  ferry_tensor_t tensor;
  PyObject* owner; /* the caller's output object, or NULL */
  int64_t shape[4];
  int64_t strides[4];
  DLManagedTensor legacy;
  DLManagedTensorVersioned versioned;
};

inline void release_export(Export* e) {
  if (e == nullptr) return;
  (void)ferry_tensor_release(e->tensor);
  decref_anywhere(e->owner);
  delete e;
}
inline void delete_legacy(DLManagedTensor* t) { release_export(static_cast<Export*>(t->manager_ctx)); }
inline void delete_versioned(DLManagedTensorVersioned* t) {
  release_export(static_cast<Export*>(t->manager_ctx));
}

/* A capsule nobody consumed is freed with it. */
inline void legacy_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (t != nullptr && t->deleter != nullptr) t->deleter(t);
  }
}
inline void versioned_capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    if (t != nullptr && t->deleter != nullptr) t->deleter(t);
  }
}

inline DLDataType dl_dtype(ferry_dtype dtype) {
  switch (dtype) {
    case FERRY_DTYPE_UINT8: return DLDataType{kDLUInt, 8, 1};
    case FERRY_DTYPE_FLOAT32: return DLDataType{kDLFloat, 32, 1};
    case FERRY_DTYPE_FLOAT16: return DLDataType{kDLFloat, 16, 1};
    case FERRY_DTYPE_BFLOAT16: return DLDataType{kDLBfloat, 16, 1};
  }
  ferry_binding::fail(FERRY_ERR_UNSUPPORTED, "dtype is ", static_cast<int>(dtype),
                      ": no DLPack type for it");
}

/* A new reference to the batch's output and its DLPack description. Touches
 * no Python object, so it may run without the GIL (ResidentLoader's gather
 * exports and releases its batch in the one span without it). Throws
 * ferry_binding::Error on a description DLPack cannot carry. */
inline Export* export_output(ferry_batch_t batch) {
  ferry_tensor_t reference = NULL;
  ferry_binding::check(ferry_tensor_retain(&reference, batch));
  Export* e = new (std::nothrow) Export{};
  if (e == nullptr) {
    (void)ferry_tensor_release(reference);
    throw std::bad_alloc();
  }
  e->tensor = reference;
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  ferry_status status = ferry_tensor_describe(&info, reference);
  if (status != FERRY_OK) {
    const std::string message = ferry_last_error();
    release_export(e);
    throw ferry_binding::Error{status, message};
  }
  try {
    if (info.ndim < 1 || info.ndim > 4)
      ferry_binding::fail(FERRY_ERR_INTERNAL, "info.ndim is ", info.ndim, ": 1 to 4 expected");
    DLTensor tensor{};
    tensor.data = info.data;
    tensor.dtype = dl_dtype(info.dtype);
    const int64_t item = tensor.dtype.bits / 8;
    tensor.device = info.device_kind == FERRY_DEVICE_CUDA ? DLDevice{kDLCUDA, info.device_index} : DLDevice{kDLCPU, 0};
    for (int i = 0; i < info.ndim; ++i) {
      if (info.strides[i] % item != 0)
        ferry_binding::fail(FERRY_ERR_UNSUPPORTED, "strides[", i, "] is ", info.strides[i],
                            " bytes: not a multiple of the element size ", item);
      e->shape[i] = info.shape[i];
      e->strides[i] = info.strides[i] / item;
    }
    tensor.ndim = info.ndim;
    tensor.shape = e->shape;
    tensor.strides = e->strides;
    e->legacy.dl_tensor = tensor;
    e->versioned.dl_tensor = tensor;
    return e;
  } catch (...) {
    release_export(e);
    throw;
  }
}

/* The capsule over an export (consumed: the capsule's deleter releases it).
 * `owner` (a caller's output object, or NULL) is kept until the deleter runs.
 * Called with the GIL held. */
inline PyObject* capsule_of(Export* e, PyObject* owner, bool versioned) {
  Py_XINCREF(owner);
  e->owner = owner;
  PyObject* capsule = nullptr;
  if (versioned) {
    e->versioned.version = DLPackVersion{1, 0};
    e->versioned.manager_ctx = e;
    e->versioned.deleter = delete_versioned;
    e->versioned.flags = 0;
    capsule = PyCapsule_New(&e->versioned, "dltensor_versioned", versioned_capsule_destructor);
  } else {
    e->legacy.manager_ctx = e;
    e->legacy.deleter = delete_legacy;
    capsule = PyCapsule_New(&e->legacy, "dltensor", legacy_capsule_destructor);
  }
  if (capsule == nullptr) {
    PyErr_Clear();
    release_export(e);
    throw std::bad_alloc();
  }
  return capsule;
}

/* A capsule over a new reference to the batch's output. `owner` (a caller's
 * output object, or NULL) is kept until the deleter runs. Called with the
 * GIL held. Throws ferry_binding::Error on a description DLPack cannot carry. */
inline PyObject* make_dlpack_capsule(ferry_batch_t batch, PyObject* owner, bool versioned) {
  return capsule_of(export_output(batch), owner, versioned);
}

}  // namespace ferry_py

#endif /* FERRY_BINDINGS_DLPACK_EXPORT_H */
