// Vulkan Conv (grouped, depthwise, dilated, strided, padded, 1-D), ConvTranspose and
// pooling against the CPU, with channels 1, 3, 5, 13, odd sizes and batch 1 and 3.
#include <cmath>

#include "backends/vulkan/VulkanContext.hpp"
#include "support/ConvSumCases.hpp"
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
      {2, 8, 7, 5, 12, 3, 2, 1, 1, 1},  // groups of 4 in, 6 out: the generic kernel
      {2, 16, 6, 7, 8, 3, 2, 2, 1, 1},  // groups of 8 in, 4 out: 4x4 blocks per group
      {1, 3, 9, 8, 6, 3, 3, 1, 1, 1},   // depthwise with a channel multiplier of 2
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
  // 3-D: the NCHW buffer build of the same kernel.
  expectVulkanMatchesCpu("Conv", {randomTensor({2, 5, 4, 5, 3}, 26), randomTensor({6, 5, 2, 3, 2}, 27)},
                         convAttrs({1, 2, 1}, {1, 1, 1}, {0, 1, 1, 1, 0, 0}, 1), 1, {false, true});
  // Wider than the device's image limit (16384 pixels on lavapipe): also the buffer build.
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  const int64_t wide = static_cast<int64_t>(ctx->info().limits.maxImageDimension2D) + 116;
  expectVulkanMatchesCpu("Conv", {randomTensor({1, 3, wide}, 28), randomTensor({5, 3, 3}, 29)},
                         convAttrs({1}, {1}, {1, 1}, 1), 1, {false, true});
}

// Fused activations (tools/onnx/FuseConvActivation) on each conv kernel: GEMM with a ragged
// last block, depthwise, generic groups.
TEST(VulkanConv, FusedActivations) {
  TESSERA_REQUIRE_VULKAN();
  const std::pair<const char*, std::vector<float>> acts[] = {
      {"Relu", {}}, {"Clip", {-0.5f, 0.75f}}, {"LeakyRelu", {0.1f}}, {"Sigmoid", {}}, {"HardSigmoid", {0.25f, 0.4f}},
      {"HardSwish", {}},
      // Bounds that once printed as invalid OpenCL C literals ("0f", "6f"): integral (ReLU6),
      // negative, huge, infinite and denormal.
      {"Clip", {0.f, 6.f}}, {"Clip", {-1e30f, -1.f}}, {"Clip", {-INFINITY, 2.f}}, {"Clip", {1e-40f, 3e38f}},
      {"LeakyRelu", {2.f}}, {"HardSigmoid", {1.f, 0.f}}, {"Swish", {1.f}}, {"Swish", {-0.7f}}};
  for (const auto& act : acts)
    for (int64_t group : {int64_t(1), int64_t(6), int64_t(2)}) {
      Attributes a = convAttrs({1, 1}, {1, 1}, {1, 1, 1, 1}, group);
      a.setString("activation", act.first);
      if (!act.second.empty()) a.setFloats("activation_params", act.second);
      const int64_t m = group == 2 ? 4 : 6;
      expectVulkanMatchesCpu("Conv", {randomTensor({2, 6, 5, 7}, 61, -3.f, 3.f), randomTensor({m, 6 / group, 3, 3}, 62),
                                      randomTensor({m}, 63)}, a, 1, {false, true, true});
    }
  // With a scale and shift after the activation (tools/onnx/FuseActivationAffine).
  for (const char* act : {"HardSwish", "Sigmoid"})
    for (int64_t group : {int64_t(1), int64_t(6), int64_t(2)}) {
      Attributes a = convAttrs({1, 1}, {1, 1}, {1, 1, 1, 1}, group);
      a.setString("activation", act);
      a.setFloats("activation_affine", {-0.75f, 0.3f});
      const int64_t m = group == 2 ? 4 : 6;
      expectVulkanMatchesCpu("Conv", {randomTensor({2, 6, 5, 7}, 61, -3.f, 3.f), randomTensor({m, 6 / group, 3, 3}, 62),
                                      randomTensor({m}, 63)}, a, 1, {false, true, true});
    }
}

// The same on ConvTranspose (tools/onnx/FuseConvActivation): the GEMM kernel (6 outputs, a
// ragged last block) and the generic one (groups of 3), with and without a scale and shift.
TEST(VulkanConvTranspose, FusedActivations) {
  TESSERA_REQUIRE_VULKAN();
  for (const char* act : {"Relu", "Sigmoid", "HardSwish", "HardSigmoid"})
    for (int64_t group : {int64_t(1), int64_t(2)})
      for (bool affine : {false, true}) {
        Attributes a;
        a.setInts("strides", {2, 2});
        a.setInts("pads", {1, 1, 1, 1});
        a.setInt("group", group);
        a.setString("activation", act);
        if (affine) a.setFloats("activation_affine", {-0.75f, 0.3f});
        expectVulkanMatchesCpu("ConvTranspose", {randomTensor({2, 6, 5, 7}, 64, -3.f, 3.f),
                                                 randomTensor({6, 6 / group, 3, 3}, 65), randomTensor({6}, 66)},
                               a, 1, {false, true, true});
      }
}

