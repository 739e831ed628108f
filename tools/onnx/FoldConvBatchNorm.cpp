// Conv or ConvTranspose + BatchNormalization folding (see FoldConvBatchNorm.hpp for the algebra). Every
// condition is checked before anything changes, so a pattern that does not fit is left as is.
#include "tools/onnx/FoldConvBatchNorm.hpp"

#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

using pass::f32Initializer;
using pass::freshName;

bool isVectorOf(const Tensor* t, int64_t n) {
  return t && t->rank() == 1 && t->dim(0) == n;
}

// The fold for one Conv/BN pair; false (and no change) when the pair does not qualify.
bool tryFold(Graph& g, Node& conv, const Node& bn) {
  if (bn.inputs.size() != 5 || conv.inputs.size() < 2 || conv.outputs.size() != 1) return false;
  // Extra BN outputs (running mean/var) exist only in training mode.
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    if (!bn.outputs[i].empty()) return false;
  }
  if (bn.attrs.getInt("training_mode", 0) != 0) return false;
  if (bn.outputs.empty() || bn.outputs[0].empty()) return false;

  const Tensor* w = f32Initializer(g, conv.inputs[1]);
  if (!w || w->rank() < 3) return false;
  // Output channel m's weights: Conv's W is [M, C/group, k...], so W[m] is contiguous;
  // ConvTranspose's is [C, M/group, k...], so m = group * (M/group) + j is W[c][j] for each
  // input channel c of that group.
  const bool transposed = conv.opType == "ConvTranspose";
  const int64_t group = conv.attrs.getInt("group", 1);
  if (group < 1 || (transposed && w->dim(0) % group != 0)) return false;
  const int64_t m = transposed ? w->dim(1) * group : w->dim(0);
  const bool hasBias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  const Tensor* b = hasBias ? f32Initializer(g, conv.inputs[2]) : nullptr;
  if (hasBias && !isVectorOf(b, m)) return false;
  const Tensor* scale = f32Initializer(g, bn.inputs[1]);
  const Tensor* shift = f32Initializer(g, bn.inputs[2]);
  const Tensor* mean = f32Initializer(g, bn.inputs[3]);
  const Tensor* var = f32Initializer(g, bn.inputs[4]);
  if (!isVectorOf(scale, m) || !isVectorOf(shift, m) || !isVectorOf(mean, m) ||
      !isVectorOf(var, m)) {
    return false;
  }
  const double eps = bn.attrs.getFloat("epsilon", 1e-5f);

  Tensor newW = Tensor::hostAllocate(w->shape(), DataType::kF32);
  Tensor newB = Tensor::hostAllocate({m}, DataType::kF32);
  std::vector<double> s(static_cast<size_t>(m));
  for (int64_t c = 0; c < m; ++c) {
    s[c] = scale->data<float>()[c] / std::sqrt(double(var->data<float>()[c]) + eps);
    const double bias = hasBias ? b->data<float>()[c] : 0.0;
    newB.data<float>()[c] =
        static_cast<float>((bias - mean->data<float>()[c]) * s[c] + shift->data<float>()[c]);
  }
  const float* src = w->data<float>();
  float* dst = newW.data<float>();
  if (!transposed) {
    const int64_t perChannel = w->elementCount() / (m ? m : 1);
    for (int64_t k = 0; k < w->elementCount(); ++k) dst[k] = static_cast<float>(src[k] * s[k / perChannel]);
  } else {
    const int64_t C = w->dim(0), mg = w->dim(1), taps = w->elementCount() / (C * mg);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t j = 0; j < mg; ++j)
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t k = (c * mg + j) * taps + t;
          dst[k] = static_cast<float>(src[k] * s[(c / (C / group)) * mg + j]);
        }
  }

  // New names: the originals may be shared with other nodes.
  const std::string wName = freshName(g, conv.inputs[1] + "_bn_folded");
  const std::string bName =
      freshName(g, (hasBias ? conv.inputs[2] : conv.name + "_bias") + "_bn_folded");
  newW.setName(wName);
  newW.setConstant(true);
  newB.setName(bName);
  newB.setConstant(true);
  g.initializers[wName] = std::move(newW);
  g.initializers[bName] = std::move(newB);
  conv.inputs.resize(3);
  conv.inputs[1] = wName;
  conv.inputs[2] = bName;
  conv.outputs[0] = bn.outputs[0];
  return true;
}

}  // namespace

Status foldConvBatchNorm(Graph* graph, int* folded) {
  Graph& g = *graph;
  int count = 0;
  const auto uses = pass::consumerCounts(g);
  const auto producer = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> maybeUnused;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& bn = g.nodes[i];
    if (bn.opType != "BatchNormalization" || !bn.domain.empty() || bn.inputs.empty()) continue;
    auto p = producer.find(bn.inputs[0]);
    if (p == producer.end() || removed[p->second]) continue;
    Node& conv = g.nodes[p->second];
    if ((conv.opType != "Conv" && conv.opType != "ConvTranspose") || !conv.domain.empty()) continue;
    // The Conv output must feed this BN alone (one use, and not a graph output).
    if (!pass::readOnce(uses, bn.inputs[0])) continue;
    std::vector<std::string> oldInputs(conv.inputs.begin() + 1, conv.inputs.end());
    oldInputs.insert(oldInputs.end(), bn.inputs.begin() + 1, bn.inputs.end());
    if (!tryFold(g, conv, bn)) continue;
    removed[i] = true;
    maybeUnused.insert(oldInputs.begin(), oldInputs.end());
    ++count;
  }
  if (count > 0) pass::removeNodes(g, removed, maybeUnused);
  if (folded) *folded = count;
  return Status::ok();
}

}  // namespace tessera
