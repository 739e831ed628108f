// OneHot: every axis (negative too) for indices of rank 1 to 3, negative, out-of-range and
// fractional indices of int and float dtypes, several depths (int and float, constant or fed
// at run time), values of several dtypes, against a naive reference; bad depth, values and
// axis fail naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "NaiveIndex.hpp"
#include "TypedTensor.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor oneHotReference(const Tensor& indices, int64_t depth, int64_t axis, const Tensor& values) {
  const std::vector<double> is = toDoubles(indices), vs = toDoubles(values);
  Shape out = indices.shape();
  out.insert(out.begin() + axis, depth);
  return typedTensor(out, values.dtype(), [&](int64_t e) {
    std::vector<int64_t> pos = unravelIndex(e, out);
    const int64_t k = pos[axis];
    pos.erase(pos.begin() + axis);
    int64_t index = static_cast<int64_t>(std::trunc(is[ravelIndex(pos, indices.shape())]));
    if (index < 0) index += depth;
    return index == k ? vs[1] : vs[0];
  });
}

TEST(OneHotOp, EveryAxisAndIndexKindAgainstNaive) {
  struct Values { DataType dtype; double off, on; };
  const std::vector<Values> valueKinds = {{DataType::kF32, -0.5, 3.25}, {DataType::kI64, 0, 1},
                                          {DataType::kI32, 7, -2}, {DataType::kBool, 0, 1}, {DataType::kF16, 2, 5}};
  int variant = 0;
  for (const Shape& shape : {Shape{5}, Shape{2, 3}, Shape{3, 1, 4}}) {
    for (DataType it : {DataType::kI64, DataType::kI32, DataType::kF32, DataType::kU8, DataType::kF64}) {
      for (int64_t depth : {1, 4, 7}) {
        // Indices in [-depth - 2, depth + 2): negatives, and out of range both ways; floats get
        // fractions (truncated: -1.5 is -1, the last).
        const bool sign = it != DataType::kU8;
        const Tensor indices = typedTensor(shape, it, [&](int64_t i) {
          const double v = sign ? (i * 5 + 1) % (2 * depth + 4) - depth - 2 : (i * 5 + 1) % (depth + 3);
          return isFloat(it) ? v + (v < 0 ? -0.5 : 0.75) : v;
        });
        const int64_t rank = static_cast<int64_t>(shape.size());
        for (int64_t axis = -rank - 1; axis <= rank; ++axis) {
          const Values& v = valueKinds[variant % valueKinds.size()];
          const Tensor values = typedTensor({2}, v.dtype, [&](int64_t i) { return i ? v.on : v.off; });
          // Depth as float or int, a constant or fed at run time.
          const DataType dt = variant % 3 == 0 ? DataType::kF32 : DataType::kI64;
          const bool constantDepth = variant % 2 == 0;
          const Tensor depthTensor = typedTensor(variant % 4 == 1 ? Shape{1} : Shape{}, dt, [&](int64_t) { return depth; });
          ++variant;
          Attributes attrs;
          attrs.setInt("axis", axis);
          OpRun r = runOp("OneHot", {indices, depthTensor, values}, attrs, 1, BackendType::kCPU,
                          {false, constantDepth, false});
          const std::string what = shapeToString(shape) + " " + dataTypeName(it) + " depth " + std::to_string(depth) +
                                   " axis " + std::to_string(axis) + " values " + dataTypeName(v.dtype);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectSameBytes(r.outputs[0], oneHotReference(indices, depth, axis < 0 ? axis + rank + 1 : axis, values), what);
        }
      }
    }
  }
  // The default axis is the last.
  const Tensor indices = tensorFromInts({2, 2}, {0, -1, 3, 5});
  const Tensor values = tensorFrom({2}, {0, 1});
  OpRun r = runOp("OneHot", {indices, tensorFromInts({}, {4}), values}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], oneHotReference(indices, 4, 2, values), "default axis");
}

TEST(OneHotOp, BadInputsFailNamingTheNode) {
  const Tensor indices = tensorFromInts({3}, {0, 1, 2});
  const Tensor values = tensorFrom({2}, {0, 1});
  for (int64_t depth : {0, -3}) {
    OpRun r = runOp("OneHot", {indices, tensorFromInts({}, {depth}), values}, {}, 1, BackendType::kCPU);
    ASSERT_FALSE(r.status.isOk()) << depth;
    EXPECT_NE(r.status.message().find("OneHot 'op'"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("positive"), std::string::npos) << r.status.message();
  }
  OpRun r = runOp("OneHot", {indices, tensorFromInts({2}, {3, 4}), values}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("OneHot 'op'"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("scalar"), std::string::npos) << r.status.message();
  r = runOp("OneHot", {indices, tensorFromInts({}, {3}), tensorFrom({3}, {0, 1, 2})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("[off, on]"), std::string::npos) << r.status.message();
  Attributes attrs;
  attrs.setInt("axis", 2);
  r = runOp("OneHot", {indices, tensorFromInts({}, {3}), values}, attrs, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
  attrs.setInt("axis", -3);
  EXPECT_FALSE(runOp("OneHot", {indices, tensorFromInts({}, {3}), values}, attrs, 1, BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
