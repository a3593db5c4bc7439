/* ferry bindings: the descriptor structs that point to arrays (Source,
 * Transform) and the array fields of Transform and TensorInfo.
 *
 * Arrays are passed as (values, count) pairs; each language maps its own
 * arrays onto them (Python sequences, Java arrays, C# arrays). The struct
 * keeps a heap copy that its destructor frees, so a caller's array may go
 * away right after the call. ferry reads these arrays during submit/convert
 * and output_info, never later. */

/* ---- Source -------------------------------------------------------------- */
%extend ferry_source {
  ferry_source() { return ferry_binding::new_struct(ferry_source_init); }
  ~ferry_source() {
    std::free(const_cast<void**>($self->samples));
    std::free(const_cast<ferry_sample_desc*>($self->sample_descs));
    std::free($self);
  }
  /* One pointer (address) per sample; each sample holds sample_bytes bytes.
   * Replaces `data`: ferry reads the samples when `samples` is set. */
  void set_samples(void* const* addresses, size_t count) {
    void** copy = ferry_binding::copy_array(addresses, count, "addresses");
    std::free(const_cast<void**>($self->samples));
    $self->samples = copy;
    $self->n = static_cast<int64_t>(count);
  }
  /* Back to one buffer (`data`). */
  void clear_samples() {
    std::free(const_cast<void**>($self->samples));
    $self->samples = NULL;
  }
  /* Samples of different sizes (ferry_source.sample_descs): per sample, 7
   * values (address, bytes, h, w, stride_c, stride_h, stride_w), flattened;
   * sets n. c and the layout are the batch's; data, h, w and the strides stay 0. */
  void set_sample_descs(const long long* values, size_t count) {
    if (count % 7 != 0)
      ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "sample_descs has ", count,
                          " values: 7 (address, bytes, h, w, stride_c, stride_h, stride_w) per sample are required");
    long long* flat = ferry_binding::copy_array(values, count, "sample_descs");
    const size_t n = count / 7;
    ferry_sample_desc* descs = static_cast<ferry_sample_desc*>(std::calloc(n, sizeof(ferry_sample_desc)));
    if (descs == NULL) {
      std::free(flat);
      throw std::bad_alloc();
    }
    for (size_t i = 0; i < n; ++i) {
      const long long* v = flat + 7 * i;
      descs[i].data = reinterpret_cast<const void*>(static_cast<intptr_t>(v[0]));
      descs[i].bytes = static_cast<size_t>(v[1]);
      descs[i].h = v[2], descs[i].w = v[3];
      descs[i].stride_c = v[4], descs[i].stride_h = v[5], descs[i].stride_w = v[6];
    }
    std::free(flat);
    std::free(const_cast<ferry_sample_desc*>($self->sample_descs));
    $self->sample_descs = descs;
    $self->n = static_cast<int64_t>(n);
  }
  /* A frame's planes (ferry_source.plane_offset / plane_pitch, for a format
   * other than CHANNELS): 1 to 3 values, plane 0 first; the rest become 0. */
  void set_plane_offsets(const long long* values, size_t count) {
    int64_t planes[3] = {0, 0, 0};
    ferry_binding::set_fixed(planes, 3, reinterpret_cast<const int64_t*>(values), count, "plane_offsets");
    for (int k = 0; k < 3; ++k) $self->plane_offset[k] = planes[k];
  }
  void set_plane_pitches(const long long* values, size_t count) {
    int64_t planes[3] = {0, 0, 0};
    ferry_binding::set_fixed(planes, 3, reinterpret_cast<const int64_t*>(values), count, "plane_pitches");
    for (int k = 0; k < 3; ++k) $self->plane_pitch[k] = planes[k];
  }
  long long plane_offset_at(int index) const {
    return ferry_binding::get_fixed($self->plane_offset, 3, index, "plane_offset");
  }
  long long plane_pitch_at(int index) const { return ferry_binding::get_fixed($self->plane_pitch, 3, index, "plane_pitch"); }
  size_t sample_count() const { return $self->samples ? static_cast<size_t>($self->n) : 0; }
  void* sample_at(size_t index) const {
    if ($self->samples == NULL || index >= static_cast<size_t>($self->n))
      ferry_binding::fail(FERRY_ERR_OUT_OF_RANGE, "index is ", index, ": the source has ",
                          $self->samples ? $self->n : 0, " sample pointers");
    return const_cast<void*>($self->samples[index]);
  }
}

