// Opaque handles that cannot dangle. A handle is an id, never a pointer to a
// C++ object: ids are never reused, so a destroyed, released or foreign handle
// is simply not found (FERRY_ERR_INVALID_HANDLE), and a lookup returns a
// shared_ptr that keeps the object alive while a call uses it, even if
// another thread destroys the handle meanwhile. The top byte of an id is a
// per-type tag, so a batch handle passed where a context belongs is caught too.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "core/error.h"

namespace ferry::api {

template <typename T>
class HandleTable {
 public:
  HandleTable(std::uint8_t tag, const char* type_name) : tag_(tag), type_name_(type_name) {}

  // Registers an object and returns its new id. Thread-safe.
  std::uint64_t insert(std::shared_ptr<T> object) {
    std::unique_lock lock(mutex_);
    const std::uint64_t id = (std::uint64_t{tag_} << 56) | ++counter_;
    objects_.emplace(id, std::move(object));
    return id;
  }

  // The live object for `id`, or throws FERRY_ERR_INVALID_HANDLE naming the argument.
  std::shared_ptr<T> get(std::uint64_t id, const char* argument) const {
    FERRY_EXPECT(id != 0, Status::InvalidHandle, argument, " is NULL");
    std::shared_lock lock(mutex_);
    auto it = objects_.find(id);
    FERRY_EXPECT(it != objects_.end(), Status::InvalidHandle, argument, " (0x", std::hex, id,
                 ") is not a live ", type_name_, ": destroyed, released, or not a ferry handle");
    return it->second;
  }

  // Removes and returns the object (to destroy it outside the lock), or
  // throws FERRY_ERR_INVALID_HANDLE. Exactly one of several racing calls wins.
  std::shared_ptr<T> take(std::uint64_t id, const char* argument) {
    FERRY_EXPECT(id != 0, Status::InvalidHandle, argument, " is NULL");
    std::unique_lock lock(mutex_);
    auto it = objects_.find(id);
    FERRY_EXPECT(it != objects_.end(), Status::InvalidHandle, argument, " (0x", std::hex, id,
                 ") is not a live ", type_name_, ": destroyed, released, or not a ferry handle");
    std::shared_ptr<T> object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  // Removes every object for which pred(object) holds; returns them so the
  // caller drops the last references outside the lock.
  template <typename Pred>
  std::vector<std::shared_ptr<T>> take_if(Pred pred) {
    std::vector<std::shared_ptr<T>> taken;
    std::unique_lock lock(mutex_);
    for (auto it = objects_.begin(); it != objects_.end();) {
      if (pred(*it->second)) {
        taken.push_back(std::move(it->second));
        it = objects_.erase(it);
      } else {
        ++it;
      }
    }
    return taken;
  }

 private:
  const std::uint8_t tag_;
  const char* const type_name_;
  mutable std::shared_mutex mutex_;
  std::uint64_t counter_ = 0;
  std::unordered_map<std::uint64_t, std::shared_ptr<T>> objects_;
};

}  // namespace ferry::api
