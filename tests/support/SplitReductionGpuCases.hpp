// Kernels whose reduction is split over several invocations of a work-group
// (core/src/SplitReduction.hpp): GEMM-shaped convs (Vulkan's conv.comp GEMM_SPLIT, OpenCL's
// conv2d_split) and matrix products (matmul.comp SPLIT for MatMul and Gemm, OpenCL's
// matmul_split), against the CPU, on either GPU backend. The lane count is forced through
// the backend's variable: 2
// (fewer lanes than the 4 columns a tile stores), 8, and 64 (more lanes than a short
// reduction has (input block, tap) pairs). Shapes: channels not a multiple of 4, odd sizes,
// batch 2, strides, asymmetric pads, dilation, groups of 4 channels, 1x1 outputs
// (squeeze-and-excite), 1-D, with and without bias; then the fused Z and activations of
// ConvSumCases.hpp. Products: a long K with few outputs, broadcast batches, vector operands,
// K shorter than the lanes. Each forced run must have planned split kernels.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/src/SplitReduction.hpp"
#include "support/ConvSumCases.hpp"
#include "support/GpuMatchesCpu.hpp"
#include "support/Nc4StorageChecks.hpp"

namespace tessera {
namespace test {

struct ConvSplitCase {
  const char* what;
  Shape x;
  int64_t m, group;
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool bias;
};

inline const std::vector<ConvSplitCase>& convSplitCases() {
  static const std::vector<ConvSplitCase> cases = {
      {"3x3, few output channels", {1, 21, 9, 11}, 6, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
      {"1x1, long reduction", {2, 37, 5, 7}, 13, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, true},
      {"1x1 on 1x1 (squeeze-and-excite)", {2, 70, 1, 1}, 18, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, true},
      {"strided, padded, dilated", {1, 9, 13, 10}, 7, 1, {3, 3}, {2, 2}, {1, 2, 0, 1}, {2, 1}, false},
      {"groups of 4 channels", {2, 16, 6, 5}, 8, 2, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, true},
      {"one pair to sum", {1, 3, 4, 9}, 5, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}, true},
      {"1-D", {2, 11, 17}, 5, 1, {5}, {1}, {2, 1}, {1}, true},
  };
  return cases;
}

inline void expectSplitConvMatchesCpu(BackendType gpu, const ConvSplitCase& c, const std::string& lanes) {
  Attributes a;
  a.setInt("group", c.group);
  a.setInts("strides", c.strides);
  a.setInts("pads", c.pads);
  a.setInts("dilations", c.dilations);
  Shape w = {c.m, c.x[1] / c.group};
  w.insert(w.end(), c.kernel.begin(), c.kernel.end());
  std::vector<Tensor> in = {randomTensor(c.x, 31, -1.f, 1.f), randomTensor(w, 32, -1.f, 1.f)};
  if (c.bias) in.push_back(randomTensor({c.m}, 33));
  expectGpuMatchesCpu(gpu, "Conv", in, a, 1, {false, true, true}, 17, 1e-4, 1e-5,
                      std::string(c.what) + ", " + lanes + " lanes");
}

// MatMul operand shapes: few outputs with a long K (PP-OCRv4 rec's 40x240 by 240x120),
// broadcast batches, a vector on either side, K of 1 and 3.
inline const std::vector<std::pair<Shape, Shape>>& matMulSplitCases() {
  static const std::vector<std::pair<Shape, Shape>> cases = {
      {{40, 240}, {240, 120}}, {{2, 1, 5, 70}, {3, 70, 9}}, {{37}, {37, 5}},
      {{3, 6, 131}, {131}},    {{7, 1}, {1, 6}},            {{5, 3}, {3, 10}},
  };
  return cases;
}

// Each case also with a bias (MatMul's third input, tools/onnx/FuseMatMulBias) where B is a
// matrix.
inline void expectSplitMatMulsMatchCpu(BackendType gpu, const std::string& lanes) {
  for (const auto& c : matMulSplitCases()) {
    const std::string what = "MatMul " + shapeToString(c.first) + " x " + shapeToString(c.second) + ", " + lanes + " lanes";
    std::vector<Tensor> in = {randomTensor(c.first, 51, -1.f, 1.f), randomTensor(c.second, 52, -1.f, 1.f)};
    expectGpuMatchesCpu(gpu, "MatMul", in, {}, 1, {}, 17, 1e-4, 1e-5, what);
    if (c.second.size() < 2) continue;
    in.push_back(randomTensor({c.second.back()}, 53));
    expectGpuMatchesCpu(gpu, "MatMul", in, {}, 1, {false, true, true}, 17, 1e-4, 1e-5, what + ", bias");
  }
}

// Every case above and the fused Z / activation cases at each forced lane count.
inline void expectSplitReductionsMatchCpu(BackendType gpu, const char* envName) {
  for (const char* lanes : {"2", "8", "64"}) {
    ScopedEnvVar force(envName, lanes);
    const uint64_t before = splitReductionPlanCount();
    for (const ConvSplitCase& c : convSplitCases()) expectSplitConvMatchesCpu(gpu, c, lanes);
    for (const ConvSumCase& c : convSumCases())
      for (const ConvSumActivation& act : {convSumActivations()[0], convSumActivations()[7]})
        expectConvSumMatchesUnfused(c, act, gpu);
    expectSplitMatMulsMatchCpu(gpu, lanes);
    EXPECT_GT(splitReductionPlanCount(), before) << "no kernel was planned with split reductions at " << lanes << " lanes";
  }
}

// Short lines on work-groups, as a GPU runs few of them (groupPerLine): with `envName` =
// always, Softmax, ReduceMax and ArgMin over lines of 1 to 20 match the CPU, and the ops did
// take the work-group choice for them.
inline void expectShortLinesOnWorkGroupsMatchCpu(BackendType gpu, const char* envName) {
  ScopedEnvVar always(envName, "always");
  const uint64_t before = shortLineGroupCount();
  for (int64_t n : {1, 7, 20}) {
    const Tensor x = randomTensor({3, n, 5}, 81, -2.f, 2.f);
    Attributes axis;
    axis.setInt("axis", 1);
    expectGpuMatchesCpu(gpu, "Softmax", {x}, axis, 1, {}, 17, 1e-4, 1e-5, "Softmax over " + std::to_string(n));
    Attributes keep;
    keep.setInts("axes", {1});
    expectGpuMatchesCpu(gpu, "ReduceMax", {x}, keep, 1, {}, 13, 1e-4, 1e-5, "ReduceMax over " + std::to_string(n));
    expectGpuMatchesCpu(gpu, "ArgMin", {x}, axis, 1, {}, 17, 0, 0, "ArgMin over " + std::to_string(n));
  }
  EXPECT_GT(shortLineGroupCount(), before) << "no short line went to a work-group";
}

}  // namespace test
}  // namespace tessera
