// A conversion's output on a CPU-backend context, as the tests compare it:
// through ferry_transform_apply into a host buffer poisoned first, or through
// ferry_batch_submit + wait, copied out before the batch is released.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ferry/ferry.h"

namespace ferry::test {

inline std::vector<std::uint8_t> applied_on_host(ferry_context_t ctx, const ferry_source& src, const ferry_transform& t,
                                                 std::uint8_t poison) {
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_transform_describe_output(&info, &src, &t), FERRY_OK) << ferry_last_error();
  std::vector<std::uint8_t> out(info.bytes, poison);
  ferry_output o;
  ferry_output_init(&o, sizeof o);
  o.data = out.data(), o.bytes = out.size();
  EXPECT_EQ(ferry_transform_apply(ctx, &src, &t, &o, nullptr), FERRY_OK) << ferry_last_error();
  return out;
}

inline std::vector<std::uint8_t> submitted_on_host(ferry_context_t ctx, const ferry_source& src, const ferry_transform& t) {
  ferry_batch_t batch = nullptr;
  EXPECT_EQ(ferry_batch_submit(&batch, ctx, &src, &t, nullptr, nullptr), FERRY_OK) << ferry_last_error();
  if (batch == nullptr) return {};
  EXPECT_EQ(ferry_batch_wait(batch), FERRY_OK) << ferry_last_error();
  ferry_tensor_info info;
  ferry_tensor_info_init(&info, sizeof info);
  EXPECT_EQ(ferry_batch_describe_output(&info, batch), FERRY_OK) << ferry_last_error();
  const auto* data = static_cast<const std::uint8_t*>(info.data);
  std::vector<std::uint8_t> out(data, data + info.bytes);
  EXPECT_EQ(ferry_batch_release(batch), FERRY_OK);
  return out;
}

}  // namespace ferry::test
