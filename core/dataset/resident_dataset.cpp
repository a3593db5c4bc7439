#include "core/dataset/resident_dataset.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <thread>

#include "core/checked_math.h"
#include "core/convert/convert_plan.h"
#include "core/dataset/epoch_order.h"
#include "core/enum_field.h"
#include "core/error.h"

namespace ferry::core {
namespace {

// Upload batches in flight at once: enough to keep the bus busy while the
// next part is staged, few enough to leave the context's places to others.
constexpr std::size_t kUploadInFlight = 4;

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
  const std::int64_t held = shard ? epoch_places(plan.n, options_.world_size) : plan.n;
  source_index_.resize(static_cast<std::size_t>(held));
  for (std::int64_t k = 0; k < held; ++k)
    source_index_[static_cast<std::size_t>(k)] = shard ? (options_.rank + k * options_.world_size) % plan.n : k;
  std::uint64_t total = 0;
  if (plan.variable_sizes()) {
    sizes_.resize(source_index_.size());
    offsets_.resize(source_index_.size() + 1, 0);
    for (std::size_t i = 0; i < source_index_.size(); ++i) {
      const SampleSource& s = plan.sample_sources[static_cast<std::size_t>(source_index_[i])];
      sizes_[i] = {s.h, s.w};
      total = checked_add(total, static_cast<std::uint64_t>(s.h * s.w * c_), "dataset bytes");
      offsets_[i + 1] = total;
    }
  } else {
    sample_bytes_ = static_cast<std::uint64_t>(h_ * w_ * c_);
    total = checked_mul(sample_bytes_, static_cast<std::uint64_t>(held), "dataset bytes");
  }
  storage_ = std::make_shared<ResidentStorage>(context.memory(), total);
  const auto start = std::chrono::steady_clock::now();
  upload(context, plan, source);
  upload_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Parts of at most part_bytes, each one batch of the staging pipeline whose
// output is the part's place in the storage. A part is one stretch of the
// source buffer where it can be (a replica of one buffer: one DMA range),
// else sample pointers; samples of different sizes go in runs of one size.
void ResidentDataset::upload(Context& context, const ConvertPlan& plan, const SourceDesc& source) {
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
  SubmitOptions submit;
  submit.source_policy = options_.source_policy;
  Stager& stager = context.stager();
  std::deque<std::shared_ptr<Batch>> in_flight;
  auto retire_oldest = [&] {
    std::shared_ptr<Batch> b = std::move(in_flight.front());
    in_flight.pop_front();
    struct Release {
      Stager& stager;
      Batch& batch;
      ~Release() {
        try {
          stager.release(batch);
        } catch (...) {
        }
      }
    } release{stager, *b};
    stager.wait(*b);
  };
  std::vector<const void*> pointers;
  try {
    const std::int64_t held = count();
    for (std::int64_t first = 0; first < held;) {
      const std::int64_t g0 = source_index_[static_cast<std::size_t>(first)];
      const Strides4 strides = strides_of(g0);
      const std::int64_t h = plan.h_of(g0), w = plan.w_of(g0);
      const auto sample = static_cast<std::uint64_t>(h * w * c_);
      const std::int64_t most = static_cast<std::int64_t>(std::max<std::uint64_t>(1, options_.part_bytes / sample));
      // The part: samples of g0's size and strides, following one another in the source where g0's do.
      const std::int64_t step = options_.placement == DatasetPlacement::Shard ? options_.world_size : 1;
      bool stretch = !plan.variable_sizes() && view.samples == nullptr;
      std::int64_t k = 1;
      for (; k < most && first + k < held; ++k) {
        const std::int64_t g = source_index_[static_cast<std::size_t>(first + k)];
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
          pointers[static_cast<std::size_t>(i)] = pointer_of(source_index_[static_cast<std::size_t>(first + i)]);
        part.samples = pointers.data();
        part.sample_bytes = static_cast<std::size_t>(extent_of(g0));
      }
      OutputDesc out;
      const std::uint64_t offset = plan.variable_sizes() ? offsets_[static_cast<std::size_t>(first)]
                                                         : static_cast<std::uint64_t>(first) * sample_bytes_;
      out.data = storage_->data() + offset;
      out.bytes = static_cast<std::size_t>(sample * static_cast<std::uint64_t>(k));
      std::shared_ptr<Batch> batch;
      for (;;) {
        if (in_flight.size() >= kUploadInFlight) retire_oldest();
        try {
          batch = stager.prepare(part, transform, &out, submit);
          break;
        } catch (const Error& e) {
          // A context created with submit_nonblocking answers Busy at its limit: make room and retry.
          if (e.status() != Status::Busy) throw;
          if (!in_flight.empty()) {
            retire_oldest();
          } else {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
          }
        }
      }
      stager.launch(batch);
      in_flight.push_back(std::move(batch));
      first += k;
    }
    while (!in_flight.empty()) retire_oldest();
  } catch (...) {
    // Nothing may still write into the storage when it goes back.
    while (!in_flight.empty()) {
      try {
        retire_oldest();
      } catch (...) {
      }
    }
    throw;
  }
}

std::int64_t ResidentDataset::epoch_size() const noexcept {
  return options_.placement == DatasetPlacement::Shard ? count() : epoch_places(count(), options_.world_size);
}

std::int64_t ResidentDataset::source_index(std::int64_t index) const {
  FERRY_EXPECT(index >= 0 && index < count(), Status::OutOfRange, "index is ", index, ": the dataset holds ",
               count(), " samples (0 .. ", count() - 1, ")");
  return source_index_[static_cast<std::size_t>(index)];
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
