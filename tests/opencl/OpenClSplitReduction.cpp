// OpenCL's split reductions, conv2d_split and matmul_split
// (tests/support/SplitReductionGpuCases.hpp), with NC4HW4 in images and in buffers; and that
// `off` keeps the plain kernels.
#include "support/SplitReductionGpuCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(OpenClSplitReduction, MatchesCpuInImagesAndBuffers) {
  REQUIRE_OPENCL();
  for (const char* storage : {"image", "buffer"}) {
    SCOPED_TRACE(storage);
    ScopedEnvVar nc4("TESSERA_OPENCL_NC4_STORAGE", storage);
    expectSplitReductionsMatchCpu(BackendType::kOpenCL, "TESSERA_OPENCL_SPLIT");
  }
}

TEST(OpenClSplitReduction, OffKeepsThePlainKernels) {
  REQUIRE_OPENCL();
  ScopedEnvVar off("TESSERA_OPENCL_SPLIT", "off");
  const uint64_t before = splitReductionPlanCount();
  expectSplitConvMatchesCpu(BackendType::kOpenCL, convSplitCases()[0], "off:");
  expectSplitMatMulsMatchCpu(BackendType::kOpenCL, "off:");
  EXPECT_EQ(splitReductionPlanCount(), before);
}

TEST(OpenClSplitReduction, ShortLinesOnWorkGroups) {
  REQUIRE_OPENCL();
  expectShortLinesOnWorkGroupsMatchCpu(BackendType::kOpenCL, "TESSERA_OPENCL_GROUP_LINES");
}

}  // namespace
}  // namespace test
}  // namespace tessera
