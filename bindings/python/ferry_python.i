/* ferry bindings, Python: typemaps and helpers for the low-level module
 * ferry.ferry_swig. The public, Pythonic API (keyword arguments, enums,
 * buffers in, DLPack and array interfaces out) is the pure-Python package
 * around it (ferry/__init__.py).
 *
 * Built with `swig -threads`, the GIL released only where ferry can block or
 * wait: the calls on a handle (they take ferry's locks, which a completion
 * thread may hold while it waits for the GIL to drop a held object) and the
 * device queries. Struct constructors and fields, and the pure functions,
 * keep it: releasing and taking it back costs more than they do, and lets
 * another thread in at every field of a descriptor. The helpers that touch
 * Python objects keep it too and release it themselves around ferry's call. */
%feature("nothread");
%thread device_count;
%thread device_properties;
%thread ferry_context_s::ferry_context_s;
%thread ferry_context_s::~ferry_context_s;
%thread ferry_context_s::device_kind;
%thread ferry_context_s::device_index;
%thread ferry_context_s::submit;
%thread ferry_context_s::convert;
%thread ferry_context_s::host_alloc;
%thread ferry_context_s::host_free;
%thread ferry_context_s::host_free_on_stream;
%thread ferry_context_s::host_register;
%thread ferry_context_s::host_unregister;
%thread ferry_context_s::device_alloc;
%thread ferry_context_s::device_free;
%thread ferry_context_s::memory_trim;
%thread ferry_context_s::stats;
%thread ferry_context_s::reset_stats;
%thread ferry_batch_s::~ferry_batch_s;
%thread ferry_batch_s::wait;
%thread ferry_batch_s::query;
%thread ferry_batch_s::stream_wait;
%thread ferry_batch_s::source_reusable;
%thread ferry_batch_s::wait_source;
%thread ferry_batch_s::output;
%thread retain_output;
%thread release_output;
%thread ferry_dataset_s::ferry_dataset_s;
%thread ferry_dataset_s::~ferry_dataset_s;
%thread ferry_dataset_s::info;
%thread ferry_dataset_s::source_index;
%thread ferry_dataset_s::epoch;
%thread ferry_dataset_s::gather;
%thread ferry_dataset_s::gather_device;
%thread ferry_dataset_s::source_indices;

%{
#include "dlpack_export.h"

/* status -> exception class, registered by ferry/_errors.py at import. */
static PyObject* ferry_py_error_classes = NULL;

static void ferry_py_raise(ferry_status status, const char* message) {
  PyObject* cls = NULL;
  if (ferry_py_error_classes != NULL) {
    PyObject* key = PyLong_FromLong((long)status);
    if (key != NULL) {
      cls = PyDict_GetItem(ferry_py_error_classes, key); /* borrowed */
      Py_DECREF(key);
    }
  }
  if (cls == NULL) cls = PyExc_RuntimeError;
  PyObject* args = Py_BuildValue("(si)", message, (int)status);
  if (args != NULL) {
    PyErr_SetObject(cls, args);
    Py_DECREF(args);
  }
}
#define FERRY_BINDING_RAISE(status, message, null_value) \
  do { ferry_py_raise(status, message); SWIG_fail; } while (0)

/* The item code of a buffer of one type in native byte order ('B', 'q', 'f',
 * ...), else 0 (a struct, another byte order). */
static char ferry_py_item_code(const Py_buffer& view) {
  const char* f = view.format;
  if (f == NULL) return 'B';
  const char native = PY_LITTLE_ENDIAN ? '<' : '>';
  if (f[0] == '@' || f[0] == '=' || f[0] == '|' || f[0] == native ||
      (view.itemsize == 1 && (f[0] == '<' || f[0] == '>')))  /* a byte has no order */
    ++f;
  return (f[0] != 0 && f[1] == 0) ? f[0] : 0;
}

/* *view over `obj` when it is a 1-D buffer (with `flags`) of items of `size`
 * bytes whose code is one of `codes`; false otherwise, nothing held and no
 * error set (the caller's other path then looks at the object). */
static bool ferry_py_typed_buffer(PyObject* obj, Py_buffer* view, int flags, size_t size, const char* codes) {
  if (!PyObject_CheckBuffer(obj)) return false;
  if (PyObject_GetBuffer(obj, view, flags) != 0) {
    PyErr_Clear();
    return false;
  }
  const char code = ferry_py_item_code(*view);
  if (view->ndim == 1 && (size_t)view->itemsize == size && code != 0 && std::strchr(codes, code) != NULL) return true;
  PyBuffer_Release(view);
  return false;
}
%}


