// OpenCL Det against the CPU: the shared cases of tests/support/DetGpuCases.hpp (order 64 is
// the largest on OpenCL; plain f32 buffers).
#include "support/DetGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClDet, OrdersBatchesAndSingular) {
  REQUIRE_OPENCL();
  detOrdersBatchesAndSingular(BackendType::kOpenCL);
}

TEST(OpenClDet, LargestOrderAndWideRange) {
  REQUIRE_OPENCL();
  detLargestOrderAndWideRange(BackendType::kOpenCL, 64);
}

}  // namespace
}  // namespace test
}  // namespace tessera
