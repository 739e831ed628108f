#include "tools/onnx/FuseMatMulBias.hpp"

#include "ops/MatMul.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {

int fuseMatMulBias(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> biases;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& add = g.nodes[i];
    if (!pass::isOp(add, "Add", 2)) continue;
    for (int side = 0; side < 2; ++side) {
      const std::string& product = add.inputs[side];
      const std::string& biasName = add.inputs[1 - side];
      auto p = made.find(product);
      if (p == made.end() || removed[p->second] || !pass::readOnce(uses, product)) continue;
      const Node& mm = g.nodes[p->second];
      if (!pass::isOp(mm, "MatMul", 2)) continue;
      const Tensor* b = pass::f32Initializer(g, mm.inputs[1]);
      const Tensor* bias = pass::f32Initializer(g, biasName);
      // At most rank(B) - 1 dims: a 1-D A drops a dim from the product, which [1, N] would add back.
      if (!b || !bias || b->rank() < 2 || bias->rank() < 1 || bias->rank() > b->rank() - 1) continue;
      const int64_t N = b->dim(b->rank() - 1);
      bool vector = bias->dim(bias->rank() - 1) == N;
      for (int d = 0; d + 1 < bias->rank(); ++d) vector = vector && bias->dim(d) == 1;
      if (!vector) continue;
      Node fused = mm;  // takes the Add's place: A, B and the bias exist before it
      fused.inputs.push_back(pass::addFlattenedInitializer(g, biasName));
      fused.outputs[0] = add.outputs[0];
      biases.insert(biasName);
      removed[p->second] = true;
      g.nodes[i] = std::move(fused);
      ++count;
      break;
    }
  }
  if (count) pass::removeNodes(g, removed, biases);
  return count;
}

}  // namespace tessera
