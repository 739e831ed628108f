// ScatterND: index tuples of every length k from 1 to the rank of data, batches of tuples of
// rank 1 and 2, duplicates and negative indices, int64 and int32 indices, every reduction on
// f32 and int64 data, against a naive reference; bad indices and shapes fail naming the node.
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

Tensor someUpdates(const Shape& shape, DataType dt) {
  if (dt == DataType::kF32)
    return filledTensor<float>(shape, [](int64_t i) { return 0.5f * static_cast<float>(i % 7) - 1.3f; });
  return filledTensor<int64_t>(shape, [](int64_t i) { return i % 5 - 2; });
}

template <typename T>
void combine(const std::string& reduction, T& dst, T v) {
  if (reduction == "none") dst = v;
  else if (reduction == "add") dst = dst + v;
  else if (reduction == "mul") dst = dst * v;
  else if (reduction == "max") dst = std::max(dst, v);
  else dst = std::min(dst, v);
}

// Tuples applied one by one in order, each over its whole slice.
template <typename T>
Tensor scatterNDReference(const Tensor& data, const std::vector<int64_t>& indices, int64_t k, const Tensor& updates,
                          const std::string& reduction) {
  Tensor out = Tensor::hostAllocate(data.shape(), data.dtype());
  std::copy(data.data<T>(), data.data<T>() + data.elementCount(), out.data<T>());
  const Shape sliceShape(data.shape().begin() + k, data.shape().end());
  const int64_t slice = elementCount(sliceShape);
  const int64_t tuples = static_cast<int64_t>(indices.size()) / k;
  for (int64_t t = 0; t < tuples; ++t) {
    for (int64_t e = 0; e < slice; ++e) {
      std::vector<int64_t> pos;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t i = indices[t * k + j];
        pos.push_back(i < 0 ? i + data.dim(static_cast<int>(j)) : i);
      }
      for (int64_t c : unravelIndex(e, sliceShape)) pos.push_back(c);
      combine(reduction, out.data<T>()[ravelIndex(pos, data.shape())], updates.data<T>()[t * slice + e]);
    }
  }
  return out;
}

TEST(ScatterNDOp, EveryTupleLengthEveryReductionAgainstNaive) {
  const Shape dataShape = {4, 5, 3};
  for (DataType dt : {DataType::kF32, DataType::kI64}) {
    const Tensor data = iotaTensor(dataShape, dt);
    for (int64_t k = 1; k <= 3; ++k) {
      for (const Shape& batch : {Shape{6}, Shape{2, 3}}) {
        Shape idxShape = batch;
        idxShape.push_back(k);
        // Spread values in [-extent, extent) per dimension: with 6 tuples, duplicates appear.
        std::vector<int64_t> idx(static_cast<size_t>(elementCount(idxShape)));
        for (size_t i = 0; i < idx.size(); ++i) {
          const int64_t extent = dataShape[i % k];
          idx[i] = static_cast<int64_t>(i * 3 + i / k) % (2 * extent) - extent;
        }
        Shape updShape = batch;
        updShape.insert(updShape.end(), dataShape.begin() + k, dataShape.end());
        const Tensor updates = someUpdates(updShape, dt);
        for (const char* reduction : kReductions) {
          const Tensor expected = dt == DataType::kF32 ? scatterNDReference<float>(data, idx, k, updates, reduction)
                                                       : scatterNDReference<int64_t>(data, idx, k, updates, reduction);
          for (DataType it : {DataType::kI64, DataType::kI32}) {
            Attributes attrs;
            attrs.setString("reduction", reduction);
            OpRun r = runOp("ScatterND", {data, indexTensor(idxShape, idx, it), updates}, attrs, 1, BackendType::kCPU,
                            {}, 18);
            const std::string what = std::string(dataTypeName(dt)) + " k " + std::to_string(k) + " indices " +
                                     shapeToString(idxShape) + " " + reduction + " " + dataTypeName(it);
            ASSERT_TRUE(r.status.isOk()) << what << ": " << r.status.message();
            ASSERT_EQ(r.report.nodes.size(), 1u);
            EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
            expectSameBytes(r.outputs[0], expected, what);
          }
        }
      }
    }
  }
}

TEST(ScatterNDOp, DuplicatesAddUp) {
  const Tensor data = tensorFrom({5}, {1, 2, 3, 4, 5});
  Attributes attrs;
  attrs.setString("reduction", "add");
  OpRun r = runOp("ScatterND", {data, tensorFromInts({3, 1}, {1, -4, 4}), tensorFrom({3}, {10, 20, 30})}, attrs, 1,
                  BackendType::kCPU, {}, 16);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], tensorFrom({5}, {1, 32, 3, 4, 35}), "add");
}

TEST(ScatterNDOp, BadInputsFailNamingTheNode) {
  const Tensor data = randomTensor({4, 3}, 1);
  OpRun r = runOp("ScatterND", {data, tensorFromInts({2, 2}, {0, 1, 3, 3}), randomTensor({2}, 2)}, {}, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("ScatterND"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("'indices' holds 3"), std::string::npos) << r.status.message();
  r = runOp("ScatterND", {data, tensorFromInts({1, 1}, {-5}), randomTensor({1, 3}, 2)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("-5"), std::string::npos) << r.status.message();
  // updates of the wrong shape; tuples longer than data's rank.
  r = runOp("ScatterND", {data, tensorFromInts({2, 1}, {0, 1}), randomTensor({2, 2}, 2)}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("updates"), std::string::npos) << r.status.message();
  EXPECT_FALSE(runOp("ScatterND", {data, tensorFromInts({1, 3}, {0, 0, 0}), randomTensor({1}, 2)}, {}, 1,
                     BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
