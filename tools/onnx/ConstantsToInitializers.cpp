#include "tools/onnx/ConstantsToInitializers.hpp"

#include "ops/Constant.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {

int constantsToInitializers(Graph* graph) {
  Graph& g = *graph;
  std::set<std::string> outputs;
  for (const ValueInfo& o : g.outputs) outputs.insert(o.name);
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.opType != "Constant" || !n.domain.empty() || n.outputs.size() != 1 || n.outputs[0].empty()) continue;
    if (outputs.count(n.outputs[0]) || g.initializers.count(n.outputs[0])) continue;
    ConstantParams p;
    if (!ConstantParams::parse(n, &p).isOk()) continue;  // left for the Session to report
    p.value.setName(n.outputs[0]);
    p.value.setConstant(true);
    g.initializers[n.outputs[0]] = std::move(p.value);
    removed[i] = true;
    ++count;
  }
  if (count) pass::removeNodes(g, removed, {});
  return count;
}

}  // namespace tessera
