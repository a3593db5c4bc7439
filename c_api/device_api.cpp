// Device enumeration in the C ABI (ferry/device.h).
#include "c_api/api_guard.h"
#include "c_api/struct_convert.h"
#include "c_api/struct_io.h"
#include "core/device/device_query.h"
#include "ferry/device.h"

using namespace ferry;

extern "C" {

FERRY_API ferry_status ferry_device_count(int* out) {
  FERRY_API_BEGIN
  *api::require(out, "out") = core::cuda_device_count();
  FERRY_API_END
}

FERRY_API ferry_status ferry_device_properties_init(ferry_device_properties* out, size_t struct_size) {
  FERRY_API_BEGIN
  api::init_struct(out, struct_size, api::c_defaults<ferry_device_properties>(), "out");
  FERRY_API_END
}

FERRY_API ferry_status ferry_device_get_properties(ferry_device_properties* out, int device) {
  FERRY_API_BEGIN
  api::read_struct(out, "out", api::c_defaults<ferry_device_properties>());  // checks out->struct_size
  core::DeviceProperties props;
  FERRY_EXPECT(device >= 0, Status::OutOfRange, "device is ", device, ": must not be negative");
  core::cuda_device_properties(props, device);
  api::write_struct(out, api::to_c(props), "out");
  FERRY_API_END
}

}  // extern "C"
