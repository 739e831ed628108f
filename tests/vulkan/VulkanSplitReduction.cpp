// Vulkan's split reductions, conv.comp GEMM_SPLIT and matmul.comp SPLIT
// (tests/support/SplitReductionGpuCases.hpp), with NC4HW4 in storage images and in buffers;
// a 3-D conv (buffers only), Gemm with transposes and C, fp16 storage; and that `off` and a
// device that is a CPU keep the plain kernels.
#include "support/SplitReductionGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanSplitReduction, MatchesCpuInImagesAndBuffers) {
  TESSERA_REQUIRE_VULKAN();
  for (const char* storage : {"image", "buffer"}) {
    SCOPED_TRACE(storage);
    ScopedEnvVar nc4("TESSERA_VULKAN_NC4_STORAGE", storage);
    expectSplitReductionsMatchCpu(BackendType::kVulkan, "TESSERA_VULKAN_SPLIT");
  }
}

TEST(VulkanSplitReduction, ThreeDimensionsGemmAndFp16) {
  TESSERA_REQUIRE_VULKAN();
  ScopedEnvVar force("TESSERA_VULKAN_SPLIT", "16");
  const uint64_t before = splitReductionPlanCount();
  expectSplitConvMatchesCpu(BackendType::kVulkan,
                            {"3-D", {2, 10, 3, 5, 6}, 6, 1, {3, 3, 3}, {1, 2, 1}, {1, 1, 1, 1, 0, 1}, {1, 1, 1}, true},
                            "16");
  for (int transA = 0; transA < 2; ++transA)
    for (int transB = 0; transB < 2; ++transB) {
      Attributes a;
      a.setInt("transA", transA);
      a.setInt("transB", transB);
      a.setFloat("alpha", 0.5f);
      a.setFloat("beta", 2.f);
      const Shape as = transA ? Shape{53, 9} : Shape{9, 53}, bs = transB ? Shape{7, 53} : Shape{53, 7};
      expectVulkanMatchesCpu("Gemm", {randomTensor(as, 61, -1.f, 1.f), randomTensor(bs, 62, -1.f, 1.f),
                                      randomTensor({7}, 63)}, a, 1, {false, true, true});
    }
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  expectVulkanFp16Close("Conv", {randomTensor({2, 19, 7, 9}, 41, -1.f, 1.f), randomTensor({6, 19, 3, 3}, 42, -0.5f, 0.5f),
                                 randomTensor({6}, 43)},
                        pads, {false, true, true}, 2e-2, 2e-2);
  expectVulkanFp16Close("MatMul", {randomTensor({9, 200}, 44, -1.f, 1.f), randomTensor({200, 6}, 45, -0.2f, 0.2f)}, {},
                        {false, true}, 2e-2, 2e-2);
  EXPECT_GT(splitReductionPlanCount(), before);
}

TEST(VulkanSplitReduction, OffAndCpuDevicesKeepThePlainKernels) {
  TESSERA_REQUIRE_VULKAN();
  {
    ScopedEnvVar off("TESSERA_VULKAN_SPLIT", "off");
    const uint64_t before = splitReductionPlanCount();
    expectSplitConvMatchesCpu(BackendType::kVulkan, convSplitCases()[0], "off:");
    expectSplitMatMulsMatchCpu(BackendType::kVulkan, "off:");
    EXPECT_EQ(splitReductionPlanCount(), before);
  }
  EXPECT_EQ(splitReductionLanes(600, 216, DeviceKind::kCPU, "TESSERA_VULKAN_SPLIT"), 1);
}

TEST(VulkanSplitReduction, ShortLinesOnWorkGroups) {
  TESSERA_REQUIRE_VULKAN();
  expectShortLinesOnWorkGroupsMatchCpu(BackendType::kVulkan, "TESSERA_VULKAN_GROUP_LINES");
}

}  // namespace
}  // namespace test
}  // namespace tessera
