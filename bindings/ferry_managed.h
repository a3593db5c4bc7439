/* ferry bindings, Java and C#: C++ helpers the two managed bindings share
 * (java/ferry_java.i and csharp/ferry_csharp.i wrap them; Python has its own).
 *
 * - check_value_lengths: Transform's array setters remember how many values
 *   they were given; at submit, where the source's channel count is known,
 *   every length is checked against the channels the transform writes.
 * - submit_with_callback: ferry_batch_submit with the completion callback that
 *   drops the binding's hold on a managed source (a JNI global reference, a
 *   pinned GCHandle) once ferry no longer reads it.
 * - describe_tensor / describe_batch: the text of toString() / ToString().
 * Only the public C ABI, like ferry_support.h. */
#ifndef FERRY_BINDINGS_MANAGED_H
#define FERRY_BINDINGS_MANAGED_H

#include "ferry_support.h"

#include <cstdint>
#include <sstream>
#include <string>

namespace ferry_binding {

/* How many values each Transform array setter was given; 0: never set. */
struct ValueLengths {
  int64_t mean, std, per_sample_mean, per_sample_std, per_sample_crop, per_sample_mirror;
  int64_t letterbox_value, per_sample_window; /* resize */
};

/* mean or std as written: 1 value fills every channel; 2 to 4 values are
 * one per output channel (how many channels is checked at submit). */
inline void set_channel_values(float* field, const float* values, size_t count, const char* name) {
  if (values == nullptr)
    fail(FERRY_ERR_INVALID_ARGUMENT, name, " is null: give 1 value (for every channel) or one per output channel");
  if (count == 0 || count > 4)
    fail(FERRY_ERR_INVALID_ARGUMENT, name, " has ", count, " values but an output has 1 to 4 channels: give 1 value",
         " (for every channel) or one per output channel");
  for (size_t i = 0; i < 4; ++i)
    if (count == 1 || i < count) field[i] = values[count == 1 ? 0 : i];
}

/* The channels mean and std apply to: the transform's out_channels, or the
 * source's c. 0 where either is out of range (ferry's own checks say why). */
inline int normalized_channels(const ferry_source& source, const ferry_transform& transform) {
  const int64_t channels = transform.out_channels != 0 ? transform.out_channels : source.c;
  return channels >= 1 && channels <= 4 ? static_cast<int>(channels) : 0;
}

/* mean and std: 1 value (every channel) or one per channel; each per-sample
 * array: one row per sample (per_sample_count rows). */
inline void check_value_lengths(const ferry_source* source, const ferry_transform* transform,
                                const ValueLengths& lengths) {
  if (source == nullptr || transform == nullptr) return;
  const int channels = normalized_channels(*source, *transform);
  if (channels == 0) return;
  const char* padded = transform->pad_channels_to_4 && channels < 4
                           ? " (then padded to 4 with pad_value, which mean and std do not apply to)"
                           : "";
  auto per_channel = [&](const char* name, int64_t length) {
    if (length == 0 || length == 1 || length == channels) return;
    fail(FERRY_ERR_INVALID_ARGUMENT, name, " has ", length, " values but the output has ", channels,
         " channels", padded, ": give 1 value (for every channel) or ", channels);
  };
  per_channel("mean", lengths.mean);
  per_channel("std", lengths.std);
  per_channel("letterbox_value", lengths.letterbox_value);
  const int64_t rows = transform->per_sample_count;
  auto per_sample = [&](const char* name, int64_t length, int64_t row, const char* row_name) {
    if (length == 0 || length == rows * row) return;
    fail(FERRY_ERR_INVALID_ARGUMENT, name, " has ", length, " values but ", rows, " samples (per_sample_count) of ",
         row, " ", row_name, " need ", rows * row);
  };
  per_sample("per_sample_mean", lengths.per_sample_mean, channels, "channels");
  per_sample("per_sample_std", lengths.per_sample_std, channels, "channels");
  per_sample("per_sample_crop", lengths.per_sample_crop, 4, "values (x, y, w, h)");
  per_sample("per_sample_mirror", lengths.per_sample_mirror, 1, "value");
  per_sample("per_sample_window", lengths.per_sample_window, 4, "values (x, y, w, h)");
}

/* ferry_batch_submit with callback(batch, status, user_data) called exactly
 * once, from a ferry thread, when the batch completes or fails; never called
 * when this throws (the caller then drops user_data itself). */
inline ferry_batch_t submit_with_callback(ferry_context_t ctx, const ferry_source* source,
                                          const ferry_transform* transform, const ferry_output* output,
                                          const ferry_submit_options* options, ferry_batch_callback callback,
                                          void* user_data) {
  ferry_submit_options with_callback;
  if (options != nullptr) {
    with_callback = *options; /* the binding's structs are always the current size */
  } else {
    check(ferry_submit_options_init(&with_callback, sizeof with_callback));
  }
  with_callback.callback = callback;
  with_callback.user_data = user_data;
  ferry_batch_t batch = nullptr;
  check(ferry_batch_submit(&batch, ctx, source, transform, output, &with_callback));
  return batch;
}

inline const char* dtype_name(ferry_dtype dtype) {
  switch (dtype) {
    case FERRY_DTYPE_UINT8: return "uint8";
    case FERRY_DTYPE_FLOAT32: return "float32";
    case FERRY_DTYPE_FLOAT16: return "float16";
    case FERRY_DTYPE_BFLOAT16: return "bfloat16";
  }
  return "dtype?";
}

/* "float32 NCHW [2, 3, 224, 224] on CPU, 1204224 bytes at 0x7f..." */
inline std::string describe_tensor(const ferry_tensor_info& info) {
  std::ostringstream text;
  text << dtype_name(info.dtype) << (info.layout == FERRY_LAYOUT_NHWC ? " NHWC [" : " NCHW [");
  for (int i = 0; i < info.ndim && i < 4; ++i) text << (i ? ", " : "") << info.shape[i];
  text << "] on " << (info.device_kind == FERRY_DEVICE_CUDA ? "CUDA:" : "CPU");
  if (info.device_kind == FERRY_DEVICE_CUDA) text << info.device_index;
  text << ", " << info.bytes << " bytes at " << info.data << " (strides";
  for (int i = 0; i < info.ndim && i < 4; ++i) text << (i ? ", " : " ") << info.strides[i];
  text << ")";
  return text.str();
}

/* "complete, float32 NCHW [...]", "in flight, ...", "failed (FERRY_ERR_...), ...",
 * or "released" for a closed or destroyed handle. Never throws a ferry error. */
inline std::string describe_batch(ferry_batch_t batch) {
  const ferry_status state = ferry_batch_query(batch);
  if (state == FERRY_ERR_INVALID_HANDLE) return "released";
  std::ostringstream text;
  if (state == FERRY_OK) text << "complete";
  else if (state == FERRY_ERR_NOT_READY) text << "in flight";
  else text << "failed (" << ferry_status_string(state) << ")";
  ferry_tensor_info info;
  if (ferry_tensor_info_init(&info, sizeof info) == FERRY_OK &&
      ferry_batch_describe_output(&info, batch) == FERRY_OK)
    text << ", " << describe_tensor(info);
  return text.str();
}

}  // namespace ferry_binding

#endif /* FERRY_BINDINGS_MANAGED_H */
