/* ferry bindings, Java: package io.ferry, class names from ferry.i, methods and
 * fields in lowerCamelCase, proper Java enums, a FerryException subclass per
 * status (FerryException.java), AutoCloseable handles and structs, pointers
 * (host, device, cudaStream_t) as long, arrays as Java arrays, direct
 * ByteBuffer and byte[] sources (ferry_java_handles.i), resident datasets
 * (ferry_java_dataset.i, ResidentLoader.java); what Java shares with
 * C# (source holds, Transform's checked arrays, tensor references) is
 * ../ferry_managed.i; Tensor and FerryException are src/io/ferry/. */

%include <enums.swg>
%javaconst(1);

%{
#include <stdint.h>
/* Raises io.ferry.FerryException.fromStatus(status, message). */
static void ferry_java_raise(JNIEnv* jenv, ferry_status status, const char* message) {
  if (jenv->ExceptionCheck()) return; /* a Java exception is already pending */
  jclass cls = jenv->FindClass("io/ferry/FerryException");
  if (cls == NULL) return; /* NoClassDefFoundError is pending */
  jmethodID make = jenv->GetStaticMethodID(cls, "fromStatus", "(ILjava/lang/String;)Lio/ferry/FerryException;");
  if (make == NULL) return;
  jstring text = jenv->NewStringUTF(message);
  jobject ex = jenv->CallStaticObjectMethod(cls, make, (jint)status, text);
  if (ex != NULL && !jenv->ExceptionCheck()) jenv->Throw((jthrowable)ex);
}
#define FERRY_BINDING_RAISE(status, message, null_value) \
  do { ferry_java_raise(jenv, status, message); return null_value; } while (0)

/* A hold on a source (ferry_managed.i) is a JNI global reference to its direct
 * ByteBuffer; ferry's completion callback deletes it from a ferry thread, which
 * is attached to the JVM as a daemon the first time and detached when it exits. */
#include <pthread.h>
#include <atomic>
static std::atomic<JavaVM*> ferry_java_vm{NULL};
static pthread_key_t ferry_java_detach_key;
static pthread_once_t ferry_java_detach_once = PTHREAD_ONCE_INIT;
static void ferry_java_detach(void* vm) { ((JavaVM*)vm)->DetachCurrentThread(); }
static void ferry_java_make_detach_key() { (void)pthread_key_create(&ferry_java_detach_key, ferry_java_detach); }
static void ferry_managed_release_hold(void* hold) {
  JavaVM* vm = ferry_java_vm.load();
  if (vm == NULL || hold == NULL) return;
  JNIEnv* env = NULL;
  jint rc = vm->GetEnv((void**)&env, JNI_VERSION_1_6);
  if (rc == JNI_EDETACHED) {
    if (vm->AttachCurrentThreadAsDaemon((void**)&env, NULL) != JNI_OK) return; /* the JVM is shutting down */
    pthread_once(&ferry_java_detach_once, ferry_java_make_detach_key);
    (void)pthread_setspecific(ferry_java_detach_key, vm);
  } else if (rc != JNI_OK) {
    return;
  }
  env->DeleteGlobalRef((jobject)hold);
}
%}

/* A JNIEnv* jenv parameter is the calling thread's environment, not a Java argument. */
%typemap(in, numinputs=0) JNIEnv* jenv "$1 = jenv;"

/* ---- names ---- */
%rename("%(lowercamelcase)s", %$isfunction, %$not %$isconstructor, %$not %$isdestructor) "";
%rename("%(lowercamelcase)s", %$isvariable) "";
/* Enum items lose the type prefix, except where two would clash in SWIG's one C scope: Status keeps ERR_
 * (ERR_CUDA vs DeviceKind.CUDA), SourcePolicy SOURCE_, ChromaFilter CHROMA_ (CHROMA_LINEAR vs
 * Interpolation.LINEAR), AugmentCrop CROP_ (CROP_NONE vs Mirror.NONE). Keep the format short: SWIG 4.5
 * renamed every item "$s" with one of 137 characters. */
