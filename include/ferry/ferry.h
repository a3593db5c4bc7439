/* ferry: uint8 batches from host memory to the GPU at the speed of the bus,
 * converted there. The one header to include. */
#ifndef FERRY_FERRY_H
#define FERRY_FERRY_H

#include "ferry/common.h"
#include "ferry/device.h"
#include "ferry/context.h"
#include "ferry/memory.h"
#include "ferry/stats.h"
#include "ferry/transform.h"
#include "ferry/augment.h"
#include "ferry/batch.h"
#include "ferry/tensor.h"
#include "ferry/dataset.h"

#endif /* FERRY_FERRY_H */
