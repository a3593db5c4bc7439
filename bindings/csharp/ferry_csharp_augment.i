/* ferry's C# binding: random augmentation (ferry/augment.h, included by
 * ../ferry.i). Included by ferry_csharp.i; the C# side is src/Augment.cs
 * (Augment's array properties and drawn parameters, Transform.Augment,
 * Batch.Drawn, Context.Prefetch with an Augment) and src/AugmentParams.cs.
 *
 * The native part (the struct's constructor, its float arrays by name, the
 * drawn array, ferry_augment_draw) is ../ferry_augment_native.i, shared with
 * Java (../java/ferry_java_augment.i); this file gives its names and modifiers. */

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

/* Augment, AugmentCrop, EraseFill, JitterOp; the arrays through SetValues /
 * ValueAt (src/Augment.cs); what was drawn through AugmentParams. */
%include "ferry_augment_native.i"
