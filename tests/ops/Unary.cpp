// Unary ops: float ops against the scalar reference, integer Abs/Neg/Sign/Relu, f16 input.
#include "ops/Unary.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "support/OpTest.hpp"

namespace tessera {
namespace {

TEST(Unary, FloatOpsMatchTheReference) {
  const Tensor wide = test::randomTensor({3, 13, 17, 9}, 1, -3.f, 3.f);
  const Tensor unit = test::randomTensor({3, 13, 17, 9}, 2, -0.95f, 0.95f);  // acos, asin, atanh
  const Tensor aboveOne = test::randomTensor({3, 13, 17, 9}, 3, 1.0f, 4.f);  // acosh
  for (const char* op :
       {"Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Sign", "Floor", "HardSwish", "Softplus", "Erf", "Log",
        "Elu", "Selu", "Celu", "Atan", "Asinh", "Cosh", "Sinh", "Shrink", "Acos", "Asin", "Atanh", "Acosh"}) {
    const std::string name = op;
    const Tensor& x = name == "Acosh" ? aboveOne : (name == "Acos" || name == "Asin" || name == "Atanh") ? unit : wide;
    Node node;
    node.opType = op;
    UnaryParams p;
    ASSERT_TRUE(UnaryParams::parse(node, &p).isOk());
    Tensor expected = Tensor::hostAllocate(x.shape(), DataType::kF32);
    for (int64_t i = 0; i < x.elementCount(); ++i) {
      expected.data<float>()[i] =
          static_cast<float>(applyUnary(p, static_cast<double>(x.data<float>()[i])));
    }
    test::OpRun r = test::runOp(op, {x}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << op << ": " << r.status.message();
    test::expectClose(r.outputs[0], expected, 1e-5, 1e-6, op);
  }
}

TEST(Unary, IntegerAbsNegSignRelu) {
  Tensor x = Tensor::hostAllocate({6}, DataType::kI32);
  const int32_t v[] = {-7, -1, 0, 1, 9, INT32_MIN};
  for (int i = 0; i < 6; ++i) x.data<int32_t>()[i] = v[i];
  struct Case {
    const char* op;
    int32_t expected[6];
  };
  const Case cases[] = {
      {"Abs", {7, 1, 0, 1, 9, INT32_MIN}},  // wraps like numpy
      {"Neg", {7, 1, 0, -1, -9, INT32_MIN}},
      {"Sign", {-1, -1, 0, 1, 1, -1}},
      {"Relu", {0, 0, 0, 1, 9, 0}},
  };
  for (const Case& c : cases) {
    test::OpRun r = test::runOp(c.op, {x}, {}, 1, BackendType::kCPU);
    ASSERT_TRUE(r.status.isOk()) << c.op << ": " << r.status.message();
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(r.outputs[0].data<int32_t>()[i], c.expected[i]) << c.op << " " << i;
  }
  // Ops ONNX does not define on integers are refused.
  test::OpRun r = test::runOp("Exp", {x}, {}, 1, BackendType::kCPU);
  EXPECT_FALSE(r.status.isOk());
}

TEST(Unary, HalfComputesInFloat) {
  const Tensor x = test::randomTensor({2, 5, 3}, 3);
  Tensor h = Tensor::hostAllocate(x.shape(), DataType::kF16);
  ASSERT_TRUE(convertDataType(x, h));
  test::OpRun r = test::runOp("Sigmoid", {h}, {}, 1, BackendType::kCPU);
  ASSERT_TRUE(r.status.isOk()) << r.status.message();
  ASSERT_EQ(r.outputs[0].dtype(), DataType::kF16);
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    const float in = halfToFloat(h.data<uint16_t>()[i]);
    EXPECT_NEAR(halfToFloat(r.outputs[0].data<uint16_t>()[i]), 1.f / (1.f + std::exp(-in)), 1e-3);
  }
}

}  // namespace
}  // namespace tessera
