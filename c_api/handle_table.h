// Opaque handles that cannot dangle: the one table design behind every
// handle of the C ABI (ferry_context_t, ferry_batch_t, ferry_tensor_t).
//
// A handle is an id, never a pointer to a C++ object. Ids are never reused and
// carry a per-type tag in their top byte, so a destroyed, released or foreign
// handle (a batch passed as a context) is simply not found:
// FERRY_ERR_INVALID_HANDLE. get() returns a Ref that keeps the object alive for
// the length of a call even if another thread takes the handle meanwhile;
// take() removes it, and exactly one of racing takes wins. An id may name a
// parent (a batch its context), so a parent's children can be taken with it.
//
// What a take does about calls still inside the object is the one policy a
// table is built with:
//   kWaitForCalls (contexts): take waits until every Ref is gone, so the object
//     is destroyed on the taking thread, deterministically. Contexts are looked
//     up on nearly every call from many threads, so every shard indexes every
//     id, a lookup locks only its own thread's shard and counts itself in that
//     shard's slot of the entry's user count: no cache line is shared between
//     threads (a single shared_mutex plus a shared_ptr copy per call made a
//     150 ns alloc+free take ~1.8 us per thread with 8 threads, on the H200
//     host). Insert and take, rare, lock every shard.
//   kNeverWait (batches, tensor references): take returns at once; a Ref holds
//     a shared_ptr, so the last of the taker and the calls still inside lets the
//     object go. Nothing waits, so a completion callback that releases a batch
//     another thread is waiting on cannot deadlock. A batch is inserted and
//     taken once and used by one or two threads: each id lives in one shard
//     (by id), so insert, get and take each lock one mutex.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/context.h"
#include "core/dataset/resident_dataset.h"
#include "core/error.h"
#include "core/stage/batch.h"
#include "ferry/batch.h"
#include "ferry/context.h"
#include "ferry/dataset.h"

namespace ferry::api {

enum class OnTake { kWaitForCalls, kNeverWait };

template <typename T>
class HandleTable {
  static constexpr std::size_t kShards = 16;
  struct alignas(64) UserCount {
    std::atomic<std::int64_t> value{0};
  };
  struct Entry {
    std::shared_ptr<T> object;
    std::uint64_t parent = 0;
    std::unique_ptr<std::array<UserCount, kShards>> users;  // kWaitForCalls only
  };
  struct alignas(64) Shard {
    std::mutex mutex;
    std::unordered_map<std::uint64_t, Entry*> entries;
  };

 public:
  // The object, in use by one call.
  class Ref {
   public:
    Ref(Ref&& other) noexcept
        : object_(other.object_), parent_(other.parent_), users_(other.users_), keep_(std::move(other.keep_)) {
      other.users_ = nullptr;
    }
    Ref(const Ref&) = delete;
    Ref& operator=(const Ref&) = delete;
    Ref& operator=(Ref&&) = delete;
    ~Ref() {
      if (users_ != nullptr) users_->value.fetch_sub(1, std::memory_order_release);
    }
    T* get() const noexcept { return object_; }
    T* operator->() const noexcept { return object_; }
    T& operator*() const noexcept { return *object_; }
    std::uint64_t parent() const noexcept { return parent_; }

   private:
    friend class HandleTable;
    Ref(T* object, std::uint64_t parent, UserCount* users, std::shared_ptr<T> keep) noexcept
        : object_(object), parent_(parent), users_(users), keep_(std::move(keep)) {}
    T* object_;
    std::uint64_t parent_;
    UserCount* users_;       // kWaitForCalls: counted in the entry
    std::shared_ptr<T> keep_;  // kNeverWait: kept alive by this
  };

  HandleTable(std::uint8_t tag, const char* type_name, OnTake on_take)
      : tag_(tag), type_name_(type_name), on_take_(on_take) {}
  ~HandleTable() {
    for (std::size_t i = 0; i < scanned_shards(); ++i)
      for (auto& [id, entry] : shards_[i].entries) delete entry;
  }
  HandleTable(const HandleTable&) = delete;
  HandleTable& operator=(const HandleTable&) = delete;

