/* ferry: one SWIG interface over the public C header (include/ferry/ferry.h) for
 * Python, Java and C#. Each language adds its typemaps and names in its own
 * file (python/ferry_python.i, java/ferry_java.i, csharp/ferry_csharp.i),
 * included below; this file holds what all of them share:
 *
 * - the opaque handles as classes (%extend): Context and Batch. Their
 *   destructors call ferry_context_destroy / ferry_batch_release, so each
 *   language's deterministic release (close(), Dispose(), a with block) frees
 *   them at once; the garbage collector is only the safety net.
 * - the option and descriptor structs as classes whose constructors call the
 *   struct's _init (so struct_size and the defaults are always right).
 * - every non-OK status as the language's exception for that status, with
 *   ferry_last_error()'s message (FERRY_BINDING_RAISE, from the language file).
 * - every `void*` (host, pinned, device pointers) and ferry_cuda_stream (a
 *   cudaStream_t) as an integer address in the language (Python int, Java
 *   long, C# IntPtr): a stream from another library passes as its handle's
 *   value (torch.cuda.Stream.cuda_stream, CuPy's Stream.ptr).
 *
 * Every function of the C header is reachable: the raw ferry_* functions are
 * hidden and offered as methods (see the table at the end of this file). */

%{
#include "ferry/ferry.h"
#include "ferry_support.h"
%}

/* SWIG only parses the header; the export attribute means nothing to it. */
#define FERRY_STATIC_DEFINE

%include <stdint.i>

/* Every call: a ferry status other than OK becomes the language's exception.
 * FERRY_BINDING_RAISE(status, message, null_value) is a C macro of each
 * language file: set the exception, leave the wrapper. */
%define FERRY_EXCEPTION_BODY

  try {
    $action
  } catch (const ferry_binding::Error& e) {
    FERRY_BINDING_RAISE(e.status, e.message.c_str(), $null);
  } catch (const std::bad_alloc&) {
    FERRY_BINDING_RAISE(FERRY_ERR_OUT_OF_MEMORY, "the binding is out of host memory", $null);
  }
%enddef
#if defined(SWIGCSHARP)
/* C#: canthrow, so the proxies check the pending exception. */
%feature("except", canthrow=1) { FERRY_EXCEPTION_BODY }
#else
%exception { FERRY_EXCEPTION_BODY }
#endif

/* Language files: typemaps for void*, arrays, buffers; names; FERRY_BINDING_RAISE. */
#if defined(SWIGPYTHON)
%include "ferry_python.i"
#elif defined(SWIGJAVA)
%include "ferry_java.i"
#elif defined(SWIGCSHARP)
%include "ferry_csharp.i"
#endif
/* A stream is an address like any other: the language's void* typemaps. */
%apply void* { ferry_cuda_stream };

/* ---- names ------------------------------------------------------------- */
%rename(Status) ferry_status;
%rename(DeviceKind) ferry_device_kind;
%rename(DType) ferry_dtype;
%rename(Layout) ferry_layout;
%rename(Mirror) ferry_mirror;
%rename(SourcePolicy) ferry_source_policy;
%rename(MemoryKind) ferry_memory_kind;
%rename(Context) ferry_context_s;
%rename(Batch) ferry_batch_s;
%rename(ContextOptions) ferry_context_options;
%rename(DeviceProperties) ferry_device_properties;
%rename(Source) ferry_source;
%rename(Rect) ferry_rect;
%rename(RectF) ferry_rectf;
%rename(Interpolation) ferry_interpolation;
%rename(ResizeMode) ferry_resize_mode;
%rename(PixelFormat) ferry_pixel_format;
%rename(ColorMatrix) ferry_color_matrix;
%rename(ColorRange) ferry_color_range;
%rename(ChromaFilter) ferry_chroma_filter;
%rename(LetterboxAlign) ferry_letterbox_align;
%rename(Transform) ferry_transform;
%rename(Output) ferry_output;
%rename(TensorInfo) ferry_tensor_info;
%rename(SubmitOptions) ferry_submit_options;
%rename(Stats) ferry_stats;
%rename(Dataset) ferry_dataset_s;
%rename(DatasetOptions) ferry_dataset_options;
%rename(DatasetInfo) ferry_dataset_info;
%rename(DatasetPlacement) ferry_dataset_placement;

/* The raw functions are offered as methods below; hide them as functions.
 * Types (ferry_source, ...) are not functions and stay. */
%rename("$ignore", %$isfunction, regextarget=1) "^ferry_";

/* Fields the bindings own or compute: struct_size is set by the constructor;
 * pointer-to-array fields are set through the copying setters below. */
