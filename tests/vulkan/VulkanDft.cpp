// Vulkan DFT against the CPU: the shared cases of tests/support/DftGpuCases.hpp, and fp16
// storage.
#include "support/DftGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanDft, EveryAxisInverseOnesided) {
  TESSERA_REQUIRE_VULKAN();
  dftEveryAxisInverseOnesided(BackendType::kVulkan);
}

TEST(VulkanDft, DftLengthPadsAndTruncates) {
  TESSERA_REQUIRE_VULKAN();
  dftLengthPadsAndTruncates(BackendType::kVulkan);
}

TEST(VulkanDft, Opset20AxisInput) {
  TESSERA_REQUIRE_VULKAN();
  dftOpset20AxisInput(BackendType::kVulkan);
}

TEST(VulkanDft, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  for (bool inverse : {false, true})
    expectVulkanFp16Close("DFT", {randomTensor({3, 13, 5, 2}, 760)}, dftAttrs(-3, inverse, false), {}, 1e-2, 2e-2);
}

}  // namespace
}  // namespace test
}  // namespace tessera