  // Registers an object (a child of `parent`, 0 for none) and returns its new id.
  std::uint64_t insert(std::shared_ptr<T> object, std::uint64_t parent = 0) {
    auto entry = std::make_unique<Entry>();
    entry->object = std::move(object);
    entry->parent = parent;
    if (on_take_ == OnTake::kWaitForCalls) entry->users = std::make_unique<std::array<UserCount, kShards>>();
    const std::uint64_t id = (std::uint64_t{tag_} << 56) | (counter_.fetch_add(1, std::memory_order_relaxed) + 1);
    Locked lock(*this, id);
    try {
      for (Shard* s = lock.first; s != lock.last; ++s) s->entries.emplace(id, entry.get());
    } catch (...) {
      for (Shard* s = lock.first; s != lock.last; ++s) s->entries.erase(id);
      throw;
    }
    entry.release();  // the shards own it from here on; take() deletes it
    return id;
  }

  // The live object for `id`, or FERRY_ERR_INVALID_HANDLE naming the argument.
  Ref get(std::uint64_t id, const char* argument) {
    FERRY_EXPECT(id != 0, Status::InvalidHandle, argument, " is NULL");
    std::optional<Ref> ref = find(id);
    if (!ref) fail_not_found(id, argument);
    return std::move(*ref);
  }

  // The live object for `id`, or nothing.
  std::optional<Ref> find(std::uint64_t id) {
    const std::size_t index = on_take_ == OnTake::kWaitForCalls ? my_shard() : id % kShards;
    Shard& shard = shards_[index];
    std::lock_guard<std::mutex> lock(shard.mutex);
    auto it = shard.entries.find(id);
    if (it == shard.entries.end()) return std::nullopt;
    Entry& entry = *it->second;
    if (entry.users == nullptr) return Ref(entry.object.get(), entry.parent, nullptr, entry.object);
    // Under the shard's lock: a take, which locks every shard, either comes
    // before (not found) or sees this count.
    UserCount& users = (*entry.users)[index];
    users.value.fetch_add(1, std::memory_order_relaxed);
    return Ref(entry.object.get(), entry.parent, &users, nullptr);
  }

  // What take() removed: the object, for the caller to let go of, and its parent.
  struct Taken {
    std::shared_ptr<T> object;
    std::uint64_t parent = 0;
  };

  // Removes the object and returns it, or throws FERRY_ERR_INVALID_HANDLE.
  // kWaitForCalls: returns once the calls inside it have returned, so it must
  // not be called from inside a call on the same object.
  Taken take(std::uint64_t id, const char* argument) {
    FERRY_EXPECT(id != 0, Status::InvalidHandle, argument, " is NULL");
    Entry* entry = nullptr;
    {
      Locked lock(*this, id);
      auto it = lock.first->entries.find(id);
      if (it == lock.first->entries.end()) fail_not_found(id, argument);
      entry = it->second;
      for (Shard* s = lock.first; s != lock.last; ++s) s->entries.erase(id);
    }
    const std::uint64_t parent = entry->parent;
    return Taken{retire(entry), parent};
  }

  // Removes every child of `parent` (a destroyed context's batches) and
  // returns them for the caller to let go of.
  std::vector<std::shared_ptr<T>> take_children(std::uint64_t parent) {
    std::vector<std::pair<std::uint64_t, Entry*>> children;
    for (std::size_t i = 0; i < scanned_shards(); ++i) {
      Shard& shard = shards_[i];
      std::lock_guard<std::mutex> lock(shard.mutex);
      for (const auto& [id, entry] : shard.entries)
        if (entry->parent == parent) children.emplace_back(id, entry);
    }
    std::vector<std::shared_ptr<T>> taken;
    taken.reserve(children.size());
    for (const auto& [id, entry] : children) {
      {
        Locked lock(*this, id);
        // Taken by a racing take() since it was listed: that take retires it.
        if (lock.first->entries.erase(id) == 0) continue;
        for (Shard* s = lock.first + 1; s != lock.last; ++s) s->entries.erase(id);
      }
      taken.push_back(retire(entry));
    }
    return taken;
  }

