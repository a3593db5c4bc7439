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
 * keeps the source object alive instead (see ferry/_batch.py). */
%ignore ferry_context_s::submit_and_wait_source;

/* ---- helpers that work on Python objects: they keep the GIL ---- */
%nothread set_error_classes;
%nothread dlpack_capsule;
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
 * the tensor `info` describes; the capsule holds a reference to `owner` (the
 * Batch) until the consumer's deleter runs. */
PyObject* dlpack_capsule(const ferry_tensor_info* info, PyObject* owner, bool versioned) {
  return ferry_py::make_dlpack_capsule(info, owner, versioned);
}
%}
