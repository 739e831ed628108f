// MeanVarianceNormalization: the default axes [0, 2, 3] and other sets (one axis, negative,
// all), batch > 1, odd sizes, f32 f64 f16, against a naive (x - mean) / (std + 1e-9) with the
// reference's std = sqrt(E[x^2] - mean^2); bad axes fail naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor mvnReference(const Tensor& x, const std::vector<int64_t>& axes) {
  const Shape& s = x.shape();
  const int64_t rank = static_cast<int64_t>(s.size());
  std::vector<bool> reduced(s.size(), false);
  for (int64_t a : axes) reduced[a < 0 ? a + rank : a] = true;
  const std::vector<double> xs = toDoubles(x);
  auto groupOf = [&](int64_t e) {
    std::vector<int64_t> pos = unravelIndex(e, s);
    for (size_t d = 0; d < s.size(); ++d)
      if (reduced[d]) pos[d] = 0;
    return ravelIndex(pos, s);
  };
  std::vector<double> sum(xs.size(), 0), squares(xs.size(), 0), count(xs.size(), 0);
  for (size_t e = 0; e < xs.size(); ++e) {
    const int64_t g = groupOf(e);
    sum[g] += xs[e];
    squares[g] += xs[e] * xs[e];
    count[g] += 1;
  }
  return typedTensor(s, x.dtype(), [&](int64_t e) {
    const int64_t g = groupOf(e);
    const double mean = sum[g] / count[g];
    const double stdev = std::sqrt(std::max(0.0, squares[g] / count[g] - mean * mean));
    return (xs[e] - mean) / (stdev + 1e-9);
  });
}

TEST(MeanVarianceNormalizationOp, AxesSetsAgainstNaive) {
  struct Case { Shape shape; std::vector<int64_t> axes; bool defaultAxes; };
  const std::vector<Case> cases = {
      {{3, 5, 2, 7}, {0, 2, 3}, true}, {{1, 3, 1, 1}, {0, 2, 3}, true}, {{2, 13, 3, 3}, {0, 2, 3}, false},
      {{3, 5, 7}, {0, 2}, false},     {{3, 5, 7}, {1}, false},           {{3, 5, 7}, {-1}, false},
      {{2, 3, 5, 3}, {0, 1, 2, 3}, false}, {{4, 9}, {-2, -1}, false},    {{3, 5, 2, 3, 2}, {0, 2, 3, 4}, false}};
  for (DataType t : {DataType::kF32, DataType::kF64, DataType::kF16}) {
    for (const Case& c : cases) {
      const Tensor x = typedTensor(c.shape, t, [](int64_t i) { return ((i * 37 + 5) % 41) * 0.125 - 2; });
      Attributes attrs;
      if (!c.defaultAxes) attrs.setInts("axes", c.axes);
      OpRun r = runOp("MeanVarianceNormalization", {x}, attrs, 1, BackendType::kCPU);
      const std::string what = std::string(dataTypeName(t)) + " " + shapeToString(c.shape);
      ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      const bool half = t == DataType::kF16;
      expectClose(r.outputs[0], mvnReference(x, c.axes), half ? 2e-3 : 1e-5, half ? 2e-3 : 1e-5, what);
    }
  }
}

// A group of equal values has std 0: the epsilon keeps the output 0 rather than NaN.
TEST(MeanVarianceNormalizationOp, ConstantGroupGivesZero) {
  Attributes attrs;
  attrs.setInts("axes", {1});
  OpRun r = runOp("MeanVarianceNormalization", {tensorFrom({2, 3}, {4, 4, 4, 1, 2, 3})}, attrs, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const double s = std::sqrt(2.0 / 3.0) + 1e-9;
  expectClose(r.outputs[0], tensorFrom({2, 3}, {0, 0, 0, static_cast<float>(-1 / s), 0, static_cast<float>(1 / s)}),
              1e-6, 1e-7, "constant group");
}

TEST(MeanVarianceNormalizationOp, BadInputsFailNamingTheNode) {
  OpRun r = runOp("MeanVarianceNormalization", {randomTensor({3, 4, 5}, 1)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());  // the default axes need rank 4
  EXPECT_NE(r.status.message().find("MeanVarianceNormalization 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
  Attributes repeated;
  repeated.setInts("axes", {1, -2});
  r = runOp("MeanVarianceNormalization", {randomTensor({3, 4, 5}, 1)}, repeated, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("repeated"), std::string::npos) << r.status.message();
  r = runOp("MeanVarianceNormalization", {tensorFromInts({1, 2, 1, 1}, {1, 2})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("float"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
