// Vulkan fp16 mode (fp16 storage, fp32 arithmetic) against the fp32 CPU, with the looser
// tolerance fp16 storage needs: rtol 1e-2, atol 1e-2 on values of magnitude ~1.
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
}

}  // namespace
}  // namespace test
}  // namespace tessera
