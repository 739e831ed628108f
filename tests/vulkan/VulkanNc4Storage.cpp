// Vulkan keeps NC4HW4 tensors in storage images or in buffers (the NCHW builds), whichever
// measured faster on this device (tests/support/Nc4StorageChecks.hpp).
#include "backends/vulkan/VulkanBackend.hpp"
#include "tests/support/Nc4StorageChecks.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

std::unique_ptr<VulkanBackend> newBackend(Nc4Storage storage) {
  BackendOptions o;
  o.nc4Storage = storage;
  std::unique_ptr<Backend> b;
  EXPECT_TRUE(BackendRegistry::instance().find(BackendType::kVulkan)->create(o, &b).isOk());
  return std::unique_ptr<VulkanBackend>(static_cast<VulkanBackend*>(b.release()));
}

const Nc4StorageProbe kProbe{"TESSERA_VULKAN_NC4_STORAGE",
                             [](Nc4Storage s) {
                               auto b = newBackend(s);
                               // What the ops see: an NC4HW4 tensor is an image exactly when images were chosen.
                               Tensor t = Tensor::hostAllocate({1, 8, 4, 4}, DataType::kF32);
                               EXPECT_EQ(b->imagesFit({&t}), b->nc4Storage().images);
                               return b->nc4Storage();
                             },
                             [] { return newBackend(Nc4Storage::kAuto)->nc4StorageDevice(); }};

TEST(VulkanNc4Storage, MeasuredOnceThenReadFromTheCache) {
  TESSERA_REQUIRE_VULKAN();
  expectMeasuredOnceThenCached(kProbe);
}

TEST(VulkanNc4Storage, ChoiceFollowsTheMeasuredTimes) {
  TESSERA_REQUIRE_VULKAN();
  expectChoiceFollowsTimes(kProbe);
}

TEST(VulkanNc4Storage, OverrideWins) {
  TESSERA_REQUIRE_VULKAN();
  expectOverrideWins(kProbe);
}

}  // namespace
}  // namespace test
}  // namespace tessera
