// Vulkan MeanVarianceNormalization against the CPU (which keeps its sums in double): the
// default axes and every other set on odd shapes (batch > 1, channels not multiples of 4),
// negative axes, six runs of reduced and kept dims, groups of tens of thousands of members
// (the work-group strides and its tree meet), a large mean (fp32 accumulation), fp16 storage.
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Attributes axes(std::vector<int64_t> v) {
  Attributes a;
  a.setInts("axes", std::move(v));
  return a;
}

TEST(VulkanMeanVarianceNormalization, EveryAxisSet) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : std::vector<Shape>{{3, 5, 7, 9}, {2, 13, 1, 3}, {1, 3, 5, 1}}) {
    const Tensor x = randomTensor(s, 421, -2.f, 3.f);
    expectVulkanMatchesCpu("MeanVarianceNormalization", {x}, {}, 1, {}, 13);  // [0, 2, 3]
    for (const std::vector<int64_t>& a : std::vector<std::vector<int64_t>>{
             {0}, {1}, {2}, {3}, {-1}, {2, 3}, {0, 3}, {1, 2, 3}, {0, 1, 2, 3}, {-4, -2}, {3, 0, 2}})
      expectVulkanMatchesCpu("MeanVarianceNormalization", {x}, axes(a), 1, {}, 13, 1e-4, 1e-4);
  }
  // Lower ranks, and the longest pattern the kernel takes: six alternating runs.
  expectVulkanMatchesCpu("MeanVarianceNormalization", {randomTensor({5, 13}, 422)}, axes({1}), 1, {}, 13, 1e-4, 1e-4);
  expectVulkanMatchesCpu("MeanVarianceNormalization", {randomTensor({7}, 423)}, axes({0}), 1, {}, 13, 1e-4, 1e-4);
  expectVulkanMatchesCpu("MeanVarianceNormalization", {randomTensor({2, 3, 2, 3, 2, 3}, 424)}, axes({0, 2, 4}), 1, {},
                         13, 1e-4, 1e-4);
  expectVulkanMatchesCpu("MeanVarianceNormalization", {randomTensor({2, 3, 4, 5, 3}, 425)}, axes({0, 2, 4}), 1, {}, 9,
                         1e-4, 1e-4);
}

TEST(VulkanMeanVarianceNormalization, LargeGroupsAndMean) {
  TESSERA_REQUIRE_VULKAN();
  // 40,401 members per channel, values 100 +- 1.
  expectVulkanMatchesCpu("MeanVarianceNormalization", {randomTensor({1, 3, 201, 201}, 426, 99.f, 101.f)}, {}, 1, {},
                         13, 1e-3, 1e-3);
  // Constant groups: x - mean is 0, the result 0.
  expectVulkanMatchesCpu("MeanVarianceNormalization", {tensorFrom({2, 2, 1, 3}, std::vector<float>(12, 1.5f))}, {}, 1,
                         {}, 13);
}

TEST(VulkanMeanVarianceNormalization, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  expectVulkanFp16Close("MeanVarianceNormalization", {randomTensor({3, 5, 7, 9}, 427)}, {});
  expectVulkanFp16Close("MeanVarianceNormalization", {randomTensor({2, 13, 5, 3}, 428)}, axes({1, 3}));
}

}  // namespace
}  // namespace test
}  // namespace tessera
