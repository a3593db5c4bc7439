/* ferry's C# binding: random augmentation (ferry/augment.h, included by
 * ../ferry.i). Included by ferry_csharp.i; the C# side is src/Augment.cs
 * (Augment's array properties and drawn parameters, Transform.Augment,
 * Batch.Drawn, Context.Prefetch with an Augment) and src/AugmentParams.cs.
 *
 * The native part below (the struct's constructor, its float arrays by name,
 * the drawn array, ferry_augment_draw) is the same as Java's
 * (../java/ferry_java_augment.i); only the names and modifiers differ. */

%rename(Augment) ferry_augment;
%rename(AugmentCrop) ferry_augment_crop;
%rename(EraseFill) ferry_erase_fill;
%rename(JitterOp) ferry_jitter_op;
/* Crop keeps its prefix: Mirror.None and LetterboxAlign.Center share SWIG's one C scope. */
%rename(CropNone) FERRY_AUGMENT_CROP_NONE;
%rename(CropRandomResized) FERRY_AUGMENT_CROP_RANDOM_RESIZED;
%rename(CropRandom) FERRY_AUGMENT_CROP_RANDOM;
%rename(CropCenter) FERRY_AUGMENT_CROP_CENTER;
%rename(Value) FERRY_ERASE_VALUE;
%rename(Random) FERRY_ERASE_RANDOM;
%rename(Brightness) FERRY_JITTER_BRIGHTNESS;
%rename(Contrast) FERRY_JITTER_CONTRAST;
%rename(Saturation) FERRY_JITTER_SATURATION;
%rename(Hue) FERRY_JITTER_HUE;
/* The arrays through SetValues / ValueAt (src/Augment.cs); what was drawn through AugmentParams. */
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

/* The C# side of these classes is src/Augment.cs. */
%typemap(csclassmodifiers) ferry_augment "public partial class"
%typemap(csclassmodifiers) ferry_transform "public partial class"
%typemap(csclassmodifiers) ferry_batch_s "public partial class"
%typemap(csclassmodifiers) ferry_context_s "public partial class"
%csmethodmodifiers ferry_augment::set_values "internal";
%csmethodmodifiers ferry_augment::value_at "internal";
%csmethodmodifiers ferry_augment::reserve_drawn "internal";
%csmethodmodifiers ferry_augment::drawn_address "internal";
%csmethodmodifiers ferry_transform::set_augment_address "internal";
%csmethodmodifiers augment_params_layout "internal";
%csmethodmodifiers augment_draw "internal";

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
  ferry_augment() { return ferry_binding::new_struct(ferry_augment_init); }
  ~ferry_augment() {
    std::free($self->drawn);
    std::free($self);
  }
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
/* ferry_augment_params: its size (field 0) and the offsets of crop, flip,
 * grayscale, brightness, contrast, saturation, hue, jitter_order, erased and
 * erase (fields 1 to 10). */
long long augment_params_layout(int field) {
  const size_t layout[] = {sizeof(ferry_augment_params), offsetof(ferry_augment_params, crop),
                           offsetof(ferry_augment_params, flip), offsetof(ferry_augment_params, grayscale),
                           offsetof(ferry_augment_params, brightness), offsetof(ferry_augment_params, contrast),
                           offsetof(ferry_augment_params, saturation), offsetof(ferry_augment_params, hue),
                           offsetof(ferry_augment_params, jitter_order), offsetof(ferry_augment_params, erased),
                           offsetof(ferry_augment_params, erase)};
  return (long long)ferry_binding::get_fixed(layout, 11, field, "augment_params_layout");
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
