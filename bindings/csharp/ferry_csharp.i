/* ferry bindings, C#: namespace Ferry, PascalCase names, a FerryException
 * subclass per status (src/FerryException.cs), IDisposable handles and structs
 * (SWIG's Dispose plus a finalizer as the safety net), pointers and
 * cudaStream_t as IntPtr, arrays as C# arrays; byte[], Span<byte> and IntPtr
 * sources (ferry_csharp_handles.i), resident datasets (ferry_csharp_dataset.i,
 * src/Dataset.cs, src/ResidentLoader.cs); what C# shares with Java (source holds,
 * Transform's checked arrays, tensor references) is ../ferry_managed.i; Tensor
 * and DTypes/Layouts are src/. Runs on Mono 6.8 (what Unity embeds) and .NET. */

%include <arrays_csharp.i>
%csconst(1);

/* ---- exceptions: the native code calls back into C# to set the pending one ---- */
%insert(runtime) %{
typedef void (SWIGSTDCALL* FerryRaiseCallback)(int status, const char* message);
static FerryRaiseCallback ferry_cs_raise_callback = NULL;
extern "C" SWIGEXPORT void SWIGSTDCALL FerryRegisterRaiseCallback(FerryRaiseCallback callback) {
  ferry_cs_raise_callback = callback;
}
static void ferry_cs_raise(int status, const char* message) {
  if (ferry_cs_raise_callback != NULL) ferry_cs_raise_callback(status, message);
}
#define FERRY_BINDING_RAISE(status, message, null_value) \
  do { ferry_cs_raise((int)(status), message); return null_value; } while (0)

/* A hold on a source (ferry_managed.i) is a GCHandle (as IntPtr) that pins a
 * managed array; ferry's completion callback frees it through this C#
 * delegate, from a ferry thread (the runtime attaches it). */
typedef void (SWIGSTDCALL* FerryReleaseHoldCallback)(void* hold);
static FerryReleaseHoldCallback ferry_cs_release_hold_callback = NULL;
extern "C" SWIGEXPORT void SWIGSTDCALL FerryRegisterReleaseHoldCallback(FerryReleaseHoldCallback callback) {
  ferry_cs_release_hold_callback = callback;
}
static void ferry_managed_release_hold(void* hold) {
  if (hold != NULL && ferry_cs_release_hold_callback != NULL) ferry_cs_release_hold_callback(hold);
}
%}
%pragma(csharp) imclasscode=%{
  internal class FerryRaiseHelper {
    public delegate void RaiseDelegate(int status, string message);
    static RaiseDelegate raiseDelegate = new RaiseDelegate(Raise);
    [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint="FerryRegisterRaiseCallback")]
    static extern void Register(RaiseDelegate callback);
    [global::AOT.MonoPInvokeCallback(typeof(RaiseDelegate))]
    static void Raise(int status, string message) {
      SWIGPendingException.Set(FerryException.FromStatus(status, message));
    }
    static FerryRaiseHelper() { Register(raiseDelegate); }
  }
  static FerryRaiseHelper ferryRaiseHelper = new FerryRaiseHelper();

  /// <summary>Frees the GCHandle that pinned a source, when ferry no longer reads it.</summary>
  internal class FerryHoldHelper {
    public delegate void ReleaseDelegate(global::System.IntPtr hold);
    static ReleaseDelegate releaseDelegate = new ReleaseDelegate(Release);
    [global::System.Runtime.InteropServices.DllImport("$dllimport", EntryPoint="FerryRegisterReleaseHoldCallback")]
    static extern void Register(ReleaseDelegate callback);
    [global::AOT.MonoPInvokeCallback(typeof(ReleaseDelegate))]
    static void Release(global::System.IntPtr hold) {
      var handle = global::System.Runtime.InteropServices.GCHandle.FromIntPtr(hold);
      // Source.SetImages: a handle to the pins of each image's array.
      var pins = handle.Target as global::System.Runtime.InteropServices.GCHandle[];
      if (pins != null) Source.Unpin(pins);
      handle.Free();
    }
    static FerryHoldHelper() { Register(releaseDelegate); }
  }
  static FerryHoldHelper ferryHoldHelper = new FerryHoldHelper();
  static readonly bool ferryVersionChecked = VersionCheck.Run();
%}

/* ---- names ---- */
%rename("%(camelcase)s", %$isfunction, %$not %$isconstructor, %$not %$isdestructor) "";
%rename("%(camelcase)s", %$isvariable) "";
/* Enum items in PascalCase; Status keeps Err and SourcePolicy Source, where two
 * would clash in SWIG's one C scope (Status.ErrCuda vs DeviceKind.Cuda). */
