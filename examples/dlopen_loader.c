/* ferry example: load libferry.so at run time and resolve its functions by
 * name, as an engine or a runtime without a build-time dependency would
 * (Unity's native plugins, a game engine's module loader, an FFI).
 * Build: cc -I<ferry>/include dlopen_loader.c -ldl   Run: ./dlopen_loader [path/to/libferry.so] */
#include <dlfcn.h>
#include <stdio.h>

#include "ferry/ferry.h" /* types only; nothing is linked */

typedef int (*version_fn)(void);
typedef const char* (*string_fn)(void);
typedef ferry_status (*context_create_fn)(ferry_context_t*, const ferry_context_options*);
typedef ferry_status (*context_destroy_fn)(ferry_context_t);
typedef ferry_status (*context_device_fn)(ferry_device_kind*, int*, ferry_context_t);

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : FERRY_SONAME;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
    return 1;
  }
  /* POSIX: a function pointer travels through void* (dlsym's contract). */
  version_fn version = (version_fn)dlsym(lib, "ferry_version");
  string_fn version_string = (string_fn)dlsym(lib, "ferry_version_string");
  string_fn last_error = (string_fn)dlsym(lib, "ferry_last_error");
  context_create_fn create = (context_create_fn)dlsym(lib, "ferry_context_create");
  context_destroy_fn destroy = (context_destroy_fn)dlsym(lib, "ferry_context_destroy");
  context_device_fn device = (context_device_fn)dlsym(lib, "ferry_context_get_device");
  if (!version || !version_string || !last_error || !create || !destroy || !device) {
    fprintf(stderr, "libferry lacks a ferry_* symbol: %s\n", dlerror());
    return 1;
  }
  /* The same ABI (the major; while 0.x the minor too), and at least the version this
   * program was built with. */
  const int found = version();
  const int same_abi = found / 10000 == FERRY_VERSION_MAJOR &&
                       (FERRY_VERSION_MAJOR > 0 || found / 100 % 100 == FERRY_VERSION_MINOR);
  if (!same_abi || found < FERRY_VERSION_NUMBER) {
    fprintf(stderr, "libferry %d is not compatible with %d\n", found, FERRY_VERSION_NUMBER);
    return 1;
  }
  ferry_context_t ctx = NULL;
  if (create(&ctx, NULL) != FERRY_OK) {
    fprintf(stderr, "ferry_context_create: %s\n", last_error());
    return 1;
  }
  ferry_device_kind kind = FERRY_DEVICE_AUTO;
  int index = -1;
  if (device(&kind, &index, ctx) != FERRY_OK) {
    fprintf(stderr, "ferry_context_get_device: %s\n", last_error());
    return 1;
  }
  printf("loaded %s: ferry %s, context on %s %d\n", path, version_string(),
         kind == FERRY_DEVICE_CUDA ? "CUDA" : "CPU", index);
  destroy(ctx);
  dlclose(lib);
  puts("ok");
  return 0;
}
