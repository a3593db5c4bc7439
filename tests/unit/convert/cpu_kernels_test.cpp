// The CPU conversion's inner loops, both builds (AVX2 + F16C where the CPU
// has them, and the portable one), against the scalar definition: every
// input byte, run lengths around the vector and table sizes, and
// coefficients that reach float16's subnormals, its rounding ties and its
// overflow to infinity.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "core/convert/convert_cpu_kernels.h"
#include "core/convert/half_bits.h"
#include "core/store_fence.h"

namespace {

using ferry::core::coeff_period;
using ferry::core::DType;
using ferry::core::CpuConvertIsa;
using ferry::core::CpuKernels;

// The definition: the product and the sum each rounded to float (volatile
// keeps the compiler from contracting them), then to the dtype, RNE.
std::vector<std::uint8_t> expected(DType dtype, const std::vector<std::uint8_t>& in, const float* alpha,
                                   const float* beta) {
  std::vector<std::uint8_t> out;
  for (std::size_t j = 0; j < in.size(); ++j) {
    volatile float product = static_cast<float>(in[j]) * alpha[j % coeff_period];
    const float v = product + beta[j % coeff_period];
    std::uint8_t bytes[4];
    std::size_t n = 0;
    if (dtype == DType::Float32) {
      std::memcpy(bytes, &v, 4), n = 4;
    } else if (dtype == DType::UInt8) {
      bytes[0] = in[j], n = 1;
    } else {
      const std::uint16_t h = dtype == DType::Float16 ? ferry::core::float_to_half_bits_soft(v)
                                                           : ferry::core::float_to_bf16_bits_soft(v);
      std::memcpy(bytes, &h, 2), n = 2;
    }
    out.insert(out.end(), bytes, bytes + n);
  }
  return out;
}

std::vector<CpuConvertIsa> isas() {
  std::vector<CpuConvertIsa> v{CpuConvertIsa::portable};
  if (ferry::core::cpu_has_vector_kernels()) v.push_back(CpuConvertIsa::best);
  return v;
}

}  // namespace

TEST(ConvertCpuKernels, BestUsesTheVectorKernelsWhereTheCpuHasThem) {
  const CpuKernels best = ferry::core::cpu_kernels(DType::Float16, CpuConvertIsa::best);
  const char* env = std::getenv("FERRY_CPU_CONVERT_ISA");
  const bool forced_portable = env != nullptr && std::strcmp(env, "portable") == 0;
  EXPECT_EQ(best.vector_isa, ferry::core::cpu_has_vector_kernels() && !forced_portable);
  EXPECT_FALSE(ferry::core::cpu_kernels(DType::Float16, CpuConvertIsa::portable).vector_isa);
}

TEST(ConvertCpuKernels, RunsMatchTheScalarDefinitionBitForBit) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  // Coefficient scales: ordinary normalization, float16 subnormal outputs,
  // outputs near float16's largest finite value and beyond (infinity).
  const float scales[] = {1.0f / 58.0f, 1e-7f, 3e-6f, 250.0f, 300.0f, 1.0f};
  int runs = 0;
  for (CpuConvertIsa isa : isas()) {
    for (DType dtype : {DType::Float32, DType::Float16, DType::BFloat16, DType::UInt8}) {
      const CpuKernels k = ferry::core::cpu_kernels(dtype, isa);
      for (float scale : scales) {
        float alpha[coeff_period], beta[coeff_period];
        for (int j = 0; j < coeff_period; ++j) {
          alpha[j] = unit(rng) * scale;
          beta[j] = unit(rng) * scale * 64.0f;
        }
        if (scale == 1.0f)  // exact ties of float16 (x + 0.5 ulp) and of bfloat16
          for (int j = 0; j < coeff_period; ++j) alpha[j] = 1.0f, beta[j] = j % 2 ? 1024.5f : 256.0f;
        for (int count : {0, 1, 7, 8, 9, 23, 24, 25, 40, 47, 48, 256, 769}) {
          std::vector<std::uint8_t> in(static_cast<std::size_t>(count));
          for (int j = 0; j < count; ++j) in[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(j * 97 + count);
          const std::vector<std::uint8_t> want = expected(dtype, in, alpha, beta);
          // Both stores (plain, streaming), into an output on the vector width's
          // boundary and 1, 4 and 7 elements off it (streaming stores then begin
          // with a few plain ones, with the coefficient tables rotated).
          const std::size_t element = count > 0 ? want.size() / static_cast<std::size_t>(count) : 1;
          for (ferry::core::ConvertRunFn run : {k.convert_run, k.convert_run_streaming}) {
            for (std::size_t offset : {std::size_t{0}, element, 4 * element, 7 * element}) {
              alignas(64) static std::uint8_t buffer[64 + 769 * 4 + 8];
              std::memset(buffer, 0xAB, sizeof buffer);
              run(in.data(), buffer + offset, alpha, beta, count);
              ferry::core::store_fence();
              for (std::size_t b = 0; b < offset; ++b) ASSERT_EQ(buffer[b], 0xAB) << "wrote before the run";
              for (std::size_t b = offset + want.size(); b < offset + want.size() + 8; ++b)
                ASSERT_EQ(buffer[b], 0xAB) << "wrote past the run: count " << count;
              const std::vector<std::uint8_t> got(buffer + offset, buffer + offset + want.size());
              ASSERT_EQ(got, want) << "isa " << static_cast<int>(isa) << " dtype " << static_cast<int>(dtype)
                                   << " scale " << scale << " count " << count << " offset " << offset
                                   << (run == k.convert_run ? " plain" : " streaming");
              ++runs;
            }
          }
        }
      }
    }
  }
  EXPECT_GE(runs, 4 * 6 * 13 * 8);
}

