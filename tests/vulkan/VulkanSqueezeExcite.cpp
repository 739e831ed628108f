// Vulkan SqueezeExcite (shaders/vulkan/squeeze_excite.comp) against the CPU: images and
// buffers, one channel block a work-group (what a GPU runs) and all of them (what a CPU driver
// runs), fp16 storage.
#include "support/Nc4StorageChecks.hpp"
#include "support/SqueezeExciteCases.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanSqueezeExcite, MatchesCpuInImagesAndBuffersAndBothGroupings) {
  TESSERA_REQUIRE_VULKAN();
  for (const char* storage : {"image", "buffer"})
    for (const char* blocks : {"1", "3", "1024"}) {
      SCOPED_TRACE(std::string(storage) + ", blocks a group " + blocks);
      ScopedEnvVar nc4("TESSERA_VULKAN_NC4_STORAGE", storage);
      ScopedEnvVar grouping("TESSERA_SQUEEZE_EXCITE_BLOCKS", blocks);
      uint32_t seed = 1;
      for (const SqueezeExciteCase& c : squeezeExciteCases()) {
        SCOPED_TRACE(c.what);
        const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10);
        expectVulkanMatchesCpu("SqueezeExcite", r.inputs, r.attrs, 1, r.constant);
      }
    }
}

// Without `pooled`: the kernel's own means (planes of one tile) or global_pool.comp's parts
// added by the kernel (the case past a tile), with 1 and 3 parts, in both storages and fp16.
TEST(VulkanSqueezeExcite, WithoutPooledInImagesAndBuffersAndParts) {
  TESSERA_REQUIRE_VULKAN();
  for (const char* storage : {"image", "buffer"})
    for (const char* parts : {"1", "3"}) {
      SCOPED_TRACE(std::string(storage) + ", pool parts " + parts);
      ScopedEnvVar nc4("TESSERA_VULKAN_NC4_STORAGE", storage);
      ScopedEnvVar split("TESSERA_VULKAN_POOL_PARTS", parts);
      ScopedEnvVar grouping("TESSERA_SQUEEZE_EXCITE_BLOCKS", "1");
      uint32_t seed = 700;
      for (const SqueezeExciteCase& c : squeezeExciteCases()) {
        SCOPED_TRACE(c.what);
        const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10, false);
        expectVulkanMatchesCpu("SqueezeExcite", r.inputs, r.attrs, 1, r.constant);
      }
    }
  uint32_t seed = 900;
  for (const SqueezeExciteCase& c : squeezeExciteCases()) {
    SCOPED_TRACE(c.what + ", fp16");
    const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10, false);
    expectVulkanFp16Close("SqueezeExcite", r.inputs, r.attrs, r.constant);
  }
}

TEST(VulkanSqueezeExcite, Fp16StorageStaysClose) {
  TESSERA_REQUIRE_VULKAN();
  uint32_t seed = 3;
  for (const SqueezeExciteCase& c : squeezeExciteCases()) {
    SCOPED_TRACE(c.what);
    const SqueezeExciteRun r = squeezeExciteRun(c, seed += 10);
    expectVulkanFp16Close("SqueezeExcite", r.inputs, r.attrs, r.constant);
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
