/* ferry bindings, Python: random augmentation (ferry/augment.h), included by
 * ferry_python.i (whose ferry_py_submit_holding submits and ferry_py_gather_holding
 * gathers).
 *
 * ferry_swig.Augment is the description the public ferry.Augment builds
 * (ferry/_augment.py): its constructor calls ferry_augment_init, the [2] and
 * [4] array fields take set_<field>(values). What changes per call (the step,
 * the `drawn` array) is not stored in it: submit_augmented, convert_augmented
 * and transform_output_info_augmented copy the transform and the description
 * onto the stack, set transform.augment, step and drawn there, and call ferry
 * (which reads them during the call only), so one description serves threads
 * and loaders at once. Drawn parameters land in a NumPy structured array laid
 * out as ferry_augment_params (augment_params_layout gives its offsets). */

/* Augment's constructor and destructor, its hidden fields and
 * ferry_augment_params_layout: ../ferry_augment_native.i. */
%include "ferry_augment_native.i"

%define FERRY_PY_AUGMENT_ARRAY(FIELD, SIZE)
  void set_##FIELD(const float* values, size_t count) {
    ferry_binding::set_fixed($self->FIELD, SIZE, values, count, "augment." #FIELD);
  }
  float FIELD##_at(int index) const { return ferry_binding::get_fixed($self->FIELD, SIZE, index, "augment." #FIELD); }
%enddef
%extend ferry_augment {
  FERRY_PY_AUGMENT_ARRAY(scale, 2)
  FERRY_PY_AUGMENT_ARRAY(ratio, 2)
  FERRY_PY_AUGMENT_ARRAY(brightness, 2)
  FERRY_PY_AUGMENT_ARRAY(contrast, 2)
  FERRY_PY_AUGMENT_ARRAY(saturation, 2)
  FERRY_PY_AUGMENT_ARRAY(hue, 2)
  FERRY_PY_AUGMENT_ARRAY(erase_scale, 2)
  FERRY_PY_AUGMENT_ARRAY(erase_ratio, 2)
  FERRY_PY_AUGMENT_ARRAY(erase_value, 4)
}

%{
#include <memory>
/* The transform and augmentation of one call, on the caller's stack: ferry
 * reads transform.augment (and writes drawn) during the call only. */
struct ferry_py_augmented {
  ferry_transform transform;
  ferry_augment augment;
  ferry_py_augmented(const ferry_transform* t, const ferry_augment* a, unsigned long long step, void* drawn) {
    if (t == NULL) ferry_transform_init(&transform, sizeof transform);
    else transform = *t;  /* shallow: its arrays stay the caller's */
    if (a == NULL) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "augment is null");
    augment = *a;
    augment.step = step;
    augment.drawn = static_cast<ferry_augment_params*>(drawn);
    augment.drawn_stride = 0;
    transform.augment = &augment;
  }
};
%}

%nothread ferry_context_s::submit_augmented;
%newobject ferry_context_s::submit_augmented;
%thread ferry_context_s::convert_augmented;
%nothread ferry_dataset_s::gather_augmented;
%nothread ferry_dataset_s::gather_device_augmented;
%nothread ferry_dataset_s::gather_device_capsule;
%newobject ferry_dataset_s::gather_augmented;
%newobject ferry_dataset_s::gather_device_augmented;
%newobject transform_output_info_augmented;
%extend ferry_context_s {
  /* submit_holding with `augment` at `step`, its n draws written to `drawn`
   * (an array of n ferry_augment_params, or None) before this returns. */
  ferry_batch_s* submit_augmented(const ferry_source* source, const ferry_transform* transform,
                                  const ferry_output* output, const ferry_submit_options* options, PyObject* held,
                                  const ferry_augment* augment, unsigned long long step, void* drawn) {
    ferry_py_augmented call(transform, augment, step, drawn);
    return ferry_py_submit_holding($self, source, &call.transform, output, options, held);
  }
  /* ferry_transform_apply with `augment` at `step` (drawn as for submit_augmented). */
  void convert_augmented(const ferry_source* source, const ferry_transform* transform, const ferry_output* output,
                         ferry_cuda_stream stream, const ferry_augment* augment, unsigned long long step,
                         void* drawn) {
    ferry_py_augmented call(transform, augment, step, drawn);
    ferry_binding::check(ferry_transform_apply($self, source, &call.transform, output, stream));
  }
}

