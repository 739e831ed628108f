// Vulkan Hardmax against the CPU: every axis of opset 13 (negative ones included) and the
// older 2-D coercion (opset 11, axis == rank included), on odd shapes, with many ties (the
// first maximum wins) and NaNs (the first NaN wins), in fp32, and the ties in fp16 storage
// (small integers, exact in fp16; fp16 stores clamp, so a NaN does not survive them).
#include <cmath>

#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Values 0..3 (ties everywhere), with a NaN every 11th element when `nans`.
Tensor ties(const Shape& s, uint32_t seed, bool nans = true) {
  Tensor t = randomTensor(s, seed, 0.f, 4.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) p[i] = nans && i % 11 == 5 ? NAN : std::floor(p[i]);
  return t;
}

const std::vector<Shape> kShapes = {{3, 5, 7, 9}, {2, 3, 1, 17}, {1, 13, 5}, {13}, {1, 1}};

TEST(VulkanHardmax, EveryAxisOpset13) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : kShapes) {
    const Tensor random = randomTensor(s, 401, -3.f, 3.f), tied = ties(s, 402), tiedOnly = ties(s, 402, false);
    const int64_t rank = static_cast<int64_t>(s.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      Attributes a;
      a.setInt("axis", axis);
      expectVulkanMatchesCpu("Hardmax", {random}, a, 1, {}, 13);
      expectVulkanMatchesCpu("Hardmax", {tied}, a, 1, {}, 13);
      expectVulkanFp16Close("Hardmax", {tiedOnly}, a, {}, 0.0, 0.0);
    }
    expectVulkanMatchesCpu("Hardmax", {tied}, {}, 1, {}, 13);  // the default axis, -1
  }
}

TEST(VulkanHardmax, FlattenedTailOpset11) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : kShapes) {
    const Tensor tied = ties(s, 403);
    const int64_t rank = static_cast<int64_t>(s.size());
    for (int64_t axis = -1; axis <= rank; ++axis) {
      Attributes a;
      a.setInt("axis", axis);
      expectVulkanMatchesCpu("Hardmax", {tied}, a, 1, {}, 11);
    }
    expectVulkanMatchesCpu("Hardmax", {randomTensor(s, 404)}, {}, 1, {}, 11);  // the default axis, 1
  }
}

TEST(VulkanHardmax, NaNAndTieLines) {
  TESSERA_REQUIRE_VULKAN();
  // Per row: a tie at the front, a NaN after the maximum, a NaN first, two NaNs, -inf only.
  const float inf = INFINITY;
  const Tensor x = tensorFrom({5, 4}, {2, 2, 1, 2, 1, 3, NAN, 3, NAN, 5, 6, 7, 0, NAN, 1, NAN, -inf, -inf, -inf, -inf});
  expectVulkanMatchesCpu("Hardmax", {x}, {}, 1, {}, 13);
  Attributes a;
  a.setInt("axis", 0);
  expectVulkanMatchesCpu("Hardmax", {x}, a, 1, {}, 13);
}

// Lines around the switch-over to a line per work-group (128), strided and contiguous, with
// ties and NaNs spread over the group's invocations, and a line of over a million.
TEST(VulkanHardmax, LongLines) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t n : {127, 128, 129, 1000}) {
    const uint32_t seed = 410 + static_cast<uint32_t>(n);
    for (int64_t axis : {1, -2}) {
      Attributes a;
      a.setInt("axis", axis);
      expectVulkanMatchesCpu("Hardmax", {ties({2, n, 3}, seed)}, a, 1, {}, 13);
      expectVulkanMatchesCpu("Hardmax", {ties({2, n, 3}, seed, false)}, a, 1, {}, 13);
      expectVulkanFp16Close("Hardmax", {ties({2, n, 3}, seed, false)}, a, {}, 0.0, 0.0);
    }
    expectVulkanMatchesCpu("Hardmax", {randomTensor({3, n}, seed)}, {}, 1, {}, 13);
  }
  Tensor big = ties({1, 1048583}, 420, false);
  expectVulkanMatchesCpu("Hardmax", {big}, {}, 1, {}, 13);  // the first of ~260000 maxima
  big.data<float>()[1048000] = NAN;
  expectVulkanMatchesCpu("Hardmax", {big}, {}, 1, {}, 13);  // a NaN near the end wins
}

}  // namespace
}  // namespace test
}  // namespace tessera
