// Vulkan Mod (fmod = 1, C's fmod: the dividend's sign) against the CPU's std::fmod, exactly:
// broadcasting on every axis and both sides, mixed signs, quotients up to 2^100 (the kernel
// reduces without rounding), zeros, infinities and NaNs. The NC4HW4 image path is covered in
// VulkanImages.cpp.
#include <cmath>

#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Attributes fmod1() {
  Attributes a;
  a.setInt("fmod", 1);
  return a;
}

// Uniform in +-[lo, hi): both signs, never near zero.
Tensor signedAwayFromZero(const Shape& s, uint32_t seed, float lo, float hi) {
  Tensor t = randomTensor(s, seed, -1.f, 1.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) p[i] = std::copysign(lo + (hi - lo) * std::fabs(p[i]), p[i]);
  return t;
}

TEST(VulkanMod, BroadcastOnEachAxisExactly) {
  TESSERA_REQUIRE_VULKAN();
  const Shape full = {3, 5, 7, 9};
  const std::vector<Shape> others = {{3, 5, 7, 9}, {1, 5, 1, 1}, {3, 1, 7, 1}, {9}, {1}, {7, 1}, {3, 1, 1, 9}};
  for (const Shape& o : others) {
    const Tensor a = randomTensor(full, 411, -40.f, 40.f);
    const Tensor b = signedAwayFromZero(o, 412, 0.25f, 3.f);
    expectVulkanMatchesCpu("Mod", {a, b}, fmod1(), 1, {}, 13, 0.0, 0.0);
    expectVulkanMatchesCpu("Mod", {b, a}, fmod1(), 1, {}, 13, 0.0, 0.0);
  }
  // Both sides broadcast; a constant divisor.
  expectVulkanMatchesCpu("Mod", {randomTensor({3, 1, 5}, 413, -9.f, 9.f), signedAwayFromZero({1, 13, 1}, 414, 0.5f, 2.f)},
                         fmod1(), 1, {}, 13, 0.0, 0.0);
  expectVulkanMatchesCpu("Mod", {randomTensor({2, 13, 3}, 415, -9.f, 9.f), tensorFrom({1}, {-1.75f})}, fmod1(), 1,
                         {false, true}, 13, 0.0, 0.0);
}

TEST(VulkanMod, LargeQuotientsAndSpecialValues) {
  TESSERA_REQUIRE_VULKAN();
  const float inf = INFINITY;
  const Tensor a = tensorFrom({16}, {5.5f, -5.5f, 0.f, -0.f, inf, -inf, NAN, 1e30f, -1e30f, 3e38f, 7.f, -7.f, 7.f,
                                      1.f, 123456.789f, -4.3f});
  const Tensor b = tensorFrom({16}, {0.f, 2.f, 2.f, -2.f, 3.f, 3.f, 3.f, 0.7f, 0.3f, 1e-30f, inf, -inf, NAN, 1.f,
                                      0.001f, 2.1f});
  expectVulkanMatchesCpu("Mod", {a, b}, fmod1(), 1, {}, 13, 0.0, 0.0);
  expectVulkanMatchesCpu("Mod", {randomTensor({5, 13}, 416, -1e7f, 1e7f), signedAwayFromZero({13}, 417, 1e-3f, 0.1f)},
                         fmod1(), 1, {}, 13, 0.0, 0.0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
