/* ferry bindings, Python: a batch's output as a DLPack capsule.
 *
 * The DLPack structs are declared here as the ABI-stable layout of dlpack.h
 * (v1.x; https://github.com/dmlc/dlpack): a legacy DLManagedTensor, or a
 * DLManagedTensorVersioned when the consumer passes max_version >= (1, 0).
 * The manager context holds a reference to the Python Batch, so the batch
 * (and the memory ferry gave it) lives until the consumer's tensor is freed.
 * The deleter may run on any thread, with or without the GIL. */
#ifndef FERRY_BINDINGS_DLPACK_EXPORT_H
#define FERRY_BINDINGS_DLPACK_EXPORT_H

#include <Python.h>

#include "ferry/ferry.h"
#include "ferry_support.h"

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

/* One export: the shape and strides the tensor points to, and the owner. */
struct Export {
  PyObject* owner;
  int64_t shape[4];
  int64_t strides[4];
  DLManagedTensor legacy;
  DLManagedTensorVersioned versioned;
};

inline void release_export(Export* e) {
  if (e == nullptr) return;
  if (Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(e->owner);
    PyGILState_Release(gil);
  }
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

/* Throws ferry_binding::Error on a description DLPack cannot carry. */
inline PyObject* make_dlpack_capsule(const ferry_tensor_info* info, PyObject* owner, bool versioned) {
  if (info == nullptr) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "info is null");
  if (info->ndim < 1 || info->ndim > 4)
    ferry_binding::fail(FERRY_ERR_INTERNAL, "info.ndim is ", info->ndim, ": 1 to 4 expected");
  DLTensor tensor{};
  tensor.data = info->data;
  tensor.dtype = dl_dtype(info->dtype);
  const int64_t item = tensor.dtype.bits / 8;
  if (info->device_kind == FERRY_DEVICE_CUDA) {
    tensor.device = DLDevice{kDLCUDA, info->device_index};
  } else {
    tensor.device = DLDevice{kDLCPU, 0};
  }
  Export* e = new Export{};
  for (int i = 0; i < info->ndim; ++i) {
    if (info->strides[i] % item != 0) {
      delete e;
      ferry_binding::fail(FERRY_ERR_UNSUPPORTED, "strides[", i, "] is ", info->strides[i],
                          " bytes: not a multiple of the element size ", item);
    }
    e->shape[i] = info->shape[i];
    e->strides[i] = info->strides[i] / item;
  }
  tensor.ndim = info->ndim;
  tensor.shape = e->shape;
  tensor.strides = e->strides;
  Py_XINCREF(owner);
  e->owner = owner;
  PyObject* capsule = nullptr;
  if (versioned) {
    e->versioned.version = DLPackVersion{1, 0};
    e->versioned.manager_ctx = e;
    e->versioned.deleter = delete_versioned;
    e->versioned.flags = 0;
    e->versioned.dl_tensor = tensor;
    capsule = PyCapsule_New(&e->versioned, "dltensor_versioned", versioned_capsule_destructor);
  } else {
    e->legacy.dl_tensor = tensor;
    e->legacy.manager_ctx = e;
    e->legacy.deleter = delete_legacy;
    capsule = PyCapsule_New(&e->legacy, "dltensor", legacy_capsule_destructor);
  }
  if (capsule == nullptr) {
    PyErr_Clear();
    Py_XDECREF(e->owner);
    delete e;
    throw std::bad_alloc();
  }
  return capsule;
}

}  // namespace ferry_py

#endif /* FERRY_BINDINGS_DLPACK_EXPORT_H */