%rename("%(regex:/^FERRY_((DTYPE|LAYOUT|DEVICE|MIRROR|MEMORY|INTERP|RESIZE|ALIGN|FORMAT|COLOR|RANGE|AUGMENT|ERASE|JITTER)_)?(.*)$/\\3/)s", %$isenumitem) "";

/* ---- numbers: uint64_t as long (the counters never reach 2^63) ---- */
%apply long long { uint64_t };
%apply long long { unsigned long long };

/* ---- void*: an address as long ---- */
%typemap(jni) void*, const void* "jlong"
%typemap(jtype) void*, const void* "long"
%typemap(jstype) void*, const void* "long"
%typemap(javain) void*, const void* "$javainput"
%typemap(javaout) void*, const void* { return $jnicall; }
%typemap(in) void*, const void* %{ $1 = ($1_ltype)(intptr_t)$input; %}
%typemap(out) void*, const void* %{ $result = (jlong)(intptr_t)$1; %}
%typemap(javavarin) void*, const void* "$javainput"

/* ---- (values, count) from Java arrays (read, never written back) ----
 * Copied into a vector that the wrapper frees however it returns: SWIG runs no
 * freearg typemap when ferry's exception leaves it (a bad index in a gather), so
 * Get/Release<Type>ArrayElements leaked there. An empty array stays a non-null
 * pointer with count 0, so ferry tells it from a null one. */
%{
#include <vector>
%}
%define FERRY_JAVA_ARRAY(CTYPE, JTYPE, JNITYPE, JARRAY, JNAME)
%typemap(jni) (const CTYPE* values, size_t count) "JARRAY"
%typemap(jtype) (const CTYPE* values, size_t count) "JTYPE[]"
%typemap(jstype) (const CTYPE* values, size_t count) "JTYPE[]"
%typemap(javain) (const CTYPE* values, size_t count) "$javainput"
%typemap(in) (const CTYPE* values, size_t count) (std::vector<JNITYPE> copy) {
  $1 = NULL; $2 = 0;
  if ($input != NULL) {
    $2 = (size_t)jenv->GetArrayLength($input);
    copy.resize($2 > 0 ? $2 : 1);
    jenv->Get##JNAME##ArrayRegion($input, 0, (jsize)$2, &copy[0]);
    $1 = (CTYPE*)&copy[0];
  }
}
%enddef
FERRY_JAVA_ARRAY(float, float, jfloat, jfloatArray, Float)
FERRY_JAVA_ARRAY(int, int, jint, jintArray, Int)
FERRY_JAVA_ARRAY(long long, long, jlong, jlongArray, Long)
FERRY_JAVA_ARRAY(uint8_t, byte, jbyte, jbyteArray, Byte)

/* sample addresses: long[] */
%typemap(jni) (void* const* addresses, size_t count) "jlongArray"
%typemap(jtype) (void* const* addresses, size_t count) "long[]"
%typemap(jstype) (void* const* addresses, size_t count) "long[]"
%typemap(javain) (void* const* addresses, size_t count) "$javainput"
%typemap(in) (void* const* addresses, size_t count) (void** temp = NULL) {
  $1 = NULL; $2 = 0;
  if ($input != NULL) {
    jsize n = jenv->GetArrayLength($input);
    temp = (void**)malloc(sizeof(void*) * (size_t)(n > 0 ? n : 1));
    jlong* values = jenv->GetLongArrayElements($input, NULL);
    for (jsize i = 0; i < n; ++i) temp[i] = (void*)(intptr_t)values[i];
    jenv->ReleaseLongArrayElements($input, values, JNI_ABORT);
    $1 = temp; $2 = (size_t)n;
  }
}
%typemap(freearg) (void* const* addresses, size_t count) { free(temp$argnum); }

/* ---- (out, count): a Java long[] that the call fills (Dataset's epoch) ----
 * Written back only when the call succeeds (argout does not run on an exception). */