%extend ferry_dataset_s {
  /* gather_holding with `augment` at `step` (drawn as for submit_augmented). */
  ferry_batch_s* gather_augmented(const long long* values, size_t count, const ferry_transform* transform,
                                  const ferry_output* output, const ferry_submit_options* options, PyObject* held,
                                  const ferry_augment* augment, unsigned long long step, void* drawn) {
    ferry_py_augmented call(transform, augment, step, drawn);
    return ferry_py_gather_holding($self, values, count, false, &call.transform, output, options, held);
  }
  /* gather_device_holding with `augment` at `step`. */
  ferry_batch_s* gather_device_augmented(void* indices, size_t count, const ferry_transform* transform,
                                         const ferry_output* output, const ferry_submit_options* options,
                                         PyObject* held, const ferry_augment* augment, unsigned long long step,
                                         void* drawn) {
    ferry_py_augmented call(transform, augment, step, drawn);
    return ferry_py_gather_holding($self, indices, count, true, &call.transform, output, options, held);
  }
  /* ResidentLoader's gather in one crossing, the GIL dropped once: a gather
   * of `count` device indices into ferry's output (augment None: none),
   * handed off at submit to `handoff` (None: none), holding `held` as
   * gather_device_holding does; its output exported as an unversioned DLPack
   * capsule (a tensor reference, as dlpack_capsule's) and the batch
   * released. The Batch object, its export and its close would take and drop
   * the GIL five times, and each time a busy training thread may have to give
   * it up (ferry/_ahead.py). */
  PyObject* gather_device_capsule(void* indices, size_t count, const ferry_transform* transform, PyObject* handoff,
                                  PyObject* held, const ferry_augment* augment, unsigned long long step,
                                  void* drawn) {
    ferry_submit_options options;
    ferry_submit_options_init(&options, sizeof options);
    if (handoff != Py_None) {
      options.handoff_stream = static_cast<ferry_cuda_stream>(PyLong_AsVoidPtr(handoff));
      if (PyErr_Occurred()) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "handoff is not a cudaStream_t int");
      options.has_handoff_stream = 1;
    }
    options.callback = ferry_py_drop_held;
    options.user_data = held;
    ferry_py::release_deferred();  /* earlier batches' objects, while the GIL is held anyway */
    ferry_transform plain;
    if (transform == NULL) ferry_transform_init(&plain, sizeof plain);
    std::unique_ptr<ferry_py_augmented> call;
    if (augment != NULL) call.reset(new ferry_py_augmented(transform, augment, step, drawn));
    const ferry_transform* used = call ? &call->transform : transform != NULL ? transform : &plain;
    Py_INCREF(held);
    ferry_batch_t batch = NULL;
    ferry_py::Export* exported = NULL;
    ferry_binding::Error failed{FERRY_OK, std::string()};
    Py_BEGIN_ALLOW_THREADS
    failed.status = ferry_dataset_gather_device(&batch, $self, static_cast<const int64_t*>(indices), (int64_t)count,
                                                used, NULL, &options);
    if (failed.status != FERRY_OK) {
      failed.message = ferry_last_error();
    } else {
      try {
        exported = ferry_py::export_output(batch);
      } catch (const ferry_binding::Error& e) {
        failed = e;
      } catch (const std::bad_alloc&) {
        failed = ferry_binding::Error{FERRY_ERR_OUT_OF_MEMORY, "no memory for the output's export"};
      }
      (void)ferry_batch_release(batch);  /* the export's reference holds the output */
    }
    Py_END_ALLOW_THREADS
    if (batch == NULL) Py_DECREF(held);  /* refused: no callback runs */
    if (failed.status != FERRY_OK) throw failed;
    return ferry_py::capsule_of(exported, NULL, false);
  }
}

%inline %{
/* ferry_transform_describe_output with `augment` (its fields checked as a call would). */
ferry_tensor_info* transform_output_info_augmented(const ferry_source* source, const ferry_transform* transform,
                                                   const ferry_augment* augment) {
  ferry_py_augmented call(transform, augment, augment ? augment->step : 0, NULL);
  ferry_tensor_info* info = ferry_binding::new_struct(ferry_tensor_info_init);
  ferry_status status = ferry_transform_describe_output(info, source, &call.transform);
  if (status != FERRY_OK) std::free(info);
  ferry_binding::check(status);
  return info;
}
/* ferry_augment_draw at `step`: n samples, h and w the addresses of n int64
 * each, into `out` (the address of n ferry_augment_params). */
void augment_draw(const ferry_augment* augment, unsigned long long step, long long n, void* h, void* w,
                  long long out_w, long long out_h, void* out) {
  if (augment == NULL) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "augment is null");
  ferry_augment at = *augment;
  at.step = step;
  ferry_binding::check(ferry_augment_draw(&at, n, static_cast<const int64_t*>(h), static_cast<const int64_t*>(w),
                                          out_w, out_h, static_cast<ferry_augment_params*>(out), 0));
}
/* ferry_augment_params' size and field offsets (ferry_augment_params_layout),
 * for a NumPy dtype of it: (size, crop, flip, grayscale, brightness, contrast,
 * saturation, hue, jitter_order, erased, erase). */
PyObject* augment_params_layout() {
  const size_t* t = ferry_augment_params_layout;
  return Py_BuildValue("(nnnnnnnnnnn)", (Py_ssize_t)t[0], (Py_ssize_t)t[1], (Py_ssize_t)t[2], (Py_ssize_t)t[3],
                       (Py_ssize_t)t[4], (Py_ssize_t)t[5], (Py_ssize_t)t[6], (Py_ssize_t)t[7], (Py_ssize_t)t[8],
                       (Py_ssize_t)t[9], (Py_ssize_t)t[10]);
}
%}
