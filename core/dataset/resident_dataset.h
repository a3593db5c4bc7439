// ResidentDataset: uint8 samples held in a context's device memory (host
// memory on the CPU backend), uploaded once through the staging pipeline, and
// gathered by index into ordinary batches (Stager with a resident source:
// one conversion, no copy). include/ferry/dataset.h is its C ABI.
//
// The samples live in one ResidentStorage block, packed in the source's
// layout: sample i at offset(i), of size h(i) x w(i) x c. On a GPU the first
// samples go ahead while that block is allocated (head_samples). A gather's batch
// holds the storage until its kernel has completed, so a dataset may be
// destroyed (or its context) while gathers are in flight.
//
// Thread-safe: after construction, every method only reads.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/context.h"
#include "core/convert/convert_plan.h"
#include "core/convert/descriptors.h"
#include "core/stage/submit_options.h"

namespace ferry::core {

class UploadQueue;

enum class DatasetPlacement : int { Replica = 0, Shard = 1 };

struct DatasetOptions {
  DatasetPlacement placement = DatasetPlacement::Replica;
  int rank = 0, world_size = 1;
  std::uint64_t part_bytes = 0;  // 0: kDefaultPartBytes
  SourcePolicy source_policy = SourcePolicy::Auto;
  // Bytes of samples sent ahead into a block of the device cache while the
  // storage is allocated (ResidentDataset::head_samples); -1: ferry's choice.
  // Not in the C ABI: tests set it to run the head on the CPU backend.
  std::int64_t head_bytes = -1;
};

// The memory of a dataset's samples, given back (and uncounted) by its last owner.
class ResidentStorage {
 public:
  // Throws Status::OutOfMemory naming `bytes` and the device's free memory.
  ResidentStorage(MemorySystem& memory, std::uint64_t bytes);
  ~ResidentStorage();
  ResidentStorage(const ResidentStorage&) = delete;
  ResidentStorage& operator=(const ResidentStorage&) = delete;
  std::uint8_t* data() const noexcept { return data_; }
  std::uint64_t bytes() const noexcept { return bytes_; }

 private:
  std::shared_ptr<DeviceRuntime> runtime_;
  std::shared_ptr<ResidentGauge> gauge_;
  std::uint8_t* data_ = nullptr;
  std::uint64_t bytes_ = 0;
};

class ResidentDataset {
 public:
  static constexpr std::uint64_t kDefaultPartBytes = std::uint64_t{64} << 20;

  // Validates source and options, allocates, uploads (returns when done).
  // Throws ferry::Error; nothing is left held.
  ResidentDataset(Context& context, const SourceDesc& source, const DatasetOptions& options);

  std::int64_t count() const noexcept { return count_; }
  std::int64_t source_count() const noexcept { return source_count_; }
  std::int64_t h() const noexcept { return h_; }
  std::int64_t w() const noexcept { return w_; }
  std::int64_t c() const noexcept { return c_; }
  Layout layout() const noexcept { return layout_; }
  bool variable_sizes() const noexcept { return !sizes_.empty(); }
  const DatasetOptions& options() const noexcept { return options_; }
  std::uint64_t bytes() const noexcept { return storage_->bytes(); }
  void* data() const noexcept { return storage_->data(); }
  double upload_seconds() const noexcept { return upload_seconds_; }
  std::int64_t epoch_size() const noexcept;

  // The source sample dataset sample `index` holds; Status::OutOfRange outside 0 .. count-1.
  std::int64_t source_index(std::int64_t index) const;
  // `count` indices of one epoch (ferry_dataset_epoch); Status::InvalidArgument
  // unless count == epoch_size().
  void epoch(std::int64_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t epoch, bool shuffle) const;

  // The source of a gather of indices[0 .. n-1], pointing into the storage:
  // valid while this object lives. Checks every index (Status::OutOfRange).
  struct Gather {
    SourceDesc source;
    std::vector<const void*> samples;    // one size
    std::vector<SampleDesc> sample_descs;  // variable sizes
  };
  void gather_source(const std::int64_t* indices, std::int64_t n, Gather& out) const;
  // Where a gather's samples lie (SourceView::Resident), one size only; with
  // base NULL for samples of different sizes.
  SourceView::Resident resident() const noexcept;
  // A gather by indices in the context's memory (ferry_dataset_gather_device).
  // On a CUDA context the indices are read on the device (`device` filled,
  // the source's samples stand-ins); on the CPU they are host memory, read
  // here, each clamped into 0 .. count-1 as the device does. One size only
  // (Status::Unsupported for samples of different sizes).
  void gather_source_in_memory(const std::int64_t* indices, std::int64_t n, bool on_device, Gather& out,
                               SourceView::Resident& resident) const;
  // The owner a gather's batch holds (SubmitOptions::resident_source).
  std::shared_ptr<const void> storage_owner() const noexcept { return storage_; }

 private:
  void upload(Context& context, const ConvertPlan& plan, const SourceDesc& source, std::uint64_t total);
  void send_parts(UploadQueue& queue, const ConvertPlan& plan, const SourceDesc& source, std::int64_t from,
                  std::int64_t to, std::uint8_t* dst, const SubmitOptions& submit) const;
  std::int64_t head_samples(DeviceRuntime& runtime, std::uint64_t total) const noexcept;
  std::uint64_t offset_of(std::int64_t held) const noexcept;  // where held sample `held` starts
  std::int64_t source_of(std::int64_t held) const noexcept;   // the source sample held sample `held` is

  DatasetOptions options_;
  std::int64_t source_count_ = 0, h_ = 0, w_ = 0, c_ = 0;
  Layout layout_ = Layout::NHWC;
  std::int64_t count_ = 0;  // samples held
  std::uint64_t sample_bytes_ = 0;           // one size
  // Variable sizes: held sample i is sizes_[i] (h, w) at offsets_[i]; empty for one size.
  struct Size {
    std::int64_t h, w;
  };
  std::vector<Size> sizes_;
  std::vector<std::uint64_t> offsets_;
  std::shared_ptr<ResidentStorage> storage_;
  double upload_seconds_ = 0;
};

}  // namespace ferry::core
