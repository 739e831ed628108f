// BatchNormalization (inference) against y = (x - mean) / sqrt(var + eps) * scale + B, on
// 4-D (NC4HW4 path), 2-D and 3-D inputs, with statistics as inputs and as constants.
#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

Tensor batchNormReference(const Tensor& x, const Tensor& s, const Tensor& b, const Tensor& m, const Tensor& v, float eps) {
  Tensor y = Tensor::hostAllocate(x.shape(), DataType::kF32);
  const int64_t C = x.dim(1), inner = x.elementCount() / (x.dim(0) * C);
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    const int64_t c = (i / inner) % C;
    y.data<float>()[i] = static_cast<float>((x.data<float>()[i] - m.data<float>()[c]) /
                                                std::sqrt(double(v.data<float>()[c]) + eps) * s.data<float>()[c] +
                                            b.data<float>()[c]);
  }
  return y;
}

TEST(BatchNormalizationOp, ShapesAndConstants) {
  uint32_t seed = 1;
  for (const Shape& shape : {Shape{3, 5, 7, 9}, Shape{1, 13, 4, 3}, Shape{1, 1, 5, 5}, Shape{4, 6}, Shape{2, 3, 11}}) {
    const int64_t C = shape[1];
    const Tensor x = randomTensor(shape, seed++, -3.f, 3.f);
    const Tensor s = randomTensor({C}, seed++), b = randomTensor({C}, seed++), m = randomTensor({C}, seed++);
    const Tensor v = randomTensor({C}, seed++, 0.1f, 2.f);
    Attributes a;
    a.setFloat("epsilon", 1e-3f);
    for (BackendType backend : availableBackends())
      for (bool constant : {false, true}) {
        OpRun r = runOp("BatchNormalization", {x, s, b, m, v}, a, 1, backend, {false, constant, constant, constant, constant}, 15);
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        expectClose(r.outputs[0], batchNormReference(x, s, b, m, v, 1e-3f), 1e-4, 1e-5, shapeToString(shape));
      }
  }
}

TEST(BatchNormalizationOp, RejectsWrongStatisticsShape) {
  const Tensor x = randomTensor({1, 3, 2, 2}, 1), c3 = randomTensor({3}, 2), c4 = randomTensor({4}, 3);
  OpRun r = runOp("BatchNormalization", {x, c3, c3, c4, c3}, {}, 1, BackendType::kCPU, {}, 15);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("input_mean"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
