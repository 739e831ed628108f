// RoiAlign (opset 10 and 16), following the ONNX reference implementation:
//   X [N, C, H, W], rois [R, 4] as (x1, y1, x2, y2) in X's dtype, batch_indices [R] (int64;
//   int32 taken too) -> Y [R, C, output_height, output_width].
// Each roi is scaled by spatial_scale and shifted by -0.5 in half_pixel mode (the opset 16
// default; opset 10 has no attribute and behaves as output_half_pixel, where a roi is also
// widened to at least 1x1). Its bins hold a grid of sampling_ratio^2 points (0: ceil(roi
// extent / output extent) per axis) at the centres of the grid cells. A point beyond
// [-1, extent] on either axis contributes nothing; otherwise it is clamped to the image and
// read bilinearly from its four neighbours. mode avg divides the sum over the points by their
// count; mode max takes, per point, the largest of the four weighted neighbours (w * value,
// not the interpolated value) and then the largest over the points. A batch index outside
// [0, N) is an error.
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct RoiAlignParams {
  bool maxMode = false;
  bool halfPixel = true;
  int64_t outputHeight = 1;
  int64_t outputWidth = 1;
  int64_t samplingRatio = 0;
  float spatialScale = 1.f;

  static Status parse(const Node& node, RoiAlignParams* out) {
    const std::string mode = node.attrs.getString("mode", "avg");
    if (mode != "avg" && mode != "max")
      return Status::invalid(node.label() + ": mode '" + mode + "' is not avg or max");
    out->maxMode = mode == "max";
    const std::string ctm =
        node.attrs.getString("coordinate_transformation_mode", node.opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (ctm != "half_pixel" && ctm != "output_half_pixel")
      return Status::invalid(node.label() + ": coordinate_transformation_mode '" + ctm +
                             "' is not half_pixel or output_half_pixel");
    out->halfPixel = ctm == "half_pixel";
    out->outputHeight = node.attrs.getInt("output_height", 1);
    out->outputWidth = node.attrs.getInt("output_width", 1);
    out->samplingRatio = node.attrs.getInt("sampling_ratio", 0);
    out->spatialScale = node.attrs.getFloat("spatial_scale", 1.f);
    if (out->outputHeight < 1 || out->outputWidth < 1)
      return Status::invalid(node.label() + ": output_height " + std::to_string(out->outputHeight) +
                             " and output_width " + std::to_string(out->outputWidth) + " must be at least 1");
    if (out->samplingRatio < 0)
      return Status::invalid(node.label() + ": sampling_ratio " + std::to_string(out->samplingRatio) +
                             " is negative");
    return Status::ok();
  }
};

}  // namespace tessera