/* ---- void*: an int address (None and 0 are NULL) ---- */
%typemap(in) void*, const void* {
  if ($input == Py_None) {
    $1 = NULL;
  } else if (PyLong_Check($input)) {
    $1 = ($1_ltype)PyLong_AsVoidPtr($input);
    if (PyErr_Occurred()) SWIG_fail;
  } else {
    PyErr_Format(PyExc_TypeError, "$1_name must be an int address or None, not %s",
                 Py_TYPE($input)->tp_name);
    SWIG_fail;
  }
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_POINTER) void*, const void* {
  $1 = ($input == Py_None || PyLong_Check($input)) ? 1 : 0;
}
%typemap(out) void*, const void* { $result = PyLong_FromVoidPtr((void*)$1); }

/* ---- (values, count): a buffer of CTYPE read in place, else any sequence ---- */
/* A 1-D C-contiguous buffer (NumPy array, array.array, a CPU tensor's
 * numpy()) of items of `size` bytes whose code (native byte order) is one of
 * `codes` is read where it lies: no per-element loop over Python objects.
 * Anything else (a list, a strided or other-typed array) takes the sequence
 * path, which converts (or refuses) item by item. */
%define FERRY_PY_SEQUENCE(CTYPE, CONVERT, CODES)
%typemap(in) (const CTYPE* values, size_t count) (CTYPE* temp = NULL, Py_buffer view, bool viewed = false) {
  if ($input == Py_None) {
    $1 = NULL; $2 = 0;
  } else if ((viewed = ferry_py_typed_buffer($input, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS, sizeof(CTYPE), CODES))) {
    $1 = (CTYPE*)view.buf; $2 = (size_t)(view.len / (Py_ssize_t)sizeof(CTYPE));
  } else {
    PyObject* seq = PySequence_Fast($input, "values must be a sequence");
    if (seq == NULL) SWIG_fail;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    temp = (CTYPE*)malloc((size_t)(n > 0 ? n : 1) * sizeof(CTYPE));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
      temp[i] = (CTYPE)CONVERT(item);
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) SWIG_fail;
    $1 = temp; $2 = (size_t)n;
  }
}
%typemap(freearg) (const CTYPE* values, size_t count) {
  free(temp$argnum);
  if (viewed$argnum) PyBuffer_Release(&view$argnum);
}
/* For the overloads SWIG makes of default arguments (Dataset.gather). */
%typemap(typecheck, precedence=SWIG_TYPECHECK_POINTER) (const CTYPE* values, size_t count) {
  $1 = ($input == Py_None || PySequence_Check($input) || PyObject_CheckBuffer($input)) ? 1 : 0;
}
%enddef
FERRY_PY_SEQUENCE(float, PyFloat_AsDouble, "f")
FERRY_PY_SEQUENCE(int, PyLong_AsLong, "i")
FERRY_PY_SEQUENCE(long long, PyLong_AsLongLong, "qln")
FERRY_PY_SEQUENCE(uint8_t, PyLong_AsUnsignedLong, "B")

/* ---- (out, count): ferry writes count int64 into a writable buffer ---- */
/* A 1-D C-contiguous writable int64 buffer (numpy.empty(n, numpy.int64), an
 * array.array('q'), a CPU int64 tensor's numpy()): count is its length. */
%typemap(in) (long long* out, size_t count) (Py_buffer view, bool viewed = false) {
  viewed = ferry_py_typed_buffer($input, &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS,
                                 sizeof(long long), "qln");
  if (!viewed) {
    PyErr_Format(PyExc_TypeError, "$1_name is a %s: a writable, contiguous, 1-D int64 buffer expected "
                 "(numpy.empty(n, numpy.int64))", Py_TYPE($input)->tp_name);
    SWIG_fail;
  }
  $1 = (long long*)view.buf; $2 = (size_t)(view.len / (Py_ssize_t)sizeof(long long));
}
%typemap(freearg) (long long* out, size_t count) {
  if (viewed$argnum) PyBuffer_Release(&view$argnum);
}

