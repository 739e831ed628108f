#include "tools/onnx/FuseActivationAffine.hpp"

#include "ops/FusedActivation.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

// (scale, shift) after `op` with constant operand `k` on side `constSide` of it: y = op(x, k)
// applied to x = scale * a + shift. False when the op is not affine in x this way.
bool compose(const std::string& op, float k, int constSide, float* scale, float* shift) {
  if (op == "Mul") {
    *scale *= k;
    *shift *= k;
  } else if (op == "Div" && constSide == 1 && k != 0.f) {
    *scale /= k;
    *shift /= k;
  } else if (op == "Add") {
    *shift += k;
  } else if (op == "Sub" && constSide == 1) {
    *shift -= k;
  } else {
    return false;
  }
  return true;
}

// A one-element constant that cannot raise the rank of the Conv's output (which has the rank
// of its weights, at least 3) under broadcasting.
bool scalarConstant(const Graph& g, const Node& conv, const std::string& name, float* value) {
  const Tensor* c = pass::f32Initializer(g, name);
  if (!c || !pass::scalarInitializer(g, name, value)) return false;
  const Tensor* w = pass::f32Initializer(g, conv.inputs[1]);
  return c->rank() <= (w ? w->rank() : 3);
}

}  // namespace

int fuseActivationAffine(Graph* graph) {
  Graph& g = *graph;
  int total = 0;
  for (bool changed = true; changed;) {
    changed = false;
    const auto uses = pass::consumerCounts(g);
    const auto made = pass::producers(g);
    std::vector<bool> removed(g.nodes.size(), false);
    std::set<std::string> maybeUnused;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& op = g.nodes[i];
      if (!op.domain.empty() || op.inputs.size() != 2 || op.outputs.size() != 1) continue;
      for (int side = 0; side < 2; ++side) {
        auto p = made.find(op.inputs[side]);
        if (p == made.end() || removed[p->second]) continue;
        Node& conv = g.nodes[p->second];
        if (conv.opType != "Conv" || !conv.domain.empty() || conv.inputs.size() < 2 || conv.outputs.size() != 1 ||
            !conv.attrs.has("activation"))
          continue;
        float k = 0.f;
        if (!pass::readOnce(uses, op.inputs[side]) || !scalarConstant(g, conv, op.inputs[1 - side], &k)) continue;
        std::vector<float> affine = conv.attrs.getFloats("activation_affine");
        if (affine.size() != 2) affine = {1.f, 0.f};
        if (!compose(op.opType, k, 1 - side, &affine[0], &affine[1])) continue;
        conv.attrs.setFloats("activation_affine", affine);
        conv.outputs[0] = op.outputs[0];
        removed[i] = changed = true;
        maybeUnused.insert(op.inputs[1 - side]);
        ++total;
        break;
      }
    }
    if (changed) pass::removeNodes(g, removed, maybeUnused);
  }
  return total;
}

}  // namespace tessera