 private:
  // Locks the shards that index `id` (every shard, or its one), always in order.
  struct Locked {
    Locked(HandleTable& table, std::uint64_t id)
        : first(table.on_take_ == OnTake::kWaitForCalls ? table.shards_.data() : &table.shards_[id % kShards]),
          last(table.on_take_ == OnTake::kWaitForCalls ? first + kShards : first + 1) {
      for (Shard* s = first; s != last; ++s) s->mutex.lock();
    }
    ~Locked() {
      for (Shard* s = first; s != last; ++s) s->mutex.unlock();
    }
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;
    Shard* const first;
    Shard* const last;
  };

  // An entry no longer indexed: waits for its users (kWaitForCalls), then frees it.
  std::shared_ptr<T> retire(Entry* entry) {
    if (entry->users != nullptr) {
      // No new user can find it; those already in leave soon (short calls, or
      // a submit waiting for a place, which batches completing will free).
      for (int spins = 0; users_of(*entry) != 0; ++spins) {
        if (spins < 64) {
          std::this_thread::yield();
        } else {
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
      }
    }
    std::shared_ptr<T> object = std::move(entry->object);
    delete entry;
    return object;
  }

  static std::int64_t users_of(const Entry& entry) noexcept {
    std::int64_t total = 0;
    for (const UserCount& u : *entry.users) total += u.value.load(std::memory_order_acquire);
    return total;
  }

  // The shards to scan to see every id once.
  std::size_t scanned_shards() const noexcept { return on_take_ == OnTake::kWaitForCalls ? 1 : kShards; }

  [[noreturn]] void fail_not_found(std::uint64_t id, const char* argument) const {
    fail(Status::InvalidHandle, argument, " (0x", std::hex, id, ") is not a live ", type_name_,
         ": destroyed, released, or not a ferry handle");
  }

  // Each thread keeps one shard for its life, spread round-robin.
  static std::size_t my_shard() noexcept {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t shard = next.fetch_add(1, std::memory_order_relaxed) % kShards;
    return shard;
  }

  const std::uint8_t tag_;
  const char* const type_name_;
  const OnTake on_take_;
  std::atomic<std::uint64_t> counter_{0};
  std::array<Shard, kShards> shards_;
};

// ferry's handles (handle_table.cpp). The tables are leaked on purpose: a
// binding may release a handle from a static destructor after ours ran.
using ContextTable = HandleTable<core::Context>;  // tag 0xC7, kWaitForCalls
using BatchTable = HandleTable<core::Batch>;      // tag 0xBA, kNeverWait; parent: the context
using DatasetTable = HandleTable<core::ResidentDataset>;  // tag 0xDA, kNeverWait; parent: the context
ContextTable& context_table();
BatchTable& batch_table();
DatasetTable& dataset_table();

template <typename Handle>
std::uint64_t handle_id(Handle handle) {
  return reinterpret_cast<std::uintptr_t>(handle);
}
template <typename Handle>
Handle handle_of(std::uint64_t id) {
  return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(id));
}

// The live context behind `ctx` for the length of a call, or
// FERRY_ERR_INVALID_HANDLE naming `argument`.
inline ContextTable::Ref get_context(ferry_context_t ctx, const char* argument = "ctx") {
  return context_table().get(handle_id(ctx), argument);
}

// A call on a batch: the batch, and its context held like any call on the
// context, so destroying the context waits for the call and the pipeline is
// alive throughout; a released batch, or one whose context was destroyed,
// answers FERRY_ERR_INVALID_HANDLE without touching either.
struct BatchCall {
  BatchTable::Ref batch;
  ContextTable::Ref context;
  core::Stager& stager() const { return context->stager(); }
};
BatchCall call_batch(ferry_batch_t batch, const char* argument = "batch");

// A call on a dataset: the dataset and its context, as BatchCall's.
struct DatasetCall {
  DatasetTable::Ref dataset;
  ContextTable::Ref context;
};
DatasetCall call_dataset(ferry_dataset_t dataset, const char* argument = "dataset");

// Called by ferry_context_destroy once the context left its table, before it
// is destroyed: its batches and datasets leave theirs, so they answer
// FERRY_ERR_INVALID_HANDLE.
void on_context_destroyed(std::uint64_t context_id) noexcept;

}  // namespace ferry::api
