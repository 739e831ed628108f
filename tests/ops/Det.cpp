// Det against a permutation-expansion (Leibniz) determinant in double: 1x1 up to 6x6,
// batched with several batch dims, singular matrices, row-permuted ones (negative sign),
// f32 and f64. A non-square input fails naming the node.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

double valueAt(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kF64 ? t.data<double>()[i] : t.data<float>()[i];
}

// sum over permutations p of sign(p) * prod_i a[i, p(i)].
double leibniz(const Tensor& x, int64_t offset, int64_t M) {
  std::vector<int64_t> p(M);
  std::iota(p.begin(), p.end(), 0);
  double det = 0;
  do {
    int64_t inversions = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = i + 1; j < M; ++j) inversions += p[i] > p[j];
    double prod = inversions % 2 ? -1.0 : 1.0;
    for (int64_t i = 0; i < M; ++i) prod *= valueAt(x, offset + i * M + p[i]);
    det += prod;
  } while (std::next_permutation(p.begin(), p.end()));
  return det;
}

Tensor detReference(const Tensor& x) {
  const int64_t M = x.dim(-1);
  Shape out = x.shape();
  out.resize(out.size() - 2);
  Tensor y = Tensor::hostAllocate(out, x.dtype());
  for (int64_t b = 0; b < y.elementCount(); ++b) {
    const double d = leibniz(x, b * M * M, M);
    if (x.dtype() == DataType::kF64) y.data<double>()[b] = d;
    else y.data<float>()[b] = static_cast<float>(d);
  }
  return y;
}

Tensor withDtype(const Tensor& f, DataType dt) {
  if (dt == DataType::kF32) return f;
  Tensor t = Tensor::hostAllocate(f.shape(), dt);
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<double>()[i] = f.data<float>()[i];
  return t;
}

TEST(DetOp, BatchesAgainstLeibniz) {
  uint32_t seed = 1;
  for (const Shape& s : {Shape{1, 1}, Shape{2, 2}, Shape{3, 3}, Shape{5, 5}, Shape{6, 6}, Shape{3, 4, 4},
                         Shape{2, 3, 5, 5}, Shape{7, 1, 1}, Shape{0, 3, 3}}) {
    for (DataType dt : {DataType::kF32, DataType::kF64}) {
      const Tensor x = withDtype(randomTensor(s, seed++, -2.f, 2.f), dt);
      OpRun r = runOp("Det", {x}, {}, 1, BackendType::kCPU);
      ASSERT_TRUE(r.status.isOk()) << shapeToString(s) << ": " << r.status.message();
      EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU);
      expectClose(r.outputs[0], detReference(x), dt == DataType::kF64 ? 1e-10 : 1e-4, 1e-5,
                  shapeToString(s) + " " + dataTypeName(dt));
    }
  }
}

TEST(DetOp, SingularAndPermuted) {
  // Batch: a singular matrix (row 2 = row 0 + row 1), the identity with rows 0 and 2
  // swapped (-1), a cyclic row shift (+1), and one needing a pivot (zero top-left).
  const Tensor x = tensorFrom({4, 3, 3}, {1, 2, 3, 4, 5, 6, 5, 7, 9,
                                         0, 0, 1, 0, 1, 0, 1, 0, 0,
                                         0, 1, 0, 0, 0, 1, 1, 0, 0,
                                         0, 2, 1, 3, 1, 0, 1, 1, 1});
  OpRun r = runOp("Det", {x}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  expectClose(r.outputs[0], detReference(x), 1e-5, 1e-5, "singular and permuted");
  EXPECT_FLOAT_EQ(r.outputs[0].data<float>()[1], -1.f);
  EXPECT_FLOAT_EQ(r.outputs[0].data<float>()[2], 1.f);
  EXPECT_NEAR(r.outputs[0].data<float>()[0], 0.f, 1e-5);
  // An all-zero matrix.
  r = runOp("Det", {tensorFrom({2, 2}, {0, 0, 0, 0})}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  EXPECT_EQ(r.outputs[0].data<float>()[0], 0.f);
}

TEST(DetOp, NonSquareFailsNamingTheNode) {
  for (const Shape& s : {Shape{2, 3}, Shape{4, 3, 2}, Shape{5}}) {
    OpRun r = runOp("Det", {randomTensor(s, 1)}, {}, 1, BackendType::kCPU);
    ASSERT_FALSE(r.status.isOk()) << shapeToString(s);
    EXPECT_NE(r.status.message().find("Det"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("square"), std::string::npos) << r.status.message();
  }
  EXPECT_FALSE(runOp("Det", {tensorFromInts({2, 2}, {1, 2, 3, 4})}, {}, 1, BackendType::kCPU).status.isOk());
}

}  // namespace
}  // namespace test
}  // namespace tessera
