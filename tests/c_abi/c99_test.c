/* The API used from pure C99 through the header: a CPU context, options,
 * errors and handles, as a C program sees them. */
#include <stdio.h>
#include <string.h>

#include "ferry/ferry.h"

static int failures = 0;
#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", \
              __FILE__, __LINE__, #cond, ferry_last_error());       \
      ++failures;                                                   \
    }                                                               \
  } while (0)

int main(void) {
  ferry_context_options options;
  ferry_context_t ctx = NULL;
  ferry_device_kind kind = FERRY_DEVICE_AUTO;
  int index = 0;
  int count = -1;

  CHECK(ferry_version() == FERRY_VERSION_NUMBER);
  CHECK(strcmp(ferry_status_string(FERRY_ERR_INVALID_HANDLE), "FERRY_ERR_INVALID_HANDLE") == 0);
  CHECK(ferry_device_count(&count) == FERRY_OK && count >= 0);

  CHECK(ferry_context_options_init(&options, sizeof options) == FERRY_OK);
  options.device_kind = FERRY_DEVICE_CPU;
  CHECK(ferry_context_create(&ctx, &options) == FERRY_OK);
  CHECK(ferry_context_get_device(&kind, &index, ctx) == FERRY_OK);
  CHECK(kind == FERRY_DEVICE_CPU && index == -1);
  CHECK(ferry_context_destroy(ctx) == FERRY_OK);
  CHECK(ferry_context_get_device(&kind, &index, ctx) == FERRY_ERR_INVALID_HANDLE);
  CHECK(strstr(ferry_last_error(), "ctx") != NULL);
  CHECK(ferry_context_destroy(NULL) == FERRY_OK);

  if (failures == 0) printf("c99 test: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
