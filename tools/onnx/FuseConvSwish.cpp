#include "tools/onnx/FuseConvSwish.hpp"

#include "ops/FusedActivation.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {
int fuseConvSwish(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!pass::isOp(g.nodes[i], "Mul", 2)) continue;
    for (int side = 0; side < 2; ++side) {
      const Node& mul = g.nodes[i];
      const std::string& c = mul.inputs[1 - side];
      const std::string& s = mul.inputs[side];
      auto sp = made.find(s), cp = made.find(c);
      if (sp == made.end() || cp == made.end() || removed[sp->second] || !pass::readOnce(uses, s) || !pass::readTimes(uses, c, 2)) continue;
      const Node& sigmoid = g.nodes[sp->second];
      if (!pass::isOp(sigmoid, "Sigmoid", 1)) continue;
      // Sigmoid(c), or Sigmoid(c * k) with the scaled value read by the Sigmoid alone.
      float alpha = 1.f;
      long scaled = -1;
      if (sigmoid.inputs[0] != c) {
        auto kp = made.find(sigmoid.inputs[0]);
        if (kp == made.end() || !pass::readOnce(uses, sigmoid.inputs[0]) || !pass::isOp(g.nodes[kp->second], "Mul", 2)) continue;
        const Node& byK = g.nodes[kp->second];
        const int cSide = byK.inputs[0] == c ? 0 : byK.inputs[1] == c ? 1 : -1;
        if (cSide < 0 || !pass::scalarInitializer(g, byK.inputs[1 - cSide], &alpha)) continue;
        scaled = static_cast<long>(kp->second);
      }
      Node& conv = g.nodes[cp->second];
      if ((conv.opType != "Conv" && conv.opType != "MatMul") || !conv.domain.empty() || conv.outputs.size() != 1 ||
          conv.attrs.has("activation") ||
          conv.attrs.has("activation_affine"))
        continue;
      FusedActivation::set(&conv, "Swish", {alpha});
      conv.outputs[0] = mul.outputs[0];
      removed[i] = removed[sp->second] = true;
      if (scaled >= 0) removed[scaled] = true;
      ++count;
      break;
    }
  }
  // The constant k goes with its Mul when nothing else reads it.
  std::set<std::string> constants;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (removed[i])
      for (const std::string& in : g.nodes[i].inputs) constants.insert(in);
  if (count) pass::removeNodes(g, removed, constants);
  return count;
}

}  // namespace tessera
