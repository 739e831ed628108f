// ArgMax / ArgMin on OpenCL (shaders/opencl/arg_min_max.cl) against the CPU, exactly: the
// shared cases of tests/support/ArgMinMaxGpuCases.hpp (OpenCL's plain buffers are fp32
// always, so there is no fp16 case).
#include "support/ArgMinMaxGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

const ArgCheck kOnOpenCl = [](const std::string& op, const Tensor& x, const Attributes& a, const std::string& what) {
  expectOpenClMatchesCpu(op, {x}, a, what, {}, 1, 13, 0.0, 0.0);
};

TEST(OpenClArgMinMax, EveryAxisWithTies) {
  REQUIRE_OPENCL();
  argEveryAxisWithTies(kOnOpenCl);
}

TEST(OpenClArgMinMax, LineLengths) {
  REQUIRE_OPENCL();
  argLineLengths(kOnOpenCl);
}

TEST(OpenClArgMinMax, LineOverAMillion) {
  REQUIRE_OPENCL();
  argLineOverAMillion(kOnOpenCl);
}

TEST(OpenClArgMinMax, NaNs) {
  REQUIRE_OPENCL();
  argNaNs(kOnOpenCl);
}

}  // namespace
}  // namespace test
}  // namespace tessera
