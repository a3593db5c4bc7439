// BlockArena: the bookkeeping of one caching allocator shard, shared by the
// device cache and the pinned pool. Segments are what the backend allocated
// (cudaMalloc, cudaHostAlloc); blocks are pieces of segments handed out.
//
// - Free blocks sit in a best-fit set ordered by (stream, size, address), one
//   set for small blocks and one for large (see SizePolicy). A block freed on
//   stream S is reusable at once on S; it becomes reusable on every stream
//   (key kAnyStream) when the owner promotes it, after an event recorded on S
//   after the free has completed (StreamEpochs tracks that).
// - Serving a request splits the remainder off; freeing merges a block with
//   its free neighbours that carry the same stream key. Blocks on different
//   streams never merge, so a free never delays reuse of memory that was
//   already reusable elsewhere.
// - Host requests (key kAnyStream: pinned memory the host writes) are served
//   only by blocks promoted to kAnyStream, so never while a copy may read them.
//
// Not thread-safe: the owner holds a mutex around every call. No CUDA here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/memory/size_policy.h"

namespace ferry::core {

using StreamKey = std::uintptr_t;
constexpr StreamKey kAnyStream = ~StreamKey{0};

struct ArenaSegment;

struct ArenaBlock {
  enum class State { kAllocated, kFree, kPromoting };  // kPromoting: out of every set, inside promote
  std::uintptr_t addr = 0;
  std::size_t size = 0;
  ArenaSegment* segment = nullptr;
  ArenaBlock* prev = nullptr;  // neighbours in address order inside the segment
  ArenaBlock* next = nullptr;
  State state = State::kFree;
  StreamKey stream = kAnyStream;  // allocated: the allocating stream; free: where reusable at once
  std::uint64_t epoch = 0;        // free on a stream: that stream's epoch when it was freed
};

struct ArenaSegment {
  std::uintptr_t base = 0;
  std::size_t size = 0;
  int pool = 1;  // 0 small, 1 large
  ArenaBlock* first = nullptr;
};

// A segment handed back to the owner, to free with the backend.
struct SegmentSpan {
  std::uintptr_t base = 0;
  std::size_t size = 0;
};

class BlockArena {
 public:
  explicit BlockArena(const SizePolicy& policy) : policy_(policy) {}
  ~BlockArena();  // bookkeeping only: the owner gives the memory back first (take_all_segments)
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  const SizePolicy& policy() const noexcept { return policy_; }

  // Best fit among blocks free on `stream` or on any stream; nullptr when none fits.
  ArenaBlock* allocate(std::size_t rounded, StreamKey stream);
  // Adds segment [base, base + size) and serves `rounded` from its start.
  ArenaBlock* allocate_from_new_segment(std::uintptr_t base, std::size_t size, std::size_t rounded,
                                        StreamKey stream);
  // Adds segment [base, base + size) wholly free on any stream (preallocation).
  void add_free_segment(std::uintptr_t base, std::size_t size);

  // The allocated block that starts at addr, or nullptr.
  ArenaBlock* find_allocated(std::uintptr_t addr) const;
  // Gives an allocated block back, reusable at once on `stream` (kAnyStream: everywhere).
  void release(ArenaBlock* block, StreamKey stream, std::uint64_t epoch);
  // Free blocks on `stream` freed at an epoch < safe_epoch become reusable everywhere.
  void promote(StreamKey stream, std::uint64_t safe_epoch);
  // The streams that have free blocks not yet reusable everywhere.
  std::vector<StreamKey> streams_with_free_blocks() const;
  bool has_free_blocks_on(StreamKey stream) const;

  // Removes wholly free segments (free on any stream) until `bytes_wanted`
  // bytes are gathered, largest first; the owner frees them with the backend.
  std::vector<SegmentSpan> take_free_segments(std::size_t bytes_wanted = SIZE_MAX);
  // Removes every segment, in use or not (the owner is being destroyed).
  std::vector<SegmentSpan> take_all_segments();
  // Whether [addr, addr + bytes) lies inside one segment of this arena.
  bool segment_contains(std::uintptr_t addr, std::size_t bytes) const;

  std::size_t allocated_bytes() const noexcept { return allocated_bytes_; }
  std::size_t reserved_bytes() const noexcept { return reserved_bytes_; }  // sum of segments
  std::size_t allocated_count() const noexcept { return allocated_.size(); }
  std::size_t free_block_count() const noexcept { return free_[0].size() + free_[1].size(); }
  std::size_t segment_count() const noexcept { return segments_.size(); }
  // For tests: "" when every invariant holds, else what is broken.
  std::string check_invariants() const;

 private:
  ArenaBlock* new_segment(std::uintptr_t base, std::size_t size, int pool);  // one block, not yet in a free list
  struct FreeOrder {
    bool operator()(const ArenaBlock* a, const ArenaBlock* b) const {
      if (a->stream != b->stream) return a->stream < b->stream;
      if (a->size != b->size) return a->size < b->size;
      return a->addr < b->addr;
    }
  };
  using FreeSet = std::set<ArenaBlock*, FreeOrder>;

  ArenaBlock* best_fit(int pool, StreamKey stream, std::size_t rounded) const;
  ArenaBlock* take(ArenaBlock* block, std::size_t rounded, StreamKey stream);
  void insert_free(ArenaBlock* block);  // merges with same-key free neighbours, then inserts
  FreeSet& set_of(const ArenaBlock* b) { return free_[b->segment->pool]; }

  SizePolicy policy_;
  FreeSet free_[2];
  std::unordered_map<std::uintptr_t, ArenaBlock*> allocated_;
  std::map<std::uintptr_t, ArenaSegment*> segments_;
  std::size_t allocated_bytes_ = 0;
  std::size_t reserved_bytes_ = 0;
};

}  // namespace ferry::core
