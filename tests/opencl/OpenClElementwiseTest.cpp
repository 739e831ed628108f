// OpenCL unary, binary (with broadcasting on every axis), variadic, Clip, PRelu against the
// CPU reference.
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace {

using test::expectOpenClMatchesCpu;
using test::randomTensor;

TEST(OpenClUnary, EveryKindOnOddShapes) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7, 3}, 21, -3.f, 3.f);
  const Tensor pos = randomTensor({1, 13, 3, 5}, 22, 0.1f, 4.f);
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "HardSwish", "HardSigmoid", "LeakyRelu", "Elu", "Selu",
                         "Celu", "Softplus", "Softsign", "Abs", "Neg", "Exp", "Floor", "Ceil", "Round",
                         "Sign", "Erf", "Sin", "Cos", "Identity", "Atan", "Asinh", "Cosh", "Sinh", "Shrink"})
    expectOpenClMatchesCpu(op, {x}, {}, op);
  for (const char* op : {"Sqrt", "Log", "Reciprocal", "Tan"}) expectOpenClMatchesCpu(op, {pos}, {}, op);
  const Tensor unit = randomTensor({3, 5, 7, 3}, 23, -0.95f, 0.95f);
  for (const char* op : {"Acos", "Asin", "Atanh"}) expectOpenClMatchesCpu(op, {unit}, {}, op);
  expectOpenClMatchesCpu("Acosh", {randomTensor({1, 13, 3, 5}, 24, 1.0f, 4.f)}, {}, "Acosh");
}

TEST(OpenClBinary, BroadcastingOnEachAxis) {
  REQUIRE_OPENCL();
  const std::vector<std::pair<Shape, Shape>> pairs = {
      {{3, 5, 7, 9}, {3, 5, 7, 9}}, {{3, 5, 7, 9}, {1, 5, 1, 1}}, {{3, 5, 7, 9}, {9}},
      {{1, 13, 1, 9}, {3, 1, 7, 1}}, {{5}, {3, 5}},             {{2, 1, 3}, {4, 1}},
      {{1}, {3, 1, 2}}};
  for (const auto& p : pairs)
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
      const Tensor a = randomTensor(p.first, 23, 0.5f, 2.f), b = randomTensor(p.second, 24, 0.5f, 2.f);
      expectOpenClMatchesCpu(op, {a, b}, {}, std::string(op) + " " + shapeToString(p.first) + " & " +
                                               shapeToString(p.second));
    }
  expectOpenClMatchesCpu("Pow", {randomTensor({3, 5}, 25, 0.5f, 2.f), randomTensor({5}, 26, -2.f, 2.f)}, {}, "Pow");
}

TEST(OpenClBinary, VariadicAndConstantOperands) {
  REQUIRE_OPENCL();
  const Tensor a = randomTensor({3, 1, 5}, 27), b = randomTensor({4, 5}, 28), c = randomTensor({3, 4, 1}, 29);
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) expectOpenClMatchesCpu(op, {a, b, c}, {}, std::string(op) + " of 3");
  expectOpenClMatchesCpu("Sum", {a}, {}, "Sum of 1");
  expectOpenClMatchesCpu("Add", {a, b}, {}, "Add with a constant", {false, true});
  const Tensor k = test::tensorFrom({1}, {0.75f});
  for (const char* op : {"Sub", "Div", "Pow"}) {
    const Tensor pos = randomTensor({3, 5, 2}, 33, 0.5f, 2.f);
    expectOpenClMatchesCpu(op, {pos, k}, {}, std::string(op) + " by a constant scalar", {false, true});
    expectOpenClMatchesCpu(op, {k, pos}, {}, std::string(op) + " of a constant scalar", {true, false});
  }
}

TEST(OpenClClip, ConstantAndRunTimeBounds) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7}, 30, -3.f, 3.f);
  const Tensor lo = test::tensorFrom({}, {-1.f}), hi = test::tensorFrom({}, {0.5f});
  expectOpenClMatchesCpu("Clip", {x, lo, hi}, {}, "Clip constant bounds", {false, true, true});
  expectOpenClMatchesCpu("Clip", {x, lo, hi}, {}, "Clip run-time bounds", {false, false, false});
  expectOpenClMatchesCpu("Clip", {x, Tensor(Shape{}, DataType::kUnknown), hi}, {}, "Clip max only", {false, false, true});
}

TEST(OpenClPRelu, BroadcastSlope) {
  REQUIRE_OPENCL();
  expectOpenClMatchesCpu("PRelu", {randomTensor({3, 5, 4, 3}, 31), randomTensor({5, 1, 1}, 32)}, {}, "PRelu");
}

}  // namespace
}  // namespace tessera
