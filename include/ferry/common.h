/* ferry: common definitions of the C ABI.
 *
 * Names, one scheme for every header:
 * - Functions are ferry_<module>_<verb>[_<object>], the module being the
 *   header that declares them: ferry_device_get_properties (device.h),
 *   ferry_context_create (context.h), ferry_memory_alloc_host (memory.h),
 *   ferry_stats_get (stats.h), ferry_transform_apply (transform.h),
 *   ferry_batch_describe_output (batch.h), ferry_tensor_retain (tensor.h).
 * - A struct's init function is <struct>_init, whichever header declares it:
 *   ferry_source_init, ferry_submit_options_init.
 * - This header's four functions are the library's own, not a module's, and
 *   keep their names in every version: a loader of any ferry resolves
 *   ferry_version first to learn which ABI it got, and ferry_last_error to say
 *   why something failed.
 * - Types are ferry_<name>, handles ferry_<name>_t, macros and enum values
 *   FERRY_<NAME>. Names changed in 0.2: see CHANGELOG.md.
 *
 * Conventions, for every ferry_* function:
 * - It returns a ferry_status. FERRY_OK is 0; anything else is an error, and
 *   ferry_last_error() then holds a message for the calling thread that names
 *   the argument and the value (or the CUDA call and its error name).
 * - Out parameters come first and are named out (out_*); on error they are
 *   left untouched unless the function says otherwise.
 * - Option and descriptor structs begin with `size_t struct_size` and are
 *   filled by their _init(out, sizeof *out) function before use. They only
 *   ever grow at the end: an older caller's smaller struct is accepted at the
 *   size of a released layout, a newer caller's larger one too if the bytes
 *   this library does not know are zero.
 * - Handles are opaque. A NULL, destroyed, released or foreign handle gives
 *   FERRY_ERR_INVALID_HANDLE, never undefined behaviour (handles are ids that
 *   are never reused, not pointers to freed memory).
 * - No C++ exception crosses the ABI.
 * - Streams are ferry_cuda_stream values (a cudaStream_t, CUstream); NULL is
 *   CUDA's legacy default stream. On the CPU backend streams are accepted and
 *   ignored (all work is complete when the call returns, unless the call says
 *   otherwise).
 */
#ifndef FERRY_COMMON_H
#define FERRY_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define FERRY_VERSION_MAJOR 0
#define FERRY_VERSION_MINOR 2
#define FERRY_VERSION_PATCH 0
/* major * 10000 + minor * 100 + patch, as ferry_version() returns it. */
#define FERRY_VERSION_NUMBER \
  (FERRY_VERSION_MAJOR * 10000 + FERRY_VERSION_MINOR * 100 + FERRY_VERSION_PATCH)
/* The shared library's soname, for dlopen. Versions with the same ABI share
 * it: the same major, and while 0.x the same minor too (a 0.x minor release
 * may break the ABI). */
#define FERRY_SONAME "libferry.so.0.2"

#if defined(FERRY_STATIC_DEFINE)
#define FERRY_API
#elif defined(_WIN32)
#if defined(FERRY_BUILDING_LIBRARY)
#define FERRY_API __declspec(dllexport)
#else
#define FERRY_API __declspec(dllimport)
#endif
#else
#define FERRY_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A CUDA stream: the type cudaStream_t and CUstream are (struct CUstream_st*),
 * declared as NVCV's CudaFwd.h does, so no CUDA header is needed and a
 * cudaStream_t converts without a cast. NULL is the legacy default stream. */
typedef struct CUstream_st* ferry_cuda_stream;

/* Which status says what:
 * - A value outside its documented range (an option, a size, a count, the
 *   length of a list) is FERRY_ERR_INVALID_ARGUMENT, whatever the field.
 * - FERRY_ERR_OUT_OF_RANGE is only for an index checked against a count (a
 *   device against ferry_device_count, a channel_map entry against the
 *   source's channels, a binding's array index) and a window outside an image.
 * - A buffer smaller than its shape and strides reach is
 *   FERRY_ERR_SOURCE_TOO_SMALL for a source, FERRY_ERR_OUTPUT_TOO_SMALL for
 *   an output.
 * New statuses are appended at the end; the numbers never change. */
typedef enum ferry_status {
  FERRY_OK = 0,
  FERRY_ERR_INVALID_ARGUMENT = 1, /* a NULL pointer, a value outside its documented range */
  FERRY_ERR_INVALID_HANDLE = 2,   /* NULL, destroyed, released or foreign handle */
  FERRY_ERR_STRUCT_SIZE = 3,      /* struct_size not a released layout's, or an unknown non-zero tail */
  FERRY_ERR_UNSUPPORTED = 4,      /* unknown enum value or unsupported combination */
  FERRY_ERR_OVERFLOW = 5,         /* a size computation overflows */
  FERRY_ERR_OUT_OF_RANGE = 6,     /* an index past a count, a window outside an image */
  FERRY_ERR_OUT_OF_MEMORY = 7,    /* device, pinned or host memory exhausted or capped */
  FERRY_ERR_NO_DEVICE = 8,        /* a CUDA device was asked for: no driver or no such GPU */
  FERRY_ERR_CUDA = 9,             /* a CUDA call failed; the message names it */
  FERRY_ERR_NOT_FOUND = 10,       /* a pointer ferry did not allocate or register, or freed twice */
  FERRY_ERR_ALREADY_EXISTS = 11,  /* a registration that overlaps an existing one */
  FERRY_ERR_NOT_READY = 12,       /* query: the work is still in flight (not a failure) */
  FERRY_ERR_BUSY = 13,            /* non-blocking submit: the in-flight limit is reached */
  FERRY_ERR_SOURCE_TOO_SMALL = 14,/* a source buffer smaller than its shape and strides reach */
  FERRY_ERR_INTERNAL = 15,        /* a bug in ferry; please report the message */
  FERRY_ERR_OUTPUT_TOO_SMALL = 16 /* an output buffer smaller than its shape and strides reach */
} ferry_status;

/* The version of the loaded library, as FERRY_VERSION_NUMBER. Thread-safe. */
FERRY_API int ferry_version(void);
/* "major.minor.patch" plus build details (CUDA or CPU-only). Static storage. Thread-safe. */
FERRY_API const char* ferry_version_string(void);
/* A static name for a status ("FERRY_ERR_INVALID_HANDLE"); unknown values give
 * "FERRY_STATUS_UNKNOWN". Never NULL. Thread-safe. */
FERRY_API const char* ferry_status_string(ferry_status status);
/* The message of the last error on the calling thread, "" when there was none.
 * Valid until the next ferry call on this thread. Never NULL. Thread-local. */
FERRY_API const char* ferry_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_COMMON_H */
