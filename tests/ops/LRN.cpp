// LRN against the ONNX formula, with even and odd window sizes and channels that are not a
// multiple of 4 (the NC4HW4 path), plus a 3-D input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor lrnReference(const Tensor& x, int64_t size, float alpha, float beta, float bias) {
  Tensor y = Tensor::hostAllocate(x.shape(), DataType::kF32);
  const int64_t N = x.dim(0), C = x.dim(1), S = x.elementCount() / (N * C);
  const int64_t before = (size - 1) / 2, after = size - 1 - before;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t s = 0; s < S; ++s) {
        double sum = 0;
        for (int64_t j = std::max<int64_t>(0, c - before); j <= std::min(C - 1, c + after); ++j) {
          const double v = x.data<float>()[(n * C + j) * S + s];
          sum += v * v;
        }
        const int64_t i = (n * C + c) * S + s;
        y.data<float>()[i] = static_cast<float>(x.data<float>()[i] / std::pow(bias + alpha / size * sum, beta));
      }
  return y;
}

TEST(LRNOp, Sizes) {
  uint32_t seed = 1;
  for (const Shape& shape : {Shape{2, 13, 5, 3}, Shape{1, 5, 4, 4}, Shape{3, 3, 7}})
    for (int64_t size : {1, 2, 3, 5}) {
      const Tensor x = randomTensor(shape, seed++, -3.f, 3.f);
      Attributes a;
      a.setInt("size", size);
      a.setFloat("alpha", 0.01f);
      a.setFloat("beta", 0.6f);
      a.setFloat("bias", 1.5f);
      for (BackendType backend : availableBackends()) {
        OpRun r = runOp("LRN", {x}, a, 1, backend, {}, 13);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], lrnReference(x, size, 0.01f, 0.6f, 1.5f), 1e-4, 1e-6,
                    shapeToString(shape) + " size " + std::to_string(size));
      }
    }
}

}  // namespace
}  // namespace test
}  // namespace tessera
