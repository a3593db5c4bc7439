/* ferry bindings: the native side of random augmentation (ferry/augment.h,
 * included by ferry.i), shared by python/ferry_python_augment.i,
 * java/ferry_java_augment.i and csharp/ferry_csharp_augment.i. Each of them
 * gives its names and modifiers for the declarations below, includes this
 * file, and then wraps them in its language.
 *
 * All three: ferry_augment as Augment, its constructor ferry_augment_init and
 * its destructor (freeing the drawn array the struct owns: Java's and C#'s
 * reserve_drawn; Python never sets it, its drawn travels in per-call copies);
 * the array and drawn fields hidden (each language offers its own access);
 * ferry_augment_params's size and field offsets (ferry_augment_params_layout).
 *
 * Java and C# (the managed bindings): the float arrays by C name (set_values,
 * value_at), the drawn array (reserve_drawn, drawn_address), transform.augment
 * (set_augment_address), augment_params_layout(field) and augment_draw.
 * Python's own per-call copies, accessors and draw are in its file. */

%rename(Augment) ferry_augment;
%ignore ferry_augment::scale;
%ignore ferry_augment::ratio;
%ignore ferry_augment::brightness;
%ignore ferry_augment::contrast;
%ignore ferry_augment::saturation;
%ignore ferry_augment::hue;
%ignore ferry_augment::erase_scale;
%ignore ferry_augment::erase_ratio;
%ignore ferry_augment::erase_value;
%ignore ferry_augment::drawn;
%ignore ferry_augment::drawn_stride;
%ignore ferry_augment_params;
%ignore ferry_transform::augment;

%{
/* ferry_augment_params: its size (entry 0) and the offsets of crop, flip,
 * grayscale, brightness, contrast, saturation, hue, jitter_order, erased and
 * erase (entries 1 to 10), for each language's view of a drawn array. */
static const size_t ferry_augment_params_layout[11] = {
    sizeof(ferry_augment_params), offsetof(ferry_augment_params, crop),
    offsetof(ferry_augment_params, flip), offsetof(ferry_augment_params, grayscale),
    offsetof(ferry_augment_params, brightness), offsetof(ferry_augment_params, contrast),
    offsetof(ferry_augment_params, saturation), offsetof(ferry_augment_params, hue),
    offsetof(ferry_augment_params, jitter_order), offsetof(ferry_augment_params, erased),
    offsetof(ferry_augment_params, erase)};
%}

%extend ferry_augment {
  ferry_augment() { return ferry_binding::new_struct(ferry_augment_init); }
  ~ferry_augment() {
    std::free($self->drawn);
    std::free($self);
  }
}

#if defined(SWIGJAVA) || defined(SWIGCSHARP)
%rename(AugmentCrop) ferry_augment_crop;
%rename(EraseFill) ferry_erase_fill;
%rename(JitterOp) ferry_jitter_op;

%{
/* A float array field of ferry_augment by its C name: the [2] ranges, erase_value[4]. */
static float* ferry_augment_field(ferry_augment* a, const std::string& field, size_t* size) {
  *size = 2;
  if (field == "scale") return a->scale;
  if (field == "ratio") return a->ratio;
  if (field == "brightness") return a->brightness;
  if (field == "contrast") return a->contrast;
  if (field == "saturation") return a->saturation;
  if (field == "hue") return a->hue;
  if (field == "erase_scale") return a->erase_scale;
  if (field == "erase_ratio") return a->erase_ratio;
  *size = 4;
  if (field == "erase_value") return a->erase_value;
  ferry_binding::fail(FERRY_ERR_INTERNAL, "augment has no float array ", field);
}
%}

%extend ferry_augment {
  /* A range: exactly 2 values (lo, hi); erase_value: 1 (every channel) to 4. */
  void set_values(const char* field, const float* values, size_t count) {
    size_t size = 0;
    float* target = ferry_augment_field($self, field, &size);
    const std::string name = std::string("augment.") + field;
    if (values != NULL && size == 2 && count != 2)
      ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, name, " has ", count, " values: a range is 2 (lo, hi)");
    if (values != NULL && count == 1) {
      for (size_t k = 0; k < size; ++k) target[k] = values[0];
    } else {
      ferry_binding::set_fixed(target, size, values, count, name.c_str());
    }
  }
  float value_at(const char* field, int index) {
    size_t size = 0;
    const float* values = ferry_augment_field($self, field, &size);
    return ferry_binding::get_fixed(values, static_cast<int>(size), index, field);
  }
  /* drawn: room for n samples (0: none, not written); the entries start at 0. */
  void reserve_drawn(long long n) {
    if (n < 0 || n > (1LL << 31))
      ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "augment.drawn is asked for ", n, " samples: 0 to 2^31");
    std::free($self->drawn);
    $self->drawn = NULL;
    $self->drawn_stride = 0;
    if (n == 0) return;
    $self->drawn = static_cast<ferry_augment_params*>(std::calloc((size_t)n, sizeof(ferry_augment_params)));
    if ($self->drawn == NULL) throw std::bad_alloc();
  }
  void* drawn_address() { return $self->drawn; }
}

%extend ferry_transform {
  /* transform.augment: the Augment's struct, or NULL. */
  void set_augment_address(ferry_augment* augment) { $self->augment = augment; }
}

%inline %{
/* ferry_augment_params_layout[field]: the size (0), an offset (1 to 10). */
long long augment_params_layout(int field) {
  return (long long)ferry_binding::get_fixed(ferry_augment_params_layout, 11, field, "augment_params_layout");
}
/* ferry_augment_draw: values holds the n heights, then the n widths; out is
 * the address of out_bytes bytes, room for n ferry_augment_params. */
void augment_draw(const ferry_augment* augment, const long long* values, size_t count, long long out_w,
                  long long out_h, void* out, size_t out_bytes) {
  const size_t n = count / 2;
  if (count % 2 != 0 || n * sizeof(ferry_augment_params) > out_bytes)
    ferry_binding::fail(FERRY_ERR_INTERNAL, "augment_draw: ", count, " sizes and ", out_bytes, " bytes out");
  const int64_t* h = n == 0 ? NULL : reinterpret_cast<const int64_t*>(values);
  ferry_binding::check(ferry_augment_draw(augment, (int64_t)n, h, h == NULL ? NULL : h + n, out_w, out_h,
                                          static_cast<ferry_augment_params*>(out), 0));
}
%}
#endif
