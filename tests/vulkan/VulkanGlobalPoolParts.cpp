// Vulkan global pools split over parts of the plane (global_pool.comp PARTIAL + MERGE, what a
// GPU runs where the work-groups per channel block are few) against the CPU: parts forced
// from 1 to one per few pixels, odd planes, batch > 1, channels not a multiple of 4, images
// and buffers, fp16 storage.
#include "support/Nc4StorageChecks.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanGlobalPoolParts, MatchCpuForEveryPartCount) {
  TESSERA_REQUIRE_VULKAN();
  uint32_t seed = 1;
  for (const char* storage : {"image", "buffer"}) {
    ScopedEnvVar nc4("TESSERA_VULKAN_NC4_STORAGE", storage);
    for (const char* parts : {"1", "2", "7", "64"})
      for (const Shape& shape : {Shape{2, 5, 33, 47}, Shape{1, 24, 160, 160}, Shape{3, 13, 1, 9}}) {
        SCOPED_TRACE(std::string(storage) + ", " + parts + " parts, " + shapeToString(shape));
        ScopedEnvVar split("TESSERA_VULKAN_POOL_PARTS", parts);
        const Tensor x = randomTensor(shape, seed++, -4.f, 4.f);
        expectVulkanMatchesCpu("GlobalAveragePool", {x}, {});
        expectVulkanMatchesCpu("GlobalMaxPool", {x}, {});
      }
  }
}

TEST(VulkanGlobalPoolParts, Fp16StorageStaysClose) {
  TESSERA_REQUIRE_VULKAN();
  ScopedEnvVar split("TESSERA_VULKAN_POOL_PARTS", "5");
  const Tensor x = randomTensor({2, 7, 41, 37}, 3, -4.f, 4.f);
  expectVulkanFp16Close("GlobalAveragePool", {x}, {});
  expectVulkanFp16Close("GlobalMaxPool", {x}, {});
}

}  // namespace
}  // namespace test
}  // namespace tessera
