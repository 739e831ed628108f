// ArgMax / ArgMin on OpenCL (shaders/opencl/arg_min_max.cl) against the CPU, exactly: every
// axis (negative too), keepdims both, select_last_index both, lines of 1 to over a million
// around the switch-over to a line per work-group (128), strided lines, values with many ties
// (so the first or last index decides, across the items of a group), NaNs.
#include <cmath>

#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

// Small integers in [0, levels): a line's extreme occurs many times.
Tensor tiedTensor(const Shape& s, uint32_t seed, int levels) {
  Tensor t = randomTensor(s, seed, 0.f, static_cast<float>(levels));
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = std::floor(t.data<float>()[i]);
  return t;
}

Attributes argAttrs(int64_t axis, int keepdims, int last) {
  Attributes a;
  a.setInt("axis", axis);
  a.setInt("keepdims", keepdims);
  a.setInt("select_last_index", last);
  return a;
}

// Both ops, both tie rules, both keepdims, exact indices.
void expectArgs(const Tensor& x, int64_t axis) {
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int last : {0, 1})
      for (int keep : {1, 0}) {
        const std::string what = std::string(op) + " " + shapeToString(x.shape()) + " axis " + std::to_string(axis) +
                                 " last " + std::to_string(last) + " keepdims " + std::to_string(keep);
        expectOpenClMatchesCpu(op, {x}, argAttrs(axis, keep, last), what, {}, 1, 13, 0.0, 0.0);
      }
}

TEST(OpenClArgMinMax, EveryAxisWithTies) {
  REQUIRE_OPENCL();
  const Tensor x = tiedTensor({3, 5, 7, 9}, 700, 4);
  for (int64_t axis : {0, 1, 2, 3, -1, -2, -3, -4}) expectArgs(x, axis);
  expectArgs(randomTensor({2, 3, 5}, 701), 1);  // distinct values
  expectArgs(tiedTensor({13}, 702, 3), 0);      // rank 1: one output
}

TEST(OpenClArgMinMax, LineLengths) {
  REQUIRE_OPENCL();
  for (int64_t n : {1, 2, 63, 127, 128, 129, 1000}) {
    expectArgs(tiedTensor({3, n}, 710 + static_cast<uint32_t>(n), 5), -1);
    expectArgs(tiedTensor({2, n, 3}, 720 + static_cast<uint32_t>(n), 5), 1);  // strided lines
  }
  expectArgs(randomTensor({2, 1000}, 730), 1);
}

TEST(OpenClArgMinMax, LineOverAMillion) {
  REQUIRE_OPENCL();
  expectArgs(tiedTensor({2, 1048583}, 740, 50), 1);  // each extreme ~20000 times
  // One maximum near the end and one minimum near the start of a random line.
  Tensor x = randomTensor({1, 1048583}, 741);
  x.data<float>()[1048580] = 2.f;
  x.data<float>()[3] = -2.f;
  expectArgs(x, -1);
}

// The CPU's scan never replaces a NaN first element and never picks a later NaN.
TEST(OpenClArgMinMax, NaNs) {
  REQUIRE_OPENCL();
  const float nan = std::nanf("");
  for (int64_t n : {5, 300}) {
    Tensor x = tiedTensor({4, n}, 750 + static_cast<uint32_t>(n), 3);
    float* p = x.data<float>();
    p[0] = nan;  // line 0: NaN first
    p[n + 1] = nan;  // line 1: NaNs inside
    p[n + n / 2] = nan;
    for (int64_t k = 0; k < n; ++k) p[2 * n + k] = nan;  // line 2: all NaN
    expectArgs(x, 1);
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
