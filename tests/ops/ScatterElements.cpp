// ScatterElements (and Scatter, its opset 9-10 name) on every axis of a 4-D tensor with odd
// extents: indices smaller than data off the axis with duplicates and negatives, int64 and
// int32, every reduction on f32 and int64 data (reduction none on u8 too), against a naive
// reference; out-of-range indices and malformed inputs fail naming the node.
#include <gtest/gtest.h>

#include <algorithm>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

const char* kReductions[] = {"none", "add", "mul", "max", "min"};

Tensor indexTensor(const Shape& shape, const std::vector<int64_t>& v, DataType dt) {
  if (dt == DataType::kI64) return filledTensor<int64_t>(shape, [&](int64_t i) { return v[i]; });
  return filledTensor<int32_t>(shape, [&](int64_t i) { return v[i]; });
}

// Small values, so products of duplicates stay exact in int64 and finite in f32.
Tensor someUpdates(const Shape& shape, DataType dt) {
  if (dt == DataType::kF32)
    return filledTensor<float>(shape, [](int64_t i) { return 0.25f * static_cast<float>(i % 9) - 1.1f; });
  if (dt == DataType::kI64) return filledTensor<int64_t>(shape, [](int64_t i) { return i % 7 - 3; });
  return filledTensor<uint8_t>(shape, [](int64_t i) { return 200 + i % 50; });
}

template <typename T>
void combine(const std::string& reduction, T& dst, T v) {
  if (reduction == "none") dst = v;
  else if (reduction == "add") dst = dst + v;
  else if (reduction == "mul") dst = dst * v;
  else if (reduction == "max") dst = std::max(dst, v);
  else dst = std::min(dst, v);
}

// Updates applied one by one in the indices' row-major order.
template <typename T>
Tensor scatterReference(const Tensor& data, const std::vector<int64_t>& indices, const Tensor& updates, int64_t axis,
                        const std::string& reduction) {
  Tensor out = Tensor::hostAllocate(data.shape(), data.dtype());
  std::copy(data.data<T>(), data.data<T>() + data.elementCount(), out.data<T>());
  for (int64_t k = 0; k < updates.elementCount(); ++k) {
    std::vector<int64_t> pos = unravelIndex(k, updates.shape());
    pos[axis] = indices[k] < 0 ? indices[k] + data.dim(static_cast<int>(axis)) : indices[k];
    combine(reduction, out.data<T>()[ravelIndex(pos, data.shape())], updates.data<T>()[k]);
  }
  return out;
}

Tensor reference(const Tensor& data, const std::vector<int64_t>& indices, const Tensor& updates, int64_t axis,
                 const std::string& reduction) {
  if (data.dtype() == DataType::kF32) return scatterReference<float>(data, indices, updates, axis, reduction);
  if (data.dtype() == DataType::kI64) return scatterReference<int64_t>(data, indices, updates, axis, reduction);
  return scatterReference<uint8_t>(data, indices, updates, axis, reduction);
}

TEST(ScatterElementsOp, EveryAxisEveryReductionAgainstNaive) {
  const Shape dataShape = {3, 5, 2, 7};
  for (DataType dt : {DataType::kF32, DataType::kI64, DataType::kU8}) {
    const Tensor data = iotaTensor(dataShape, dt);
    for (int64_t axis = -4; axis < 4; ++axis) {
      const int64_t a = axis < 0 ? axis + 4 : axis;
      Shape idxShape = {2, 5, 1, 6};  // smaller than data off the axis
      idxShape[a] = 4;                // and any extent on it: duplicates
      std::vector<int64_t> idx(static_cast<size_t>(elementCount(idxShape)));
      const int64_t extent = dataShape[a];
      for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int64_t>(i * 5 + 1) % (2 * extent) - extent;
      const Tensor updates = someUpdates(idxShape, dt);
      for (const char* reduction : kReductions) {
        if (dt == DataType::kU8 && std::string(reduction) != "none") continue;
        const Tensor expected = reference(data, idx, updates, a, reduction);
        for (DataType it : {DataType::kI64, DataType::kI32}) {
          Attributes attrs;
          attrs.setInt("axis", axis);
          attrs.setString("reduction", reduction);
          OpRun r = runOp("ScatterElements", {data, indexTensor(idxShape, idx, it), updates}, attrs, 1,
                          BackendType::kCPU, {}, 18);
          const std::string what = std::string(dataTypeName(dt)) + " axis " + std::to_string(axis) + " " +
                                   reduction + " " + dataTypeName(it);
          ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
          ASSERT_EQ(r.report.nodes.size(), 1u);
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectSameBytes(r.outputs[0], expected, what);
        }
      }
    }
  }
}

