#include "core/convert/converter.h"

#include "core/convert/convert_cpu.h"
#include "core/convert/frame_decode.h"
#include "core/error.h"

#if FERRY_HAVE_CUDA
#include "core/convert/cuda/cuda_converter.h"
#else
namespace ferry::core {
class CudaConverter {};  // a CPU-only build never creates one
}  // namespace ferry::core
#endif

namespace ferry::core {

Converter::Converter(MemorySystem& memory, int cpu_threads) : pool_(cpu_threads) {
  DeviceRuntime& runtime = memory.runtime();
  if (runtime.device() < 0) return;  // the host runtime: the CPU converts
#if FERRY_HAVE_CUDA
  cuda_ = std::make_unique<CudaConverter>(runtime, memory);
#else
  fail(Status::NoDevice, "device ", runtime.device(), ": this libferry was built without the CUDA backend");
#endif
}

Converter::~Converter() = default;

void Converter::convert(const ConvertPlan& plan, const SourceView& source, std::int64_t first, std::int64_t count,
                        void* output_base, void* stream, const void* batch_table) {
  FERRY_EXPECT(first >= 0 && count >= 0 && first <= plan.n && count <= plan.n - first, Status::OutOfRange,
               "samples [", first, ", ", first, " + ", count, ") are outside the plan's ", plan.n, " samples");
  FERRY_EXPECT(output_base != nullptr, Status::InvalidArgument, "output is NULL");
  FERRY_EXPECT(source.base != nullptr || source.samples != nullptr, Status::InvalidArgument,
               "source has neither a base pointer nor a samples array");
  if (count == 0) return;
  if (plan.is_frame()) {
    convert_frames(plan, source, first, count, output_base, stream);
    return;
  }
#if FERRY_HAVE_CUDA
  if (cuda_) {
    cuda_->convert(plan, source, first, count, output_base, stream, batch_table);
    return;
  }
#endif
  (void)stream;
  (void)batch_table;
  convert_on_cpu(plan, source, first, count, output_base, pool_);
}

void Converter::convert_frames(const ConvertPlan& plan, const SourceView& frames, std::int64_t first,
                               std::int64_t count, void* output_base, void* stream) {
  if (plan.decodes_into_output()) {
    // The output is the decoded images: decoded there, no scratch and no second pass
    // (H200, 64 NV12 frames to RGB uint8 through ferry_transform_apply: 0.15-0.20 of a D2D copy with both).
    const DecodedFrames in_output(plan, first, count, static_cast<std::uint64_t>(plan.out_strides.n));  // uint8: bytes
    auto* out = static_cast<std::uint8_t*>(output_base) + first * plan.out_strides.n;
#if FERRY_HAVE_CUDA
    if (cuda_) {
      cuda_->decode_to_rgb(plan, frames, first, count, in_output, out, stream);
      return;
    }
#endif
    decode_frames_on_cpu(plan, frames, first, count, in_output, out, pool_);
    return;
  }
  DecodedFrames decoded(plan, first, count);
#if FERRY_HAVE_CUDA
  if (cuda_) {
    cuda_->convert_frames(plan, frames, first, count, decoded, output_base, stream);
    return;
  }
#endif
  (void)stream;
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(decoded.bytes()));
  decode_frames_on_cpu(plan, frames, first, count, decoded, rgb.data(), pool_);
  convert_on_cpu(plan, decoded.view_of(rgb.data()), first, count, output_base, pool_);
}

void* Converter::upload_batch_table(const ConvertPlan& plan, void* stream) {
#if FERRY_HAVE_CUDA
  if (cuda_ && plan.has_per_sample()) return cuda_->upload_batch_table(plan, stream);
#endif
  (void)plan;
  (void)stream;
  return nullptr;
}

}  // namespace ferry::core
