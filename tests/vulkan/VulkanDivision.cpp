// Vulkan Div rounds to nearest like the CPU (tests/support/DivisionGpuCases.hpp).
#include "support/DivisionGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanDivision, RoundsToNearestLikeTheCpu) {
  TESSERA_REQUIRE_VULKAN();
  expectDivisionRoundsLikeCpu(BackendType::kVulkan);
}

}  // namespace
}  // namespace test
}  // namespace tessera