// Z (tools/onnx/FuseConvAdd) read at the store and added before every activation, on the
// GEMM, depthwise and generic kernels (support/ConvSumCases.hpp), against Conv -> Add ->
// activation on the CPU; images, buffers (1-D and the wide case) and fp16 storage.
TEST(VulkanConv, SumInputBeforeTheActivation) {
  TESSERA_REQUIRE_VULKAN();
  const auto& acts = convSumActivations();
  size_t i = 0;
  for (const ConvSumCase& c : convSumCases()) {
    // Every activation on the GEMM and depthwise kernels, two per case elsewhere.
    const bool all = std::string(c.what) == "gemm" || std::string(c.what) == "depthwise";
    for (size_t a = 0; a < acts.size(); ++a)
      if (all || a % 4 == i % 4) expectConvSumMatchesUnfused(c, acts[a], BackendType::kVulkan);
    expectConvSumMatchesUnfused(c, acts[i % acts.size()], BackendType::kVulkan, Precision::kFP16, 2e-2, 2e-2);
    ++i;
  }
  // Wider than the device's image limit: the NCHW buffer build.
  std::shared_ptr<VulkanContext> ctx;
  ASSERT_TRUE(VulkanContext::get("", &ctx).isOk());
  const int64_t wide = static_cast<int64_t>(ctx->info().limits.maxImageDimension2D) + 116;
  const ConvSumCase buffers = {"wide", {1, 3, 1, wide}, 5, 1, {1, 3}, {1, 1}, {0, 1, 0, 1}};
  expectConvSumMatchesUnfused(buffers, acts[7], BackendType::kVulkan);
}

// 2-D convs pass their activations to each other in NC4HW4 storage images: the only
// conversions are the upload into the first image and the download of the last.
TEST(VulkanConv, ActivationsLiveInStorageImages) {
  TESSERA_REQUIRE_VULKAN();
  GraphBuilder g;
  g.input("x", DataType::kF32, {1, 5, 9, 7});
  g.constant("w1", randomTensor({6, 5, 3, 3}, 41));
  g.constant("w2", randomTensor({3, 6, 1, 1}, 42));
  const std::string h = g.op1("Conv", {"x", "w1"}, convAttrs({1, 1}, {1, 1}, {1, 1, 1, 1}, 1));
  const std::string y = g.op1("Conv", {h, "w2"}, convAttrs({1, 1}, {1, 1}, {0, 0, 0, 0}, 1));
  g.output(y);
  std::shared_ptr<Graph> graph;
  ASSERT_TRUE(g.build(&graph).isOk());
  SessionOptions o;
  o.backends = {BackendType::kVulkan};
  o.nc4Storage = Nc4Storage::kImage;  // what this test is about, whatever this device measures
  std::unique_ptr<Session> s;
  ASSERT_TRUE(Session::create(graph, o, &s).isOk());
  std::map<std::string, Tensor> in = {{"x", randomTensor({1, 5, 9, 7}, 43)}}, out;
  ASSERT_TRUE(s->run(in, &out).isOk());
  int toImage = 0, fromImage = 0, other = 0;
  for (const std::string& c : s->report().conversions) {
    if (c.find("cpu NCHW -> vulkan NC4HW4") != std::string::npos) ++toImage;
    else if (c.find("vulkan NC4HW4 -> cpu NCHW") != std::string::npos) ++fromImage;
    else ++other;
    // Constant weights are packed on the host once per plan: no upload of the raw ones.
    EXPECT_EQ(c.find("'w"), std::string::npos) << c;
  }
  EXPECT_EQ(toImage, 1) << s->report().toString();
  EXPECT_EQ(fromImage, 1) << s->report().toString();
  EXPECT_EQ(other, 0) << s->report().toString();
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
  // Groups of 8 in and 4 out (4x4 blocks per group), batch 2, bias.
  expectVulkanMatchesCpu("ConvTranspose", {randomTensor({2, 16, 4, 5}, 36), randomTensor({16, 4, 2, 2}, 37),
                                           randomTensor({8}, 38)},
                         convAttrs({2, 2}, {1, 1}, {0, 0, 0, 0}, 2), 1, {false, true, true});
  // 1-D (images) and 3-D (the NCHW buffer build).
  expectVulkanMatchesCpu("ConvTranspose", {randomTensor({2, 3, 9}, 39), randomTensor({3, 5, 4}, 40)},
                         convAttrs({3}, {1}, {1, 2}, 1), 1, {false, true});
  expectVulkanMatchesCpu("ConvTranspose", {randomTensor({1, 5, 3, 4, 3}, 41), randomTensor({5, 2, 2, 3, 2}, 42)},
                         convAttrs({2, 1, 2}, {1, 1, 1}, {0, 1, 0, 0, 1, 1}, 1), 1, {false, true});
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

// Global pools spread each (batch, channel block) over a work-group (global_pool.comp):
// planes past 64 pixels and not a multiple of 64, channels not a multiple of 4, batch 2, in
// storage images (2-D) and in buffers (3-D), and in fp16 storage.
TEST(VulkanPool, GlobalOverWorkGroups) {
  TESSERA_REQUIRE_VULKAN();
  for (const Shape& s : std::vector<Shape>{{2, 6, 17, 23}, {1, 5, 3, 9, 11}, {1, 3, 1, 130}}) {
    const Tensor x = randomTensor(s, 43, -2.f, 2.f);
    expectVulkanMatchesCpu("GlobalAveragePool", {x}, {});
    expectVulkanMatchesCpu("GlobalMaxPool", {x}, {});
    expectVulkanFp16Close("GlobalAveragePool", {x}, {});
    expectVulkanFp16Close("GlobalMaxPool", {x}, {});
  }
}

}  // namespace
}  // namespace test
}  // namespace tessera
