// PRelu with slopes broadcast per channel, per element and as a scalar.
#include <gtest/gtest.h>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

// Slope of shape {C,1,1} (per channel), or the full shape, or {} (scalar).
void checkPRelu(const Shape& xs, const Shape& ss, bool constantSlope) {
  const Tensor x = test::randomTensor(xs, 1);
  const Tensor s = test::randomTensor(ss, 2, 0.f, 0.5f);
  test::OpRun r = test::runOp("PRelu", {x, s}, {}, 1, BackendType::kCPU, {false, constantSlope});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  Tensor expected = Tensor::hostAllocate(xs, DataType::kF32);
  const int64_t n = x.elementCount();
  const int64_t channels = xs.size() > 1 ? xs[1] : 1;
  const int64_t inner = xs.size() > 2 ? elementCount(Shape(xs.begin() + 2, xs.end())) : 1;
  for (int64_t i = 0; i < n; ++i) {
    float slope;
    if (ss.empty())
      slope = s.data<float>()[0];
    else if (ss == xs)
      slope = s.data<float>()[i];
    else
      slope = s.data<float>()[(i / inner) % channels];
    const float v = x.data<float>()[i];
    expected.data<float>()[i] = v < 0 ? slope * v : v;
  }
  test::expectClose(r.outputs[0], expected, 1e-6, 1e-7,
                    shapeToString(xs) + " " + shapeToString(ss));
}

TEST(PRelu, BroadcastsTheSlope) {
  for (int64_t c : {1, 3, 5, 13}) {
    for (int64_t n : {1, 3}) {
      checkPRelu({n, c, 7, 9}, {c, 1, 1}, true);
      checkPRelu({n, c, 5, 3}, {n, c, 5, 3}, false);
      checkPRelu({n, c, 5}, {}, false);
    }
  }
}

TEST(PRelu, RejectsSlopeThatWouldGrowTheOutput) {
  test::OpRun r =
      test::runOp("PRelu", {test::randomTensor({3, 1}, 1), test::randomTensor({3, 4}, 2)}, {}, 1,
                  BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
}

}  // namespace
}  // namespace tessera