%immutable struct_size;
%ignore ferry_source::samples;
%ignore ferry_source::sample_descs;
%ignore ferry_sample_desc;
%ignore ferry_source::plane_offset;
%ignore ferry_source::plane_pitch;
%ignore ferry_transform::channel_map;
%ignore ferry_transform::mean;
%ignore ferry_transform::std;
%ignore ferry_transform::per_sample_mean;
%ignore ferry_transform::per_sample_std;
%ignore ferry_transform::per_sample_crop;
%ignore ferry_transform::per_sample_mirror;
%ignore ferry_transform::per_sample_count;
%ignore ferry_transform::letterbox_value;
%ignore ferry_transform::per_sample_window;
%ignore ferry_tensor_info::shape;
%ignore ferry_tensor_info::strides;
/* Callbacks from ferry threads into a managed runtime are not offered: use
 * wait(), query() or stream_wait() (Python offers a callable, see its file). */
%ignore ferry_submit_options::callback;
%ignore ferry_submit_options::user_data;
/* Descriptions ferry fills are read-only to the caller. */
%immutable ferry_device_properties::name;
%immutable ferry_tensor_info::data;
%immutable ferry_tensor_info::device_kind;
%immutable ferry_tensor_info::device_index;
%immutable ferry_tensor_info::dtype;
%immutable ferry_tensor_info::layout;
%immutable ferry_tensor_info::ndim;
%immutable ferry_tensor_info::bytes;
%immutable ferry_dataset_info::count;
%immutable ferry_dataset_info::source_count;
%immutable ferry_dataset_info::h;
%immutable ferry_dataset_info::w;
%immutable ferry_dataset_info::c;
%immutable ferry_dataset_info::layout;
%immutable ferry_dataset_info::variable_sizes;
%immutable ferry_dataset_info::bytes;
%immutable ferry_dataset_info::device_kind;
%immutable ferry_dataset_info::device_index;
%immutable ferry_dataset_info::placement;
%immutable ferry_dataset_info::rank;
%immutable ferry_dataset_info::world_size;
%immutable ferry_dataset_info::epoch_size;
%immutable ferry_dataset_info::upload_seconds;

%include "ferry/common.h"
%include "ferry/device.h"
%include "ferry/context.h"
%include "ferry/memory.h"
%include "ferry/stats.h"
%include "ferry/pixel_format.h"  /* before transform.h: ferry_source's enum fields are these enums */
%include "ferry/transform.h"
%include "ferry/augment.h"
%include "ferry/batch.h"
%include "ferry/dataset.h"

/* ---- module functions ---------------------------------------------------- */
%inline %{
/* ferry_version(): the loaded library's FERRY_VERSION_NUMBER. */
int version() { return ferry_version(); }
/* ferry_version_string(). */
const char* version_string() { return ferry_version_string(); }
/* ferry_status_string(). */
const char* status_string(ferry_status status) { return ferry_status_string(status); }
/* ferry_last_error() of the calling thread. */
const char* last_error() { return ferry_last_error(); }
/* ferry_device_count(): 0 where there is no driver or no GPU. */
int device_count() {
  int count = 0;
  ferry_binding::check(ferry_device_count(&count));
  return count;
}
%}

%newobject device_properties;
%newobject transform_output_info;
%inline %{
/* ferry_device_get_properties(). */
ferry_device_properties* device_properties(int device) {
  ferry_device_properties* props = ferry_binding::new_struct(ferry_device_properties_init);
  ferry_status status = ferry_device_get_properties(props, device);
  if (status != FERRY_OK) std::free(props);
  ferry_binding::check(status);
  return props;
}
/* ferry_transform_describe_output(): the packed output a source and transform give. */
ferry_tensor_info* transform_output_info(const ferry_source* source, const ferry_transform* transform) {
  ferry_tensor_info* info = ferry_binding::new_struct(ferry_tensor_info_init);
  ferry_status status = ferry_transform_describe_output(info, source, transform);
  if (status != FERRY_OK) std::free(info);
  ferry_binding::check(status);
  return info;
}
%}

/* ---- option and descriptor structs: constructors call _init ------------- */
%define FERRY_STRUCT(TYPE)
%extend TYPE {
  TYPE() { return ferry_binding::new_struct(TYPE##_init); }
  ~TYPE() { std::free($self); }
}
%enddef
FERRY_STRUCT(ferry_context_options)
FERRY_STRUCT(ferry_device_properties)
FERRY_STRUCT(ferry_output)
FERRY_STRUCT(ferry_tensor_info)
FERRY_STRUCT(ferry_submit_options)
FERRY_STRUCT(ferry_stats)
FERRY_STRUCT(ferry_dataset_options)
FERRY_STRUCT(ferry_dataset_info)

%include "ferry_structs.i"

/* ---- the handles ---------------------------------------------------------- */
%include "ferry_handles.i"
