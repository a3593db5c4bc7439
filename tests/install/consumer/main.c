#include <stdio.h>

#include "ferry/ferry.h"

int main(void) {
  ferry_context_t ctx = NULL;
  ferry_context_options o;
  if (ferry_context_options_init(&o, sizeof o) != FERRY_OK) return 1;
  o.device_kind = FERRY_DEVICE_CPU;
  if (ferry_context_create(&ctx, &o) != FERRY_OK) return 1;
  printf("installed ferry %s works\n", ferry_version_string());
  return ferry_context_destroy(ctx) == FERRY_OK ? 0 : 1;
}
