// GatherND with batch_dims 0, 1 and 2, every tuple length the rank allows, tuples in batches
// of rank 1 and 2, negative indices, int64 and int32 indices, f32, int64 and u8 data, against
// a naive reference; bad indices and shapes fail naming the node.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor indexTensor(const Shape& shape, const std::vector<int64_t>& v, DataType dt) {
  if (dt == DataType::kI64) return filledTensor<int64_t>(shape, [&](int64_t i) { return v[i]; });
  return filledTensor<int32_t>(shape, [&](int64_t i) { return v[i]; });
}

TEST(GatherNDOp, EveryBatchDimsAndTupleLengthAgainstNaive) {
  const Shape dataShape = {3, 2, 5, 3};
  for (DataType dt : {DataType::kF32, DataType::kI64, DataType::kU8}) {
    const Tensor data = iotaTensor(dataShape, dt);
    for (int64_t b = 0; b <= 2; ++b) {
      for (int64_t k = 1; k <= 4 - b; ++k) {
        for (const Shape& middle : {Shape{4}, Shape{2, 3}}) {
          Shape idxShape(dataShape.begin(), dataShape.begin() + b);  // batch extents equal data's
          idxShape.insert(idxShape.end(), middle.begin(), middle.end());
          idxShape.push_back(k);
          std::vector<int64_t> idx(static_cast<size_t>(elementCount(idxShape)));
          for (size_t i = 0; i < idx.size(); ++i) {
            const int64_t extent = dataShape[b + static_cast<int64_t>(i) % k];
            idx[i] = static_cast<int64_t>(i * 7 + i / k) % (2 * extent) - extent;
          }
          Shape outShape(idxShape.begin(), idxShape.end() - 1);
          outShape.insert(outShape.end(), dataShape.begin() + b + k, dataShape.end());
          const Shape tupleShape(idxShape.begin(), idxShape.end() - 1);
          const Tensor expected = movedReference(data, outShape, [&](const std::vector<int64_t>& pos) {
            const std::vector<int64_t> tuple(pos.begin(), pos.begin() + tupleShape.size());
            const int64_t t = ravelIndex(tuple, tupleShape);
            std::vector<int64_t> src(pos.begin(), pos.begin() + b);  // batch coordinates
            for (int64_t j = 0; j < k; ++j) {
              const int64_t i = idx[t * k + j];
              src.push_back(i < 0 ? i + dataShape[b + j] : i);
            }
            src.insert(src.end(), pos.begin() + tupleShape.size(), pos.end());
            return ravelIndex(src, dataShape);
          });
          for (DataType it : {DataType::kI64, DataType::kI32}) {
            Attributes attrs;
            attrs.setInt("batch_dims", b);
            OpRun r = runOp("GatherND", {data, indexTensor(idxShape, idx, it)}, attrs, 1, BackendType::kCPU);
            const std::string what = std::string(dataTypeName(dt)) + " batch_dims " + std::to_string(b) +
                                     " indices " + shapeToString(idxShape) + " " + dataTypeName(it);
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

TEST(GatherNDOp, BadInputsFailNamingTheNode) {
  const Tensor data = randomTensor({2, 3}, 1);
  OpRun r = runOp("GatherND", {data, tensorFromInts({2, 2}, {0, 1, 1, 3})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("GatherND"), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("'indices' holds 3"), std::string::npos) << r.status.message();
  r = runOp("GatherND", {data, tensorFromInts({1, 1}, {-3})}, {}, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("-3"), std::string::npos) << r.status.message();
  // tuples longer than the rank; batch extents that differ; batch_dims too large.
  EXPECT_FALSE(runOp("GatherND", {data, tensorFromInts({1, 3}, {0, 0, 0})}, {}, 1, BackendType::kCPU).status.isOk());
  Attributes b1;
  b1.setInt("batch_dims", 1);
  r = runOp("GatherND", {data, tensorFromInts({3, 1}, {0, 0, 0})}, b1, 1, BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("batch dimension 0"), std::string::npos) << r.status.message();
  Attributes b2;
  b2.setInt("batch_dims", 2);
  EXPECT_FALSE(runOp("GatherND", {data, tensorFromInts({2, 1}, {0, 0})}, b2, 1, BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