// Forward, and reversed (a mirrored run: plane pixel j is source pixel count - 1 - j).
TEST(ConvertCpuKernels, DeinterleaveSplitsPixelsIntoPlanes) {
  for (CpuConvertIsa isa : isas()) {
    const CpuKernels k = ferry::core::cpu_kernels(DType::Float32, isa);
    for (bool reversed : {false, true})
      for (int channels : {3, 4}) {
        const ferry::core::DeinterleaveFn split =
            reversed ? (channels == 3 ? k.deinterleave3_reversed : k.deinterleave4_reversed)
                     : (channels == 3 ? k.deinterleave3 : k.deinterleave4);
        for (int count : {0, 1, 15, 16, 17, 33, 256}) {
          std::vector<std::uint8_t> in(static_cast<std::size_t>(count * channels));
          for (std::size_t b = 0; b < in.size(); ++b) in[b] = static_cast<std::uint8_t>(b * 31 + 5);
          const int stride = 260;
          std::vector<std::uint8_t> planes(static_cast<std::size_t>(stride * channels), 0xAB);
          split(in.data(), planes.data(), stride, count);
          for (int c = 0; c < channels; ++c)
            for (int j = 0; j < stride; ++j) {
              const int pixel = reversed ? count - 1 - j : j;
              const std::uint8_t want = j < count ? in[static_cast<std::size_t>(pixel * channels + c)] : 0xAB;
              ASSERT_EQ(planes[static_cast<std::size_t>(c * stride + j)], want)
                  << "isa " << static_cast<int>(isa) << " reversed " << reversed << " channels " << channels
                  << " count " << count << " plane " << c << " pixel " << j;
            }
        }
      }
  }
}

// Every pixel size in and out (1..4 bytes), channel maps (identity, reversed,
// one channel repeated), padding channels and both directions, on runs
// around the vector step, read from a run placed at the very end (forward)
// or start (reversed) of its buffer, so that a load past the run's pixels
// would leave the buffer (ASan) and a wrong byte would show.
TEST(ConvertCpuKernels, ShufflePixelsMovesEachOutputByteFromItsSourceByte) {
  int runs = 0;
  for (CpuConvertIsa isa : isas()) {
    const CpuKernels k = ferry::core::cpu_kernels(DType::Float16, isa);
    for (int c = 1; c <= 4; ++c)
      for (int oct = 1; oct <= 4; ++oct)
        for (int out_channels = 1; out_channels <= oct; ++out_channels)
          for (int map_kind = 0; map_kind < 3; ++map_kind)
            for (bool reversed : {false, true})
              for (int count : {0, 1, 3, 4, 5, 6, 9, 16, 17, 31, 100, 256}) {
                int map[4];
                for (int j = 0; j < out_channels; ++j)
                  map[j] = map_kind == 0 ? j % c : map_kind == 1 ? (c - 1 - j % c) : 0;
                const ferry::core::PixelShuffle s =
                    ferry::core::make_pixel_shuffle(c, oct, out_channels, map, reversed);
                std::vector<std::uint8_t> source(static_cast<std::size_t>(count * c));
                for (std::size_t b = 0; b < source.size(); ++b) source[b] = static_cast<std::uint8_t>(b * 37 + 11);
                // Output pixel 0's source pixel: the first (forward) or the last (reversed).
                const std::uint8_t* in = count == 0 ? source.data()
                                         : reversed ? source.data() + (count - 1) * c
                                                    : source.data();
                std::vector<std::uint8_t> out(static_cast<std::size_t>(count * oct + 16), 0xAB);
                k.shuffle_pixels(s, in, out.data(), count);
                for (int j = 0; j < count; ++j)
                  for (int b = 0; b < oct; ++b) {
                    const int pixel = reversed ? count - 1 - j : j;
                    const std::uint8_t want =
                        b < out_channels ? source[static_cast<std::size_t>(pixel * c + map[b])] : 0;
                    ASSERT_EQ(out[static_cast<std::size_t>(j * oct + b)], want)
                        << "isa " << static_cast<int>(isa) << " c " << c << " oct " << oct << " out_channels "
                        << out_channels << " map " << map_kind << " reversed " << reversed << " count " << count
                        << " pixel " << j << " byte " << b;
                  }
                ++runs;
              }
  }
  EXPECT_GE(runs, 10 * 3 * 2 * 12);
}

// Every element size, at every byte offset from a 32-byte boundary, for runs
// around the vector width: the elements hold the bits, nothing outside them
// changes.
TEST(ConvertCpuKernels, StreamingFillWritesTheBitsAndNothingElse) {
  for (CpuConvertIsa isa : isas()) {
    const CpuKernels k = ferry::core::cpu_kernels(DType::Float32, isa);
    for (int size : {1, 2, 4}) {
      const std::uint32_t bits = size == 1 ? 0x5Au : size == 2 ? 0xBEEFu : 0xC0FFEE11u;
      for (int offset = 0; offset < 32; offset += size)
        for (std::int64_t count : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100}) {
          alignas(32) static std::uint8_t buffer[32 + 100 * 4 + 32];
          std::memset(buffer, 0xAB, sizeof buffer);
          k.fill_streaming(buffer + offset, bits, size, count);
          ferry::core::store_fence();
          for (std::size_t b = 0; b < sizeof buffer; ++b) {
            const std::int64_t at = static_cast<std::int64_t>(b) - offset;
            const bool inside = at >= 0 && at < count * size;
            const std::uint8_t want = inside ? static_cast<std::uint8_t>(bits >> (8 * (at % size))) : 0xAB;
            ASSERT_EQ(buffer[b], want) << "isa " << static_cast<int>(isa) << " size " << size << " offset " << offset
                                       << " count " << count << " byte " << b;
          }
        }
    }
  }
}
