#include "tools/onnx/FuseTransposeMatMul.hpp"

#include "ops/MatMul.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

// Whether `t` swaps the last two dims of its input and keeps the others (its rank known from
// perm; without perm only a rank-2 input, which `rank2` says, is such a swap).
bool swapsLastTwo(const Node& t, bool rank2) {
  if (!t.attrs.has("perm")) return rank2;
  const std::vector<int64_t> perm = t.attrs.getInts("perm");
  const int64_t r = static_cast<int64_t>(perm.size());
  if (r < 2 || perm[r - 1] != r - 2 || perm[r - 2] != r - 1) return false;
  for (int64_t d = 0; d + 2 < r; ++d)
    if (perm[d] != d) return false;
  return true;
}

}  // namespace

int fuseTransposeMatMul(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& mm = g.nodes[i];
    if (mm.opType != "MatMul" || !mm.domain.empty() || mm.inputs.size() < 2 || matMulTransB(mm)) continue;
    auto t = made.find(mm.inputs[1]);
    if (t == made.end() || removed[t->second] || !pass::readOnce(uses, mm.inputs[1])) continue;
    const Node& transpose = g.nodes[t->second];
    if (!pass::isOp(transpose, "Transpose", 1)) continue;
    // Without perm the rank must be known to be 2: a constant B says so.
    const Tensor* constant = pass::f32Initializer(g, transpose.inputs[0]);
    if (!swapsLastTwo(transpose, constant && constant->rank() == 2)) continue;
    mm.inputs[1] = transpose.inputs[0];
    mm.attrs.setInt("transB", 1);
    removed[t->second] = true;
    ++count;
  }
  if (count) pass::removeNodes(g, removed, {});
  return count;
}

}  // namespace tessera
