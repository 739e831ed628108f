// OpenCL Hardmax against the CPU: every axis of opset 13 (negative ones included) and the
// older 2-D coercion (opset 11, axis == rank included), on odd shapes, with many ties (the
// first maximum wins) and NaNs (the first NaN wins).
#include <cmath>

#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Values 0..3 (ties everywhere) with a NaN every 11th element.
Tensor tiesAndNaNs(const Shape& s, uint32_t seed) {
  Tensor t = randomTensor(s, seed, 0.f, 4.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.elementCount(); ++i) p[i] = i % 11 == 5 ? NAN : std::floor(p[i]);
  return t;
}

const std::vector<Shape> kShapes = {{3, 5, 7, 9}, {2, 3, 1, 17}, {1, 13, 5}, {13}, {1, 1}};

TEST(OpenClHardmax, EveryAxisOpset13) {
  REQUIRE_OPENCL();
  for (const Shape& s : kShapes) {
    const Tensor random = randomTensor(s, 501, -3.f, 3.f), ties = tiesAndNaNs(s, 502);
    const int64_t rank = static_cast<int64_t>(s.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      Attributes a;
      a.setInt("axis", axis);
      const std::string what = "Hardmax " + shapeToString(s) + " axis " + std::to_string(axis);
      expectOpenClMatchesCpu("Hardmax", {random}, a, what, {}, 1, 13);
      expectOpenClMatchesCpu("Hardmax", {ties}, a, what + " ties and NaNs", {}, 1, 13);
    }
    expectOpenClMatchesCpu("Hardmax", {ties}, {}, "Hardmax default axis", {}, 1, 13);
  }
}

TEST(OpenClHardmax, FlattenedTailOpset11) {
  REQUIRE_OPENCL();
  for (const Shape& s : kShapes) {
    const Tensor ties = tiesAndNaNs(s, 503);
    const int64_t rank = static_cast<int64_t>(s.size());
    for (int64_t axis = -1; axis <= rank; ++axis) {
      Attributes a;
      a.setInt("axis", axis);
      expectOpenClMatchesCpu("Hardmax", {ties}, a, "Hardmax-11 " + shapeToString(s) + " axis " + std::to_string(axis),
                             {}, 1, 11);
    }
    expectOpenClMatchesCpu("Hardmax", {randomTensor(s, 504)}, {}, "Hardmax-11 default axis", {}, 1, 11);
  }
}

TEST(OpenClHardmax, NaNAndTieLines) {
  REQUIRE_OPENCL();
  // Per row: a tie at the front, a NaN after the maximum, a NaN first, two NaNs, -inf only.
  const float inf = INFINITY;
  const Tensor x = tensorFrom({5, 4}, {2, 2, 1, 2, 1, 3, NAN, 3, NAN, 5, 6, 7, 0, NAN, 1, NAN, -inf, -inf, -inf, -inf});
  expectOpenClMatchesCpu("Hardmax", {x}, {}, "Hardmax rows", {}, 1, 13);
  Attributes a;
  a.setInt("axis", 0);
  expectOpenClMatchesCpu("Hardmax", {x}, a, "Hardmax columns", {}, 1, 13);
}

}  // namespace
}  // namespace test
}  // namespace tessera
