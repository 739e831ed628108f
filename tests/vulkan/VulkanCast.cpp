// Vulkan Cast: f32 to f32 is a buffer copy on Vulkan (no ONNX node case casts float to float;
// the layer-normalization expanded cases do it inside). Other targets are not Vulkan data:
// the node runs on the CPU, visibly.
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Attributes to(int64_t onnxType) {
  Attributes a;
  a.setInt("to", onnxType);
  return a;
}

TEST(VulkanCast, FloatToFloatIsACopy) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : std::vector<Shape>{{3, 5, 7, 9}, {1, 13, 5, 3}, {7}, {1}})
    expectVulkanMatchesCpu("Cast", {randomTensor(s, 431, -5.f, 5.f)}, to(1), 1, {}, 13, 0.0, 0.0);
  expectVulkanFp16Close("Cast", {randomTensor({2, 3, 5}, 432)}, to(1));
}

TEST(VulkanCast, OtherTargetsRunOnTheCpu) {
  TESSERA_REQUIRE_VULKAN();
  for (int64_t target : {10, 11, 7}) {  // f16, f64, i64
    OpRun r = runOp("Cast", {randomTensor({2, 3}, 433)}, to(target), 1, BackendType::kVulkan, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    ASSERT_EQ(r.report.nodes.size(), 1u);
    EXPECT_EQ(r.report.nodes[0].backend, BackendType::kCPU) << "Cast to ONNX type " << target;
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
