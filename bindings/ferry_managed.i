/* ferry bindings, Java and C#: what the two managed bindings add to ferry.i
 * (included by java/ferry_java.i and csharp/ferry_csharp.i; helpers in
 * ferry_managed.h). Each language file defines, before including this one:
 *
 *   static void ferry_managed_release_hold(void* hold);
 *
 * which lets go of a hold on a managed source (Java: a JNI global reference
 * to the direct ByteBuffer; C#: a pinned GCHandle of the byte[]).
 * Also here: the calls behind Tensor (Java's Tensor.java, C#'s Tensor.cs). */

%{
#include "ferry_managed.h"

/* The completion callback of every submit that holds a source: ferry no
 * longer reads it. Called once, from a ferry thread (or the submitting one). */
static void ferry_managed_batch_done(ferry_batch_t, ferry_status, void* hold) {
  ferry_managed_release_hold(hold);
}
%}

%include <std_string.i>

/* ---- submit that keeps a managed source alive until ferry is done ---- */
%newobject ferry_context_s::submit_holding;
%extend ferry_context_s {
  /* ferry_batch_submit; `hold` (NULL: none) is given back to
   * ferry_managed_release_hold exactly once: by the completion callback, or
   * here when the submit fails. hold_data (not NULL): the source's pixels are
   * there, hold_bytes long (C#: the array the hold pins), not at source->data. */
  ferry_batch_s* submit_holding(const ferry_source* source, const ferry_transform* transform,
                                const ferry_output* output, const ferry_submit_options* options, void* hold,
                                const void* hold_data = NULL, size_t hold_bytes = 0) {
    try {
      ferry_source with_data;
      if (source != NULL && hold_data != NULL) {
        with_data = *source;
        with_data.data = hold_data;
        with_data.bytes = hold_bytes;
        with_data.samples = NULL;
        source = &with_data;
      }
      if (hold == NULL) {
        ferry_batch_t batch = NULL;
        ferry_binding::check(ferry_batch_submit(&batch, $self, source, transform, output, options));
        return batch;
      }
      return ferry_binding::submit_with_callback($self, source, transform, output, options,
                                                 ferry_managed_batch_done, hold);
    } catch (...) {
      ferry_managed_release_hold(hold);
      throw;
    }
  }
}

/* ---- Source: back from samples of different sizes (Java's and C#'s setImages) ---- */
%extend ferry_source {
  /* Drops sample_descs (ferry_source.sample_descs), as a source of one buffer needs. */
  void clear_sample_descs() {
    std::free(const_cast<ferry_sample_desc*>($self->sample_descs));
    $self->sample_descs = NULL;
  }
}

/* ---- Transform: mean/std as written ---- */
%extend ferry_transform {
  /* 1 value: every channel; 2 to 4: one per output channel (checked at submit
   * by check_value_lengths, where the channel count is known). */
  void set_mean_values(const float* values, size_t count) {
    ferry_binding::set_channel_values($self->mean, values, count, "mean");
  }
  void set_std_values(const float* values, size_t count) {
    ferry_binding::set_channel_values($self->std, values, count, "std");
  }
  /* Lengths the managed setters were given (0: not set); see ferry_managed.h. */
  void check_value_lengths(const ferry_source* source, long long mean, long long std, long long per_sample_mean,
                           long long per_sample_std, long long per_sample_crop, long long per_sample_mirror,
                           long long letterbox_value, long long per_sample_window) const {
    ferry_binding::ValueLengths lengths{mean, std, per_sample_mean, per_sample_std, per_sample_crop,
                                        per_sample_mirror, letterbox_value, per_sample_window};
    ferry_binding::check_value_lengths(source, $self, lengths);
  }
}

/* ---- descriptions for toString() / ToString() ---- */
%extend ferry_tensor_info {
  std::string describe() const { return ferry_binding::describe_tensor(*$self); }
}
%extend ferry_batch_s {
  std::string describe() { return ferry_binding::describe_batch($self); }
}

/* ---- tensor references (ferry/tensor.h): Java's and C#'s Tensor ---- */
%extend ferry_batch_s {
  /* ferry_tensor_retain: a new reference to the output, as an address;
   * tensor_release it exactly once. */
  void* retain_output_reference() {
    ferry_tensor_t tensor = NULL;
    ferry_binding::check(ferry_tensor_retain(&tensor, $self));
    return tensor;
  }
}
%extend ferry_tensor_info {
  /* Fills this description from a tensor reference (ferry_tensor_describe). */
  void describe_reference(void* tensor) {
    ferry_binding::check(ferry_tensor_describe($self, static_cast<ferry_tensor_t>(tensor)));
  }
}
%inline %{
/* ferry_tensor_release: never blocks. */
void tensor_release(void* tensor) {
  ferry_binding::check(ferry_tensor_release(static_cast<ferry_tensor_t>(tensor)));
}
%}