%rename(Ok) FERRY_OK;
%rename(ErrInvalidArgument) FERRY_ERR_INVALID_ARGUMENT;
%rename(ErrInvalidHandle) FERRY_ERR_INVALID_HANDLE;
%rename(ErrStructSize) FERRY_ERR_STRUCT_SIZE;
%rename(ErrUnsupported) FERRY_ERR_UNSUPPORTED;
%rename(ErrOverflow) FERRY_ERR_OVERFLOW;
%rename(ErrOutOfRange) FERRY_ERR_OUT_OF_RANGE;
%rename(ErrOutOfMemory) FERRY_ERR_OUT_OF_MEMORY;
%rename(ErrNoDevice) FERRY_ERR_NO_DEVICE;
%rename(ErrCuda) FERRY_ERR_CUDA;
%rename(ErrNotFound) FERRY_ERR_NOT_FOUND;
%rename(ErrAlreadyExists) FERRY_ERR_ALREADY_EXISTS;
%rename(ErrNotReady) FERRY_ERR_NOT_READY;
%rename(ErrBusy) FERRY_ERR_BUSY;
%rename(ErrSourceTooSmall) FERRY_ERR_SOURCE_TOO_SMALL;
%rename(ErrInternal) FERRY_ERR_INTERNAL;
%rename(ErrOutputTooSmall) FERRY_ERR_OUTPUT_TOO_SMALL;
%rename(Auto) FERRY_DEVICE_AUTO;
%rename(Cpu) FERRY_DEVICE_CPU;
%rename(Cuda) FERRY_DEVICE_CUDA;
%rename(UInt8) FERRY_DTYPE_UINT8;
%rename(Float32) FERRY_DTYPE_FLOAT32;
%rename(Float16) FERRY_DTYPE_FLOAT16;
%rename(BFloat16) FERRY_DTYPE_BFLOAT16;
%rename(Nhwc) FERRY_LAYOUT_NHWC;
%rename(Nchw) FERRY_LAYOUT_NCHW;
%rename(None) FERRY_MIRROR_NONE;
%rename(X) FERRY_MIRROR_X;
%rename(Y) FERRY_MIRROR_Y;
%rename(SourceAuto) FERRY_SOURCE_AUTO;
%rename(SourceStage) FERRY_SOURCE_STAGE;
%rename(SourceRegister) FERRY_SOURCE_REGISTER;
%rename(Pinned) FERRY_MEMORY_PINNED;
%rename(Registered) FERRY_MEMORY_REGISTERED;
%rename(Device) FERRY_MEMORY_DEVICE;
%rename(All) FERRY_MEMORY_ALL;
%rename(Nearest) FERRY_INTERP_NEAREST;
%rename(Linear) FERRY_INTERP_LINEAR;
%rename(Cubic) FERRY_INTERP_CUBIC;
%rename(Area) FERRY_INTERP_AREA;
%rename(LinearAntialias) FERRY_INTERP_LINEAR_ANTIALIAS;
%rename(Stretch) FERRY_RESIZE_STRETCH;
%rename(Letterbox) FERRY_RESIZE_LETTERBOX;
%rename(ShorterSide) FERRY_RESIZE_SHORTER_SIDE;
%rename(Center) FERRY_ALIGN_CENTER;
%rename(TopLeft) FERRY_ALIGN_TOP_LEFT;
/* The frame enums (ferry/pixel_format.h, included by ../ferry.i); ChromaFilter keeps Chroma
 * (ChromaLinear vs Interpolation.Linear). */
%rename(Channels) FERRY_FORMAT_CHANNELS;
%rename(Nv12) FERRY_FORMAT_NV12;
%rename(Nv21) FERRY_FORMAT_NV21;
%rename(I420) FERRY_FORMAT_I420;
%rename(Yv12) FERRY_FORMAT_YV12;
%rename(Yuyv) FERRY_FORMAT_YUYV;
%rename(Uyvy) FERRY_FORMAT_UYVY;
%rename(BayerRggb) FERRY_FORMAT_BAYER_RGGB;
%rename(BayerBggr) FERRY_FORMAT_BAYER_BGGR;
%rename(BayerGrbg) FERRY_FORMAT_BAYER_GRBG;
%rename(BayerGbrg) FERRY_FORMAT_BAYER_GBRG;
%rename(Bt601) FERRY_COLOR_BT601;
%rename(Bt709) FERRY_COLOR_BT709;
%rename(Bt2020) FERRY_COLOR_BT2020;
%rename(Limited) FERRY_RANGE_LIMITED;
%rename(Full) FERRY_RANGE_FULL;
%rename(ChromaNearest) FERRY_CHROMA_NEAREST;
%rename(ChromaLinear) FERRY_CHROMA_LINEAR;
%rename(Replica) FERRY_DATASET_REPLICA;
%rename(Shard) FERRY_DATASET_SHARD;

/* The function would share the class DeviceProperties's name. */
%rename(GetDeviceProperties) device_properties;

/* ---- numbers: sizes as ulong (not SWIG's 32-bit uint) ---- */
%apply unsigned long long { size_t };

/* ---- void*: IntPtr ---- */
%apply void* VOID_INT_PTR { void*, const void* }

/* ---- a disposed struct's methods: INVALID_HANDLE, not a crash (a disposed handle reaches ferry) ---- */
%define FERRY_CLOSED_CHECK(TYPE, NAME)
%typemap(check, canthrow=1) TYPE* self, const TYPE* self %{
  if ($1 == NULL) FERRY_BINDING_RAISE(FERRY_ERR_INVALID_HANDLE, NAME " is disposed", $null);
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

/* ---- (values, count): C# arrays (pinned for the call), count passed by the overloads ---- */
%apply float INPUT[] { const float* values }
%apply int INPUT[] { const int* values }
%apply long long INPUT[] { const long long* values }
/* (out, count): a long[] the call fills (Dataset.Epoch), count passed by the overload */
%apply long long OUTPUT[] { long long* out }
%apply unsigned char INPUT[] { const uint8_t* values }
%typemap(ctype) void* const* addresses "void**"
%typemap(imtype, inattributes="[global::System.Runtime.InteropServices.In, global::System.Runtime.InteropServices.MarshalAs(global::System.Runtime.InteropServices.UnmanagedType.LPArray)]") void* const* addresses "global::System.IntPtr[]"
%typemap(cstype) void* const* addresses "global::System.IntPtr[]"
%typemap(csin) void* const* addresses "$csinput"
%typemap(in) void* const* addresses "$1 = ($1_ltype)$input;"

%include "ferry_csharp_augment.i"
%include "ferry_csharp_handles.i"
%include "ferry_csharp_dataset.i"
%include "ferry_managed.i"
