// CumSum: every axis (negative too) of odd shapes with batch > 1, exclusive x reverse, float
// and integer dtypes, the axis as a constant or a run-time input (int32 and int64), against a
// naive sum over the axis; a bad axis fails naming the node.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor cumSumReference(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  const Shape& s = x.shape();
  const std::vector<double> xs = toDoubles(x);
  return typedTensor(s, x.dtype(), [&](int64_t e) {
    std::vector<int64_t> pos = unravelIndex(e, s);
    const int64_t at = pos[axis];
    double sum = 0;
    for (int64_t k = 0; k < s[axis]; ++k) {
      const bool in = reverse ? (exclusive ? k > at : k >= at) : (exclusive ? k < at : k <= at);
      if (!in) continue;
      pos[axis] = k;
      sum += xs[ravelIndex(pos, s)];
    }
    return sum;
  });
}

TEST(CumSumOp, EveryAxisExclusiveReverseAgainstNaive) {
  for (DataType t : {DataType::kF32, DataType::kF64, DataType::kI32, DataType::kI64, DataType::kU8, DataType::kF16}) {
    for (const Shape& shape : {Shape{5}, Shape{3, 4}, Shape{2, 3, 5}, Shape{3, 1, 7, 2}, Shape{2, 300}}) {
      // Small integers keep every sum exact in each dtype (u8 sums past 255 wrap, like numpy).
      const Tensor x = typedTensor(shape, t, [&](int64_t i) {
        return isSignedType(t) || isFloat(t) ? (i * 7 + 3) % 9 - 4 : (i * 7 + 3) % 3;
      });
      const int64_t rank = static_cast<int64_t>(shape.size());
      for (int64_t axis = -rank; axis < rank; ++axis) {
        const int64_t a = axis < 0 ? axis + rank : axis;
        for (int flags = 0; flags < 4; ++flags) {
          const bool exclusive = flags & 1, reverse = flags & 2;
          Attributes attrs;
          attrs.setInt("exclusive", exclusive);
          attrs.setInt("reverse", reverse);
          // The axis alternates between a constant int64 and a run-time int32 input.
          const bool constant = (axis + flags) % 2 == 0;
          const Tensor axisTensor = typedTensor({}, constant ? DataType::kI64 : DataType::kI32, [&](int64_t) { return axis; });
          OpRun r = runOp("CumSum", {x, axisTensor}, attrs, 1, BackendType::kCPU, {false, constant});
          const std::string what = std::string(dataTypeName(t)) + " " + shapeToString(shape) + " axis " +
                                   std::to_string(axis) + (exclusive ? " exclusive" : "") + (reverse ? " reverse" : "");
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectSameBytes(r.outputs[0], cumSumReference(x, a, exclusive, reverse), what);
        }
      }
    }
  }
}

TEST(CumSumOp, BadInputsFailNamingTheNode) {
  const Tensor x = randomTensor({3, 4}, 1);
  for (int64_t axis : {2, -3}) {
    OpRun r = runOp("CumSum", {x, tensorFromInts({}, {axis})}, {}, 1, BackendType::kCPU);
    ASSERT_FALSE(r.status.isOk()) << axis;
    EXPECT_NE(r.status.message().find("CumSum 'op'"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
  }
  OpRun r = runOp("CumSum", {x, tensorFromInts({2}, {0, 1})}, {}, 1, BackendType::kCPU, {false, true});
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("scalar"), std::string::npos) << r.status.message();
  r = runOp("CumSum", {x, tensorFrom({}, {0})}, {}, 1, BackendType::kCPU, {false, true});
  ASSERT_FALSE(r.status.isOk());  // a float axis
  EXPECT_NE(r.status.message().find("CumSum 'op'"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
