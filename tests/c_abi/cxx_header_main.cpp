#include <cstdio>

#include "ferry/ferry.h"

int ferry_cxx_header_version();

int main() {
  if (ferry_cxx_header_version() != FERRY_VERSION_NUMBER) {
    std::puts("version mismatch");
    return 1;
  }
  return 0;
}
