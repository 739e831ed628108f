// Vulkan Det against the CPU: the shared cases of tests/support/DetGpuCases.hpp (order 40 is
// the largest on Vulkan), and fp16 storage.
#include "support/DetGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanDet, OrdersBatchesAndSingular) {
  TESSERA_REQUIRE_VULKAN();
  detOrdersBatchesAndSingular(BackendType::kVulkan);
}

TEST(VulkanDet, LargestOrderAndWideRange) {
  TESSERA_REQUIRE_VULKAN();
  detLargestOrderAndWideRange(BackendType::kVulkan, 40);
}

TEST(VulkanDet, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  expectVulkanFp16Close("Det", {detMatrices({4}, 5, 0, 830)}, {}, {}, 2e-2, 2e-2);
}

}  // namespace
}  // namespace test
}  // namespace tessera
