// OpenCL DFT against the CPU: the shared cases of tests/support/DftGpuCases.hpp (plain f32
// buffers).
#include "support/DftGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClDft, EveryAxisInverseOnesided) {
  REQUIRE_OPENCL();
  dftEveryAxisInverseOnesided(BackendType::kOpenCL);
}

TEST(OpenClDft, DftLengthPadsAndTruncates) {
  REQUIRE_OPENCL();
  dftLengthPadsAndTruncates(BackendType::kOpenCL);
}

TEST(OpenClDft, Opset20AxisInput) {
  REQUIRE_OPENCL();
  dftOpset20AxisInput(BackendType::kOpenCL);
}

}  // namespace
}  // namespace test
}  // namespace tessera
