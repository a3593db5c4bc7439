/* ferry bindings, Python: typemaps and helpers for the low-level module
 * ferry.ferry_swig. The public, Pythonic API (keyword arguments, enums,
 * buffers in, DLPack and array interfaces out) is the pure-Python package
 * around it (ferry/__init__.py).
 *
 * Built with `swig -threads`: every wrapped call releases the GIL while ferry
 * works or waits; the few helpers that touch Python objects are %nothread. */

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

/* ---- (values, count) from any Python sequence ---- */
%define FERRY_PY_SEQUENCE(CTYPE, CONVERT)
%typemap(in) (const CTYPE* values, size_t count) (CTYPE* temp = NULL) {
  if ($input == Py_None) {
    $1 = NULL; $2 = 0;
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
%typemap(freearg) (const CTYPE* values, size_t count) { free(temp$argnum); }
%enddef
FERRY_PY_SEQUENCE(float, PyFloat_AsDouble)
FERRY_PY_SEQUENCE(int, PyLong_AsLong)
FERRY_PY_SEQUENCE(long long, PyLong_AsLongLong)
FERRY_PY_SEQUENCE(uint8_t, PyLong_AsUnsignedLong)

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
/* The completion callback of submit_holding: drops the objects the batch
 * reads and writes (source, caller's output), once ferry is done with them. */
static void ferry_py_drop_held(ferry_batch_t, ferry_status, void* held) {
  ferry_py::decref_anywhere(static_cast<PyObject*>(held));
}
%}

/* ---- helpers that work on Python objects: they keep the GIL ---- */
%nothread set_error_classes;
%nothread dlpack_capsule;
%nothread ferry_context_s::submit_holding;
%newobject ferry_context_s::submit_holding;
%extend ferry_context_s {
  /* ferry_batch_submit, with `held` (the source and output objects) kept
   * alive by ferry until the batch completes or fails, however the Batch
   * object is dropped: a reference released by the completion callback. The
   * GIL is released while ferry_batch_submit runs. options must not set a
   * callback of its own. */
  ferry_batch_s* submit_holding(const ferry_source* source, const ferry_transform* transform,
                                const ferry_output* output, const ferry_submit_options* options,
                                PyObject* held) {
    ferry_submit_options with_callback;
    ferry_submit_options_init(&with_callback, sizeof with_callback);
    if (options != NULL) with_callback = *options;
    if (with_callback.callback != NULL)
      ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "options.callback is set: submit_holding uses its own");
    with_callback.callback = ferry_py_drop_held;
    with_callback.user_data = held;
    Py_INCREF(held);
    ferry_batch_t batch = NULL;
    ferry_status status;
    std::string message;
    Py_BEGIN_ALLOW_THREADS
    status = ferry_batch_submit(&batch, $self, source, transform, output, &with_callback);
    if (status != FERRY_OK) message = ferry_last_error();
    Py_END_ALLOW_THREADS
    if (status != FERRY_OK) {
      Py_DECREF(held);  /* no callback runs for a refused submit */
      throw ferry_binding::Error{status, message};
    }
    return batch;
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
%}
