// GatherElements on every axis of a 4-D tensor with odd extents, indices smaller than data,
// negative and int32 indices, three dtypes; out-of-range indices and bad shapes fail clearly.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// Indices of `shape` for an axis of extent `extent`: a spread of valid values, negatives too.
Tensor someIndices(const Shape& shape, int64_t extent, DataType dt) {
  Tensor t = Tensor::hostAllocate(shape, dt);
  for (int64_t i = 0; i < t.elementCount(); ++i) {
    const int64_t v = (i * 7 + 3) % (2 * extent) - extent;  // in [-extent, extent)
    if (dt == DataType::kI64) t.data<int64_t>()[i] = v;
    else t.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return t;
}

TEST(GatherElementsOp, EveryAxisAgainstNaive) {
  const Shape dataShape = {3, 5, 2, 7};
  for (DataType dt : {DataType::kF32, DataType::kI64, DataType::kU8}) {
    const Tensor data = iotaTensor(dataShape, dt);
    for (int64_t axis = -4; axis < 4; ++axis) {
      const int64_t a = axis < 0 ? axis + 4 : axis;
      for (DataType it : {DataType::kI64, DataType::kI32}) {
        Shape idxShape = {2, 5, 1, 6};  // smaller than data off the axis
        idxShape[a] = 4;                // and any extent on it
        const Tensor indices = someIndices(idxShape, dataShape[a], it);
        const Tensor expected = movedReference(data, idxShape, [&](const std::vector<int64_t>& pos) {
          const int64_t flat = ravelIndex(pos, idxShape);
          int64_t i = it == DataType::kI64 ? indices.data<int64_t>()[flat] : indices.data<int32_t>()[flat];
          if (i < 0) i += dataShape[a];
          std::vector<int64_t> src = pos;
          src[a] = i;
          return ravelIndex(src, dataShape);
        });
        Attributes attrs;
        attrs.setInt("axis", axis);
        OpRun r = runOp("GatherElements", {data, indices}, attrs, 1, BackendType::kCPU);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        ASSERT_EQ(r.report.nodes.size(), 1u);
        EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
        expectSameBytes(r.outputs[0], expected, std::string(dataTypeName(dt)) + " axis " + std::to_string(axis));
      }
    }
  }
}

TEST(GatherElementsOp, BadInputsFailNamingTheNode) {
  Attributes attrs;
  attrs.setInt("axis", 1);
  OpRun r = runOp("GatherElements", {randomTensor({3, 4}, 1), tensorFromInts({1, 2}, {0, 4})}, attrs, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("GatherElements"), std::string::npos) << r.status.message();
  // Named once: the kernel names its node and the Session does not repeat it.
  const std::string label = "GatherElements '";
  const size_t first = r.status.message().find(label);
  EXPECT_EQ(r.status.message().find(label, first + 1), std::string::npos) << r.status.message();
  r = runOp("GatherElements", {randomTensor({3, 4}, 1), tensorFromInts({1, 1}, {-5})}, attrs, 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
  r = runOp("GatherElements", {randomTensor({3, 4}, 1), tensorFromInts({4}, {0, 0, 0, 0})}, attrs, 1,
            BackendType::kCPU);  // rank differs
  EXPECT_FALSE(r.status.isOk());
  r = runOp("GatherElements", {randomTensor({3, 4}, 1), tensorFromInts({4, 1}, {0, 0, 0, 0})}, attrs, 1,
            BackendType::kCPU);  // larger than data off the axis
  EXPECT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
