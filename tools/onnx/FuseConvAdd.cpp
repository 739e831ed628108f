#include "tools/onnx/FuseConvAdd.hpp"

#include "ops/Conv.hpp"
#include "ops/MatMul.hpp"
#include "tools/onnx/GraphPass.hpp"
#include "tools/onnx/KnownShapes.hpp"

namespace tessera {
namespace {

// The index Z takes in a Conv or MatMul that has no Z and no fused activation yet; 0 for
// any other node.
size_t sumInputOf(const Node& n) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.attrs.has("activation") || n.attrs.has("activation_affine"))
    return 0;
  if (n.opType == "Conv" && n.inputs.size() <= kConvSumInput) return kConvSumInput;
  if (n.opType == "MatMul" && n.inputs.size() >= 2 && n.inputs.size() <= kMatMulResidualInput)
    return kMatMulResidualInput;
  return 0;
}

}  // namespace

int fuseConvAdd(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  // (Add index, side of its Conv operand) for each structural match; shapes are checked
  // below, and only computed when there is a candidate.
  std::vector<std::pair<size_t, int>> candidates;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& add = g.nodes[i];
    if (add.opType != "Add" || !add.domain.empty() || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      auto p = made.find(add.inputs[side]);
      if (p == made.end() || !pass::readOnce(uses, add.inputs[side]) || !sumInputOf(g.nodes[p->second])) continue;
      candidates.emplace_back(i, side);
      break;
    }
  }
  if (candidates.empty()) return 0;
  // Y and Z must have one shape for every input size (else the Add broadcasts, which Z does
  // not): equal with the inputs' dynamic dims at two sets of sizes unlike in parity and
  // modulo 3 (a rounded size, e.g. stride 2 then 2x upsampling, matches the input's only at
  // some; each dim its own size, so H and W swapped differ), or equal when every dim is
  // given. A size where they differ after all is a clear error
  // at planning (Conv's and MatMul's shape functions check Z), not a wrong result.
  constexpr int64_t kProbes[2] = {67, 90};
  const auto shapesA = pass::knownShapes(g, kProbes[0]);
  const auto shapesB = pass::knownShapes(g, kProbes[1]);
  auto sameShape = [](const std::map<std::string, Shape>& shapes, const std::string& a, const std::string& b) {
    auto as = shapes.find(a), bs = shapes.find(b);
    return as != shapes.end() && bs != shapes.end() && as->second == bs->second;
  };
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (const auto& [i, side] : candidates) {
    const Node& add = g.nodes[i];
    const std::string& y = add.inputs[side];
    const std::string& z = add.inputs[1 - side];
    if (!sameShape(shapesA, y, z) || !sameShape(shapesB, y, z)) continue;
    // The fused node takes the Add's place, after both operands are made (topological order).
    const size_t c = made.at(y);
    Node fused = g.nodes[c];
    fused.inputs.resize(sumInputOf(fused), "");  // no bias: ""
    fused.inputs.push_back(z);
    fused.outputs[0] = add.outputs[0];
    g.nodes[i] = std::move(fused);
    removed[c] = true;
    ++count;
  }
  if (count) pass::removeNodes(g, removed, {});
  return count;
}

}  // namespace tessera
