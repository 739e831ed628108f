// ArgMax / ArgMin on Vulkan (shaders/vulkan/arg_min_max.comp) against the CPU, exactly: the
// shared cases of tests/support/ArgMinMaxGpuCases.hpp, and fp16 storage.
#include "support/ArgMinMaxGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

const ArgCheck kOnVulkan = [](const std::string& op, const Tensor& x, const Attributes& a, const std::string& what) {
  SCOPED_TRACE(what);
  expectVulkanMatchesCpu(op, {x}, a, 1, {}, 13, 0.0, 0.0);
};

TEST(VulkanArgMinMax, EveryAxisWithTies) {
  TESSERA_REQUIRE_VULKAN();
  argEveryAxisWithTies(kOnVulkan);
}

TEST(VulkanArgMinMax, LineLengths) {
  TESSERA_REQUIRE_VULKAN();
  argLineLengths(kOnVulkan);
}

TEST(VulkanArgMinMax, LineOverAMillion) {
  TESSERA_REQUIRE_VULKAN();
  argLineOverAMillion(kOnVulkan);
}

TEST(VulkanArgMinMax, NaNs) {
  TESSERA_REQUIRE_VULKAN();
  argNaNs(kOnVulkan);
}

TEST(VulkanArgMinMax, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t n : {9, 300})
    for (const char* op : {"ArgMax", "ArgMin"})
      for (int last : {0, 1})
        expectVulkanFp16Close(op, {tiedTensor({3, n, 2}, 660 + static_cast<uint32_t>(n), 7)}, argAttrs(1, 1, last),
                              {}, 0.0, 0.0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
