// OpenCL Div rounds to nearest like the CPU (tests/support/DivisionGpuCases.hpp).
#include "support/DivisionGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClDivision, RoundsToNearestLikeTheCpu) {
  REQUIRE_OPENCL();
  expectDivisionRoundsLikeCpu(BackendType::kOpenCL);
}

}  // namespace
}  // namespace test
}  // namespace tessera
