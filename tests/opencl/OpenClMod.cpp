// OpenCL Mod (fmod = 1, C's fmod: the dividend's sign) against the CPU's std::fmod, exactly:
// broadcasting on every axis and both sides (plain and NC4HW4 kernels), a constant scalar
// divisor (the scalar kernel), mixed signs, quotients up to 2^100, zeros, infinities, NaNs.
#include <cmath>

#include "tests/opencl/OpenClTestSupport.hpp"

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

TEST(OpenClMod, BroadcastOnEachAxisExactly) {
  REQUIRE_OPENCL();
  const Shape full = {3, 5, 7, 9};
  const std::vector<Shape> others = {{3, 5, 7, 9}, {1, 5, 1, 1}, {3, 1, 7, 1}, {9}, {1}, {7, 1}, {3, 1, 1, 9}};
  for (const Shape& o : others) {
    const Tensor a = randomTensor(full, 511, -40.f, 40.f);
    const Tensor b = signedAwayFromZero(o, 512, 0.25f, 3.f);
    const std::string what = "Mod with " + shapeToString(o);
    expectOpenClMatchesCpu("Mod", {a, b}, fmod1(), what, {}, 1, 13, 0.0, 0.0);
    expectOpenClMatchesCpu("Mod", {b, a}, fmod1(), what + " first", {}, 1, 13, 0.0, 0.0);
  }
  expectOpenClMatchesCpu("Mod", {randomTensor({3, 1, 5}, 513, -9.f, 9.f), signedAwayFromZero({1, 13, 1}, 514, 0.5f, 2.f)},
                         fmod1(), "Mod both broadcast", {}, 1, 13, 0.0, 0.0);
  for (bool first : {false, true}) {
    const Tensor x = randomTensor({2, 13, 3}, 515, -9.f, 9.f), k = tensorFrom({1}, {-1.75f});
    expectOpenClMatchesCpu("Mod", first ? std::vector<Tensor>{k, x} : std::vector<Tensor>{x, k}, fmod1(),
                           "Mod constant scalar", {first, !first}, 1, 13, 0.0, 0.0);
  }
}

TEST(OpenClMod, LargeQuotientsAndSpecialValues) {
  REQUIRE_OPENCL();
  const float inf = INFINITY;
  const Tensor a = tensorFrom({16}, {5.5f, -5.5f, 0.f, -0.f, inf, -inf, NAN, 1e30f, -1e30f, 3e38f, 7.f, -7.f, 7.f,
                                      1.f, 123456.789f, -4.3f});
  const Tensor b = tensorFrom({16}, {0.f, 2.f, 2.f, -2.f, 3.f, 3.f, 3.f, 0.7f, 0.3f, 1e-30f, inf, -inf, NAN, 1.f,
                                      0.001f, 2.1f});
  expectOpenClMatchesCpu("Mod", {a, b}, fmod1(), "Mod special values", {}, 1, 13, 0.0, 0.0);
  expectOpenClMatchesCpu("Mod", {randomTensor({5, 13}, 516, -1e7f, 1e7f), signedAwayFromZero({13}, 517, 1e-3f, 0.1f)},
                         fmod1(), "Mod large quotients", {}, 1, 13, 0.0, 0.0);
}

}  // namespace
}  // namespace test
}  // namespace tessera
