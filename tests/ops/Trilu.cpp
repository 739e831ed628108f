// Trilu: upper and lower, k from far below to far above the diagonal (and omitted), batches
// of non-square matrices, float and int64 data, against a naive reference.
#include <gtest/gtest.h>

#include "NaiveIndex.hpp"
#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor triluReference(const Tensor& x, bool upper, int64_t k) {
  Tensor out = Tensor::hostAllocate(x.shape(), x.dtype());
  const size_t eb = dataTypeSize(x.dtype());
  const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  for (int64_t e = 0; e < x.elementCount(); ++e) {
    const int64_t j = e % cols, i = (e / cols) % rows;
    const bool keep = upper ? j - i >= k : j - i <= k;
    if (keep) std::memcpy(out.data<char>() + e * eb, x.data<char>() + e * eb, eb);
    else std::memset(out.data<char>() + e * eb, 0, eb);
  }
  return out;
}

TEST(TriluOp, UpperLowerEveryKAgainstNaive) {
  for (const Shape& shape : {Shape{4, 5}, Shape{3, 1, 5}, Shape{2, 3, 7, 3}, Shape{5, 5}, Shape{0, 3}}) {
    for (DataType dt : {DataType::kF32, DataType::kI64}) {
      const Tensor x = iotaTensor(shape, dt);
      for (int upper = 0; upper < 2; ++upper) {
        Attributes attrs;
        attrs.setInt("upper", upper);
        for (int64_t k = -8; k <= 8; k += 3) {
          OpRun r = runOp("Trilu", {x, tensorFromInts({}, {k})}, attrs, 1, BackendType::kCPU);
          ASSERT_TRUE(r.status.isOk()) << r.status.message();
          EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
          expectSameBytes(r.outputs[0], triluReference(x, upper, k),
                          shapeToString(shape) + (upper ? " upper" : " lower") + " k " + std::to_string(k));
        }
        OpRun r = runOp("Trilu", {x}, attrs, 1, BackendType::kCPU);  // k omitted: 0
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectSameBytes(r.outputs[0], triluReference(x, upper, 0), shapeToString(shape) + " no k");
      }
    }
  }
}

TEST(TriluOp, BadInputsFail) {
  EXPECT_FALSE(runOp("Trilu", {randomTensor({5}, 1)}, {}, 1, BackendType::kCPU).status.isOk());
  EXPECT_FALSE(runOp("Trilu", {randomTensor({3, 5}, 1), tensorFromInts({2}, {0, 1})}, {}, 1, BackendType::kCPU)
                   .status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