%typemap(in) (void* const* addresses, size_t count) (void** temp = NULL) {
  PyObject* seq = $input == Py_None ? NULL : PySequence_Fast($input, "addresses must be a sequence of int");
  if ($input != Py_None && seq == NULL) SWIG_fail;
  Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
  if (seq) {
    temp = (void**)malloc((size_t)(n > 0 ? n : 1) * sizeof(void*));
    for (Py_ssize_t i = 0; i < n; ++i) temp[i] = PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(seq, i));
    Py_DECREF(seq);
    if (PyErr_Occurred()) SWIG_fail;
  }
  $1 = temp; $2 = (size_t)n;
}
%typemap(freearg) (void* const* addresses, size_t count) { free(temp$argnum); }

/* submit_and_wait_source is for runtimes that pin arrays per call; Python
 * has ferry hold the source object instead (Context.submit_holding). */
%ignore ferry_context_s::submit_and_wait_source;

%{
/* The completion callback of submit_holding: the objects the batch reads
 * and writes (source, caller's output) are dropped by a Python thread once
 * ferry is done with them (held_references.h: never the GIL on ferry's
 * completion thread, which would contend with the waiter it wakes). */
static void ferry_py_drop_held(ferry_batch_t, ferry_status, void* held) {
  ferry_py::release_later(static_cast<PyObject*>(held));
}

/* A batch made by `launch(&batch, options)` (ferry_batch_submit,
 * ferry_dataset_gather) with `held` kept alive by ferry until the batch
 * completes or fails (a reference the completion callback drops), however
 * the Python Batch is dropped. Called with the GIL; releases it while ferry
 * works (a submit may block: staging, the in-flight bound). */
template <class Launch>
static ferry_batch_t ferry_py_launch_holding(const ferry_submit_options* options, PyObject* held, Launch launch) {
  ferry_submit_options with_callback;
  ferry_submit_options_init(&with_callback, sizeof with_callback);
  if (options != NULL) with_callback = *options;
  if (with_callback.callback != NULL)
    ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "options.callback is set: submit_holding uses its own");
  with_callback.callback = ferry_py_drop_held;
  with_callback.user_data = held;
  ferry_py::release_deferred();  /* earlier batches' objects, while the GIL is held anyway */
  Py_INCREF(held);
  ferry_batch_t batch = NULL;
  ferry_status status;
  std::string message;
  Py_BEGIN_ALLOW_THREADS
  status = launch(&batch, &with_callback);
  if (status != FERRY_OK) message = ferry_last_error();
  Py_END_ALLOW_THREADS
  if (status != FERRY_OK) {
    Py_DECREF(held);  /* no callback runs for a refused batch */
    throw ferry_binding::Error{status, message};
  }
  return batch;
}

/* ferry_batch_submit, holding `held` (ferry_py_launch_holding). */
static ferry_batch_t ferry_py_submit_holding(ferry_context_t ctx, const ferry_source* source,
                                             const ferry_transform* transform, const ferry_output* output,
                                             const ferry_submit_options* options, PyObject* held) {
  return ferry_py_launch_holding(options, held, [&](ferry_batch_t* batch, const ferry_submit_options* o) {
    return ferry_batch_submit(batch, ctx, source, transform, output, o);
  });
}

/* ferry_dataset_gather (host indices, read during the call) or, on_device,
 * ferry_dataset_gather_device (indices in the context's memory, read when the
 * gather runs), holding `held` (the caller's output, device indices). */
static ferry_batch_t ferry_py_gather_holding(ferry_dataset_t dataset, const void* indices, size_t count,
                                             bool on_device, const ferry_transform* transform,
                                             const ferry_output* output, const ferry_submit_options* options,
                                             PyObject* held) {
  const int64_t* at = static_cast<const int64_t*>(indices);
  return ferry_py_launch_holding(options, held, [&](ferry_batch_t* batch, const ferry_submit_options* o) {
    return on_device ? ferry_dataset_gather_device(batch, dataset, at, (int64_t)count, transform, output, o)
                     : ferry_dataset_gather(batch, dataset, at, (int64_t)count, transform, output, o);
  });
}

/* The source a uint8 buffer describes, as make_source (ferry/_descriptors.py)
 * makes it: (n, h, w, c) / (h, w, c) / (h, w), or (n, c, h, w) / (c, h, w) for
 * NCHW. False for what the general path must look at (another type, a flipped
 * or empty array): that path reports what is wrong, in one place. */
