#include "tools/onnx/FuseConvAdd.hpp"

#include "ops/Conv.hpp"
#include "ops/MatMul.hpp"
#include "ops/Resize.hpp"
#include "tools/onnx/GraphPass.hpp"
#include "tools/onnx/KnownShapes.hpp"

namespace tessera {
namespace {

// The index Z takes in a Conv, MatMul or Resize (opset 11 on) that has no Z and no fused
// activation yet; 0 for any other node.
size_t sumInputOf(const Node& n) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.attrs.has("activation") || n.attrs.has("activation_affine"))
    return 0;
  if (n.opType == "Conv" && n.inputs.size() <= kConvSumInput) return kConvSumInput;
  if (n.opType == "MatMul" && n.inputs.size() >= 2 && n.inputs.size() <= kMatMulResidualInput)
    return kMatMulResidualInput;
  if (n.opType == "Resize" && n.opset >= 11 && n.inputs.size() <= kResizeSumInput) return kResizeSumInput;
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
  // given. Or, for a feature pyramid's sums (a map upsampled from a coarser level plus the
  // lateral one), equal at two sets of sizes that are multiples of 64 and, at each of the two
  // sets above, equal, or of one rank and unequal in some dim where neither is 1 (the Add
  // cannot broadcast), or not known (a node before them failed its shape check at those sizes,
  // such as the pyramid's first sum): where they differ the graph fails, fused or not. A size
  // where they differ after all is a clear error at planning (Conv's, MatMul's and Resize's
  // shape functions check Z), not a wrong result.
  constexpr int64_t kProbes[2] = {67, 90};
  const auto shapesA = pass::knownShapes(g, kProbes[0]);
  const auto shapesB = pass::knownShapes(g, kProbes[1]);
  using Shapes = std::map<std::string, Shape>;
  Shapes alignedA, alignedB;  // computed at the first candidate that needs them
  auto find = [](const Shapes& shapes, const std::string& v) {
    auto it = shapes.find(v);
    return it == shapes.end() ? nullptr : &it->second;
  };
  auto sameShape = [&](const Shapes& shapes, const std::string& a, const std::string& b) {
    const Shape *as = find(shapes, a), *bs = find(shapes, b);
    return as && bs && *as == *bs;
  };
  // Equal, or the Add fails at these sizes: an operand unknown (a node before failed its shape
  // check) or, of one rank, a dim unequal where neither is 1.
  auto equalOrAddFails = [&](const Shapes& shapes, const std::string& a, const std::string& b) {
    const Shape *as = find(shapes, a), *bs = find(shapes, b);
    if (!as || !bs || *as == *bs) return true;
    if (as->size() != bs->size()) return false;
    for (size_t d = 0; d < as->size(); ++d)
      if ((*as)[d] != (*bs)[d] && (*as)[d] != 1 && (*bs)[d] != 1) return true;
    return false;
  };
  auto pyramidSum = [&](const std::string& a, const std::string& b) {
    if (!equalOrAddFails(shapesA, a, b) || !equalOrAddFails(shapesB, a, b)) return false;
    if (alignedA.empty()) {
      alignedA = pass::knownShapes(g, 320, 64);
      alignedB = pass::knownShapes(g, 576, 64);
    }
    return sameShape(alignedA, a, b) && sameShape(alignedB, a, b);
  };
  // Every candidate is judged on the graph as it came, then the fusions are made.
  std::vector<std::pair<size_t, int>> fusions;
  for (const auto& [i, side] : candidates) {
    const std::string& y = g.nodes[i].inputs[side];
    const std::string& z = g.nodes[i].inputs[1 - side];
    if ((sameShape(shapesA, y, z) && sameShape(shapesB, y, z)) || pyramidSum(y, z)) fusions.emplace_back(i, side);
  }
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (const auto& [i, side] : fusions) {
    const Node& add = g.nodes[i];
    const std::string& y = add.inputs[side];
    const std::string& z = add.inputs[1 - side];
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
