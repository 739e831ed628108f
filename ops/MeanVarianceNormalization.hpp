// MeanVarianceNormalization (opset 9, 13): y = (x - mean) / (std + 1e-9), with the mean and
// the (population) standard deviation taken over `axes` (default [0, 2, 3]: per channel of an
// NCHW tensor). The epsilon is added to the deviation, not the variance, as in ONNX's
// function body and reference. The output has x's shape and float dtype.
#pragma once
#include <string>
#include <vector>

#include "tessera/Graph.hpp"
#include "tessera/Shape.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct MeanVarianceNormalizationParams {
  static constexpr double kEpsilon = 1e-9;
  std::vector<int64_t> axes = {0, 2, 3};

  static Status parse(const Node& node, MeanVarianceNormalizationParams* out) {
    out->axes = node.attrs.getInts("axes", {0, 2, 3});
    return Status::ok();
  }

  // Which dims of a shape of the given rank are reduced; an axis out of range or repeated
  // is an error.
  Status reducedDims(const Node& node, int64_t rank, std::vector<bool>* reduced) const {
    reduced->assign(static_cast<size_t>(rank), false);
    for (int64_t a : axes) {
      int64_t d = 0;
      if (!normalizeAxis(a, rank, &d))
        return Status::invalid(node.label() + ": axis " + std::to_string(a) +
                               " is out of range for an input of rank " + std::to_string(rank));
      if ((*reduced)[d])
        return Status::invalid(node.label() + ": axis " + std::to_string(a) + " is repeated in axes");
      (*reduced)[d] = true;
    }
    return Status::ok();
  }

  // The shape with unit dims dropped and neighbouring dims of one kind (reduced or kept)
  // merged, for kernels that decode indices: `dims` and, per dim, whether it is reduced.
  Status mergedDims(const Node& node, const Shape& s, std::vector<int64_t>* dims, std::vector<bool>* reducedOut) const {
    std::vector<bool> reduced;
    TESSERA_RETURN_IF_ERROR(reducedDims(node, static_cast<int64_t>(s.size()), &reduced));
    dims->clear();
    reducedOut->clear();
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] == 1) continue;
      if (!dims->empty() && reducedOut->back() == reduced[d]) {
        dims->back() *= s[d];
      } else {
        dims->push_back(s[d]);
        reducedOut->push_back(reduced[d]);
      }
    }
    return Status::ok();
  }
};

}  // namespace tessera
