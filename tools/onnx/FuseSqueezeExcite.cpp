#include "tools/onnx/FuseSqueezeExcite.hpp"

#include "ops/SqueezeExcite.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

// A Conv that maps a pooled [N, Cin, 1, 1] to [N, Cout, 1, 1] with constant weights: its
// weight tensor, or nullptr when `conv` is anything else.
// A hidden conv (`hidden`) has no activation_affine; the gate's may (FuseResidualScale's
// residual).
const Tensor* pooledConvWeights(const Graph& g, const Node& conv, bool hidden) {
  if (conv.opType != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 || conv.inputs.size() < 2 ||
      conv.inputs.size() > 3)
    return nullptr;
  const Tensor* w = pass::f32Initializer(g, conv.inputs[1]);
  if (!w || w->rank() != 4 || w->dim(2) != 1 || w->dim(3) != 1) return nullptr;
  if (w->dim(0) > SqueezeExciteParams::kMaxChannels || w->dim(1) > SqueezeExciteParams::kMaxChannels) return nullptr;
  if (conv.inputs.size() == 3 && !conv.inputs[2].empty()) {
    const Tensor* b = pass::f32Initializer(g, conv.inputs[2]);
    if (!b || b->rank() != 1 || b->dim(0) != w->dim(0)) return nullptr;
  }
  if (conv.attrs.getInt("group", 1) != 1 || (hidden && conv.attrs.has("activation_affine"))) return nullptr;
  for (int64_t p : conv.attrs.getInts("pads"))
    if (p != 0) return nullptr;
  const std::string autoPad = conv.attrs.getString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID") return nullptr;
  FusedActivation a;
  if (!FusedActivation::parse(conv, &a).isOk()) return nullptr;
  return w;
}

// The conv's activation attributes on `to`, under `prefix`.
void copyActivation(const Node& conv, Node* to, const std::string& prefix) {
  if (conv.attrs.has("activation")) to->attrs.setString(prefix + "activation", conv.attrs.getString("activation", ""));
  for (const char* floats : {"activation_params", "activation_affine"})
    if (conv.attrs.has(floats)) to->attrs.setFloats(prefix + floats, conv.attrs.getFloats(floats));
}

}  // namespace

int fuseSqueezeExcite(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!pass::isOp(g.nodes[i], "Mul", 2)) continue;
    for (int side = 0; side < 2; ++side) {
      const Node& mul = g.nodes[i];
      const std::string& x = mul.inputs[1 - side];
      const std::string& s = mul.inputs[side];
      auto excite = made.find(s);
      if (excite == made.end() || removed[excite->second] || !pass::readOnce(uses, s)) continue;
      const Node& conv2 = g.nodes[excite->second];
      const Tensor* w2 = pooledConvWeights(g, conv2, false);
      if (!w2) continue;
      auto squeeze = made.find(conv2.inputs[0]);
      if (squeeze == made.end() || removed[squeeze->second] || !pass::readOnce(uses, conv2.inputs[0])) continue;
      const Node& conv1 = g.nodes[squeeze->second];
      const Tensor* w1 = pooledConvWeights(g, conv1, true);
      if (!w1 || w1->dim(0) != w2->dim(1) || w1->dim(1) != w2->dim(0)) continue;
      auto pool = made.find(conv1.inputs[0]);
      if (pool == made.end() || !pass::isOp(g.nodes[pool->second], "GlobalAveragePool", 1) ||
          g.nodes[pool->second].inputs[0] != x)
        continue;
      // A pool read by this block alone goes too: the op then takes X's means itself.
      const bool poolToo = pass::readOnce(uses, conv1.inputs[0]);
      Node se;
      se.opType = "SqueezeExcite";
      se.name = mul.name;
      se.inputs = {x, poolToo ? "" : conv1.inputs[0], conv1.inputs[1], conv1.inputs.size() == 3 ? conv1.inputs[2] : "",
                   conv2.inputs[1], conv2.inputs.size() == 3 ? conv2.inputs[2] : ""};
      se.outputs = {mul.outputs[0]};
      copyActivation(conv1, &se, "hidden_");
      copyActivation(conv2, &se, "");
      removed[excite->second] = removed[squeeze->second] = true;
      if (poolToo) removed[pool->second] = true;
      g.nodes[i] = std::move(se);  // the Mul's place: every input exists before it
      ++count;
      break;
    }
  }
  if (count) pass::removeNodes(g, removed, {});
  return count;
}

}  // namespace tessera
