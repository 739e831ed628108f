#include "tools/onnx/FuseConvActivation.hpp"

#include <limits>

#include "ops/FusedActivation.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

// The activation parameters of `act`, or false when it cannot be fused.
bool activationParams(const Graph& g, const Node& act, std::vector<float>* params) {
  const std::string& op = act.opType;
  if (op == "Relu" || op == "Sigmoid" || op == "HardSwish") return act.inputs.size() == 1;
  if (op == "LeakyRelu") {
    *params = {act.attrs.getFloat("alpha", 0.01f)};
    return act.inputs.size() == 1;
  }
  if (op == "HardSigmoid") {
    *params = {act.attrs.getFloat("alpha", 0.2f), act.attrs.getFloat("beta", 0.5f)};
    return act.inputs.size() == 1;
  }
  if (op == "Clip") {
    float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
    if (act.inputs.size() == 1) {  // before opset 11: attributes
      lo = act.attrs.getFloat("min", lo);
      hi = act.attrs.getFloat("max", hi);
    } else {
      if (act.inputs.size() > 1 && !act.inputs[1].empty() && !pass::scalarInitializer(g, act.inputs[1], &lo)) return false;
      if (act.inputs.size() > 2 && !act.inputs[2].empty() && !pass::scalarInitializer(g, act.inputs[2], &hi)) return false;
    }
    *params = {lo, hi};
    return true;
  }
  return false;
}

}  // namespace

int fuseConvActivation(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> maybeUnused;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& act = g.nodes[i];
    if (!act.domain.empty() || act.inputs.empty() || act.outputs.size() != 1) continue;
    auto p = made.find(act.inputs[0]);
    if (p == made.end()) continue;
    Node& conv = g.nodes[p->second];
    if (!pass::takesActivation(conv)) continue;
    if (!pass::readOnce(uses, act.inputs[0])) continue;
    std::vector<float> params;
    if (!activationParams(g, act, &params)) continue;
    FusedActivation::set(&conv, act.opType, params);
    conv.outputs[0] = act.outputs[0];
    for (size_t k = 1; k < act.inputs.size(); ++k) maybeUnused.insert(act.inputs[k]);
    removed[i] = true;
    ++count;
  }
  if (count) {
    maybeUnused.erase("");
    pass::removeNodes(g, removed, maybeUnused);
  }
  return count;
}

}  // namespace tessera
