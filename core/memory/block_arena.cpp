#include "core/memory/block_arena.h"

#include <algorithm>
#include <sstream>

namespace ferry::core {

BlockArena::~BlockArena() {
  for (auto& [base, segment] : segments_) {
    for (ArenaBlock* b = segment->first; b != nullptr;) {
      ArenaBlock* next = b->next;
      delete b;
      b = next;
    }
    delete segment;
  }
}

ArenaBlock* BlockArena::best_fit(int pool, StreamKey stream, std::size_t rounded) const {
  ArenaBlock probe;
  probe.stream = stream;
  probe.size = rounded;
  probe.addr = 0;
  auto it = free_[pool].lower_bound(&probe);
  if (it == free_[pool].end() || (*it)->stream != stream) return nullptr;
  return *it;
}

ArenaBlock* BlockArena::allocate(std::size_t rounded, StreamKey stream) {
  const int pool = policy_.is_small(rounded) ? 0 : 1;
  ArenaBlock* best = best_fit(pool, stream, rounded);
  if (stream != kAnyStream) {
    ArenaBlock* anywhere = best_fit(pool, kAnyStream, rounded);
    if (best == nullptr || (anywhere != nullptr && anywhere->size < best->size)) best = anywhere;
  }
  // The best fit is the smallest block that fits: if it wastes too much, all others do too.
  if (best == nullptr || !policy_.can_serve(best->size, rounded)) return nullptr;
  free_[pool].erase(best);
  return take(best, rounded, stream);
}

ArenaBlock* BlockArena::take(ArenaBlock* block, std::size_t rounded, StreamKey stream) {
  if (policy_.should_split(block->size, rounded)) {
    auto* rest = new ArenaBlock;
    rest->addr = block->addr + rounded;
    rest->size = block->size - rounded;
    rest->segment = block->segment;
    rest->prev = block;
    rest->next = block->next;
    rest->state = ArenaBlock::State::kFree;
    rest->stream = block->stream;
    rest->epoch = block->epoch;
    if (block->next != nullptr) block->next->prev = rest;
    block->next = rest;
    block->size = rounded;
    set_of(rest).insert(rest);
  }
  block->state = ArenaBlock::State::kAllocated;
  block->stream = stream;
  block->epoch = 0;
  allocated_.emplace(block->addr, block);
  allocated_bytes_ += block->size;
  return block;
}

// Records a new segment of `size` bytes at `base` (free list `pool`), as one block.
ArenaBlock* BlockArena::new_segment(std::uintptr_t base, std::size_t size, int pool) {
  auto* segment = new ArenaSegment{base, size, pool, nullptr};
  auto* block = new ArenaBlock;
  block->addr = base;
  block->size = size;
  block->segment = segment;
  segment->first = block;
  segments_.emplace(base, segment);
  reserved_bytes_ += size;
  return block;
}

ArenaBlock* BlockArena::allocate_from_new_segment(std::uintptr_t base, std::size_t size,
                                                  std::size_t rounded, StreamKey stream) {
  return take(new_segment(base, size, policy_.is_small(rounded) ? 0 : 1), rounded, stream);
}

void BlockArena::add_free_segment(std::uintptr_t base, std::size_t size) {
  free_[1].insert(new_segment(base, size, 1));
}

ArenaBlock* BlockArena::find_allocated(std::uintptr_t addr) const {
  auto it = allocated_.find(addr);
  return it == allocated_.end() ? nullptr : it->second;
}

void BlockArena::insert_free(ArenaBlock* block) {
  FreeSet& set = set_of(block);
  auto mergeable = [&](const ArenaBlock* n) {
    return n != nullptr && n->state == ArenaBlock::State::kFree && n->stream == block->stream;
  };
  if (ArenaBlock* p = block->prev; mergeable(p)) {  // p absorbs block
    set.erase(p);
    p->size += block->size;
    p->epoch = std::max(p->epoch, block->epoch);
    p->next = block->next;
    if (block->next != nullptr) block->next->prev = p;
    delete block;
    block = p;
  }
  if (ArenaBlock* n = block->next; mergeable(n)) {  // block absorbs n
    set.erase(n);
    block->size += n->size;
    block->epoch = std::max(block->epoch, n->epoch);
    block->next = n->next;
    if (n->next != nullptr) n->next->prev = block;
    delete n;
  }
  set.insert(block);
}

void BlockArena::release(ArenaBlock* block, StreamKey stream, std::uint64_t epoch) {
  allocated_.erase(block->addr);
  allocated_bytes_ -= block->size;
  block->state = ArenaBlock::State::kFree;
  block->stream = stream;
  block->epoch = stream == kAnyStream ? 0 : epoch;
  insert_free(block);
}

void BlockArena::promote(StreamKey stream, std::uint64_t safe_epoch) {
  if (stream == kAnyStream) return;
  std::vector<ArenaBlock*> ready;
  for (FreeSet& set : free_) {
    ArenaBlock probe;
    probe.stream = stream;
    probe.size = 0;
    for (auto it = set.lower_bound(&probe); it != set.end() && (*it)->stream == stream;) {
      if ((*it)->epoch < safe_epoch) {
        ready.push_back(*it);
        it = set.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Out of every set, and not mergeable until its own turn: a block not yet
  // re-keyed is never absorbed (so never deleted) by an earlier one's merge.
  for (ArenaBlock* b : ready) b->state = ArenaBlock::State::kPromoting;
  for (ArenaBlock* b : ready) {
    b->state = ArenaBlock::State::kFree;
    b->stream = kAnyStream;
    b->epoch = 0;
    insert_free(b);  // may absorb earlier ready blocks, or be absorbed by one
  }
}

std::vector<StreamKey> BlockArena::streams_with_free_blocks() const {
  std::vector<StreamKey> out;
  for (const FreeSet& set : free_)
    for (const ArenaBlock* b : set)
      if (b->stream != kAnyStream && std::find(out.begin(), out.end(), b->stream) == out.end())
        out.push_back(b->stream);
  return out;
}

bool BlockArena::has_free_blocks_on(StreamKey stream) const {
  ArenaBlock probe;
  probe.stream = stream;
  probe.size = 0;
  for (const FreeSet& set : free_) {
    auto it = set.lower_bound(&probe);
    if (it != set.end() && (*it)->stream == stream) return true;
  }
  return false;
}

std::vector<SegmentSpan> BlockArena::take_free_segments(std::size_t bytes_wanted) {
  std::vector<ArenaSegment*> candidates;
  for (auto& [base, s] : segments_)
    if (s->first->next == nullptr && s->first->state == ArenaBlock::State::kFree &&
        s->first->stream == kAnyStream)
      candidates.push_back(s);
  std::sort(candidates.begin(), candidates.end(),
            [](const ArenaSegment* a, const ArenaSegment* b) { return a->size > b->size; });
  std::vector<SegmentSpan> out;
  std::size_t gathered = 0;
  for (ArenaSegment* s : candidates) {
    if (gathered >= bytes_wanted) break;
    free_[s->pool].erase(s->first);
    delete s->first;
    segments_.erase(s->base);
    reserved_bytes_ -= s->size;
    gathered += s->size;
    out.push_back({s->base, s->size});
    delete s;
  }
  return out;
}

std::vector<SegmentSpan> BlockArena::take_all_segments() {
  std::vector<SegmentSpan> out;
  for (auto& [base, s] : segments_) {
    out.push_back({s->base, s->size});
    for (ArenaBlock* b = s->first; b != nullptr;) {
      ArenaBlock* next = b->next;
      delete b;
      b = next;
    }
    delete s;
  }
  segments_.clear();
  free_[0].clear();
  free_[1].clear();
  allocated_.clear();
  allocated_bytes_ = 0;
  reserved_bytes_ = 0;
  return out;
}

bool BlockArena::segment_contains(std::uintptr_t addr, std::size_t bytes) const {
  auto it = segments_.upper_bound(addr);
  if (it == segments_.begin()) return false;
  --it;
  const ArenaSegment* s = it->second;
  return addr >= s->base && bytes <= s->size && addr - s->base <= s->size - bytes;
}

std::string BlockArena::check_invariants() const {
  std::ostringstream err;
  std::size_t allocated = 0, reserved = 0, free_count = 0, allocated_count = 0;
  for (const auto& [base, s] : segments_) {
    reserved += s->size;
    std::uintptr_t at = s->base;
    const ArenaBlock* prev = nullptr;
    for (const ArenaBlock* b = s->first; b != nullptr; prev = b, b = b->next) {
      if (b->addr != at) err << "block at " << b->addr << " expected at " << at << "; ";
      if (b->prev != prev) err << "bad prev link at " << b->addr << "; ";
      if (b->segment != s) err << "bad segment link at " << b->addr << "; ";
      at += b->size;
      if (b->state == ArenaBlock::State::kAllocated) {
        allocated += b->size;
        ++allocated_count;
        if (find_allocated(b->addr) != b) err << "allocated block " << b->addr << " not in map; ";
      } else if (b->state == ArenaBlock::State::kFree) {
        ++free_count;
        if (free_[s->pool].count(const_cast<ArenaBlock*>(b)) == 0) err << "free block " << b->addr << " not in set; ";
        if (prev != nullptr && prev->state == ArenaBlock::State::kFree && prev->stream == b->stream)
          err << "unmerged neighbours at " << b->addr << "; ";
      }
    }
    if (at != s->base + s->size) err << "segment " << s->base << " blocks do not cover it; ";
  }
  if (allocated != allocated_bytes_) err << "allocated_bytes " << allocated_bytes_ << " != " << allocated << "; ";
  if (reserved != reserved_bytes_) err << "reserved_bytes " << reserved_bytes_ << " != " << reserved << "; ";
  if (free_count != free_block_count()) err << "free sets hold " << free_block_count() << " != " << free_count << "; ";
  if (allocated_count != allocated_.size()) err << "allocated map holds " << allocated_.size() << "; ";
  return err.str();
}

}  // namespace ferry::core
