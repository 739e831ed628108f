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

// Lines of 127 (a work-item each), 128, 129, 300 (a work-group each) and over a million, along
// every axis, random and with ties and NaNs (every 11th element: the group's items each find
// a NaN, and the first one overall must win).
TEST(OpenClHardmax, LongLinesOverWorkGroups) {
  REQUIRE_OPENCL();
  for (int64_t n : {127, 128, 129, 300})
    for (const Shape& s : std::vector<Shape>{{2, n, 3}, {3, n}}) {
      const Tensor random = randomTensor(s, 505, -3.f, 3.f), ties = tiesAndNaNs(s, 506);
      Tensor sparseNaN = randomTensor(s, 507, 0.f, 4.f);  // one NaN per line, late in it
      for (int64_t j = 0; j < sparseNaN.elementCount(); ++j)
        if (j / (s.size() == 3 ? 3 : 1) % n == n - 2) sparseNaN.data<float>()[j] = NAN;
      for (int64_t axis = 0; axis < static_cast<int64_t>(s.size()); ++axis) {
        Attributes a;
        a.setInt("axis", axis - static_cast<int64_t>(s.size()) * (axis % 2));
        const std::string what = "Hardmax " + shapeToString(s) + " axis " + std::to_string(axis);
        expectOpenClMatchesCpu("Hardmax", {random}, a, what, {}, 1, 13);
        expectOpenClMatchesCpu("Hardmax", {ties}, a, what + " ties and NaNs", {}, 1, 13);
        expectOpenClMatchesCpu("Hardmax", {sparseNaN}, a, what + " a late NaN", {}, 1, 13);
      }
    }
  Attributes last;
  last.setInt("axis", -1);
  expectOpenClMatchesCpu("Hardmax", {tiesAndNaNs({2, 1048583}, 508)}, last, "Hardmax over a million, NaNs", {}, 1, 13);
  Tensor big = randomTensor({2, 1048583}, 509, 0.f, 1000.f);
  for (int64_t j = 0; j < big.elementCount(); ++j) big.data<float>()[j] = std::floor(big.data<float>()[j]);
  expectOpenClMatchesCpu("Hardmax", {big}, last, "Hardmax over a million, ties", {}, 1, 13);
}

}  // namespace
}  // namespace test
}  // namespace tessera