%typemap(jni) (long long* out, size_t count) "jlongArray"
%typemap(jtype) (long long* out, size_t count) "long[]"
%typemap(jstype) (long long* out, size_t count) "long[]"
%typemap(javain) (long long* out, size_t count) "$javainput"
%typemap(in) (long long* out, size_t count) (std::vector<jlong> values) {
  $1 = NULL; $2 = 0;
  if ($input != NULL) {
    $2 = (size_t)jenv->GetArrayLength($input);
    values.resize($2 > 0 ? $2 : 1);
    $1 = (long long*)&values[0];
  }
}
%typemap(argout) (long long* out, size_t count) {
  if ($input != NULL && $2 > 0) jenv->SetLongArrayRegion($input, 0, (jsize)$2, (const jlong*)$1);
}

/* byte[] for submit_and_wait_source and Dataset's upload: pinned or copied by the
 * JVM for the call, and given back (unchanged) however the call returns. */
%{
class ferry_java_byte_elements {
 public:
  ferry_java_byte_elements() : jenv_(NULL), array_(NULL), data_(NULL) {}
  ~ferry_java_byte_elements() {
    if (data_ != NULL) jenv_->ReleaseByteArrayElements(array_, data_, JNI_ABORT);
  }
  jbyte* get(JNIEnv* jenv, jbyteArray array) {
    jenv_ = jenv;
    array_ = array;
    data_ = jenv->GetByteArrayElements(array, NULL);
    return data_;
  }

 private:
  ferry_java_byte_elements(const ferry_java_byte_elements&);
  JNIEnv* jenv_;
  jbyteArray array_;
  jbyte* data_;
};
%}
%typemap(jni) (const void* array_data, size_t array_bytes) "jbyteArray"
%typemap(jtype) (const void* array_data, size_t array_bytes) "byte[]"
%typemap(jstype) (const void* array_data, size_t array_bytes) "byte[]"
%typemap(javain) (const void* array_data, size_t array_bytes) "$javainput"
%typemap(in) (const void* array_data, size_t array_bytes) (ferry_java_byte_elements pin) {
  $1 = NULL; $2 = 0;
  if ($input != NULL) {
    $2 = (size_t)jenv->GetArrayLength($input);
    $1 = pin.get(jenv, $input);
  }
}

/* a direct ByteBuffer's address */
%typemap(jni) (const void* buffer_address, size_t buffer_capacity) "jobject"
%typemap(jtype) (const void* buffer_address, size_t buffer_capacity) "java.nio.ByteBuffer"
%typemap(jstype) (const void* buffer_address, size_t buffer_capacity) "java.nio.ByteBuffer"
%typemap(javain) (const void* buffer_address, size_t buffer_capacity) "$javainput"
%typemap(in) (const void* buffer_address, size_t buffer_capacity) {
  $1 = NULL; $2 = 0;
  if ($input != NULL) {
    $1 = jenv->GetDirectBufferAddress($input);
    $2 = (size_t)jenv->GetDirectBufferCapacity($input);
  }
}
%inline %{
/* The address of a direct ByteBuffer (used by Source.setBuffer). */
void* direct_buffer_address(const void* buffer_address, size_t buffer_capacity) {
  if (buffer_address == NULL)
    ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "buffer is null or not a direct ByteBuffer (capacity ",
                        buffer_capacity, "): use ByteBuffer.allocateDirect, or pass a byte[]");
  return const_cast<void*>(buffer_address);
}
%}

/* A global reference to `object` (null: 0), for submitHolding. */
%javamethodmodifiers hold_reference "";
%inline %{
void* hold_reference(JNIEnv* jenv, jobject object) {
  if (object == NULL) return NULL;
  JavaVM* vm = NULL;
  if (jenv->GetJavaVM(&vm) != JNI_OK) ferry_binding::fail(FERRY_ERR_INTERNAL, "JNI GetJavaVM failed");
  ferry_java_vm.store(vm);
  jobject ref = jenv->NewGlobalRef(object);
  if (ref == NULL) throw std::bad_alloc();
  return ref;
}
%}