TEST(ScatterElementsOp, DuplicatesWithAddAndDeprecatedScatter) {
  // The ONNX example: two updates to one place add up.
  const Tensor data = tensorFrom({1, 5}, {1, 2, 3, 4, 5});
  Attributes attrs;
  attrs.setInt("axis", 1);
  attrs.setString("reduction", "add");
  OpRun r = runOp("ScatterElements", {data, tensorFromInts({1, 2}, {1, 1}), tensorFrom({1, 2}, {1.1f, 2.1f})},
                  attrs, 1, BackendType::kCPU, {}, 16);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], tensorFrom({1, 5}, {1, 5.2f, 3, 4, 5}));

  // Scatter (opset 10) replaces; axis 0 of a batch of rows, a negative index.
  Attributes axis0;
  const Tensor rows = iotaTensor({3, 3}, DataType::kF32);
  const Tensor updates = tensorFrom({2, 3}, {10, 11, 12, 20, 21, 22});
  r = runOp("Scatter", {rows, tensorFromInts({2, 3}, {1, 0, 2, 0, -1, 1}), updates}, axis0, 1, BackendType::kCPU, {},
            10);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFrom({3, 3}, {20, 11, 2, 10, 4, 22, 6, 21, 12}), "Scatter axis 0");
}

TEST(ScatterElementsOp, BadInputsFailNamingTheNode) {
  Attributes attrs;
  attrs.setInt("axis", 1);
  const Tensor data = randomTensor({3, 4}, 1);
  OpRun r = runOp("ScatterElements", {data, tensorFromInts({1, 2}, {0, 4}), randomTensor({1, 2}, 2)}, attrs, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("ScatterElements"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("'indices' holds 4"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
  r = runOp("ScatterElements", {data, indexTensor({1, 1}, {-5}, DataType::kI32), randomTensor({1, 1}, 2)}, attrs, 1,
            BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("-5"), std::string::npos) << r.status.message();
  // updates not the shape of indices; indices larger than data off the axis; rank differs.
  EXPECT_FALSE(runOp("ScatterElements", {data, tensorFromInts({1, 2}, {0, 1}), randomTensor({2, 1}, 2)}, attrs, 1,
                     BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("ScatterElements", {data, tensorFromInts({4, 1}, {0, 0, 0, 0}), randomTensor({4, 1}, 2)}, attrs,
                     1, BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("ScatterElements", {data, tensorFromInts({2}, {0, 0}), randomTensor({2}, 2)}, attrs, 1,
                     BackendType::kCPU).status.isOk());
  Attributes badAxis;
  badAxis.setInt("axis", 2);
  r = runOp("ScatterElements", {data, tensorFromInts({1, 1}, {0}), randomTensor({1, 1}, 2)}, badAxis, 1,
            BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("axis 2"), std::string::npos) << r.status.message();
  Attributes badReduction;
  badReduction.setString("reduction", "sum");
  r = runOp("ScatterElements", {data, tensorFromInts({1, 1}, {0}), randomTensor({1, 1}, 2)}, badReduction, 1,
            BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("reduction 'sum'"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
