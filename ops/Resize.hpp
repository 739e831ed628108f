// Resize (opsets 10-13+) and Upsample (7, 9): attributes, output shape, and the per-axis
// interpolation taps every backend's kernel uses (ONNX's reference semantics: separable
// nearest / linear / cubic with the chosen coordinate transformation).
#pragma once
#include <cstdint>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"
#include "tessera/Tensor.hpp"

namespace tessera {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoordinates { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixelForNN, kTfCropAndResize };
// kSimple is the pre-opset-11 rule: floor when upsampling, ceil when downsampling.
enum class NearestRounding { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeParams {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinates coordinates = ResizeCoordinates::kHalfPixel;
  NearestRounding nearest = NearestRounding::kRoundPreferFloor;
  float cubicA = -0.75f;
  bool excludeOutside = false;
  float extrapolationValue = 0.f;
  // Where the values come from: input indices, -1 when this op version has no such input.
  int roiInput = -1, scalesInput = -1, sizesInput = -1;
  std::vector<float> scalesAttribute;  // Upsample-7

  static Status parse(const Node& node, ResizeParams* out);
};

// Not ONNX: Resize (opset 11 and later) may take a fifth input Z of exactly the output's
// shape, added to the resized values, y = resize(X) + Z (tools/onnx/FuseConvAdd: a feature
// pyramid's upsampled map plus its lateral one, as Conv's and MatMul's Z).
constexpr size_t kResizeSumInput = 4;

// The output shape and, per axis, the scale and region of interest used by the taps.
struct ResizeGeometry {
  Shape input, output;
  std::vector<double> scales;
  std::vector<double> roiStart, roiEnd;  // fractions of the input extent (tf_crop_and_resize)
};

// roi/scales/sizes: the op's inputs (nullptr when omitted); those that are used must have
// host data. Messages do not name the node; callers add it.
Status resolveResize(const ResizeParams& p, const Shape& x, const Tensor* roi, const Tensor* scales,
                     const Tensor* sizes, ResizeGeometry* out);

// Interpolation taps of one output index along one axis: y = sum weight[i] * x[index[i]],
// or the extrapolation value when `outside` (tf_crop_and_resize beyond the input).
struct ResizeTaps {
  int count = 0;
  int64_t index[4] = {0, 0, 0, 0};
  float weight[4] = {0, 0, 0, 0};
  bool outside = false;
};
std::vector<ResizeTaps> resizeAxisTaps(const ResizeParams& p, const ResizeGeometry& g, int axis);

}  // namespace tessera
