#include "tools/onnx/FuseMatMulScale.hpp"

#include "ops/MatMul.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {

int fuseMatMulScale(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> scales;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& mm = g.nodes[i];
    if (mm.opType != "MatMul" || !mm.domain.empty() || mm.inputs.size() < 2) continue;
    for (size_t operand = 0; operand < 2; ++operand) {
      auto p = made.find(mm.inputs[operand]);
      if (p == made.end() || removed[p->second] || !pass::readOnce(uses, mm.inputs[operand])) continue;
      const Node& mul = g.nodes[p->second];
      if (!pass::isOp(mul, "Mul", 2)) continue;
      for (int side = 0; side < 2; ++side) {
        const Tensor* k = pass::f32Initializer(g, mul.inputs[side]);
        if (!k || k->elementCount() != 1 || k->rank() > 1) continue;
        mm.attrs.setFloat("alpha", matMulAlpha(mm) * k->data<float>()[0]);
        mm.inputs[operand] = mul.inputs[1 - side];
        scales.insert(mul.inputs[side]);
        removed[p->second] = true;
        ++count;
        break;
      }
    }
  }
  if (count) pass::removeNodes(g, removed, scales);
  return count;
}

}  // namespace tessera
