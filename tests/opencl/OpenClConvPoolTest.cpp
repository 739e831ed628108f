// OpenCL Conv / ConvTranspose / Pool / Resize against the CPU reference, over the shapes
// that break packed layouts: channels 1, 3, 5, 13; odd H and W; batch 1 and 3; groups,
// depthwise, strides, dilations, pads; constant weights and weights computed at run time.
#include <cmath>

#include "backends/opencl/OpenClBackend.hpp"
#include "support/ConvSumCases.hpp"
#include "tests/opencl/OpenClTestSupport.hpp"

namespace tessera {
namespace {

using test::expectOpenClMatchesCpu;
using test::ints;
using test::randomTensor;

TEST(OpenClConv, SweepsChannelsGroupsStridesAndPads) {
  REQUIRE_OPENCL();
  struct Case {
    int64_t n, c, h, w, m, k, group, stride, dilation, pad;
  };
  const Case cases[] = {
      {1, 1, 7, 9, 1, 3, 1, 1, 1, 1},    {3, 3, 9, 7, 5, 3, 1, 2, 1, 1},
      {1, 5, 11, 13, 13, 1, 1, 1, 1, 0}, {1, 13, 8, 9, 3, 3, 1, 1, 2, 2},
      {3, 5, 6, 5, 5, 3, 5, 1, 1, 1},    // depthwise
      {1, 13, 9, 9, 13, 5, 13, 2, 1, 2},  // depthwise, strided, 5x5
      {1, 6, 7, 5, 10, 3, 2, 1, 1, 1},   // grouped
      {1, 12, 5, 7, 8, 3, 4, 1, 2, 2},   // grouped, dilated
  };
  for (const Case& c : cases) {
    const std::string what = "Conv n" + std::to_string(c.n) + " c" + std::to_string(c.c) + " m" +
                             std::to_string(c.m) + " k" + std::to_string(c.k) + " g" + std::to_string(c.group) +
                             " s" + std::to_string(c.stride) + " d" + std::to_string(c.dilation);
    Attributes a = ints("strides", {c.stride, c.stride});
    a.setInts("dilations", {c.dilation, c.dilation});
    a.setInts("pads", {c.pad, c.pad, c.pad, c.pad});
    a.setInt("group", c.group);
    const Tensor x = randomTensor({c.n, c.c, c.h, c.w}, 1);
    const Tensor w = randomTensor({c.m, c.c / c.group, c.k, c.k}, 2);
    const Tensor b = randomTensor({c.m}, 3);
    expectOpenClMatchesCpu("Conv", {x, w, b}, a, what + " (constant weights)", {false, true, true});
    expectOpenClMatchesCpu("Conv", {x, w, b}, a, what + " (run-time weights)", {false, false, false});
  }
}

TEST(OpenClConv, OneDimensionalAsymmetricPadsNoBias) {
  REQUIRE_OPENCL();
  Attributes a = ints("pads", {2, 1});
  a.setInts("strides", {2});
  expectOpenClMatchesCpu("Conv", {randomTensor({3, 5, 17}, 4), randomTensor({7, 5, 4}, 5)}, a, "Conv1D",
                         {false, true});
  Attributes same;
  same.setString("auto_pad", "SAME_UPPER");
  expectOpenClMatchesCpu("Conv", {randomTensor({1, 3, 10, 11}, 6), randomTensor({4, 3, 4, 3}, 7)}, same,
                         "Conv SAME_UPPER", {false, true});
}

// Fused activations (tools/onnx/FuseConvActivation) on the dense and depthwise kernels.
TEST(OpenClConv, FusedActivations) {
  REQUIRE_OPENCL();
  const std::pair<const char*, std::vector<float>> acts[] = {
      {"Relu", {}}, {"Clip", {-0.5f, 0.75f}}, {"LeakyRelu", {0.1f}}, {"Sigmoid", {}}, {"HardSigmoid", {0.25f, 0.4f}},
      {"HardSwish", {}},
      // Bounds that once printed as invalid OpenCL C literals ("0f", "6f"): integral (ReLU6),
      // negative, huge, infinite and denormal.
      {"Clip", {0.f, 6.f}}, {"Clip", {-1e30f, -1.f}}, {"Clip", {-INFINITY, 2.f}}, {"Clip", {1e-40f, 3e38f}},
      {"LeakyRelu", {2.f}}, {"HardSigmoid", {1.f, 0.f}}, {"Swish", {1.f}}, {"Swish", {-0.7f}}};
  for (const auto& act : acts)
    for (int64_t group : {int64_t(1), int64_t(6)}) {
      Attributes a = ints("pads", {1, 1, 1, 1});
      a.setInt("group", group);
      a.setString("activation", act.first);
      if (!act.second.empty()) a.setFloats("activation_params", act.second);
      expectOpenClMatchesCpu("Conv", {randomTensor({2, 6, 5, 7}, 61, -3.f, 3.f), randomTensor({6, 6 / group, 3, 3}, 62),
                                      randomTensor({6}, 63)},
                             a, std::string("Conv + ") + act.first + " group " + std::to_string(group),
                             {false, true, true});
    }
  // With a scale and shift after the activation (tools/onnx/FuseActivationAffine).
  for (const char* act : {"HardSwish", "Sigmoid"})
    for (int64_t group : {int64_t(1), int64_t(6)}) {
      Attributes a = ints("pads", {1, 1, 1, 1});
      a.setInt("group", group);
      a.setString("activation", act);
      a.setFloats("activation_affine", {-0.75f, 0.3f});
      expectOpenClMatchesCpu("Conv", {randomTensor({2, 6, 5, 7}, 61, -3.f, 3.f), randomTensor({6, 6 / group, 3, 3}, 62),
                                      randomTensor({6}, 63)},
                             a, std::string("Conv + ") + act + " + affine, group " + std::to_string(group),
                             {false, true, true});
    }
}

// The same on ConvTranspose (tools/onnx/FuseConvActivation), dense and grouped (groups of 3),
// with and without a scale and shift after it.
TEST(OpenClConvTranspose, FusedActivations) {
  REQUIRE_OPENCL();
  for (const char* act : {"Relu", "Sigmoid", "HardSwish", "HardSigmoid"})
    for (int64_t group : {int64_t(1), int64_t(2)})
      for (bool affine : {false, true}) {
        Attributes a = ints("strides", {2, 2});
        a.setInts("pads", {1, 1, 1, 1});
        a.setInt("group", group);
        a.setString("activation", act);
        if (affine) a.setFloats("activation_affine", {-0.75f, 0.3f});
        expectOpenClMatchesCpu("ConvTranspose", {randomTensor({2, 6, 5, 7}, 64, -3.f, 3.f),
                                                 randomTensor({6, 6 / group, 3, 3}, 65), randomTensor({6}, 66)},
                               a, std::string("ConvTranspose + ") + act + (affine ? " + affine" : "") + ", group " +
                                      std::to_string(group),
                               {false, true, true});
      }
}

// Z (tools/onnx/FuseConvAdd) read at the store and added before every activation, on the
// dense and depthwise kernels (support/ConvSumCases.hpp; 1-D too), against Conv -> Add ->
// activation on the CPU; fp16 images, and buffers past the image limit.
TEST(OpenClConv, SumInputBeforeTheActivation) {
  REQUIRE_OPENCL();
  using test::ConvSumCase;
  using test::expectConvSumMatchesUnfused;
  const auto& acts = test::convSumActivations();
  size_t i = 0;
  for (const ConvSumCase& c : test::convSumCases()) {
    // Every activation on the dense and depthwise kernels, two per case elsewhere.
    const bool all = std::string(c.what) == "gemm" || std::string(c.what) == "depthwise";
    for (size_t a = 0; a < acts.size(); ++a)
      if (all || a % 4 == i % 4) expectConvSumMatchesUnfused(c, acts[a], BackendType::kOpenCL);
    expectConvSumMatchesUnfused(c, acts[i % acts.size()], BackendType::kOpenCL, Precision::kFP16, 2e-2, 2e-2);
    ++i;
  }
  std::unique_ptr<Backend> b;
  ASSERT_TRUE(BackendRegistry::instance().find(BackendType::kOpenCL)->create(BackendOptions{}, &b).isOk());
  const auto& device = static_cast<OpenClBackend*>(b.get())->device();
  if (!device.images) return;  // every tensor above was a buffer
  // y and Z past the image limit (8 channels: 2 blocks of maxW / 2 + 1 columns), x an image.
  const int64_t w = static_cast<int64_t>(device.image2dMaxWidth) / 2 + 1;
  expectConvSumMatchesUnfused({"buffers", {1, 4, 2, w}, 8, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}}, acts[7],
                              BackendType::kOpenCL);
}

TEST(OpenClConvTranspose, SweepsStridesPadsGroups) {
  REQUIRE_OPENCL();
  struct Case {
    int64_t n, c, h, w, m, k, group, stride, pad, outPad;
  };
  const Case cases[] = {{1, 3, 5, 7, 2, 3, 1, 2, 1, 1}, {3, 5, 4, 3, 13, 3, 1, 1, 0, 0},
                        {1, 4, 5, 5, 6, 2, 2, 2, 0, 0}, {1, 1, 6, 9, 1, 4, 1, 3, 1, 0}};
  for (const Case& c : cases) {
    const std::string what = "ConvTranspose c" + std::to_string(c.c) + " m" + std::to_string(c.m) + " g" +
                             std::to_string(c.group) + " s" + std::to_string(c.stride);
    Attributes a = ints("strides", {c.stride, c.stride});
    a.setInts("pads", {c.pad, c.pad, c.pad, c.pad});
    a.setInts("output_padding", {c.outPad, c.outPad});
    a.setInt("group", c.group);
    const Tensor x = randomTensor({c.n, c.c, c.h, c.w}, 8);
    const Tensor w = randomTensor({c.c, c.m / c.group, c.k, c.k}, 9);
    const Tensor b = randomTensor({c.m}, 10);
    expectOpenClMatchesCpu("ConvTranspose", {x, w, b}, a, what, {false, true, true});
    expectOpenClMatchesCpu("ConvTranspose", {x, w, b}, a, what + " (run-time weights)", {false, false, false});
  }
}

TEST(OpenClPool, MaxAverageGlobal) {
  REQUIRE_OPENCL();
  for (const Shape& s : {Shape{1, 1, 7, 9}, Shape{3, 5, 9, 7}, Shape{1, 13, 6, 11}}) {
    const Tensor x = randomTensor(s, 11, -2.f, 2.f);
    const std::string shape = shapeToString(s);
    Attributes a = ints("kernel_shape", {3, 3});
    a.setInts("strides", {2, 2});
    a.setInts("pads", {1, 0, 1, 1});
    expectOpenClMatchesCpu("MaxPool", {x}, a, "MaxPool " + shape);
    expectOpenClMatchesCpu("AveragePool", {x}, a, "AveragePool " + shape);
    a.setInt("count_include_pad", 1);
    a.setInt("ceil_mode", 1);
    expectOpenClMatchesCpu("AveragePool", {x}, a, "AveragePool count_include_pad ceil " + shape);
    Attributes d = ints("kernel_shape", {2, 2});
    d.setInts("dilations", {2, 2});
    expectOpenClMatchesCpu("MaxPool", {x}, d, "MaxPool dilated " + shape);
    expectOpenClMatchesCpu("GlobalAveragePool", {x}, {}, "GlobalAveragePool " + shape);
    expectOpenClMatchesCpu("GlobalMaxPool", {x}, {}, "GlobalMaxPool " + shape);
  }
}

TEST(OpenClResize, NearestLinearCubic) {
  REQUIRE_OPENCL();
  const Tensor x = randomTensor({3, 5, 7, 9}, 12);
  const Tensor roi = Tensor::hostAllocate({0}, DataType::kF32);
  struct Case {
    const char* mode;
    const char* coordinates;
    std::vector<float> scales;
  };
  const Case cases[] = {{"nearest", "asymmetric", {1, 1, 2, 2}},     {"linear", "half_pixel", {1, 1, 2, 1.5f}},
                        {"linear", "align_corners", {1, 1, 0.5f, 0.6f}}, {"cubic", "half_pixel", {1, 1, 1.7f, 2}},
                        {"nearest", "half_pixel", {1, 1, 0.5f, 0.5f}}};
  for (const Case& c : cases) {
    Attributes a;
    a.setString("mode", c.mode);
    a.setString("coordinate_transformation_mode", c.coordinates);
    const Tensor scales = test::tensorFrom({4}, c.scales);
    expectOpenClMatchesCpu("Resize", {x, roi, scales}, a, std::string("Resize ") + c.mode + " " + c.coordinates,
                           {false, true, true}, 1, 13);
  }
}

}  // namespace
}  // namespace tessera
