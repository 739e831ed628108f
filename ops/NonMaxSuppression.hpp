// NonMaxSuppression (opset 10, 11): per batch and class, the greedy selection of boxes by
// descending score, each kept only if no box kept before it overlaps it too much. The
// semantics every backend follows (those of the ONNX reference and ONNX Runtime):
//
// - boxes [B, S, 4] and scores [B, C, S], f32. center_point_box 0: [y1, x1, y2, x2], either
//   corner first; 1: [x_center, y_center, width, height].
// - max_output_boxes_per_class (int64, one element; absent: 0, so nothing is selected;
//   negative counts as 0), iou_threshold (f32, in [0, 1]; absent: 0), score_threshold (f32;
//   absent: no threshold). Only boxes with score > score_threshold are candidates; NaN scores
//   never are.
// - Candidates are taken by descending score, equal scores by ascending box index. A box is
//   suppressed by a kept box when their IoU > iou_threshold; boxes that do not intersect, or
//   either of which has zero (or negative) area, never suppress each other.
// - selected_indices [num_selected, 3] int64 rows (batch, class, box), by batch, then class,
//   then selection order. Its length depends on the values (ShapeContext::shapesFromValues).
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct NonMaxSuppressionParams {
  bool centerPointBox = false;

  static Status parse(const Node& node, NonMaxSuppressionParams* out) {
    const int64_t c = node.attrs.getInt("center_point_box", 0);
    if (c != 0 && c != 1)
      return Status::invalid(node.label() + ": center_point_box " + std::to_string(c) + " is not 0 or 1");
    out->centerPointBox = c == 1;
    return Status::ok();
  }
};

}  // namespace tessera
