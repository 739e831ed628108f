#include "tools/onnx/FuseResidualScale.hpp"

#include "tools/onnx/GraphPass.hpp"

namespace tessera {
int fuseResidualScale(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!pass::isOp(g.nodes[i], "Add", 2)) continue;
    for (int side = 0; side < 2; ++side) {
      const Node& add = g.nodes[i];
      const std::string& x = add.inputs[1 - side];
      auto m = made.find(add.inputs[side]);
      if (m == made.end() || removed[m->second] || !pass::readOnce(uses, add.inputs[side]) || !pass::isOp(g.nodes[m->second], "Mul", 2))
        continue;
      const Node& mul = g.nodes[m->second];
      const int xSide = mul.inputs[0] == x ? 0 : mul.inputs[1] == x ? 1 : -1;
      if (xSide < 0 || mul.inputs[1 - xSide] == x) continue;
      const std::string& s = mul.inputs[1 - xSide];
      auto c = made.find(s);
      if (c == made.end() || !pass::readOnce(uses, s)) continue;
      Node& conv = g.nodes[c->second];
      if (conv.opType != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 || !conv.attrs.has("activation"))
        continue;
      std::vector<float> affine = conv.attrs.getFloats("activation_affine");
      if (affine.size() != 2) affine = {1.f, 0.f};
      affine[1] += 1.f;
      conv.attrs.setFloats("activation_affine", affine);
      // The Mul takes the Add's place (after x and s are made) and its output.
      Node scaled = mul;
      scaled.outputs[0] = add.outputs[0];
      removed[m->second] = true;
      g.nodes[i] = std::move(scaled);
      ++count;
      break;
    }
  }
  if (count) pass::removeNodes(g, removed, {});
  return count;
}

}  // namespace tessera
