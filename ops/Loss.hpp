// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 13): the attributes they share
// and the semantics every backend follows.
//
// Scores or log-probabilities are [N, C, d1..dk]; targets [N, d1..dk] hold class indices
// (int32/int64); the optional weight is [C]. Per position, loss = -logp[n, target, d] *
// weight[target] (weight 1 when absent), and 0 with weight 0 where target == ignore_index.
// reduction "none" keeps the [N, d1..dk] losses; "sum" adds them; "mean" (the default)
// divides that sum by the sum of the weights used (so by the count of positions not ignored
// when there is no weight: 0/0 gives NaN when all are). A target outside [0, C) that is not
// ignore_index is an error. SoftmaxCrossEntropyLoss takes logp = log_softmax(scores, axis 1)
// and may also output it.
#pragma once
#include <string>

#include "tessera/Graph.hpp"
#include "tessera/Status.hpp"

namespace tessera {

struct LossParams {
  enum class Reduction { kNone, kSum, kMean };
  Reduction reduction = Reduction::kMean;
  bool hasIgnoreIndex = false;
  int64_t ignoreIndex = 0;

  static Status parse(const Node& node, LossParams* out) {
    const std::string r = node.attrs.getString("reduction", "mean");
    if (r == "none") out->reduction = Reduction::kNone;
    else if (r == "sum") out->reduction = Reduction::kSum;
    else if (r == "mean") out->reduction = Reduction::kMean;
    else return Status::invalid(node.label() + ": reduction '" + r + "' is not none, sum or mean");
    out->hasIgnoreIndex = node.attrs.has("ignore_index");
    out->ignoreIndex = node.attrs.getInt("ignore_index", 0);
    return Status::ok();
  }
};

}  // namespace tessera
