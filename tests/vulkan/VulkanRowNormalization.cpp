// LayerNormalization and InstanceNormalization on Vulkan (shaders/vulkan/normalize_rows.comp)
// at row lengths around the switch-over from a row per invocation to a row per work-group
// of 64 (vkops::kGroupLineFrom = 128): 1, odd lengths, 127/128/129, not multiples of 64, and
// a row of over a million elements; every axis, batch > 1, the optional outputs, fp16.
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Attributes axisAttr(int64_t axis) {
  Attributes a;
  a.setInt("axis", axis);
  return a;
}

Shape tail(const Shape& s, int64_t axis) {
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  return Shape(s.begin() + axis, s.end());
}

// Y, Mean and InvStdDev; scale and bias as initializers (bias omitted once).
void expectLayerNorm(const Shape& s, int64_t axis, uint32_t seed, double atol = 1e-5) {
  const Tensor x = randomTensor(s, seed, -3.f, 5.f);
  const Shape t = tail(s, axis);
  expectVulkanMatchesCpu("LayerNormalization", {x, randomTensor(t, seed + 1), randomTensor(t, seed + 2)},
                         axisAttr(axis), 3, {false, true, true}, 17, 1e-4, atol);
  expectVulkanMatchesCpu("LayerNormalization", {x, randomTensor(t, seed + 3)}, axisAttr(axis), 1, {false, true}, 17,
                         1e-4, atol);
}

TEST(VulkanRowNormalization, LayerNormRowLengths) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t n : {1, 7, 127, 128, 129, 1000}) expectLayerNorm({3, n}, -1, 300 + n);
  // Every axis of a rank-4 tensor: rows of 5*7*9, 7*9, 9 (and the whole tensor at axis 0).
  for (int64_t axis : {0, 1, 2, 3, -1, -2, -3}) expectLayerNorm({2, 5, 7, 9}, axis, 400 + axis);
  expectLayerNorm({3, 131, 1}, 1, 410);  // a trailing 1: rows of 131
}

TEST(VulkanRowNormalization, LayerNormRowOverAMillion) {
  TESSERA_REQUIRE_VULKAN();
  expectLayerNorm({2, 1048583}, -1, 420, 1e-4);
}

void expectInstanceNorm(const Shape& s, uint32_t seed, double atol = 1e-5) {
  const Tensor x = randomTensor(s, seed, -2.f, 6.f);
  expectVulkanMatchesCpu("InstanceNormalization", {x, randomTensor({s[1]}, seed + 1), randomTensor({s[1]}, seed + 2)},
                         {}, 1, {false, true, true}, 17, 1e-4, atol);
}

TEST(VulkanRowNormalization, InstanceNormPlaneSizes) {
  TESSERA_REQUIRE_VULKAN();
  expectInstanceNorm({3, 5, 1}, 500);         // planes of 1
  // The CPU's 4-D path folds the mean into a shift, x * k + (B - mean * k): with a variance of 0,
  // k = 1 / sqrt(eps) ~ 316 and the two terms cancel to about 1e-4.
  expectInstanceNorm({3, 5, 1, 1}, 501, 1e-3);
  expectInstanceNorm({2, 13, 3, 5}, 502);     // 15
  expectInstanceNorm({3, 5, 127}, 503);       // just below the switch-over (3-D)
  expectInstanceNorm({3, 5, 8, 16}, 504);     // 128
  expectInstanceNorm({1, 3, 129}, 505);       // just above
  expectInstanceNorm({2, 3, 31, 33}, 506);    // 1023
  expectInstanceNorm({2, 3, 3, 5, 7}, 507);   // 5-D: planes of 105
  expectInstanceNorm({1, 2, 5, 9, 11}, 508);  // 5-D: planes of 495
}

TEST(VulkanRowNormalization, InstanceNormPlaneOverAMillion) {
  TESSERA_REQUIRE_VULKAN();
  expectInstanceNorm({1, 2, 1025, 1025}, 510, 1e-4);
}

TEST(VulkanRowNormalization, Fp16Storage) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t n : {5, 300}) {
    const Tensor x = randomTensor({3, 4, n}, 520 + n, -2.f, 2.f);
    expectVulkanFp16Close("LayerNormalization", {x, randomTensor({n}, 521), randomTensor({n}, 522)}, axisAttr(-1),
                          {false, true, true});
    expectVulkanFp16Close("InstanceNormalization", {x, randomTensor({4}, 523), randomTensor({4}, 524)}, {},
                          {false, true, true});
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