static bool ferry_py_source_from_buffer(ferry_source* src, const Py_buffer& view, int layout) {
  const bool u8 = view.itemsize == 1 && ferry_py_item_code(view) == 'B';
  if (!u8 || view.ndim < 2 || view.ndim > 4 || view.shape == NULL || view.strides == NULL) return false;
  int64_t extent = 1;
  for (int i = 0; i < view.ndim; ++i) {
    if (view.shape[i] <= 0 || view.strides[i] < 0) return false;
    extent += (int64_t)(view.shape[i] - 1) * view.strides[i];
  }
  const bool with_n = view.ndim == 4;
  const Py_ssize_t* shape = view.shape + (with_n ? 1 : 0);
  const Py_ssize_t* stride = view.strides + (with_n ? 1 : 0);
  const int sample_dims = view.ndim - (with_n ? 1 : 0);
  src->layout = (ferry_layout)layout;
  src->n = with_n ? view.shape[0] : 1;
  src->stride_n = with_n ? view.strides[0] : 0;
  if (sample_dims == 2) {
    src->h = shape[0]; src->w = shape[1]; src->c = 1;
    src->stride_h = stride[0]; src->stride_w = stride[1]; src->stride_c = 1;
  } else if (layout == FERRY_LAYOUT_NCHW) {
    src->c = shape[0]; src->h = shape[1]; src->w = shape[2];
    src->stride_c = stride[0]; src->stride_h = stride[1]; src->stride_w = stride[2];
  } else {
    src->h = shape[0]; src->w = shape[1]; src->c = shape[2];
    src->stride_h = stride[0]; src->stride_w = stride[1]; src->stride_c = stride[2];
  }
  src->data = view.buf;
  src->bytes = (size_t)extent;
  return true;
}
%}

/* ---- helpers that work on Python objects: they keep the GIL (and release
 * it themselves around the ferry call that can block) ---- */
%nothread set_error_classes;
%nothread dlpack_capsule;
%nothread release_held;
%nothread ferry_context_s::submit_holding;
%nothread ferry_context_s::submit_array;
%newobject ferry_context_s::submit_holding;
%newobject ferry_context_s::submit_array;
%nothread ferry_dataset_s::gather_holding;
%nothread ferry_dataset_s::gather_device_holding;
%newobject ferry_dataset_s::gather_holding;
%newobject ferry_dataset_s::gather_device_holding;
%extend ferry_context_s {
  /* ferry_batch_submit, with `held` (the source and output objects) kept
   * alive by ferry until the batch completes or fails, however the Batch
   * object is dropped. options must not set a callback of its own. */
  ferry_batch_s* submit_holding(const ferry_source* source, const ferry_transform* transform,
                                const ferry_output* output, const ferry_submit_options* options,
                                PyObject* held) {
    return ferry_py_submit_holding($self, source, transform, output, options, held);
  }
  /* Context.submit's common case in one crossing: `array` read through the
   * buffer protocol (uint8, 2 to 4 dimensions) and held, as a memoryview
   * (so a bytearray cannot be resized under ferry), until the batch
   * completes; the transform is built[(c, n)] (TransformSpec's cache of
   * built transforms); ferry writes its own output. Returns None, having
   * done nothing, where the general path must run: another kind of array, or
   * no transform built yet for this (c, n). handoff: None or a cudaStream_t. */
  ferry_batch_s* submit_array(PyObject* array, int layout, PyObject* built, PyObject* handoff, int priority,
                              int source_policy, unsigned long long chunk_bytes) {
    if (!PyDict_Check(built)) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "built is not a dict");
    PyObject* memory = PyMemoryView_FromObject(array);
    if (memory == NULL) {
      PyErr_Clear();
      return NULL;
    }
    ferry_source src;
    ferry_source_init(&src, sizeof src);
    ferry_transform* transform = NULL;
    PyObject* key = NULL;
    PyObject* spec = NULL;
    if (ferry_py_source_from_buffer(&src, *PyMemoryView_GET_BUFFER(memory), layout) &&
        (key = Py_BuildValue("(LL)", (long long)src.c, (long long)src.n)) != NULL) {
      spec = PyDict_GetItem(built, key); /* borrowed */
      if (spec != NULL && !SWIG_IsOK(SWIG_ConvertPtr(spec, (void**)&transform, SWIGTYPE_p_ferry_transform, 0)))
        transform = NULL;
    }
    Py_XDECREF(key);
    PyErr_Clear();
    if (transform == NULL) {
      Py_DECREF(memory);
      return NULL;
    }
    ferry_submit_options options;
    ferry_submit_options_init(&options, sizeof options);
    if (handoff != Py_None) {
      options.handoff_stream = (ferry_cuda_stream)PyLong_AsVoidPtr(handoff);
      options.has_handoff_stream = 1;
      if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_DECREF(memory);
        ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "handoff is not an int cudaStream_t");
      }
    }
    options.priority = priority;
    options.source_policy = (ferry_source_policy)source_policy;
    options.chunk_bytes = chunk_bytes;
    PyObject* held = PyTuple_Pack(2, memory, spec); /* the transform too, as submit_holding's callers do */
    Py_DECREF(memory);
    if (held == NULL) {
      PyErr_Clear();
      throw std::bad_alloc();
    }
    try {
      ferry_batch_t batch = ferry_py_submit_holding($self, &src, transform, NULL, &options, held);
      Py_DECREF(held);
      return batch;
    } catch (...) {
      Py_DECREF(held);
      throw;
    }
  }
}

