// The public headers compile as C++ with -Wall -Wextra -pedantic -Werror.
#include "ferry/ferry.h"

int ferry_cxx_header_version() { return ferry_version(); }
