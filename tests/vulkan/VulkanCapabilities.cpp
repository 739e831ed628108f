// Optional device capabilities (int64, fp64, 8/16-bit storage, fp16/int8 arithmetic,
// subgroup arithmetic, cooperative matrix) are enabled on the logical device where present
// and listed by `tessera devices`: a shader that uses one builds into a pipeline with no
// edit to the runtime, and the validation layer (CTest vulkan_validation) would report any
// capability used without being enabled.
#include <string>
#include <vector>

#include "backends/vulkan/GlslCompiler.hpp"
#include "backends/vulkan/VulkanContext.hpp"
#include "backends/vulkan/VulkanDiagnostics.hpp"
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

TEST(VulkanCapabilities, ListedByTesseraDevices) {
  TESSERA_REQUIRE_VULKAN();
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  const std::string text = BackendRegistry::instance().find(BackendType::kVulkan)->describeDevices();
  EXPECT_NE(text.find("capabilities: " + ctx->info().capabilities()), std::string::npos) << text;
  // Where NC4HW4 tensors live, per precision the device can store (fp16's choice is its own).
  EXPECT_NE(text.find("NC4HW4 tensors on the default device (fp32): "), std::string::npos) << text;
  EXPECT_EQ(text.find("NC4HW4 tensors on the default device (fp16): ") != std::string::npos, ctx->info().fp16Storage)
      << text;
}

// A compute shader using one capability, built into a pipeline on the session's device.
void expectShaderBuilds(const char* what, const std::string& source) {
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  const uint64_t errorsBefore = vulkan::validationErrorCount();
  std::vector<uint32_t> spirv;
  const Status st = vulkan::compileGlsl(what, source, {}, false, &spirv);
  ASSERT_TRUE(st.isOk()) << st.message();
  VkPipeline pipeline = VK_NULL_HANDLE;
  const Status p = ctx->pipeline(spirv, what, 1, 0, &pipeline);
  EXPECT_TRUE(p.isOk()) << what << ": " << p.message();
  EXPECT_EQ(vulkan::validationErrorCount(), errorsBefore) << what << ": " << vulkan::lastValidationMessage();
}

TEST(VulkanCapabilities, ShadersUsingThemBuildWhereTheDeviceHasThem) {
  TESSERA_REQUIRE_VULKAN();
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  const VulkanDeviceInfo& d = ctx->info();
  const std::string head = "#version 450\nlayout(local_size_x = 64) in;\n";
  int tried = 0;
  if (d.int64) {
    ++tried;
    expectShaderBuilds("int64 probe", head +
                                          "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
                                          "layout(std430, binding = 0) buffer B { int64_t v[]; };\n"
                                          "void main() { v[gl_GlobalInvocationID.x] *= int64_t(3); }\n");
  }
  if (d.fp64) {
    ++tried;
    expectShaderBuilds("fp64 probe", head +
                                         "layout(std430, binding = 0) buffer B { double v[]; };\n"
                                         "void main() { v[gl_GlobalInvocationID.x] = sqrt(v[gl_GlobalInvocationID.x]); }\n");
  }
  if (d.int8Storage && d.int8Arithmetic) {
    ++tried;
    expectShaderBuilds("int8 probe", head +
                                         "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n"
                                         "layout(std430, binding = 0) buffer B { int8_t v[]; };\n"
                                         "void main() { v[gl_GlobalInvocationID.x] += int8_t(1); }\n");
  }
  if (d.subgroupArithmetic) {
    ++tried;
    expectShaderBuilds("subgroup probe", head +
                                             "#extension GL_KHR_shader_subgroup_arithmetic : require\n"
                                             "layout(std430, binding = 0) buffer B { float v[]; };\n"
                                             "void main() { v[gl_GlobalInvocationID.x] = subgroupAdd(v[gl_GlobalInvocationID.x]); }\n");
  }
  if (!tried) GTEST_SKIP() << "SKIP the device has none of int64, fp64, int8, subgroup arithmetic";
}

}  // namespace
}  // namespace test
}  // namespace tessera
