// Gather on every axis, with negative, 2D and int32 indices, against a naive reference.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

void checkGather(const Tensor& data, const Tensor& indices, int64_t axis, BackendType b) {
  const int64_t rank = data.rank();
  const int64_t a = axis < 0 ? axis + rank : axis;
  Shape out(data.shape().begin(), data.shape().begin() + a);
  out.insert(out.end(), indices.shape().begin(), indices.shape().end());
  out.insert(out.end(), data.shape().begin() + a + 1, data.shape().end());
  const int64_t ir = indices.rank();
  const Tensor expected = movedReference(data, out, [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> src(idx.begin(), idx.begin() + a);
    const std::vector<int64_t> k(idx.begin() + a, idx.begin() + a + ir);
    const int64_t flat = ravelIndex(k, indices.shape());
    int64_t i = indices.dtype() == DataType::kI64 ? indices.data<int64_t>()[flat]
                                                  : indices.data<int32_t>()[flat];
    if (i < 0) i += data.shape()[a];
    src.push_back(i);
    src.insert(src.end(), idx.begin() + a + ir, idx.end());
    return ravelIndex(src, data.shape());
  });
  Attributes attrs;
  attrs.setInt("axis", axis);
  OpRun r = runOp("Gather", {data, indices}, attrs, 1, b);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectSameBytes(r.outputs[0], expected, std::string(backendTypeName(b)) + " axis " +
                                              std::to_string(axis));
}

TEST(GatherOp, EveryAxisAndIndexKind) {
  for (BackendType b : availableBackends()) {
    for (DataType dt : {DataType::kF32, DataType::kI64, DataType::kU8}) {
      const Tensor data = iotaTensor({3, 5, 1, 13}, dt);
      for (int64_t axis = -4; axis < 4; ++axis) {
        const int64_t extent = data.shape()[axis < 0 ? axis + 4 : axis];
        checkGather(data, tensorFromInts({4}, {0, extent - 1, -1, 0}), axis, b);
        checkGather(data, tensorFromInts({2, 3}, {0, -extent, extent - 1, 0, 0, -1}), axis, b);
        checkGather(data, tensorFromInts({}, {-1}), axis, b);  // scalar index drops the axis
        Tensor i32 = Tensor::hostAllocate({3}, DataType::kI32);
        i32.data<int32_t>()[0] = static_cast<int32_t>(extent - 1);
        i32.data<int32_t>()[1] = -1;
        i32.data<int32_t>()[2] = 0;
        checkGather(data, i32, axis, b);
      }
    }
  }
}

TEST(GatherOp, OutOfRangeIndexFails) {
  OpRun r = runOp("Gather", {randomTensor({3, 4}, 1), tensorFromInts({2}, {0, 3})}, {}, 1,
                  BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
  r = runOp("Gather", {randomTensor({3, 4}, 1), tensorFromInts({1}, {-4})}, {}, 1,
            BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
