// Vulkan Conv (grouped, depthwise, dilated, strided, padded, 1-D), ConvTranspose and
// pooling against the CPU, with channels 1, 3, 5, 13, odd sizes and batch 1 and 3.
#include "tests/vulkan/VulkanTestSupport.hpp"

namespace tessera {
namespace test {
namespace {

Attributes convAttrs(std::vector<int64_t> strides, std::vector<int64_t> dil, std::vector<int64_t> pads, int64_t group) {
  Attributes a;
  a.setInts("strides", std::move(strides));
  a.setInts("dilations", std::move(dil));
  a.setInts("pads", std::move(pads));
  a.setInt("group", group);
  return a;
}

TEST(VulkanConv, GroupsStridesDilationsPads) {
  TESSERA_REQUIRE_VULKAN();
  struct Case { int64_t n, c, h, w, m, k, group, stride, dil, pad; };
  const Case cases[] = {
      {1, 1, 5, 5, 1, 3, 1, 1, 1, 0},   {3, 3, 7, 9, 5, 3, 1, 2, 1, 1},  {1, 5, 9, 7, 13, 1, 1, 1, 1, 0},
      {1, 13, 11, 5, 13, 3, 13, 1, 1, 1}, {3, 6, 8, 9, 4, 3, 2, 1, 2, 2}, {1, 3, 17, 13, 8, 5, 1, 3, 1, 2},
  };
  for (const Case& c : cases) {
    const Tensor x = randomTensor({c.n, c.c, c.h, c.w}, 21);
    const Tensor w = randomTensor({c.m, c.c / c.group, c.k, c.k}, 22);
    const Tensor b = randomTensor({c.m}, 23);
    const Attributes a = convAttrs({c.stride, c.stride}, {c.dil, c.dil}, {c.pad, c.pad, c.pad, c.pad}, c.group);
    expectVulkanMatchesCpu("Conv", {x, w, b}, a, 1, {false, true, true});
    expectVulkanMatchesCpu("Conv", {x, w}, a, 1, {false, false});  // weights computed at run time
  }
  // 1-D, asymmetric pads.
  expectVulkanMatchesCpu("Conv", {randomTensor({3, 5, 19}, 24), randomTensor({7, 5, 4}, 25)},
                         convAttrs({2}, {1}, {1, 2}, 1), 1, {false, true});
}

TEST(VulkanConvTranspose, StridesPadsGroups) {
  TESSERA_REQUIRE_VULKAN();
  Attributes a = convAttrs({2, 2}, {1, 1}, {1, 0, 1, 1}, 1);
  expectVulkanMatchesCpu("ConvTranspose", {randomTensor({3, 5, 7, 6}, 31), randomTensor({5, 3, 3, 3}, 32),
                                           randomTensor({3}, 33)}, a, 1, {false, true, true});
  Attributes g = convAttrs({1, 3}, {2, 1}, {0, 0, 0, 0}, 2);
  g.setInts("output_padding", {0, 1});
  expectVulkanMatchesCpu("ConvTranspose", {randomTensor({1, 6, 5, 5}, 34), randomTensor({6, 2, 3, 2}, 35)}, g, 1,
                         {false, true});
}

TEST(VulkanPool, MaxAverageGlobal) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : std::vector<Shape>{{1, 1, 5, 5}, {3, 5, 9, 7}, {1, 13, 6, 11}}) {
    const Tensor x = randomTensor(s, 41, -2.f, 2.f);
    for (bool includePad : {false, true}) {
      Attributes a;
      a.setInts("kernel_shape", {3, 2});
      a.setInts("strides", {2, 1});
      a.setInts("pads", {1, 0, 1, 1});
      a.setInt("count_include_pad", includePad ? 1 : 0);
      expectVulkanMatchesCpu("AveragePool", {x}, a);
    }
    Attributes m;
    m.setInts("kernel_shape", {3, 3});
    m.setInts("strides", {2, 2});
    m.setInts("dilations", {1, 2});
    m.setInt("ceil_mode", 1);
    expectVulkanMatchesCpu("MaxPool", {x}, m);
    expectVulkanMatchesCpu("GlobalAveragePool", {x}, {});
    expectVulkanMatchesCpu("GlobalMaxPool", {x}, {});
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
