/* Loads libferry.so at run time and resolves its entry points by name, as a
 * runtime without a C toolchain (a game engine's plugin loader, Lua, Go's
 * purego) would. The header is used only for the types. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ferry/ferry.h"

typedef int (*version_fn)(void);
typedef ferry_status (*options_init_fn)(ferry_context_options*, size_t);
typedef ferry_status (*create_fn)(ferry_context_t*, const ferry_context_options*);
typedef ferry_status (*destroy_fn)(ferry_context_t);
typedef const char* (*last_error_fn)(void);

int main(int argc, char** argv) {
  void* lib;
  version_fn version;
  options_init_fn options_init;
  create_fn create;
  destroy_fn destroy;
  last_error_fn last_error;
  ferry_context_options options;
  ferry_context_t ctx = NULL;

  if (argc < 2) {
    fprintf(stderr, "usage: %s path/to/libferry.so\n", argv[0]);
    return 2;
  }
  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 1;
  }
  *(void**)(&version) = dlsym(lib, "ferry_version");
  *(void**)(&options_init) = dlsym(lib, "ferry_context_options_init");
  *(void**)(&create) = dlsym(lib, "ferry_context_create");
  *(void**)(&destroy) = dlsym(lib, "ferry_context_destroy");
  *(void**)(&last_error) = dlsym(lib, "ferry_last_error");
  if (!version || !options_init || !create || !destroy || !last_error) {
    fprintf(stderr, "a ferry_* symbol is missing\n");
    return 1;
  }
  if (dlsym(lib, "_ZN5ferry5ErrorD0Ev") != NULL) {
    fprintf(stderr, "a C++ symbol leaked out of libferry.so\n");
    return 1;
  }
  if (version() != FERRY_VERSION_NUMBER) {
    fprintf(stderr, "version %d, header %d\n", version(), FERRY_VERSION_NUMBER);
    return 1;
  }
  if (options_init(&options, sizeof options) != FERRY_OK) return 1;
  options.device_kind = FERRY_DEVICE_CPU;
  if (create(&ctx, &options) != FERRY_OK) {
    fprintf(stderr, "create failed: %s\n", last_error());
    return 1;
  }
  if (destroy(ctx) != FERRY_OK) return 1;
  if (destroy(ctx) != FERRY_ERR_INVALID_HANDLE) return 1;
  printf("dlopen test: resolved and used libferry %d by name\n", version());
  dlclose(lib);
  return 0;
}
