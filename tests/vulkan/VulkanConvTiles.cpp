// conv.comp's GEMM kernel at 4 output columns an invocation (GEMM4, chosen on GPUs where 8
// columns leave too few invocations; forced with TESSERA_VULKAN_CONV_COLUMNS=4) against the
// CPU, in storage images and buffers and in fp16; and that a device that is a CPU keeps 8.
#include <string>

#include "backends/vulkan/VulkanDiagnostics.hpp"
#include "support/SplitReductionGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Whether the last Vulkan run dispatched conv.comp's `variant` (read from the device timings,
// which the tests ask for in every plan: TESSERA_VULKAN_TIMESTAMPS=always) (e.g. "GEMM4", in any of its
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
  ScopedEnvVar timed("TESSERA_VULKAN_TIMESTAMPS", "always");
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

TEST(VulkanConvTiles, CpuDevicesKeepEightColumns) {
  TESSERA_REQUIRE_VULKAN();
  ScopedEnvVar timed("TESSERA_VULKAN_TIMESTAMPS", "always");
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