/* ---- AutoCloseable: close() is SWIG's delete(), idempotent ---- */
%define FERRY_JAVA_CLOSEABLE(TYPE)
%typemap(javainterfaces) TYPE "AutoCloseable"
%typemap(javacode) TYPE %{
  /** Frees the native object now (idempotent); later calls raise FerryException.InvalidHandle. */
  @Override
  public void close() { delete(); }
%}
%enddef
FERRY_JAVA_CLOSEABLE(ferry_context_options)
FERRY_JAVA_CLOSEABLE(ferry_device_properties)
FERRY_JAVA_CLOSEABLE(ferry_output)
FERRY_JAVA_CLOSEABLE(ferry_submit_options)
FERRY_JAVA_CLOSEABLE(ferry_stats)
FERRY_JAVA_CLOSEABLE(ferry_rect)
FERRY_JAVA_CLOSEABLE(ferry_rectf)
/* Source, Transform, TensorInfo, Context, Batch: ferry_java_handles.i; DatasetOptions, DatasetInfo, Dataset:
 * ferry_java_dataset.i. */

/* ---- a closed struct's methods: INVALID_HANDLE, not a crash (a closed handle reaches ferry) ---- */
%define FERRY_CLOSED_CHECK(TYPE, NAME)
%typemap(check) TYPE* self, const TYPE* self %{
  if ($1 == NULL) FERRY_BINDING_RAISE(FERRY_ERR_INVALID_HANDLE, NAME " is closed", $null);
%}
%enddef
FERRY_CLOSED_CHECK(ferry_context_options, "the ContextOptions")
FERRY_CLOSED_CHECK(ferry_device_properties, "the DeviceProperties")
FERRY_CLOSED_CHECK(ferry_source, "the Source")
FERRY_CLOSED_CHECK(ferry_transform, "the Transform")
FERRY_CLOSED_CHECK(ferry_output, "the Output")
FERRY_CLOSED_CHECK(ferry_tensor_info, "the TensorInfo")
FERRY_CLOSED_CHECK(ferry_submit_options, "the SubmitOptions")
FERRY_CLOSED_CHECK(ferry_stats, "the Stats")
FERRY_CLOSED_CHECK(ferry_rect, "the Rect")
FERRY_CLOSED_CHECK(ferry_rectf, "the RectF")
FERRY_CLOSED_CHECK(ferry_augment, "the Augment")

/* ---- DType and Layout from their names ---- */
%typemap(javacode) enum ferry_dtype %{
  /**
   * The dtype named "float32", "float16", "bfloat16" or "uint8" (or "f32", "f16", "bf16", "u8"; any
   * case). Anything else throws FerryException.InvalidArgument, which lists these names.
   */
  public static DType parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "float32": case "f32": return FLOAT32;
      case "float16": case "f16": return FLOAT16;
      case "bfloat16": case "bf16": return BFLOAT16;
      case "uint8": case "u8": return UINT8;
      default:
        throw new FerryException.InvalidArgument("dtype is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use float32, float16, bfloat16 or uint8 (or f32, f16, bf16, u8)");
    }
  }
%}
%typemap(javacode) enum ferry_layout %{
  /** The layout named "NCHW" or "NHWC" (any case); anything else throws FerryException.InvalidArgument. */
  public static Layout parse(String name) {
    switch (name == null ? "" : name.toUpperCase(java.util.Locale.ROOT)) {
      case "NCHW": return NCHW;
      case "NHWC": return NHWC;
      default:
        throw new FerryException.InvalidArgument("layout is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use NCHW or NHWC");
    }
  }
%}