/* ---- Transform ------------------------------------------------------------ */
%extend ferry_transform {
  ferry_transform() { return ferry_binding::new_struct(ferry_transform_init); }
  ~ferry_transform() {
    std::free(const_cast<float*>($self->per_sample_mean));
    std::free(const_cast<float*>($self->per_sample_std));
    std::free(const_cast<ferry_rect*>($self->per_sample_crop));
    std::free(const_cast<uint8_t*>($self->per_sample_mirror));
    std::free(const_cast<ferry_rectf*>($self->per_sample_window));
    std::free($self);
  }
  /* channel_map[0..count): output channel k reads input channel values[k]. */
  void set_channel_map(const int* values, size_t count) {
    ferry_binding::set_fixed($self->channel_map, 4, values, count, "channel_map");
  }
  int channel_map_at(int index) const {
    return ferry_binding::get_fixed($self->channel_map, 4, index, "channel_map");
  }
  /* mean / std per output channel (1 to 4 values). */
  void set_mean(const float* values, size_t count) {
    ferry_binding::set_fixed($self->mean, 4, values, count, "mean");
  }
  float mean_at(int index) const { return ferry_binding::get_fixed($self->mean, 4, index, "mean"); }
  void set_std(const float* values, size_t count) {
    ferry_binding::set_fixed($self->std, 4, values, count, "std");
  }
  float std_at(int index) const { return ferry_binding::get_fixed($self->std, 4, index, "std"); }

  /* Per-sample arrays: rows of out_channels floats, one row per sample;
   * `samples` becomes per_sample_count (it must equal the batch's n). */
  void set_per_sample_mean(const float* values, size_t count, int64_t samples) {
    float* copy = ferry_binding::copy_array(values, count, "per_sample_mean");
    std::free(const_cast<float*>($self->per_sample_mean));
    $self->per_sample_mean = copy;
    $self->per_sample_count = samples;
  }
  void set_per_sample_std(const float* values, size_t count, int64_t samples) {
    float* copy = ferry_binding::copy_array(values, count, "per_sample_std");
    std::free(const_cast<float*>($self->per_sample_std));
    $self->per_sample_std = copy;
    $self->per_sample_count = samples;
  }
  /* x, y, w, h per sample, flattened: count is 4 * samples. (long long, not
   * int64_t: SWIG's stdint.i names int64_t long long on every target.) */
  void set_per_sample_crop(const long long* values, size_t count) {
    if (count % 4 != 0)
      ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "per_sample_crop has ", count,
                          " values: 4 (x, y, w, h) per sample are required");
    long long* copy = ferry_binding::copy_array(values, count, "per_sample_crop");
    std::free(const_cast<ferry_rect*>($self->per_sample_crop));
    $self->per_sample_crop = reinterpret_cast<ferry_rect*>(copy);
    $self->per_sample_count = static_cast<int64_t>(count / 4);
  }
  /* ferry_mirror bits per sample. */
  void set_per_sample_mirror(const uint8_t* values, size_t count) {
    uint8_t* copy = ferry_binding::copy_array(values, count, "per_sample_mirror");
    std::free(const_cast<uint8_t*>($self->per_sample_mirror));
    $self->per_sample_mirror = copy;
    $self->per_sample_count = static_cast<int64_t>(count);
  }
  int64_t per_sample_count() const { return $self->per_sample_count; }

  /* Resize: the bars' value per output channel, in output units (1 value:
   * every channel; 2 to 4: one per output channel). */
  void set_letterbox_value(const float* values, size_t count) {
    if (values != NULL && count == 1) {
      for (int k = 0; k < 4; ++k) $self->letterbox_value[k] = values[0];
    } else {
      ferry_binding::set_fixed($self->letterbox_value, 4, values, count, "letterbox_value");
    }
  }
  float letterbox_value_at(int index) const {
    return ferry_binding::get_fixed($self->letterbox_value, 4, index, "letterbox_value");
  }
  /* Resize: a fractional window x, y, w, h per sample, flattened: count is 4 * samples. */
  void set_per_sample_window(const float* values, size_t count) {
    if (count % 4 != 0)
      ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "per_sample_window has ", count,
                          " values: 4 (x, y, w, h) per sample are required");
    float* copy = ferry_binding::copy_array(values, count, "per_sample_window");
    std::free(const_cast<ferry_rectf*>($self->per_sample_window));
    $self->per_sample_window = reinterpret_cast<ferry_rectf*>(copy);
    $self->per_sample_count = static_cast<int64_t>(count / 4);
  }
}

/* ---- TensorInfo: shape and strides in memory-layout order ----------------- */
%extend ferry_tensor_info {
  int64_t shape_at(int index) const {
    return ferry_binding::get_fixed($self->shape, 4, index, "shape");
  }
  /* In bytes. */
  int64_t stride_at(int index) const {
    return ferry_binding::get_fixed($self->strides, 4, index, "strides");
  }
}
