#include "tools/onnx/FuseLayerNorm.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "tools/onnx/GraphPass.hpp"
#include "tools/onnx/KnownShapes.hpp"

namespace tessera {
namespace {

// A ReduceMean over the last axis only, keeping dims (axes as attribute, or opset 18's input).
bool meanOfLastAxis(const Graph& g, const Node& n) {
  if (n.opType != "ReduceMean" || !n.domain.empty() || n.outputs.size() != 1 || n.inputs.empty()) return false;
  if (n.attrs.getInt("keepdims", 1) != 1) return false;
  std::vector<int64_t> axes = n.attrs.getInts("axes");
  if (n.inputs.size() == 2) {
    const Tensor* t = g.initializers.count(n.inputs[1]) ? &g.initializers.at(n.inputs[1]) : nullptr;
    if (!t || t->dtype() != DataType::kI64 || t->elementCount() != 1 || !t->data()) return false;
    axes = {t->data<int64_t>()[0]};
  } else if (n.inputs.size() != 1) {
    return false;
  }
  return axes.size() == 1 && axes[0] == -1;
}

// The other operand of binary `n` when one of them is `v`.
std::optional<std::string> otherOperand(const Node& n, const std::string& v) {
  if (n.inputs.size() != 2) return std::nullopt;
  if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
  if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
  return std::nullopt;
}

// gamma or beta: an f32 constant of `size` elements along its last dim (ones before it).
bool lastDimVector(const Graph& g, const std::string& name, int64_t* size) {
  const Tensor* t = pass::f32Initializer(g, name);
  if (!t || t->rank() < 1) return false;
  for (int64_t d = 0; d + 1 < t->rank(); ++d)
    if (t->dim(d) != 1) return false;
  *size = t->dim(t->rank() - 1);
  return true;
}

}  // namespace

int fuseLayerNorm(Graph* graph) {
  Graph& g = *graph;
  const auto uses = pass::consumerCounts(g);
  const auto readers = pass::readers(g);
  auto next = [&](const std::string& v) { return pass::soleReader(uses, readers, v); };
  struct Match {
    std::vector<size_t> nodes;  // the pattern's nodes, the last one replaced by the fused node
    std::string x, gamma, beta, y;
    float eps = 0;
    int64_t size = 0;
  };
  std::vector<Match> matches;
  std::vector<bool> taken(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (taken[i] || !meanOfLastAxis(g, g.nodes[i])) continue;
    Match m;
    m.x = g.nodes[i].inputs[0];
    const long sub = next(g.nodes[i].outputs[0]);
    if (sub < 0 || !pass::isOp(g.nodes[sub], "Sub", 2) || g.nodes[sub].inputs[0] != m.x) continue;
    const std::string d = g.nodes[sub].outputs[0];
    // d is read by the square (Pow(d, 2) or d * d) and by the Div, and nothing else.
    auto dr = readers.find(d);
    if (dr == readers.end()) continue;
    long square = -1, div = -1;
    for (size_t r : dr->second) {
      const Node& n = g.nodes[r];
      float two = 0;
      if (pass::isOp(n, "Pow", 2) && n.inputs[0] == d && pass::scalarInitializer(g, n.inputs[1], &two) && two == 2.f) square = r;
      else if (pass::isOp(n, "Mul", 2) && n.inputs[0] == d && n.inputs[1] == d) square = r;
      else if (pass::isOp(n, "Div", 2) && n.inputs[0] == d && n.inputs[1] != d) div = r;
    }
    const int squareReads = square >= 0 && g.nodes[square].opType == "Mul" ? 2 : 1;
    if (square < 0 || div < 0 || !pass::readTimes(uses, d, squareReads + 1)) continue;
    const long mean2 = next(g.nodes[square].outputs[0]);
    if (mean2 < 0 || !meanOfLastAxis(g, g.nodes[mean2]) || g.nodes[mean2].inputs[0] != g.nodes[square].outputs[0]) continue;
    const long addEps = next(g.nodes[mean2].outputs[0]);
    if (addEps < 0 || !pass::isOp(g.nodes[addEps], "Add", 2)) continue;
    const auto eps = otherOperand(g.nodes[addEps], g.nodes[mean2].outputs[0]);
    if (!eps || !pass::scalarInitializer(g, *eps, &m.eps)) continue;
    const long root = next(g.nodes[addEps].outputs[0]);
    if (root < 0 || !pass::isOp(g.nodes[root], "Sqrt", 1) || next(g.nodes[root].outputs[0]) != div) continue;
    const long scale = next(g.nodes[div].outputs[0]);
    if (scale < 0 || !pass::isOp(g.nodes[scale], "Mul", 2)) continue;
    const auto gamma = otherOperand(g.nodes[scale], g.nodes[div].outputs[0]);
    if (!gamma || !lastDimVector(g, *gamma, &m.size)) continue;
    m.gamma = *gamma;
    m.nodes = {i, static_cast<size_t>(sub), static_cast<size_t>(square), static_cast<size_t>(mean2),
               static_cast<size_t>(addEps), static_cast<size_t>(root), static_cast<size_t>(div),
               static_cast<size_t>(scale)};
    m.y = g.nodes[scale].outputs[0];
    const long shift = next(m.y);
    int64_t betaSize = 0;
    if (shift >= 0 && pass::isOp(g.nodes[shift], "Add", 2)) {
      const auto beta = otherOperand(g.nodes[shift], m.y);
      if (beta && lastDimVector(g, *beta, &betaSize) && betaSize == m.size) {
        m.beta = *beta;
        m.nodes.push_back(static_cast<size_t>(shift));
        m.y = g.nodes[shift].outputs[0];
      }
    }
    bool free = true;
    for (size_t n : m.nodes) free = free && !taken[n];
    if (!free) continue;
    for (size_t n : m.nodes) taken[n] = true;
    matches.push_back(m);
  }
  if (matches.empty()) return 0;
  // gamma and beta must not broadcast x. Where x's shape is known (under both probes, as
  // FuseConvAdd checks its operands) its last dim must be their size and its rank at least
  // theirs (PP-OCRv4 rec's come from Reshapes of shapes computed from its input's, known since
  // KnownShapes computes small values). Where it is not (a shape from run-time values), they
  // must be 1-D: then only an x whose last dim is not their size could differ, and there the
  // unfused graph broadcasts or fails while LayerNormalization fails with a clear shape error.
  const auto shapesA = pass::knownShapes(g, 67), shapesB = pass::knownShapes(g, 90);
  auto fits = [&](const Match& m) {
    const int64_t rank = std::max(g.initializers.at(m.gamma).rank(), m.beta.empty() ? 0 : g.initializers.at(m.beta).rank());
    for (const auto* shapes : {&shapesA, &shapesB}) {
      auto s = shapes->find(m.x);
      if (s == shapes->end()) return rank == 1;
      if (s->second.empty() || s->second.back() != m.size || static_cast<int64_t>(s->second.size()) < rank) return false;
    }
    return true;
  };
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> dropped;
  int count = 0;
  for (const Match& m : matches) {
    if (!fits(m)) continue;
    Node ln;
    ln.name = g.nodes[m.nodes[0]].name + "/LayerNormalization";
    ln.opType = "LayerNormalization";
    ln.opset = 17;
    ln.inputs = {m.x, pass::addFlattenedInitializer(g, m.gamma)};  // [1, ..., size] -> [size]
    if (!m.beta.empty()) ln.inputs.push_back(pass::addFlattenedInitializer(g, m.beta));
    ln.outputs = {m.y};
    ln.attrs.setInt("axis", -1);
    ln.attrs.setFloat("epsilon", m.eps);
    for (size_t n : m.nodes) removed[n] = true;
    for (size_t n : m.nodes)
      for (const std::string& in : g.nodes[n].inputs) dropped.insert(in);
    // The fused node takes the last node's place: x and the constants exist before it.
    removed[m.nodes.back()] = false;
    g.nodes[m.nodes.back()] = std::move(ln);
    ++count;
  }
  if (count) pass::removeNodes(g, removed, dropped);
  return count;
}

}  // namespace tessera
