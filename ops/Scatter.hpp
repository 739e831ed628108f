// ScatterElements (and the deprecated Scatter, opset 9-10) and ScatterND: the attributes they
// share and the semantics every backend follows.
//
// The output is a copy of data with the updates written at the positions the indices name
// (negative indices count from the end; one outside [-extent, extent) is an error and
// nothing is written). `reduction` combines an update with what is already there: none
// (replace), add, mul (opset 16), max, min (opset 18). Updates are applied in the order of
// the indices, so with duplicates and reduction none the last one wins.
//   ScatterElements: indices and updates have one shape, of data's rank; element i goes to
//     data[i with its `axis` coordinate replaced by indices[i]].
//   ScatterND: indices [..., k] (k <= rank of data) name slices data[i0..ik-1, :...];
//     updates has shape indices.shape[:-1] + data.shape[k:].
#pragma once
#include <algorithm>
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

inline Status parseScatterReduction(const Node& node, ScatterReduction* out) {
  const std::string r = node.attrs.getString("reduction", "none");
  if (r == "none") *out = ScatterReduction::kNone;
  else if (r == "add") *out = ScatterReduction::kAdd;
  else if (r == "mul") *out = ScatterReduction::kMul;
  else if (r == "max") *out = ScatterReduction::kMax;
  else if (r == "min") *out = ScatterReduction::kMin;
  else return Status::invalid(node.label() + ": reduction '" + r + "' is not none, add, mul, max or min");
  return Status::ok();
}

// dst <- reduction(dst, v).
template <ScatterReduction R, typename T>
inline void scatterCombine(T& dst, T v) {
  if constexpr (R == ScatterReduction::kNone) dst = v;
  else if constexpr (R == ScatterReduction::kAdd) dst = static_cast<T>(dst + v);
  else if constexpr (R == ScatterReduction::kMul) dst = static_cast<T>(dst * v);
  else if constexpr (R == ScatterReduction::kMax) dst = std::max(dst, v);
  else dst = std::min(dst, v);
}

struct ScatterElementsParams {
  int64_t axis = 0;
  ScatterReduction reduction = ScatterReduction::kNone;

  static Status parse(const Node& node, ScatterElementsParams* out) {
    out->axis = node.attrs.getInt("axis", 0);
    return parseScatterReduction(node, &out->reduction);
  }
};

struct ScatterNDParams {
  ScatterReduction reduction = ScatterReduction::kNone;

  static Status parse(const Node& node, ScatterNDParams* out) {
    return parseScatterReduction(node, &out->reduction);
  }
};

}  // namespace tessera
