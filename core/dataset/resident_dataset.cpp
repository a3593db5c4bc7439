#include "core/dataset/resident_dataset.h"

#include <algorithm>
#include <chrono>

#include "core/checked_math.h"
#include "core/convert/convert_plan.h"
#include "core/dataset/epoch_order.h"
#include "core/dataset/upload_queue.h"
#include "core/device/event_pool.h"
#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core {
namespace {

void check_options(const DatasetOptions& o) {
  checked_enum_field(o.placement, {DatasetPlacement::Replica, DatasetPlacement::Shard}, "options->placement",
                     "FERRY_DATASET_REPLICA (0) or FERRY_DATASET_SHARD (1)");
  checked_enum_field(o.source_policy, {SourcePolicy::Auto, SourcePolicy::Stage, SourcePolicy::Register},
                     "options->source_policy",
                     "FERRY_SOURCE_AUTO (0), FERRY_SOURCE_STAGE (1) or FERRY_SOURCE_REGISTER (2)");
  FERRY_EXPECT(o.world_size >= 1, Status::InvalidArgument, "options->world_size is ", o.world_size,
               ": must be at least 1");
  FERRY_EXPECT(o.rank >= 0 && o.rank < o.world_size, Status::InvalidArgument, "options->rank is ", o.rank,
               ": must be in [0, world_size) = [0, ", o.world_size, ")");
}

// The transform an upload copies with: uint8 in the source's layout, packed.
Transform copy_transform(Layout layout) {
  Transform t;
  t.out_dtype = DType::UInt8;
  t.out_layout = layout;
  return t;
}

// A plan that validates the whole source and resolves its strides and sizes.
// Samples of different sizes need one output size to make a plan: 1 x 1.
ConvertPlan validating_plan(const SourceDesc& source) {
  FERRY_EXPECT(source.format == PixelFormat::Channels, Status::Unsupported, "source.format is ",
               static_cast<int>(source.format),
               ": a dataset holds images of c channels (FERRY_FORMAT_CHANNELS); decode frames before building one");
  Transform t = copy_transform(source.layout);
  if (source.sample_descs != nullptr) t.resize_w = t.resize_h = 1;
  return make_convert_plan(source, t, nullptr);
}

}  // namespace

ResidentStorage::ResidentStorage(MemorySystem& memory, std::uint64_t bytes)
    : runtime_(memory.shared_runtime()), gauge_(memory.resident_gauge()), bytes_(bytes) {
  data_ = static_cast<std::uint8_t*>(runtime_->device_malloc(static_cast<std::size_t>(bytes)));
  if (data_ == nullptr) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (runtime_->memory_info(&free_bytes, &total_bytes))
      fail(Status::OutOfMemory, "the dataset needs ", bytes, " bytes of ",
           runtime_->has_streams() ? "device" : "host", " memory; ", free_bytes, " of ", total_bytes,
           " are free");
    fail(Status::OutOfMemory, "the dataset needs ", bytes, " bytes of ",
         runtime_->has_streams() ? "device" : "host", " memory, which the allocator refused");
  }
  gauge_->bytes.fetch_add(bytes_, std::memory_order_relaxed);
  gauge_->datasets.fetch_add(1, std::memory_order_relaxed);
}

ResidentStorage::~ResidentStorage() {
  runtime_->device_free(data_);
  gauge_->bytes.fetch_sub(bytes_, std::memory_order_relaxed);
  gauge_->datasets.fetch_sub(1, std::memory_order_relaxed);
}

ResidentDataset::ResidentDataset(Context& context, const SourceDesc& source, const DatasetOptions& options)
    : options_(options) {
  check_options(options);
  if (options_.part_bytes == 0) options_.part_bytes = kDefaultPartBytes;
  const ConvertPlan plan = validating_plan(source);
  source_count_ = plan.n;
  h_ = plan.h, w_ = plan.w, c_ = plan.c;
  layout_ = plan.source_layout;
  const bool shard = options_.placement == DatasetPlacement::Shard;
  count_ = shard ? epoch_places(plan.n, options_.world_size) : plan.n;
  const std::int64_t held = count_;
  std::uint64_t total = 0;
  if (plan.variable_sizes()) {
    sizes_.resize(static_cast<std::size_t>(held));
    offsets_.resize(static_cast<std::size_t>(held) + 1, 0);
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      const SampleSource& s = plan.sample_sources[static_cast<std::size_t>(source_of(static_cast<std::int64_t>(i)))];
      sizes_[i] = {s.h, s.w};
      total = checked_add(total, static_cast<std::uint64_t>(s.h * s.w * c_), "dataset bytes");
      offsets_[i + 1] = total;
    }
  } else {
    sample_bytes_ = static_cast<std::uint64_t>(h_ * w_ * c_);
    total = checked_mul(sample_bytes_, static_cast<std::uint64_t>(held), "dataset bytes");
  }
  const auto start = std::chrono::steady_clock::now();
  upload(context, plan, source, total);
  upload_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Held sample k is source sample k, or for a shard the k-th of its rank's
