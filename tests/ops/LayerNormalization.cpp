// LayerNormalization against a naive reference for every axis of a 4-D input, with Scale
// and B of the normalised shape and broadcast ones, and the Mean / InvStdDev outputs.
#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace test {
namespace {

// Scale/B of shape `ps` are right-aligned to the normalised shape and broadcast.
float broadcastAt(const Tensor& t, int64_t i, const Shape& normalized) {
  int64_t at = 0, stride = 1;
  for (int d = t.rank() - 1, nd = static_cast<int>(normalized.size()) - 1; d >= 0; --d, --nd) {
    const int64_t idx = (i % normalized[nd]);
    i /= normalized[nd];
    if (t.dim(d) != 1) at += idx * stride;
    stride *= t.dim(d);
  }
  return t.data<float>()[at];
}

TEST(LayerNormalizationOp, AllAxes) {
  const Shape shape = {3, 5, 4, 7};
  const Tensor x = randomTensor(shape, 1, -2.f, 3.f);
  for (int64_t axis = -4; axis < 4; ++axis) {
    const int64_t a = axis < 0 ? axis + 4 : axis;
    const Shape normalized(shape.begin() + a, shape.end());
    int64_t inner = 1;
    for (int64_t d : normalized) inner *= d;
    const int64_t outer = x.elementCount() / inner;
    // Full-shape scale, and a bias broadcast along all but the last dimension.
    const Tensor scale = randomTensor(normalized, 10 + a), bias = randomTensor({shape.back()}, 20 + a);
    Tensor y = Tensor::hostAllocate(shape, DataType::kF32);
    Shape statShape = shape;
    for (size_t d = a; d < 4; ++d) statShape[d] = 1;
    Tensor mean = Tensor::hostAllocate(statShape, DataType::kF32), inv = Tensor::hostAllocate(statShape, DataType::kF32);
    for (int64_t o = 0; o < outer; ++o) {
      const float* src = x.data<float>() + o * inner;
      double m = 0, v = 0;
      for (int64_t i = 0; i < inner; ++i) m += src[i];
      m /= inner;
      for (int64_t i = 0; i < inner; ++i) v += (src[i] - m) * (src[i] - m);
      const double k = 1.0 / std::sqrt(v / inner + 1e-5);
      for (int64_t i = 0; i < inner; ++i)
        y.data<float>()[o * inner + i] = static_cast<float>((src[i] - m) * k * broadcastAt(scale, i, normalized) +
                                                            broadcastAt(bias, i, normalized));
      mean.data<float>()[o] = static_cast<float>(m);
      inv.data<float>()[o] = static_cast<float>(k);
    }
    Attributes attrs;
    attrs.setInt("axis", axis);
    for (bool constant : {false, true}) {
      OpRun r = runOp("LayerNormalization", {x, scale, bias}, attrs, 3, BackendType::kCPU, {false, constant, constant}, 17);
      ASSERT_TRUE(r.status.isOk()) << r.status.message();
      const std::string what = "axis " + std::to_string(axis);
      expectClose(r.outputs[0], y, 1e-4, 1e-5, what);
      expectClose(r.outputs[1], mean, 1e-5, 1e-6, what + " Mean");
      expectClose(r.outputs[2], inv, 1e-4, 1e-5, what + " InvStdDev");
    }
  }
}

TEST(LayerNormalizationOp, RejectsScaleThatDoesNotBroadcast) {
  OpRun r = runOp("LayerNormalization", {randomTensor({2, 3, 4}, 1), randomTensor({3}, 2)}, {}, 1, BackendType::kCPU, {}, 17);
  EXPECT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("Scale"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace test
}  // namespace tessera
