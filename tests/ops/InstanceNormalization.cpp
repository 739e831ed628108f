// InstanceNormalization against a per-(n, c) mean/variance reference, 4-D (NC4HW4 path)
// and 3-D inputs with channels not a multiple of 4.
#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor instanceNormReference(const Tensor& x, const Tensor& s, const Tensor& b, float eps) {
  Tensor y = Tensor::hostAllocate(x.shape(), DataType::kF32);
  const int64_t C = x.dim(1), planes = x.dim(0) * C, inner = x.elementCount() / planes;
  for (int64_t p = 0; p < planes; ++p) {
    const float* src = x.data<float>() + p * inner;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < inner; ++i) mean += src[i];
    mean /= inner;
    for (int64_t i = 0; i < inner; ++i) var += (src[i] - mean) * (src[i] - mean);
    var /= inner;
    for (int64_t i = 0; i < inner; ++i)
      y.data<float>()[p * inner + i] =
          static_cast<float>((src[i] - mean) / std::sqrt(var + eps) * s.data<float>()[p % C] + b.data<float>()[p % C]);
  }
  return y;
}

TEST(InstanceNormalizationOp, Shapes) {
  uint32_t seed = 1;
  for (const Shape& shape : {Shape{3, 5, 7, 9}, Shape{1, 13, 4, 3}, Shape{2, 1, 1, 6}, Shape{2, 3, 11}}) {
    const Tensor x = randomTensor(shape, seed++, -2.f, 5.f);
    const Tensor s = randomTensor({shape[1]}, seed++), b = randomTensor({shape[1]}, seed++);
    Attributes a;
    a.setFloat("epsilon", 1e-2f);
    for (BackendType backend : availableBackends()) {
      OpRun r = runOp("InstanceNormalization", {x, s, b}, a, 1, backend, {}, 6);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      expectClose(r.outputs[0], instanceNormReference(x, s, b, 1e-2f), 1e-4, 1e-5, shapeToString(shape));
    }
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
