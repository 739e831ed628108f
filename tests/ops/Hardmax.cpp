// Hardmax: every axis (negative ones too) of odd-sized tensors whose values tie often (the
// first maximum wins), f32 f64 f16 bf16, opset 13's single axis and older opsets' 2-D
// coercion, a NaN, against a naive reference.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// One-hot of the first maximum over the dims in [first, last] (one dim, or the tail).
Tensor hardmaxReference(const Tensor& x, int64_t first, int64_t last) {
  const Shape& s = x.shape();
  const std::vector<double> xs = toDoubles(x);
  // The line an element belongs to: its index with the reduced dims zeroed.
  auto lineOf = [&](int64_t e) {
    std::vector<int64_t> pos = unravelIndex(e, s);
    for (int64_t d = first; d <= last; ++d) pos[d] = 0;
    return ravelIndex(pos, s);
  };
  std::vector<int64_t> best(xs.size(), -1);  // per line start: the flat index of its maximum
  for (int64_t e = 0; e < static_cast<int64_t>(xs.size()); ++e) {  // row-major: first come first
    int64_t& b = best[lineOf(e)];
    if (b < 0 || (!std::isnan(xs[b]) && (xs[e] > xs[b] || std::isnan(xs[e])))) b = e;
  }
  return typedTensor(s, x.dtype(), [&](int64_t e) { return best[lineOf(e)] == e ? 1 : 0; });
}

TEST(HardmaxOp, EveryAxisWithTiesAgainstNaive) {
  for (DataType t : {DataType::kF32, DataType::kF64, DataType::kF16, DataType::kBF16}) {
    for (const Shape& shape : {Shape{3, 5, 7}, Shape{2, 3, 1, 5}, Shape{13}, Shape{4, 17}}) {
      // Values from a few levels so ties are common.
      const Tensor x = typedTensor(shape, t, [](int64_t i) { return ((i * 7 + 3) % 5) * 0.5 - 1; });
      const int64_t rank = static_cast<int64_t>(shape.size());
      for (int64_t axis = -rank; axis < rank; ++axis) {
        const int64_t a = axis < 0 ? axis + rank : axis;
        Attributes attrs;
        attrs.setInt("axis", axis);
        OpRun r = runOp("Hardmax", {x}, attrs, 1, BackendType::kCPU, {}, 13);
        const std::string what = std::string(dataTypeName(t)) + " " + shapeToString(shape) + " axis " + std::to_string(axis);
        ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        expectSameBytes(r.outputs[0], hardmaxReference(x, a, a), what);
      }
      // Opset 13's default axis is the last.
      OpRun r = runOp("Hardmax", {x}, {}, 1, BackendType::kCPU, {}, 13);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectSameBytes(r.outputs[0], hardmaxReference(x, rank - 1, rank - 1), "default axis");
      // Before opset 13: coerced to 2-D at axis (default 1), one line per leading index.
      for (int64_t axis = 0; axis < rank; ++axis) {
        Attributes attrs;
        attrs.setInt("axis", axis);
        r = runOp("Hardmax", {x}, attrs, 1, BackendType::kCPU, {}, 11);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectSameBytes(r.outputs[0], hardmaxReference(x, axis, rank - 1), "opset 11 axis " + std::to_string(axis));
      }
      if (rank >= 2) {
        r = runOp("Hardmax", {x}, {}, 1, BackendType::kCPU, {}, 11);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectSameBytes(r.outputs[0], hardmaxReference(x, 1, rank - 1), "opset 11 default axis");
      }
    }
  }
}

// Like numpy's argmax, a NaN is the maximum; the first one wins.
TEST(HardmaxOp, NaNIsTheMaximum) {
  const Tensor x = tensorFrom({2, 4}, {1, NAN, 5, NAN, 3, 2, 3, 1});
  OpRun r = runOp("Hardmax", {x}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFrom({2, 4}, {0, 1, 0, 0, 1, 0, 0, 0}), "NaN");
}

TEST(HardmaxOp, BadInputsFailNamingTheNode) {
  Attributes attrs;
  attrs.setInt("axis", 3);
  OpRun r = runOp("Hardmax", {randomTensor({3, 4, 5}, 1)}, attrs, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("Hardmax 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
  attrs.setInt("axis", -4);
  EXPECT_FALSE(runOp("Hardmax", {randomTensor({3, 4, 5}, 1)}, attrs, 1, BackendType::kCPU).status.isOk());
  r = runOp("Hardmax", {tensorFromInts({3}, {1, 2, 3})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("float"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
