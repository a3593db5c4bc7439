// Contexts and device properties on a real CUDA device.
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_util.h"

TEST(ContextGpu, PropertiesOfDeviceZero) {
  FERRY_REQUIRE_GPU();
  ferry_device_properties p;
  ASSERT_EQ(ferry_device_properties_init(&p, sizeof p), FERRY_OK);
  ASSERT_EQ(ferry_device_get_properties(&p, 0), FERRY_OK) << ferry_last_error();
  EXPECT_GT(std::string(p.name).size(), 0u);
  EXPECT_GE(p.compute_capability_major, 7);
  EXPECT_GT(p.total_memory_bytes, 1ull << 30);
  EXPECT_GT(p.multiprocessor_count, 0);
  EXPECT_GE(p.pci_bus_id, 0);
  std::printf("device 0: %s, sm_%d%d, %d SMs, %llu MiB, %d copy engines, PCI %04x:%02x:%02x, "
              "NUMA %d, PCIe gen %d x%d\n",
              p.name, p.compute_capability_major, p.compute_capability_minor, p.multiprocessor_count,
              static_cast<unsigned long long>(p.total_memory_bytes >> 20), p.async_engine_count,
              p.pci_domain_id, p.pci_bus_id, p.pci_device_id, p.numa_node, p.pcie_generation,
              p.pcie_link_width);
}

TEST(ContextGpu, ExplicitCudaContextOnEveryDevice) {
  FERRY_REQUIRE_GPU();
  for (int d = 0; d < ferry::test::gpu_count(); ++d) {
    ferry_context_options o;
    ASSERT_EQ(ferry_context_options_init(&o, sizeof o), FERRY_OK);
    o.device_kind = FERRY_DEVICE_CUDA;
    o.device_index = d;
    ferry_context_t ctx = nullptr;
    ASSERT_EQ(ferry_context_create(&ctx, &o), FERRY_OK) << ferry_last_error();
    ferry_device_kind kind;
    int index = -1;
    ASSERT_EQ(ferry_context_get_device(&kind, &index, ctx), FERRY_OK);
    EXPECT_EQ(kind, FERRY_DEVICE_CUDA);
    EXPECT_EQ(index, d);
    EXPECT_EQ(ferry_context_destroy(ctx), FERRY_OK);
  }
}

TEST(ContextGpu, IndexPastTheCountIsNoDevice) {
  FERRY_REQUIRE_GPU();
  ferry_context_options o;
  ASSERT_EQ(ferry_context_options_init(&o, sizeof o), FERRY_OK);
  o.device_kind = FERRY_DEVICE_CUDA;
  o.device_index = ferry::test::gpu_count();
  ferry_context_t ctx = nullptr;
  EXPECT_EQ(ferry_context_create(&ctx, &o), FERRY_ERR_NO_DEVICE);
  EXPECT_NE(std::string(ferry_last_error()).find("CUDA device(s)"), std::string::npos) << ferry_last_error();
}
