// Vulkan unary, binary (broadcasting on every axis), Clip, PRelu and variadic ops against
// the CPU, on shapes that break packed layouts (channels 1, 3, 5, 13; odd H/W; batch 3).
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

const std::vector<Shape> kShapes = {{1, 1, 1, 1}, {3, 5, 7, 9}, {1, 13, 5, 3}, {2, 3, 1, 17}, {7}};

TEST(VulkanUnary, EveryFloatOp) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : kShapes) {
    const Tensor x = randomTensor(s, 11, -3.f, 3.f);
    const Tensor pos = randomTensor(s, 12, 0.1f, 4.f);
    for (const char* op : {"Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Sign", "Floor", "Ceil", "Round",
                           "HardSwish", "HardSigmoid", "Softplus", "Softsign", "Erf", "Sin", "Cos", "Elu",
                           "Selu", "Celu", "LeakyRelu", "ThresholdedRelu", "Identity", "Atan", "Asinh", "Cosh",
                           "Sinh", "Shrink"})
      expectVulkanMatchesCpu(op, {x}, {});
    for (const char* op : {"Sqrt", "Log", "Reciprocal"}) expectVulkanMatchesCpu(op, {pos}, {});
    const Tensor unit = randomTensor(s, 13, -0.95f, 0.95f);
    for (const char* op : {"Acos", "Asin", "Atanh"}) expectVulkanMatchesCpu(op, {unit}, {});
    expectVulkanMatchesCpu("Acosh", {randomTensor(s, 14, 1.0f, 4.f)}, {});
  }
}

TEST(VulkanBinary, BroadcastOnEachAxis) {
  TESSERA_REQUIRE_VULKAN();
  const Shape full = {3, 5, 7, 9};
  const std::vector<Shape> others = {{3, 5, 7, 9}, {1, 5, 1, 1}, {3, 1, 7, 1}, {9}, {1}, {7, 1}, {3, 1, 1, 9}};
  for (const Shape& o : others) {
    const Tensor a = randomTensor(full, 1, -2.f, 2.f);
    const Tensor b = randomTensor(o, 2, 0.5f, 2.f);
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"}) {
      expectVulkanMatchesCpu(op, {a, b}, {});
      expectVulkanMatchesCpu(op, {b, a}, {});
    }
  }
  // Both sides broadcast.
  expectVulkanMatchesCpu("Add", {randomTensor({3, 1, 5}, 3), randomTensor({1, 13, 1}, 4)}, {});
}

TEST(VulkanBinary, VariadicAndPRelu) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor a = randomTensor({3, 13, 5}, 5), b = randomTensor({13, 1}, 6), c = randomTensor({5}, 7);
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    expectVulkanMatchesCpu(op, {a, b, c}, {});
    expectVulkanMatchesCpu(op, {a}, {});
  }
  expectVulkanMatchesCpu("PRelu", {randomTensor({3, 5, 7, 9}, 8), randomTensor({5, 1, 1}, 9)}, {});
}

TEST(VulkanUnary, ClipWithConstantAndRuntimeBounds) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({3, 5, 7}, 10, -3.f, 3.f);
  const Tensor lo = tensorFrom({}, {-0.5f}), hi = tensorFrom({}, {1.25f});
  expectVulkanMatchesCpu("Clip", {x, lo, hi}, {}, 1, {false, true, true});
  Attributes a;
  a.setFloat("min", -1.f);
  a.setFloat("max", 0.5f);
  expectVulkanMatchesCpu("Clip", {x}, a, 1, {}, 6);
}

}  // namespace
}  // namespace test
}  // namespace tessera
