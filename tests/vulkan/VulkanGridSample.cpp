// Vulkan GridSample against the CPU: every mode x padding mode x align_corners in fp32 (these
// also run under the validation layer, CTest vulkan_validation) and in fp16 mode. For fp16 the
// inputs are rounded to fp16 first, so what is left is the fp16 storage of the output:
// rtol 2e-3, atol 1e-3 on values of magnitude ~1.
#include <cstdint>

#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Tensor roundedToHalf(Tensor t) {
  for (int64_t i = 0; i < t.elementCount(); ++i) t.data<float>()[i] = halfToFloat(floatToHalf(t.data<float>()[i]));
  return t;
}

TEST(VulkanGridSample, EveryModeFp32AndFp16) {
  TESSERA_REQUIRE_VULKAN();
  const Tensor x = roundedToHalf(randomTensor({2, 5, 7, 6}, 301));
  const Tensor grid = roundedToHalf(randomTensor({2, 3, 5, 2}, 302, -1.5f, 1.5f));
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (int align : {0, 1}) {
        Attributes a;
        a.setString("mode", mode);
        a.setString("padding_mode", padding);
        a.setInt("align_corners", align);
        expectVulkanMatchesCpu("GridSample", {x, grid}, a, 1, {}, 16);
        expectVulkanFp16Close("GridSample", {x, grid}, a, {}, 2e-3, 1e-3);
      }
}

}  // namespace
}  // namespace test
}  // namespace tessera
