// fp16 mode's conversions round to nearest-even on this device (issue 15), whatever the
// driver's own rounding: uploads, image and buffer stores, weight packing. The probes and
// their reference are in tests/support/Fp16RoundingProbes.hpp.
#include "backends/vulkan/VulkanContext.hpp"
#include "support/Fp16RoundingProbes.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanFp16Rounding, ReferenceRoundsToNearestEven) { expectNearestHalfReference(); }

TEST(VulkanFp16Rounding, EveryConversionRoundsToNearestEven) {
  TESSERA_REQUIRE_VULKAN();
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  if (!ctx->info().fp16Storage) GTEST_SKIP() << ctx->info().name << " has no 16-bit storage buffers: no fp16 mode";
  // One 4-channel block wider than the device's largest image: stored as an fp16 buffer.
  const int64_t wide = static_cast<int64_t>(ctx->info().limits.maxImageDimension2D) + 5;
  for (const RoundingProbe& p : roundingProbes(true, wide)) expectRoundsToNearestEven(p, BackendType::kVulkan);
}

}  // namespace
}  // namespace test
}  // namespace tessera
