// ferry::Error: the one exception type inside ferry. The C API layer turns it
// into a Status and the thread-local last-error message; nothing else
// crosses the ABI.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/status.h"

namespace ferry {

class Error : public std::runtime_error {
 public:
  Error(Status status, std::string message)
      : std::runtime_error(std::move(message)), status_(status) {}
  Status status() const noexcept { return status_; }

 private:
  Status status_;
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& out, const T& first, const Rest&... rest) {
  out << first;
  append(out, rest...);
}
}  // namespace detail

// Builds a message from its parts: fail(Status::InvalidArgument, "n is ", n).
template <typename... Parts>
[[noreturn]] void fail(Status status, const Parts&... parts) {
  std::ostringstream out;
  detail::append(out, parts...);
  throw Error(status, out.str());
}

// The exception being handled, as an Error: itself if it is one; host memory
// exhausted (std::bad_alloc) is Status::OutOfMemory; anything else is
// Status::Internal with its message. Call only inside a catch block.
Error error_of_current_exception() noexcept;

}  // namespace ferry

// Throws ferry::Error(status, message parts...) unless cond holds.
#define FERRY_EXPECT(cond, status, ...)              \
  do {                                               \
    if (!(cond)) ::ferry::fail((status), __VA_ARGS__); \
  } while (0)
