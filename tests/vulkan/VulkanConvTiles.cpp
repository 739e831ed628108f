// conv.comp's GEMM tilings against the CPU, in storage images and buffers and in fp16: 4
// output columns an invocation (GEMM4, chosen on GPUs where 8 columns leave too few
// invocations; forced with TESSERA_VULKAN_CONV_COLUMNS=4), 16 output channels an invocation
// (GEMM16, TESSERA_VULKAN_CONV_BLOCK=16) alone and split over 2 to 64 lanes; and that a device
// that is a CPU keeps 8 columns.
#include <string>

#include "backends/vulkan/VulkanDiagnostics.hpp"
#include "support/SplitReductionGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Whether the last Vulkan run dispatched conv.comp's `variant` (e.g. "GEMM4", in any of its
// builds: conv_GEMM4, conv_GEMM4_IMAGE, conv_GEMM4_FP16 ...).
bool lastRunUsed(const std::string& variant) {
  const std::string name = "[conv_" + variant;
  for (const auto& p : vulkan::lastGpuProfile()) {
    const size_t at = p.first.find(name);
    if (at == std::string::npos) continue;
    const char next = p.first[at + name.size()];
    const bool split = p.first.compare(at + name.size(), 6, "_SPLIT") == 0;
    if (next == ']' || (next == '_' && !split)) return true;
  }
  return false;
}

TEST(VulkanConvTiles, FourColumnsMatchCpuInImagesBuffersAndFp16) {
  TESSERA_REQUIRE_VULKAN();
  ScopedEnvVar columns("TESSERA_VULKAN_CONV_COLUMNS", "4");
  ScopedEnvVar split("TESSERA_VULKAN_SPLIT", "off");
  for (const char* storage : {"image", "buffer"}) {
    ScopedEnvVar nc4("TESSERA_VULKAN_NC4_STORAGE", storage);
    for (const ConvSplitCase& c : convSplitCases()) {  // all GEMM-shaped
      SCOPED_TRACE(std::string(storage) + ": " + c.what);
      expectSplitConvMatchesCpu(BackendType::kVulkan, c, "no");
      EXPECT_TRUE(lastRunUsed("GEMM4")) << "the 4-column build did not run";
    }
  }
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  expectVulkanFp16Close("Conv", {randomTensor({2, 19, 7, 13}, 41, -1.f, 1.f), randomTensor({6, 19, 3, 3}, 42, -0.5f, 0.5f),
                                 randomTensor({6}, 43)},
                        pads, {false, true, true}, 2e-2, 2e-2);
  EXPECT_TRUE(lastRunUsed("GEMM4")) << "the 4-column fp16 build did not run";
}

// Output channels not a multiple of 16 (6, 13, 18: a partial last block), odd sizes, batch 2,
// strides, dilation and 1-D, the split's tree at every lane count.
TEST(VulkanConvTiles, SixteenChannelBlocksMatchCpuAloneAndSplit) {
  TESSERA_REQUIRE_VULKAN();
  ScopedEnvVar block("TESSERA_VULKAN_CONV_BLOCK", "16");
  ScopedEnvVar extra("TESSERA_VULKAN_CONV_COLUMNS", nullptr);
  const ConvSplitCase wide = {"3x3, 37 output channels", {2, 13, 9, 11}, 37, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true};
  for (const char* lanes : {"off", "2", "8", "64"}) {
    ScopedEnvVar split("TESSERA_VULKAN_SPLIT", lanes);
    const std::string variant = std::string(lanes) == "off" ? "GEMM16" : "GEMM16_SPLIT";
    for (const char* storage : {"image", "buffer"}) {
      ScopedEnvVar nc4("TESSERA_VULKAN_NC4_STORAGE", storage);
      std::vector<ConvSplitCase> cases = convSplitCases();
      cases.push_back(wide);
      for (const ConvSplitCase& c : cases) {
        if (c.group != 1) continue;  // GEMM16 takes convs of one group
        SCOPED_TRACE(std::string(storage) + ": " + c.what);
        expectSplitConvMatchesCpu(BackendType::kVulkan, c, lanes);
        EXPECT_TRUE(lastRunUsed(variant)) << variant << " did not run";
      }
    }
    Attributes pads;
    pads.setInts("pads", {1, 1, 1, 1});
    expectVulkanFp16Close("Conv", {randomTensor({2, 19, 7, 13}, 41, -1.f, 1.f), randomTensor({21, 19, 3, 3}, 42, -0.5f, 0.5f),
                                   randomTensor({21}, 43)},
                          pads, {false, true, true}, 2e-2, 2e-2);
    EXPECT_TRUE(lastRunUsed(variant)) << variant << " (fp16) did not run";
  }
}

TEST(VulkanConvTiles, CpuDevicesKeepEightColumns) {
  TESSERA_REQUIRE_VULKAN();
  std::unique_ptr<Backend> vk;
  ASSERT_TRUE(BackendRegistry::instance().find(BackendType::kVulkan)->create(BackendOptions{}, &vk).isOk());
  if (vk->deviceKind() != DeviceKind::kCPU) GTEST_SKIP() << "SKIP the device is not a CPU";
  expectSplitConvMatchesCpu(BackendType::kVulkan, convSplitCases()[0], "no");
  EXPECT_TRUE(lastRunUsed("GEMM")) << "the 8-column build did not run";
  EXPECT_FALSE(lastRunUsed("GEMM4"));
}

}  // namespace
}  // namespace test
}  // namespace tessera
