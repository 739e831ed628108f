// Vulkan OneHot against the CPU: the shared cases of tests/support/OneHotGpuCases.hpp (f32
// values), and fp16 storage.
#include "support/OneHotGpuCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanOneHot, EveryAxisAndIndexType) {
  TESSERA_REQUIRE_VULKAN();
  oneHotEveryAxisAndIndexType(BackendType::kVulkan, tensorFrom({2}, {-0.25f, 3.5f}));
}

TEST(VulkanOneHot, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor values = tensorFrom({2}, {0.f, 1.f});
  Attributes a;
  a.setInt("axis", 1);
  expectVulkanFp16Close("OneHot", {floatIndices({3, 5}, 13, 950), tensorFrom({}, {13.f}), values}, a, {}, 0, 0);
  expectVulkanFp16Close("OneHot", {intIndices({3, 5}, 13, DataType::kI64, 951), tensorFrom({}, {13.f}), values}, a, {},
                        0, 0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
