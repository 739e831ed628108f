// GridSample (opset 16; the opset-20 spellings linear/cubic of 2-D sampling are accepted too):
// Y[n, c, i, j] samples X[n, c] at the normalized point grid[n, i, j] = (x, y) in [-1, 1].
//
// Semantics every backend follows, those of torch.nn.functional.grid_sample (which the ONNX
// spec refers to and which made ONNX's test data) and of ONNX Runtime:
//  1. x -> ((x + 1) * W - 1) / 2, or (x + 1) / 2 * (W - 1) with align_corners (y alike);
//  2. nearest rounds now, half to even;
//  3. the taps (1 nearest, 2x2 bilinear, 4x4 bicubic with Keys A = -0.75 around floor) read
//     X at integer positions padded one by one: zeros reads 0 outside the image, border
//     clamps to [0, W - 1], reflection mirrors at -0.5 and W - 0.5 (0 and W - 1 with
//     align_corners) until inside. Kernels mirror the point itself first: mirroring is an
//     isometry, so the taps are the same, and far points stay exact.
// The ONNX reference (onnx/reference/ops/op_grid_sample.py) also clamps the point itself
// with border padding; that changes only bicubic within 2 pixels outside the image, where
// we keep PyTorch's and ONNX Runtime's values (onnxruntime issue #10607 explains why).
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

// The integer values are the kernels' codes (shaders/vulkan/grid_sample.comp,
// shaders/opencl/grid_sample.cl).
enum class GridSampleMode { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class GridSamplePadding { kZeros = 0, kBorder = 1, kReflection = 2 };

struct GridSampleParams {
  GridSampleMode mode = GridSampleMode::kBilinear;
  GridSamplePadding padding = GridSamplePadding::kZeros;
  bool alignCorners = false;

  static Status parse(const Node& node, GridSampleParams* out) {
    GridSampleParams p;
    const std::string mode = node.attrs.getString("mode", "bilinear");
    if (mode == "bilinear" || mode == "linear") p.mode = GridSampleMode::kBilinear;
    else if (mode == "nearest") p.mode = GridSampleMode::kNearest;
    else if (mode == "bicubic" || mode == "cubic") p.mode = GridSampleMode::kBicubic;
    else return Status::invalid(node.label() + ": unknown mode '" + mode + "' (bilinear, nearest or bicubic)");
    const std::string padding = node.attrs.getString("padding_mode", "zeros");
    if (padding == "zeros") p.padding = GridSamplePadding::kZeros;
    else if (padding == "border") p.padding = GridSamplePadding::kBorder;
    else if (padding == "reflection") p.padding = GridSamplePadding::kReflection;
    else return Status::invalid(node.label() + ": unknown padding_mode '" + padding + "' (zeros, border or reflection)");
    const int64_t align = node.attrs.getInt("align_corners", 0);
    if (align != 0 && align != 1)
      return Status::invalid(node.label() + ": align_corners must be 0 or 1, not " + std::to_string(align));
    p.alignCorners = align == 1;
    *out = p;
    return Status::ok();
  }
};

}  // namespace tessera