// places in DistributedSampler's order (wrapping to fill the last).
std::int64_t ResidentDataset::source_of(std::int64_t held) const noexcept {
  return options_.placement == DatasetPlacement::Shard ? (options_.rank + held * options_.world_size) % source_count_
                                                       : held;
}

std::uint64_t ResidentDataset::offset_of(std::int64_t held) const noexcept {
  return variable_sizes() ? offsets_[static_cast<std::size_t>(held)]
                          : static_cast<std::uint64_t>(held) * sample_bytes_;
}

// The storage's allocation (cudaMalloc: about 2.5 us a MB on an H200, 0.35-0.45
// ms for CIFAR-10's 154 MB, 0.13-0.16 of its copy) runs beside a copy already
// in flight without slowing it (a probe on an H200: CIFAR's copy took 2.81 ms
// with a cudaMalloc of its size meanwhile, 2.79 alone). So the first samples
// go ahead into a block of the device cache while the storage is allocated,
// and move into it on the device once both are there. CIFAR-10 from pinned
// memory on an H200: cudaMalloc + copy 0.87 of the copy alone, the probe's
// head of 32 MB 0.975, ferry_dataset_create 0.93-0.95 (was 0.82-0.88).
//
// The head: at most a quarter of the set, 32 MB or a 32nd of it; none on the
// CPU backend (no allocation to hide), for sets under 16 MB, or where the set
// and the head are more than the device's memory (the storage's allocation
// then fails before any byte is read, as without a head). Its free memory is
// not asked: cudaMemGetInfo took 20-100 us, as long as the head's copy of 1-5
// MB; a set that fits the device but not its free memory reads its head
// before its allocation fails.
std::int64_t ResidentDataset::head_samples(DeviceRuntime& runtime, std::uint64_t total) const noexcept {
  constexpr std::uint64_t kMB = std::uint64_t{1} << 20;
  std::uint64_t target = 0;
  if (options_.head_bytes >= 0) {
    target = static_cast<std::uint64_t>(options_.head_bytes);
  } else if (runtime.has_streams() && total >= 16 * kMB) {
    target = std::min(total / 4, std::max(32 * kMB, total / 32));
  }
  const std::size_t device_bytes = target != 0 ? runtime.device_memory_bytes() : 0;
  if (device_bytes != 0 && total + target > device_bytes) return 0;
  // Whole samples, at least one left behind: the most k with offset_of(k) <= target.
  const std::int64_t k = variable_sizes()
                             ? static_cast<std::int64_t>(std::upper_bound(offsets_.begin(), offsets_.end(), target) -
                                                         offsets_.begin()) - 1
                             : static_cast<std::int64_t>(target / sample_bytes_);
  return std::min(k, count() - 1);
}

void ResidentDataset::upload(Context& context, const ConvertPlan& plan, const SourceDesc& source,
                             std::uint64_t total) {
  MemorySystem& memory = context.memory();
  DeviceRuntime& runtime = memory.runtime();
  SubmitOptions submit;
  submit.source_policy = options_.source_policy;
  std::int64_t head = head_samples(runtime, total);
  // The head's block, given back in its stream's order once the queue (declared
  // after it, so destroyed first) has nothing in flight.
  struct HeadBlock {
    DeviceCache& cache;
    StreamHandle stream;
    void* data = nullptr;
    ~HeadBlock() {
      if (data == nullptr) return;
      try {
        cache.free(data, stream);
      } catch (...) {
      }
    }
  } ahead{memory.device_cache(), memory.stream_pool().acquire()};
  UploadQueue queue(context.stager());
  if (head > 0) {
    try {
      ahead.data = memory.device_cache().allocate(static_cast<std::size_t>(offset_of(head)), ahead.stream);
    } catch (const Error& e) {
      if (e.status() != Status::OutOfMemory) throw;
      head = 0;  // no room for the head: the storage first, as without one
    }
  }
  if (head > 0) {
    // The block was allocated for its stream: the head's copies follow what that stream ran before.
    SubmitOptions into_block = submit;
    into_block.has_handoff = runtime.has_streams();
    into_block.handoff_stream = runtime.has_streams() ? ahead.stream : nullptr;
    send_parts(queue, plan, source, 0, head, static_cast<std::uint8_t*>(ahead.data), into_block);
  }
  const std::size_t head_batches = queue.sent();
  storage_ = std::make_shared<ResidentStorage>(memory, total);
  send_parts(queue, plan, source, head, count(), storage_->data() + offset_of(head), submit);
  if (head > 0) {
    queue.retire_through(head_batches);
    runtime.copy(storage_->data(), ahead.data, static_cast<std::size_t>(offset_of(head)), ahead.stream);
  }
  queue.finish();
  if (head > 0 && runtime.has_streams()) {
    EventLease landed(memory.event_pool());
    runtime.event_record(landed.get(), ahead.stream);
    runtime.event_synchronize(landed.get());
  }
}

