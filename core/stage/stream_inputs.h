// StreamInputs: one device buffer per pipeline stream for the uint8 input of
// the chunk being copied and converted on that stream. Work on one stream
// runs in order, so the next chunk's copy into the buffer starts only after
// the previous chunk's kernel read it: no event, no allocation per chunk.
// Overlap comes from the streams: chunk k+1 copies on stream s+1 while chunk
// k converts on stream s.
//
// A chunk's copy and kernel must be queued together (no other chunk's copy
// between them on that stream): a Lease holds the stream's lock meanwhile.
// Thread-safe.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/memory/device_cache.h"
#include "core/device/device_runtime.h"

namespace ferry::core {

class StreamInputs {
 public:
  StreamInputs(DeviceCache& cache, std::vector<StreamHandle> streams);
  ~StreamInputs();  // gives the buffers back to the cache, in stream order
  StreamInputs(const StreamInputs&) = delete;
  StreamInputs& operator=(const StreamInputs&) = delete;

  class Lease {
   public:
    Lease(Lease&&) = default;
    StreamHandle stream() const noexcept { return stream_; }
    void* buffer() const noexcept { return buffer_; }

   private:
    friend class StreamInputs;
    Lease(std::unique_lock<std::mutex> lock, StreamHandle stream, void* buffer)
        : lock_(std::move(lock)), stream_(stream), buffer_(buffer) {}
    std::unique_lock<std::mutex> lock_;
    StreamHandle stream_;
    void* buffer_;
  };

  // Locks stream `index` and returns its buffer, grown to at least `bytes`
  // (the old buffer is freed in the stream's order).
  Lease lease(std::size_t index, std::size_t bytes);

  std::size_t size() const noexcept { return entries_.size(); }
  StreamHandle stream(std::size_t index) const { return entries_.at(index)->stream; }

 private:
  struct Entry {
    std::mutex mutex;
    StreamHandle stream = nullptr;
    void* buffer = nullptr;
    std::size_t bytes = 0;
  };
  DeviceCache& cache_;
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace ferry::core
