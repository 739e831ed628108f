#include "tools/onnx/FuseMatMulScale.hpp"

#include <cmath>

#include "ops/MatMul.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {

namespace {

// The value of `name` if it is an f32 initializer of one element and rank 0 or 1.
bool scalarConstant(const Graph& g, const std::string& name, float* k) {
  const Tensor* t = pass::f32Initializer(g, name);
  if (!t || t->elementCount() != 1 || t->rank() > 1) return false;
  *k = t->data<float>()[0];
  return true;
}

// What a scaling node multiplies its other operand by: Mul(x, k) or Mul(k, x) k, Div(x, k)
// 1 / k (k finite and not 0); `side` is k's input. False for anything else.
bool scaleOf(const Graph& g, const Node& n, int side, float* k) {
  if (pass::isOp(n, "Mul", 2)) return scalarConstant(g, n.inputs[side], k);
  if (!pass::isOp(n, "Div", 2) || side != 1 || !scalarConstant(g, n.inputs[1], k)) return false;
  if (*k == 0.f || !std::isfinite(*k)) return false;
  *k = 1.f / *k;
  return true;
}

}  // namespace

int fuseMatMulScale(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto made = pass::producers(g);
  const auto readers = pass::readers(g);
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> scales;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& mm = g.nodes[i];
    if (mm.opType != "MatMul" || !mm.domain.empty() || mm.inputs.size() < 2) continue;
    for (size_t operand = 0; operand < 2; ++operand) {
      auto p = made.find(mm.inputs[operand]);
      if (p == made.end() || removed[p->second] || !pass::readOnce(uses, mm.inputs[operand])) continue;
      const Node& scaling = g.nodes[p->second];
      for (int side = 0; side < 2; ++side) {
        float k;
        if (!scaleOf(g, scaling, side, &k)) continue;
        mm.attrs.setFloat("alpha", matMulAlpha(mm) * k);
        mm.inputs[operand] = scaling.inputs[1 - side];
        scales.insert(scaling.inputs[side]);
        removed[p->second] = true;
        ++count;
        break;
      }
    }
    // The product scaled, (A @ B) * k or / k (an attention's scores scaled after the product), when
    // there is no bias (alpha would leave it unscaled) and no activation yet.
    if (mm.inputs.size() != 2 || mm.outputs.size() != 1 || mm.attrs.has("activation")) continue;
    const long r = pass::soleReader(uses, readers, mm.outputs[0]);
    if (r < 0 || removed[r]) continue;
    const Node& scaling = g.nodes[r];
    const int side = scaling.inputs[0] == mm.outputs[0] ? 1 : 0;
    float k;
    if (scaling.inputs.size() != 2 || scaling.inputs[1 - side] != mm.outputs[0] || !scaleOf(g, scaling, side, &k)) continue;
    mm.attrs.setFloat("alpha", matMulAlpha(mm) * k);
    mm.outputs[0] = scaling.outputs[0];
    scales.insert(scaling.inputs[side]);
    removed[r] = true;
    ++count;
  }
  if (count) pass::removeNodes(g, removed, scales);
  return count;
}

}  // namespace tessera