/* ---- the resize enums from their names ---- */
%typemap(javacode) enum ferry_interpolation %{
  /**
   * The interpolation named "nearest", "linear", "cubic", "area" or "linear_antialias" (any case;
   * "bilinear" and "bicubic" too). Anything else throws FerryException.InvalidArgument.
   */
  public static Interpolation parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "nearest": return NEAREST;
      case "linear": case "bilinear": return LINEAR;
      case "cubic": case "bicubic": return CUBIC;
      case "area": return AREA;
      case "linear_antialias": return LINEAR_ANTIALIAS;
      default:
        throw new FerryException.InvalidArgument("interpolation is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use nearest, linear, cubic, area or linear_antialias");
    }
  }
%}
%typemap(javacode) enum ferry_resize_mode %{
  /** The mode named "stretch", "letterbox" or "shorter_side" (any case); else FerryException.InvalidArgument. */
  public static ResizeMode parse(String name) {
    switch (name == null ? "" : name.toLowerCase(java.util.Locale.ROOT)) {
      case "stretch": return STRETCH;
      case "letterbox": return LETTERBOX;
      case "shorter_side": return SHORTER_SIDE;
      default:
        throw new FerryException.InvalidArgument("resize_mode is " + (name == null ? "null" : "\"" + name + "\"")
            + ": use stretch, letterbox or shorter_side");
    }
  }
%}

%include "ferry_java_frames.i"
%include "ferry_java_augment.i"

/* Source.setImages with byte[] pixels: each array pinned (or copied by the
 * JVM) during one call. submit returns once ferry has read them
 * (ferry_batch_wait_source), as submit_and_wait_source does for one byte[];
 * convert and the output description only read them during the call.
 * pinned_arrays[i]: image i's byte[], or null where its sample_descs entry
 * already holds an address (a direct ByteBuffer that Java keeps reachable). */
%typemap(jni) jobjectArray pinned_arrays "jobjectArray"
%typemap(jtype) jobjectArray pinned_arrays "Object[]"
%typemap(jstype) jobjectArray pinned_arrays "Object[]"
%typemap(javain) jobjectArray pinned_arrays "$javainput"
%typemap(in) jobjectArray pinned_arrays "$1 = $input;"
%{
#include <vector>
namespace {
/* `source` with each byte[] of pinned_arrays pinned and in its sample_descs
 * entry; the arrays are released (unchanged: JNI_ABORT) with this object. */
class ferry_java_pinned_source {
 public:
  ferry_java_pinned_source(JNIEnv* jenv, const ferry_source* source, jobjectArray pinned_arrays) : jenv_(jenv) {
    if (source == NULL || source->sample_descs == NULL || pinned_arrays == NULL ||
        jenv->GetArrayLength(pinned_arrays) != source->n)
      ferry_binding::fail(FERRY_ERR_INTERNAL, "pinned_arrays: a source from Source.setImages is required");
    descs_.assign(source->sample_descs, source->sample_descs + source->n);
    for (size_t i = 0; i < descs_.size(); ++i) {
      jbyteArray array = (jbyteArray)jenv->GetObjectArrayElement(pinned_arrays, (jsize)i);
      if (array == NULL) continue;
      jbyte* pixels = jenv->GetByteArrayElements(array, NULL);
      if (pixels == NULL) {
        jenv->DeleteLocalRef(array);
        release();
        throw std::bad_alloc(); /* OutOfMemoryError is pending */
      }
      pins_.push_back(std::make_pair(array, pixels));
      descs_[i].data = pixels;
      descs_[i].bytes = (size_t)jenv->GetArrayLength(array);
    }
    source_ = *source;
    source_.sample_descs = descs_.data();
  }
  ~ferry_java_pinned_source() { release(); }
  const ferry_source* get() const { return &source_; }

 private:
  void release() {
    for (size_t i = 0; i < pins_.size(); ++i) {
      jenv_->ReleaseByteArrayElements(pins_[i].first, pins_[i].second, JNI_ABORT);
      jenv_->DeleteLocalRef(pins_[i].first);
    }
    pins_.clear();
  }
  JNIEnv* jenv_;
  ferry_source source_;
  std::vector<ferry_sample_desc> descs_;
  std::vector<std::pair<jbyteArray, jbyte*> > pins_;
};
}
%}
%newobject ferry_context_s::submit_pinning_arrays;
%rename(submitImagesNative) ferry_context_s::submit_pinning_arrays;
%javamethodmodifiers ferry_context_s::submit_pinning_arrays "private";
%rename(convertImagesNative) ferry_context_s::convert_pinning_arrays;
%javamethodmodifiers ferry_context_s::convert_pinning_arrays "private";
%extend ferry_context_s {
  ferry_batch_s* submit_pinning_arrays(JNIEnv* jenv, const ferry_source* source, jobjectArray pinned_arrays,
                                       const ferry_transform* transform, const ferry_output* output,
                                       const ferry_submit_options* options) {
    ferry_java_pinned_source pinned(jenv, source, pinned_arrays);
    ferry_batch_t batch = NULL;
    ferry_binding::check(ferry_batch_submit(&batch, $self, pinned.get(), transform, output, options));
    ferry_status status = ferry_batch_wait_source(batch);
    if (status != FERRY_OK) {
      std::string message = ferry_last_error();
      (void)ferry_batch_release(batch);
      throw ferry_binding::Error{status, message};
    }
    return batch;
  }
  void convert_pinning_arrays(JNIEnv* jenv, const ferry_source* source, jobjectArray pinned_arrays,
                              const ferry_transform* transform, const ferry_output* output, ferry_cuda_stream stream) {
    ferry_java_pinned_source pinned(jenv, source, pinned_arrays);
    ferry_binding::check(ferry_transform_apply($self, pinned.get(), transform, output, stream));
  }
}
%newobject ferry_source::output_info_pinning_arrays;
%rename(outputInfoImagesNative) ferry_source::output_info_pinning_arrays;
%javamethodmodifiers ferry_source::output_info_pinning_arrays "";
%extend ferry_source {
  /* transform_output_info for a source with byte[] images. */
  ferry_tensor_info* output_info_pinning_arrays(JNIEnv* jenv, jobjectArray pinned_arrays,
                                                const ferry_transform* transform) {
    ferry_java_pinned_source pinned(jenv, $self, pinned_arrays);
    ferry_tensor_info* info = ferry_binding::new_struct(ferry_tensor_info_init);
    ferry_status status = ferry_transform_describe_output(info, pinned.get(), transform);
    if (status != FERRY_OK) std::free(info);
    ferry_binding::check(status);
    return info;
  }
}

