// Placing a footprint-staged chunk's rows (source_footprint.h) where its
// packed samples have them, once the slot (cells, table, row lists) has been
// copied into the chunk's input buffer: on the device a kernel (CUDA builds),
// on the host place_rows_on_host.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/stage/source_footprint.h"

namespace ferry::core {

// Queues the placing of the chunk's rows on `stream` (a cudaStream_t): the
// slot's copy at `slot` and the packed samples at `packed`, both 16-byte
// aligned device memory. Throws ferry::Error where the launch fails.
void launch_place_rows(const std::uint8_t* slot, const ChunkFootprint& chunk, std::uint8_t* packed, void* stream);

}  // namespace ferry::core
