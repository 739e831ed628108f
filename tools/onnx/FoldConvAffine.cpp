#include "tools/onnx/FoldConvAffine.hpp"

#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

// The constant's value for each of `m` output channels of a rank-`rank` Conv output, or false.
bool perChannel(const Tensor* c, int64_t m, size_t rank, std::vector<float>* out) {
  if (!c) return false;
  const size_t cRank = static_cast<size_t>(c->rank());
  if (cRank > rank) return false;
  const int64_t n = c->elementCount();
  if (n != 1 && n != m) return false;
  if (n == m && m != 1) {  // right-aligned, the channel axis is at rank - c.rank
    if (rank - cRank > 1) return false;
    const size_t axis = 1 + cRank - rank;  // index of the output's axis 1 within c's shape
    for (size_t d = 0; d < cRank; ++d)
      if (c->dim(static_cast<int>(d)) != (d == axis ? m : 1)) return false;
  }
  out->resize(m);
  for (int64_t i = 0; i < m; ++i) (*out)[i] = c->data<float>()[n == 1 ? 0 : i];
  return true;
}

// Folds `op` (reading the Conv output, the other operand `constant`) into `conv`.
bool tryFold(Graph& g, Node& conv, const Node& op, const std::string& constant, bool convFirst) {
  const Tensor* w = pass::f32Initializer(g, conv.inputs[1]);
  if (!w || w->rank() < 3) return false;
  // ConvTranspose: W is [C, M/group, k...], and only a bias folds (a scale would go along
  // W's second axis).
  const bool transposed = conv.opType == "ConvTranspose";
  if (transposed && op.opType != "Add" && op.opType != "Sub") return false;
  const int64_t m = transposed ? w->dim(1) * conv.attrs.getInt("group", 1) : w->dim(0);
  if (m <= 0) return false;
  const bool hasBias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  const Tensor* b = hasBias ? pass::f32Initializer(g, conv.inputs[2]) : nullptr;
  if (hasBias && (!b || b->elementCount() != m)) return false;
  std::vector<float> k;
  if (!perChannel(pass::f32Initializer(g, constant), m, w->rank(), &k)) return false;
  const bool scale = op.opType == "Mul" || op.opType == "Div";
  if ((op.opType == "Sub" || op.opType == "Div") && !convFirst) return false;
  if (op.opType == "Div")
    for (float& v : k) {
      if (v == 0.f) return false;
      v = 1.f / v;
    }
  if (op.opType == "Sub")
    for (float& v : k) v = -v;

  Tensor newB = Tensor::hostAllocate({m}, DataType::kF32);
  for (int64_t i = 0; i < m; ++i) {
    const float bias = hasBias ? b->data<float>()[i] : 0.f;
    newB.data<float>()[i] = scale ? bias * k[i] : bias + k[i];
  }
  if (scale) {
    Tensor newW = Tensor::hostAllocate(w->shape(), DataType::kF32);
    const int64_t per = w->elementCount() / m;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < per; ++j) newW.data<float>()[i * per + j] = w->data<float>()[i * per + j] * k[i];
    conv.inputs[1] = pass::addInitializer(g, conv.inputs[1] + "_affine", std::move(newW));
  }
  conv.inputs.resize(3);
  conv.inputs[2] = pass::addInitializer(g, (hasBias ? conv.inputs[2] : conv.name + "_bias") + "_affine", std::move(newB));
  conv.outputs[0] = op.outputs[0];
  return true;
}

}  // namespace

int foldConvAffine(Graph* graph) {
  Graph& g = *graph;
  int total = 0;
  for (bool changed = true; changed;) {  // Conv -> Mul -> Add: one link per sweep
    changed = false;
    const auto uses = pass::consumerCounts(g);
    const auto made = pass::producers(g);
    std::vector<bool> removed(g.nodes.size(), false);
    std::set<std::string> maybeUnused;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& op = g.nodes[i];
      if (!op.domain.empty() || op.inputs.size() != 2 || op.outputs.size() != 1) continue;
      if (op.opType != "Mul" && op.opType != "Add" && op.opType != "Sub" && op.opType != "Div") continue;
      for (int side = 0; side < 2; ++side) {
        auto p = made.find(op.inputs[side]);
        if (p == made.end() || removed[p->second]) continue;
        Node& conv = g.nodes[p->second];
        if ((conv.opType != "Conv" && conv.opType != "ConvTranspose") || !conv.domain.empty() ||
            conv.outputs.size() != 1 || conv.inputs.size() < 2)
          continue;
        if (!pass::readOnce(uses, op.inputs[side])) continue;
        const std::vector<std::string> old(conv.inputs.begin() + 1, conv.inputs.end());
        if (!tryFold(g, conv, op, op.inputs[1 - side], side == 0)) continue;
        removed[i] = changed = true;
        maybeUnused.insert(old.begin(), old.end());
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