// Held samples [from, to) in parts of at most part_bytes, each one batch of the
// staging pipeline whose output is the part's place (sample `from` at `dst`).
// A part is one stretch of the source buffer where it can be (a replica of one
// buffer: one DMA range), else sample pointers; samples of different sizes go
// in runs of one size.
void ResidentDataset::send_parts(UploadQueue& queue, const ConvertPlan& plan, const SourceDesc& source,
                                 std::int64_t from, std::int64_t to, std::uint8_t* dst,
                                 const SubmitOptions& submit) const {
  const SourceView view = source_view_of(plan, source);
  auto pointer_of = [&](std::int64_t g) -> const std::uint8_t* {
    if (plan.variable_sizes()) return plan.sample_data[static_cast<std::size_t>(g)];
    return view.samples != nullptr ? view.samples[g] : view.base + g * view.strides.n;
  };
  auto strides_of = [&](std::int64_t g) {
    return plan.variable_sizes() ? plan.sample_sources[static_cast<std::size_t>(g)].strides : plan.source_strides;
  };
  auto extent_of = [&](std::int64_t g) {
    return plan.variable_sizes() ? plan.sample_sources[static_cast<std::size_t>(g)].extent
                                 : plan.source_sample_extent;
  };
  const Transform transform = copy_transform(layout_);
  const std::int64_t step = options_.placement == DatasetPlacement::Shard ? options_.world_size : 1;
  const std::uint64_t origin = offset_of(from);
  std::vector<const void*> pointers;  // prepare copies them
  for (std::int64_t first = from; first < to;) {
    const std::int64_t g0 = source_of(first);
    const Strides4 strides = strides_of(g0);
    const std::int64_t h = plan.h_of(g0), w = plan.w_of(g0);
    const auto sample = static_cast<std::uint64_t>(h * w * c_);
    const std::int64_t most = static_cast<std::int64_t>(std::max<std::uint64_t>(1, options_.part_bytes / sample));
    // The part: samples of g0's size and strides, following one another in the source where g0's do.
    bool stretch = !plan.variable_sizes() && view.samples == nullptr;
    std::int64_t k = 1;
    for (; k < most && first + k < to; ++k) {
      const std::int64_t g = source_of(first + k);
      if (plan.variable_sizes()) {
        const Strides4 s = strides_of(g);
        if (plan.h_of(g) != h || plan.w_of(g) != w || s.c != strides.c || s.h != strides.h || s.w != strides.w)
          break;
      }
      if (stretch && g != g0 + k * step) {
        if (k > 1) break;  // the stretch ends here (a shard's wrap): the rest in the next part
        stretch = false;
      }
    }
    SourceDesc part;
    part.n = k;
    part.h = h, part.w = w, part.c = c_;
    part.layout = layout_;
    part.stride_c = strides.c, part.stride_h = strides.h, part.stride_w = strides.w;
    if (stretch) {
      part.data = pointer_of(g0);
      part.stride_n = view.strides.n * step;
      part.bytes = static_cast<std::size_t>(static_cast<std::uint64_t>((k - 1) * part.stride_n) + extent_of(g0));
    } else {
      pointers.resize(static_cast<std::size_t>(k));
      for (std::int64_t i = 0; i < k; ++i)
        pointers[static_cast<std::size_t>(i)] = pointer_of(source_of(first + i));
      part.samples = pointers.data();
      part.sample_bytes = static_cast<std::size_t>(extent_of(g0));
    }
    OutputDesc out;
    out.data = dst + (offset_of(first) - origin);
    out.bytes = static_cast<std::size_t>(sample * static_cast<std::uint64_t>(k));
    queue.send(part, transform, out, submit);
    first += k;
  }
}

