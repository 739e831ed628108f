// OpenCL OneHot against the CPU: the shared cases of tests/support/OneHotGpuCases.hpp, the
// integer-index ones with int32 values (OpenCL reads values of any 1/2/4/8-byte type).
#include "support/OneHotGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClOneHot, EveryAxisAndIndexType) {
  REQUIRE_OPENCL();
  Tensor ints = Tensor::hostAllocate({2}, DataType::kI32);
  ints.data<int32_t>()[0] = -3;
  ints.data<int32_t>()[1] = 70000;
  oneHotEveryAxisAndIndexType(BackendType::kOpenCL, ints);
}

}  // namespace
}  // namespace test
}  // namespace tessera