%extend ferry_dataset_s {
  /* Dataset.gather with `held` (the caller's output object, the transform)
   * kept alive by ferry until the batch completes or fails, as submit_holding. */
  ferry_batch_s* gather_holding(const long long* values, size_t count, const ferry_transform* transform,
                                const ferry_output* output, const ferry_submit_options* options, PyObject* held) {
    return ferry_py_gather_holding($self, values, count, false, transform, output, options, held);
  }
  /* gather_holding with `count` int64 indices at the address `indices` in the
   * context's memory (Dataset.gather_device); `held` should hold them too. */
  ferry_batch_s* gather_device_holding(void* indices, size_t count, const ferry_transform* transform,
                                       const ferry_output* output, const ferry_submit_options* options,
                                       PyObject* held) {
    return ferry_py_gather_holding($self, indices, count, true, transform, output, options, held);
  }
  /* out[i] = source_index(i) for every sample i < count (= info().count): the
   * labels' gather map in one crossing instead of one call a sample. */
  void source_indices(long long* out, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      int64_t index = 0;
      ferry_binding::check(ferry_dataset_source_index(&index, $self, (int64_t)i));
      out[i] = index;
    }
  }
}

%inline %{
/* Registers {status int: exception class}; called once by ferry/_errors.py. */
void set_error_classes(PyObject* mapping) {
  if (!PyDict_Check(mapping)) {
    ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "mapping is not a dict");
  }
  Py_INCREF(mapping);
  Py_XDECREF(ferry_py_error_classes);
  ferry_py_error_classes = mapping;
}
/* A DLPack capsule ("dltensor", or "dltensor_versioned" when versioned) over
 * a new tensor reference to the batch's output (ferry/tensor.h): valid until
 * the consumer's deleter runs, whatever happens to the batch and the context.
 * `owner` (a caller's output object, or None) is kept until then too. */
PyObject* dlpack_capsule(ferry_batch_s* batch, PyObject* owner, bool versioned) {
  return ferry_py::make_dlpack_capsule(batch, owner == Py_None ? NULL : owner, versioned);
}
/* ferry_tensor_retain: a tensor reference as an int id, for objects that
 * export the output by address (the array interfaces); release_output ends it. */
unsigned long long retain_output(ferry_batch_s* batch) {
  ferry_tensor_t reference = NULL;
  ferry_binding::check(ferry_tensor_retain(&reference, batch));
  return (unsigned long long)(uintptr_t)reference;
}
/* ferry_tensor_release; never raises (used from __del__). */
void release_output(unsigned long long reference) {
  (void)ferry_tensor_release((ferry_tensor_t)(uintptr_t)reference);
}
/* Drops now the objects of completed batches that wait for a Python thread
 * (held_references.h); Context.close() calls it once its batches are done. */
void release_held() {
  ferry_py::release_deferred();
}
%}

/* Random augmentation: ferry.Augment's description and its per-call helpers. */
%include "ferry_python_augment.i"