std::int64_t ResidentDataset::epoch_size() const noexcept {
  return options_.placement == DatasetPlacement::Shard ? count() : epoch_places(count(), options_.world_size);
}

std::int64_t ResidentDataset::source_index(std::int64_t index) const {
  FERRY_EXPECT(index >= 0 && index < count(), Status::OutOfRange, "index is ", index, ": the dataset holds ",
               count(), " samples (0 .. ", count() - 1, ")");
  return source_of(index);
}

void ResidentDataset::epoch(std::int64_t* out, std::int64_t count, std::uint64_t seed, std::uint64_t epoch,
                            bool shuffle) const {
  FERRY_EXPECT(count == epoch_size(), Status::InvalidArgument, "count is ", count,
               ": an epoch of this dataset has ", epoch_size(), " indices (ferry_dataset_info.epoch_size)");
  // A shard is its rank's already: its epoch is a permutation of itself (rank 0 of 1).
  const bool shard = options_.placement == DatasetPlacement::Shard;
  const std::vector<std::int64_t> share =
      epoch_share(this->count(), shard ? 0 : options_.rank, shard ? 1 : options_.world_size, shuffle, seed, epoch);
  std::copy(share.begin(), share.end(), out);
}

void ResidentDataset::gather_source(const std::int64_t* indices, std::int64_t n, Gather& out) const {
  FERRY_EXPECT(n > 0, Status::InvalidArgument, "n is ", n, ": a gather needs at least one index");
  for (std::int64_t i = 0; i < n; ++i)
    FERRY_EXPECT(indices[i] >= 0 && indices[i] < count(), Status::OutOfRange, "indices[", i, "] is ", indices[i],
                 ": the dataset holds ", count(), " samples (0 .. ", count() - 1, ")");
  SourceDesc& s = out.source;
  s = SourceDesc{};
  s.n = n;
  s.c = c_;
  s.layout = layout_;
  std::uint8_t* const base = storage_->data();
  if (variable_sizes()) {
    out.sample_descs.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(indices[i]);
      SampleDesc& d = out.sample_descs[static_cast<std::size_t>(i)];
      d = SampleDesc{};
      d.data = base + offsets_[k];
      d.bytes = static_cast<std::size_t>(offsets_[k + 1] - offsets_[k]);
      d.h = sizes_[k].h;
      d.w = sizes_[k].w;
    }
    s.sample_descs = out.sample_descs.data();
    return;
  }
  out.samples.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    out.samples[static_cast<std::size_t>(i)] = base + static_cast<std::uint64_t>(indices[i]) * sample_bytes_;
  s.samples = out.samples.data();
  s.sample_bytes = static_cast<std::size_t>(sample_bytes_);
  s.h = h_;
  s.w = w_;
}

SourceView::Resident ResidentDataset::resident() const noexcept {
  SourceView::Resident r;
  if (variable_sizes()) return r;
  r.base = storage_->data();
  r.sample_bytes = sample_bytes_;
  r.count = count();
  return r;
}

void ResidentDataset::gather_source_in_memory(const std::int64_t* indices, std::int64_t n, bool on_device,
                                              Gather& out, SourceView::Resident& resident) const {
  FERRY_EXPECT(!variable_sizes(), Status::Unsupported,
               "the dataset holds samples of different sizes: a gather by indices in device memory needs one size "
               "(each sample's geometry is planned on the host); gather by host indices (ferry_dataset_gather)");
  FERRY_EXPECT(n > 0, Status::InvalidArgument, "n is ", n, ": a gather needs at least one index");
  if (!on_device) {
    std::vector<std::int64_t> clamped(indices, indices + n);
    for (std::int64_t& k : clamped) k = std::clamp<std::int64_t>(k, 0, count() - 1);
    gather_source(clamped.data(), n, out);
    return;
  }
  // Stand-ins base and base + sample_bytes: the worst alignment any sample has
  // (the kernel choice looks at it); the device writes the real pointers.
  out.samples.resize(static_cast<std::size_t>(n));
  std::uint8_t* const base = storage_->data();
  for (std::int64_t i = 0; i < n; ++i)
    out.samples[static_cast<std::size_t>(i)] = base + (count() > 1 && (i & 1) != 0 ? sample_bytes_ : 0);
  SourceDesc& s = out.source;
  s = SourceDesc{};
  s.n = n, s.h = h_, s.w = w_, s.c = c_;
  s.layout = layout_;
  s.samples = out.samples.data();
  s.sample_bytes = static_cast<std::size_t>(sample_bytes_);
  resident = this->resident();
  resident.device_indices = indices;
}

}  // namespace ferry::core
