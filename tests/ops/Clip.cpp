// Clip with bounds as inputs (opset 11+, any numeric type, each optional) and as
// attributes (before opset 11).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

using test::runOp;

Tensor clipReference(const Tensor& x, float lo, float hi) {
  Tensor y = Tensor::hostAllocate(x.shape(), DataType::kF32);
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    y.data<float>()[i] = std::min(std::max(x.data<float>()[i], lo), hi);
  }
  return y;
}

TEST(Clip, BoundsFromInputs) {
  const Tensor x = test::randomTensor({3, 13, 7, 9}, 1, -3.f, 3.f);
  const Tensor lo = test::tensorFrom({}, {-1.f}), hi = test::tensorFrom({}, {0.5f});
  test::OpRun r = runOp("Clip", {x, lo, hi}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], clipReference(x, -1.f, 0.5f));
  // Only max given: min omitted.
  r = runOp("Clip", {x, Tensor(Shape{}, DataType::kUnknown), hi}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], clipReference(x, -1e30f, 0.5f));
  // Constant bounds (initializers) and no bounds at all.
  r = runOp("Clip", {x, lo}, {}, 1, BackendType::kCPU, {false, true});
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], clipReference(x, -1.f, 1e30f));
  r = runOp("Clip", {x}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], x);
}

TEST(Clip, AttributesBeforeOpset11) {
  const Tensor x = test::randomTensor({1, 5, 3}, 2, -3.f, 3.f);
  Attributes a;
  a.setFloat("min", -0.25f);
  a.setFloat("max", 2.f);
  test::OpRun r = runOp("Clip", {x}, a, 1, BackendType::kCPU, {}, 6);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  test::expectClose(r.outputs[0], clipReference(x, -0.25f, 2.f));
}

TEST(Clip, Integers) {
  Tensor x = Tensor::hostAllocate({5}, DataType::kI8);
  const int8_t values[] = {-128, -5, 0, 5, 127};
  for (int i = 0; i < 5; ++i) x.data<int8_t>()[i] = values[i];
  Tensor lo = Tensor::hostAllocate({}, DataType::kI8);
  *lo.data<int8_t>() = -3;
  test::OpRun r = runOp("Clip", {x, lo}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  const int8_t expected[] = {-3, -3, 0, 5, 127};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.outputs[0].data<int8_t>()[i], expected[i]) << i;
}

// Float attribute bounds on integers (a model before opset 11 with int8 data, as the fuzzer
// wrote one): saturated to the type's range, the defaults (+-FLT_MAX) no bound at all (their
// casts to int8 had been undefined behaviour); a NaN bound is none.
TEST(Clip, FloatAttributesOnIntegersSaturate) {
  Tensor x = Tensor::hostAllocate({6}, DataType::kI8);
  const int8_t values[] = {-128, -100, -5, 0, 60, 127};
  for (int i = 0; i < 6; ++i) x.data<int8_t>()[i] = values[i];
  struct Case {
    bool setMin, setMax;
    float min, max;
    int8_t expected[6];
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const Case& c : {Case{false, false, 0.f, 0.f, {-128, -100, -5, 0, 60, 127}},
                        Case{true, true, -1000.5f, 50.f, {-128, -100, -5, 0, 50, 50}},
                        Case{true, true, -7.f, 3e38f, {-7, -7, -5, 0, 60, 127}},
                        Case{true, true, nan, 10.f, {-128, -100, -5, 0, 10, 10}}}) {
    Attributes a;
    if (c.setMin) a.setFloat("min", c.min);
    if (c.setMax) a.setFloat("max", c.max);
    test::OpRun r = runOp("Clip", {x}, a, 1, BackendType::kCPU, {}, 6);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(r.outputs[0].data<int8_t>()[i], c.expected[i]) << "min " << c.min << " max " << c.max << ", " << i;
  }
}

TEST(Clip, RejectsNonScalarBounds) {
  test::OpRun r = runOp("Clip", {test::randomTensor({4}, 1), test::randomTensor({2}, 2)}, {}, 1,
                        BackendType::kCPU);
  ASSERT_FALSE(r.status.isOk());
  EXPECT_NE(r.status.message().find("scalar"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace tessera
