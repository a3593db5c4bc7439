#include "bench/bare_gather.h"

namespace ferry::bench {
namespace {

template <int kCapacity>
struct BareGatherParams {
  const uint4* set;
  uint4* out;
  unsigned vectors_per_sample, count;
  unsigned index[kCapacity];
};

// Thread i moves vector i of the batch: one 16-byte load from its sample,
// two 16-byte stores (its bytes widened), nothing else in the way.
template <int kCapacity>
__global__ void __launch_bounds__(256) bare_gather(const __grid_constant__ BareGatherParams<kCapacity> p) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x, total = p.count * p.vectors_per_sample;
  if (i >= total) return;
  const unsigned sample = i / p.vectors_per_sample, j = i - sample * p.vectors_per_sample;
  const uint4 v = __ldg(p.set + static_cast<std::size_t>(p.index[sample]) * p.vectors_per_sample + j);
  // __byte_perm selector 0x4140: bytes 0 and 1 of the first word, each followed by a zero byte of the second.
  p.out[i] = make_uint4(__byte_perm(v.x, 0, 0x4140), __byte_perm(v.x, 0, 0x4342), __byte_perm(v.y, 0, 0x4140),
                        __byte_perm(v.y, 0, 0x4342));
  p.out[total + i] = make_uint4(__byte_perm(v.z, 0, 0x4140), __byte_perm(v.z, 0, 0x4342), __byte_perm(v.w, 0, 0x4140),
                                __byte_perm(v.w, 0, 0x4342));
}

template <int kCapacity>
cudaError_t launch(const std::uint8_t* set, std::size_t sample_bytes, const std::int64_t* indices, int count, void* out,
                   cudaStream_t stream) {
  BareGatherParams<kCapacity> p{};
  p.set = reinterpret_cast<const uint4*>(set);
  p.out = static_cast<uint4*>(out);
  p.vectors_per_sample = static_cast<unsigned>(sample_bytes / 16);
  p.count = static_cast<unsigned>(count);
  for (int k = 0; k < count; ++k) p.index[k] = static_cast<unsigned>(indices[k]);
  const unsigned total = p.count * p.vectors_per_sample;
  bare_gather<kCapacity><<<(total + 255) / 256, 256, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_bare_gather(const std::uint8_t* set, std::size_t sample_bytes, const std::int64_t* indices,
                               int count, void* out, cudaStream_t stream) {
  if (count < 1 || count > kBareGatherMaxCount || sample_bytes == 0 || sample_bytes % 16 != 0)
    return cudaErrorInvalidValue;
  return count <= 256 ? launch<256>(set, sample_bytes, indices, count, out, stream)
                      : launch<kBareGatherMaxCount>(set, sample_bytes, indices, count, out, stream);
}

}  // namespace ferry::bench
