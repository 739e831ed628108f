// Sliding-window attributes shared by Conv, ConvTranspose, MaxPool and AveragePool
// (kernel_shape, strides, dilations, pads, auto_pad, ceil_mode) and their resolution into
// concrete pads and output extents for a given input.
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

enum class AutoPad { kNotSet, kSameUpper, kSameLower, kValid };

struct WindowParams {
  std::vector<int64_t> kernelShape;  // empty: taken from the weight (Conv) or an error (pools)
  std::vector<int64_t> strides;      // empty: all 1
  std::vector<int64_t> dilations;    // empty: all 1
  std::vector<int64_t> pads;         // ONNX order: all begins, then all ends; empty: all 0
  AutoPad autoPad = AutoPad::kNotSet;
  bool ceilMode = false;

  static Status parse(const Node& node, WindowParams* out);
};

// A window resolved for concrete spatial extents (all vectors have `rank` entries).
struct WindowGeometry {
  int rank = 0;
  std::vector<int64_t> input, output, kernel, stride, dilation, padBegin, padEnd;

  int64_t inputCount() const;
  int64_t outputCount() const;
  int64_t kernelCount() const;
  // The same window with leading unit dimensions added up to rank 3 (D, H, W), so kernels
  // written for 3 spatial dimensions serve 1-D and 2-D inputs as well.
  WindowGeometry padTo3D() const;
};

// Checks attribute lengths and values against `input` (spatial extents) and `kernel`, and
// computes pads (auto_pad) and output extents with the Conv/pooling rule. Messages do not
// name the node; callers add it.
Status resolveWindow(const WindowParams& p, const std::vector<int64_t>& input,
                     const std::vector<int64_t>& kernel, WindowGeometry* out);

std::string joinInts(const std::vector<int64_t>& v);  // "3x3" style for messages

}  // namespace tessera
