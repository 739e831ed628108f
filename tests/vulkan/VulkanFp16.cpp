// Vulkan fp16 mode (fp16 storage, fp32 arithmetic) against the fp32 CPU, with the looser
// tolerance fp16 storage needs: rtol 1e-2, atol 1e-2 on values of magnitude ~1.
#include <cmath>

#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanFp16, OpsMatchFp32WithinFp16Tolerance) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = randomTensor({3, 5, 7, 9}, 201);
  expectVulkanFp16Close("Relu", {x}, {});
  expectVulkanFp16Close("Sigmoid", {x}, {});
  expectVulkanFp16Close("Add", {x, randomTensor({5, 1, 1}, 202)}, {});
  Attributes pads;
  pads.setInts("pads", {1, 1, 1, 1});
  expectVulkanFp16Close("Conv", {x, randomTensor({8, 5, 3, 3}, 203), randomTensor({8}, 204)}, pads, {false, true, true});
  expectVulkanFp16Close("Conv", {x, randomTensor({6, 5, 3, 3}, 205)}, pads, {false, true});
  Attributes ct;
  ct.setInts("strides", {2, 2});
  expectVulkanFp16Close("ConvTranspose", {x, randomTensor({5, 4, 2, 2}, 206)}, ct, {false, true});
  Attributes pool;
  pool.setInts("kernel_shape", {3, 3});
  expectVulkanFp16Close("MaxPool", {x}, pool);
  expectVulkanFp16Close("AveragePool", {x}, pool);
  expectVulkanFp16Close("Softmax", {x}, {});
  expectVulkanFp16Close("MatMul", {x, randomTensor({9, 4}, 207)}, {});
  Attributes t;
  t.setInts("perm", {0, 2, 3, 1});
  expectVulkanFp16Close("Transpose", {x}, t);
  Attributes c;
  c.setInt("axis", 1);
  expectVulkanFp16Close("Concat", {x, randomTensor({3, 2, 7, 9}, 208)}, c);
  Attributes r;
  r.setString("mode", "nearest");
  expectVulkanFp16Close("Resize", {x, Tensor(Shape{}, DataType::kUnknown), tensorFrom({4}, {1.f, 1.f, 2.f, 2.f})}, r,
                        {false, false, true});
  expectVulkanFp16Close("ReduceMean", {x}, {});
  expectVulkanFp16Close("BatchNormalization", {x, randomTensor({5}, 209), randomTensor({5}, 210), randomTensor({5}, 211),
                                               randomTensor({5}, 212, 0.5f, 2.f)}, {}, {false, true, true, true, true});
  expectVulkanFp16Close("Reshape", {x, tensorFromInts({2}, {15, -1})}, {}, {false, true});
  // Weights and bias the graph computes (not constants): converted to fp32 on the device for
  // the kernels that read them unpacked (a grouped conv of 2 outputs per group: GENERIC).
  Attributes grouped = pads;
  grouped.setInt("group", 5);
  expectVulkanFp16Close("Conv", {x, randomTensor({10, 1, 3, 3}, 213), randomTensor({10}, 214)}, grouped,
                        {false, false, false});
  expectVulkanFp16Close("ConvTranspose", {x, randomTensor({5, 4, 2, 2}, 215), randomTensor({4}, 216)}, ct,
                        {false, false, false});
}

// Conv and ConvTranspose keep their constant weights and biases in fp32 in fp16 mode (rounded
// to fp16 they alone moved PaddleOCR's detector map by 0.15). Each case's exact result,
// 3 * 2^-12, is an fp16 value, so the fp16 output holds it exactly; with a weight or bias
// rounded to fp16 (1 + 3 * 2^-12 -> 1 + 2^-10) it would read 2^-10.
TEST(VulkanFp16, ConvWeightsAndBiasStayFp32) {
  TESSERA_REQUIRE_VULKAN();
  const float fine = 1.f + std::ldexp(3.f, -12), exact = std::ldexp(3.f, -12);
  const Tensor ones2 = tensorFrom({1, 2, 3, 5}, std::vector<float>(30, 1.f));
  const Tensor ones1 = tensorFrom({1, 1, 3, 5}, std::vector<float>(15, 1.f));
  struct Case {
    const char* what;
    std::string op;
    std::vector<Tensor> inputs;
  };
  const std::vector<Case> cases = {
      {"a Conv's weight", "Conv", {ones2, tensorFrom({1, 2, 1, 1}, {fine, -1.f})}},
      {"a Conv's bias", "Conv", {ones1, tensorFrom({1, 1, 1, 1}, {-1.f}), tensorFrom({1}, {fine})}},
      {"a ConvTranspose's weight", "ConvTranspose", {ones2, tensorFrom({2, 1, 1, 1}, {fine, -1.f})}},
      {"a ConvTranspose's bias", "ConvTranspose", {ones1, tensorFrom({1, 1, 1, 1}, {-1.f}), tensorFrom({1}, {fine})}},
  };
  for (const Case& c : cases) {
    std::vector<bool> constant(c.inputs.size(), true);
    constant[0] = false;  // x: a graph input (an all-constant node would be folded on the host)
    OpRun r = runOpVulkanFp16(c.op, c.inputs, {}, 1, constant);
    ASSERT_TRUE(r.status.isOk()) << c.what << ": " << r.status.message();
    for (const auto& n : r.report.nodes) ASSERT_EQ(n.backend, BackendType::kVulkan) << c.what << ": fell back";
    const Tensor& y = r.outputs[0];
    ASSERT_EQ(y.elementCount(), 15) << c.what;
    for (int64_t i = 0; i < y.elementCount(); ++i)
      ASSERT_EQ(y.data<float>()[i], exact) << c.what << " was rounded to fp16 (element " << i << ")";
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