%include "ferry_java_handles.i"
%include "ferry_java_dataset.i"
%include "ferry_managed.i"

/* Load the native library (from the JAR or java.library.path) and check its version. */
%pragma(java) jniclasscode=%{
  static { NativeLoader.load(); }
%}

/* Batch.wait() would clash with Object.wait(): in Java it is await(). */
%rename(await) ferry_batch_s::wait;

/* A direct ByteBuffer over memory ferry gave (a CPU batch's output, pinned
 * host memory): no copy; valid while that memory is. */
%{
typedef jobject ferry_java_byte_buffer;
%}
typedef jobject ferry_java_byte_buffer;
%typemap(jni) ferry_java_byte_buffer "jobject"
%typemap(jtype) ferry_java_byte_buffer "java.nio.ByteBuffer"
%typemap(jstype) ferry_java_byte_buffer "java.nio.ByteBuffer"
%typemap(out) ferry_java_byte_buffer "$result = $1;"
%typemap(javaout) ferry_java_byte_buffer { return $jnicall; }
%inline %{
ferry_java_byte_buffer as_byte_buffer(JNIEnv* jenv, void* address, size_t bytes) {
  if (address == NULL) ferry_binding::fail(FERRY_ERR_INVALID_ARGUMENT, "address is 0: a host address is required");
  jobject buffer = jenv->NewDirectByteBuffer(address, (jlong)bytes);
  if (buffer == NULL) ferry_binding::fail(FERRY_ERR_UNSUPPORTED, "this JVM gives no direct ByteBuffer over native memory");
  return buffer;
}
%}
