#include "tools/onnx/KnownShapes.hpp"

#include "tessera/Registry.hpp"

namespace tessera {
namespace pass {

std::map<std::string, Shape> knownShapes(const Graph& g, int64_t probe) {
  // Values as the shape functions see them: initializers with their data (a Reshape target),
  // everything else a shape and dtype without data, as during planning.
  std::map<std::string, Tensor> values;
  for (const auto& kv : g.initializers) values[kv.first] = kv.second;
  int64_t dynamicDims = 0;
  for (const ValueInfo& in : g.inputs) {
    if (!in.hasShape) continue;
    Shape dims(in.dims.begin(), in.dims.end());
    bool known = true;
    for (int64_t& d : dims) {
      if (d < 0 && probe > 0) d = probe + 6 * dynamicDims++;
      known = known && d >= 0;
    }
    if (known) values[in.name] = Tensor(dims, in.dtype);
  }
  for (const Node& node : g.nodes) {
    std::vector<const Tensor*> inputs;
    bool known = true;
    for (const std::string& name : node.inputs) {
      if (name.empty()) { inputs.push_back(nullptr); continue; }
      auto it = values.find(name);
      known = known && it != values.end();
      inputs.push_back(known ? &it->second : nullptr);
    }
    const ShapeFunction* fn = ShapeRegistry::instance().find(node.domain, node.opType, node.opset);
    if (!known || !fn || node.hasSubgraphs()) continue;
    std::vector<Tensor> outs(node.outputs.size());
    ShapeContext ctx{node, inputs, outs, Tensor()};
    if (!(*fn)(ctx).isOk() || ctx.shapesFromValues) continue;
    for (size_t i = 0; i < outs.size(); ++i)
      if (!node.outputs[i].empty()) values[node.outputs[i]] = outs[i];
  }
  std::map<std::string, Shape> shapes;
  for (const auto& kv : values) shapes[kv.first] = kv.second.shape();
  return shapes;
}

}  // namespace pass
}  // namespace tessera
