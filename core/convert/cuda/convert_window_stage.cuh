// Warp-staged stores for the window kernel's NHWC output of S = 3 or 4
// channels (convert_window_kernel.cuh).
//
// A thread's unit there is S consecutive 16-byte output vectors. Stored
// straight from the thread, each store instruction of a warp writes 16 bytes
// per lane spaced 16 * S bytes apart: S times the sectors of a contiguous
// store, each one half written, and the run measured 0.45-0.53 of a D2D copy.
// Staged, each lane puts its S vectors into the warp's S * 32 slots of shared
// memory, and in store pass q lane l stores slot 32q + l: vector (32q + l) % S
// of lane (32q + l) / S, at that lane's address and with that lane's element
// count (both shuffled from it). When the warp's units are consecutive in the
// output (one row, or packed rows) each pass writes 512 contiguous bytes.
//
// Every vector is stored exactly once, at the address and with the count its
// thread used before, so what lands in memory is the same by construction; a
// lane without a unit passes count 0 and its slots are never stored.
#pragma once

#include "core/convert/cuda/convert_unit_math.cuh"

namespace ferry::core::cuda_convert {

// Where slot s lives. 16-byte shared accesses are served 8 lanes at a time,
// conflict-free when the 8 slots fall in distinct 16-byte columns of a
// 128-byte row (s % 8). Writes put lane l's vector q at 4l + q for S = 4:
// only 2 columns among 8 lanes (4-way conflict), so the column is XORed with
// the row number mod 4, which spreads them over all 8 and keeps the reads
// (8 consecutive slots of one row) a permutation of one row. For S = 3 the
// writes 3l + q already cover 8 columns.
template <int S>
__device__ __forceinline__ int stage_slot(int s) {
  return S == 4 ? s ^ ((s >> 3) & 3) : s;
}

// Stores v[0..S-1] (16 bytes each) at dst, dst + 16, ... with `count`
// elements in all (store_vector's rule per vector: whole and aligned, or
// element by element up to the count). Called by every lane of the warp.
template <DType D, int S>
__device__ __forceinline__ void warp_staged_store(uint4* slots, const std::uint32_t (&v)[S][4], std::uint8_t* dst,
                                                  int count) {
  constexpr int G = 16 / elem_size<D>();
  const int lane = static_cast<int>(threadIdx.x & 31);
  __syncwarp();  // the warp's reads of these slots in its previous step are done
#pragma unroll
  for (int q = 0; q < S; ++q) slots[stage_slot<S>(lane * S + q)] = make_uint4(v[q][0], v[q][1], v[q][2], v[q][3]);
  __syncwarp();
  const unsigned long long address = reinterpret_cast<unsigned long long>(dst);
#pragma unroll
  for (int q = 0; q < S; ++q) {
    const int s = 32 * q + lane, owner = s / S, k = s % S;
    const unsigned long long at = __shfl_sync(0xffffffffu, address, owner);
    const int left = __shfl_sync(0xffffffffu, count, owner) - k * G;
    const uint4 x = slots[stage_slot<S>(s)];
    const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};
    store_vector<D>(reinterpret_cast<std::uint8_t*>(at) + k * 16, w, left);
  }
}

}  // namespace ferry::core::cuda_convert
