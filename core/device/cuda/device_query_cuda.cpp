// Device discovery through the CUDA runtime. Without a driver the runtime
// answers cudaErrorInsufficientDriver (35) to the first call and leaves the
// count unset: that is "no devices", not an error.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "core/device/cuda/cuda_check.h"
#include "core/device/cuda/cuda_runtime.h"
#include "core/device/device_scope.h"
#include "core/device/device_query.h"

namespace ferry::core {
namespace {

int read_int_file(const std::string& path) {
  std::ifstream in(path);
  int value = -1;
  if (!(in >> value)) return -1;
  return value;
}

// PCIe link generation from sysfs' "current_link_speed" ("16.0 GT/s PCIe" -> 4).
int pcie_generation_from_sysfs(const std::string& dir) {
  std::ifstream in(dir + "/current_link_speed");
  double gts = 0;
  if (!(in >> gts)) return -1;
  if (gts >= 63) return 6;
  if (gts >= 31) return 5;
  if (gts >= 15) return 4;
  if (gts >= 7.9) return 3;
  if (gts >= 4.9) return 2;
  if (gts >= 2.4) return 1;
  return -1;
}

}  // namespace

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

void cuda_device_properties(DeviceProperties& out, int device) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    fail(Status::NoDevice, "device is ", device, ": no CUDA device usable: cudaGetDeviceCount failed: ",
         cudaGetErrorName(err), ": ", cudaGetErrorString(err));
  }
  FERRY_EXPECT(device >= 0 && device < count, Status::OutOfRange, "device is ", device,
               ": expected 0 <= device < ", count, " (the CUDA device count)");
  cudaDeviceProp prop{};
  FERRY_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  std::snprintf(out.name, sizeof out.name, "%s", prop.name);
  out.index = device;
  out.compute_capability_major = prop.major;
  out.compute_capability_minor = prop.minor;
  out.total_memory_bytes = prop.totalGlobalMem;
  out.multiprocessor_count = prop.multiProcessorCount;
  out.async_engine_count = prop.asyncEngineCount;
  out.pci_domain_id = prop.pciDomainID;
  out.pci_bus_id = prop.pciBusID;
  out.pci_device_id = prop.pciDeviceID;
  // The host node nearest the GPU (where its DMA's host memory belongs), not
  // cudaDevAttrNumaId, which is the node of the GPU's own memory on coherent systems.
  int numa = -1;
  if (cudaDeviceGetAttribute(&numa, cudaDevAttrHostNumaId, device) != cudaSuccess) {
    (void)cudaGetLastError();
    numa = -1;
  }
  char bus[32];
  std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
  const std::string dir = std::string("/sys/bus/pci/devices/") + bus;
  if (numa < 0) numa = read_int_file(dir + "/numa_node");
  out.numa_node = numa < 0 ? -1 : numa;
  out.pcie_generation = pcie_generation_from_sysfs(dir);
  out.pcie_link_width = read_int_file(dir + "/current_link_width");
}

void open_cuda_device(int device) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    fail(Status::NoDevice, "device_index is ", device,
         ": a CUDA device was asked for but CUDA is unusable: cudaGetDeviceCount failed: ",
         cudaGetErrorName(err), " (", static_cast<int>(err), "): ", cudaGetErrorString(err));
  }
  FERRY_EXPECT(device >= 0 && device < count, Status::NoDevice, "device_index is ", device,
               ": this machine has ", count, " CUDA device(s)");
  const std::unique_ptr<DeviceRuntime> runtime = make_cuda_runtime(device, PinnedMethod::kRegister);
  DeviceScope scope(*runtime);
  err = cudaFree(nullptr);  // creates the primary context, or says why not
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    fail(Status::NoDevice, "device_index is ", device, ": CUDA device ", device,
         " does not work: cudaFree(NULL) failed: ", cudaGetErrorName(err), ": ",
         cudaGetErrorString(err));
  }
}

}  // namespace ferry::core
