#include "tools/onnx/FuseConvGelu.hpp"

#include <cmath>

#include "ops/FusedActivation.hpp"
#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

struct Matcher {
  const Graph& g;
  std::map<std::string, int> uses;
  std::map<std::string, std::vector<size_t>> readers;
  std::map<std::string, size_t> made;

  bool isConst(const std::string& name, float want) const {
    float v;
    return pass::scalarInitializer(g, name, &v) && std::fabs(v - want) <= 1e-5f * std::fabs(want);
  }
  // The node making `value` if it is the two-input `op`, else -1.
  long producer(const std::string& value, const char* op) const {
    auto it = made.find(value);
    return it != made.end() && pass::isOp(g.nodes[it->second], op, 2) ? static_cast<long>(it->second) : -1;
  }
  // The one node reading `value` if it is the two-input `op`, else -1.
  long soleReader(const std::string& value, const char* op) const {
    const long i = pass::soleReader(uses, readers, value);
    return i >= 0 && pass::isOp(g.nodes[i], op, 2) ? i : -1;
  }
  // The operand of two-input node `n` that is not `known` ("" when neither or both are).
  static std::string other(const Node& n, const std::string& known) {
    if (n.inputs[0] == known && n.inputs[1] != known) return n.inputs[1];
    if (n.inputs[1] == known && n.inputs[0] != known) return n.inputs[0];
    return "";
  }
};

// The chain from Erf node `erf`: its nodes (all to remove), x, and the GELU's output.
struct Chain {
  std::vector<size_t> nodes;
  std::string x, y;
};

// The chain's end, c->x and c->nodes set: `times` = Mul(partner, onePlus) (onePlus = 1 + f),
// either x (then a Mul by 0.5 after it) or x's half, a Mul by 0.5 read by `times` alone. x is
// read `xReads` times in all (the chain's other nodes and that Mul) and by nothing else.
bool matchHalf(const Matcher& m, const std::string& onePlus, long times, int xReads, Chain* c) {
  const std::string partner = Matcher::other(m.g.nodes[times], onePlus);
  if (partner == c->x) {  // (x (1 + f)) / 2, as a Mul by 0.5
    const long half = m.soleReader(m.g.nodes[times].outputs[0], "Mul");
    if (half < 0 || !m.isConst(Matcher::other(m.g.nodes[half], m.g.nodes[times].outputs[0]), 0.5f)) return false;
    c->nodes.push_back(static_cast<size_t>(half));
    c->y = m.g.nodes[half].outputs[0];
    return pass::readTimes(m.uses, c->x, xReads);
  }
  // (x / 2) (1 + f)
  const long half = m.producer(partner, "Mul");
  if (half < 0 || !pass::readOnce(m.uses, partner) || Matcher::other(m.g.nodes[half], c->x).empty() ||
      !m.isConst(Matcher::other(m.g.nodes[half], c->x), 0.5f))
    return false;
  c->nodes.push_back(static_cast<size_t>(half));
  c->y = m.g.nodes[times].outputs[0];
  return pass::readTimes(m.uses, c->x, xReads);
}

bool matchChain(const Matcher& m, size_t erf, Chain* c) {
  const Node& e = m.g.nodes[erf];
  if (!pass::isOp(e, "Erf", 1) || !pass::readOnce(m.uses, e.inputs[0])) return false;
  // x / sqrt 2 or x * (1 / sqrt 2)
  long scale = m.producer(e.inputs[0], "Div");
  if (scale >= 0) {
    if (!m.isConst(m.g.nodes[scale].inputs[1], 1.41421356f)) return false;
    c->x = m.g.nodes[scale].inputs[0];
  } else {
    scale = m.producer(e.inputs[0], "Mul");
    if (scale < 0) return false;
    const Node& mul = m.g.nodes[scale];
    const int side = m.isConst(mul.inputs[0], 0.70710678f) ? 1 : m.isConst(mul.inputs[1], 0.70710678f) ? 0 : -1;
    if (side < 0) return false;
    c->x = mul.inputs[side];
  }
  const long plus = m.soleReader(e.outputs[0], "Add");  // 1 + erf
  if (plus < 0 || !m.isConst(Matcher::other(m.g.nodes[plus], e.outputs[0]), 1.f)) return false;
  const long times = m.soleReader(m.g.nodes[plus].outputs[0], "Mul");
  if (times < 0) return false;
  c->nodes = {static_cast<size_t>(scale), erf, static_cast<size_t>(plus), static_cast<size_t>(times)};
  return matchHalf(m, m.g.nodes[plus].outputs[0], times, 2, c);
}

// x^3: Pow(x, 3), or Mul(x, Mul(x, x)) in either order. Appends its nodes; returns how many
// times it reads x (0: not a cube of x).
int matchCube(const Matcher& m, const std::string& cube, const std::string& x, std::vector<size_t>* nodes) {
  if (!pass::readOnce(m.uses, cube)) return 0;
  const long pow = m.producer(cube, "Pow");
  if (pow >= 0) {
    if (m.g.nodes[pow].inputs[0] != x || !m.isConst(m.g.nodes[pow].inputs[1], 3.f)) return 0;
    nodes->push_back(static_cast<size_t>(pow));
    return 1;
  }
  const long outer = m.producer(cube, "Mul");
  if (outer < 0) return 0;
  const std::string square = Matcher::other(m.g.nodes[outer], x);
  const long inner = square.empty() ? -1 : m.producer(square, "Mul");
  if (inner < 0 || !pass::readOnce(m.uses, square) || m.g.nodes[inner].inputs[0] != x || m.g.nodes[inner].inputs[1] != x)
    return 0;
  nodes->push_back(static_cast<size_t>(outer));
  nodes->push_back(static_cast<size_t>(inner));
  return 3;
}

// The tanh form from Tanh node `tanh`: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as
// GPT-2's and BERT's Hugging Face exports (gelu_new) and PyTorch's gelu(approximate="tanh")
// before opset 20 write it.
bool matchTanhChain(const Matcher& m, size_t tanh, Chain* c) {
  const Node& t = m.g.nodes[tanh];
  if (!pass::isOp(t, "Tanh", 1) || !pass::readOnce(m.uses, t.inputs[0])) return false;
  const long scale = m.producer(t.inputs[0], "Mul");  // sqrt(2/pi) (...)
  if (scale < 0) return false;
  const Node& sm = m.g.nodes[scale];
  const int side = m.isConst(sm.inputs[0], 0.7978845608f) ? 1 : m.isConst(sm.inputs[1], 0.7978845608f) ? 0 : -1;
  if (side < 0 || !pass::readOnce(m.uses, sm.inputs[side])) return false;
  const long sum = m.producer(sm.inputs[side], "Add");  // x + 0.044715 x^3, either order
  if (sum < 0) return false;
  const Node& add = m.g.nodes[sum];
  for (int xSide = 0; xSide < 2; ++xSide) {
    const std::string x = add.inputs[xSide], scaled = add.inputs[1 - xSide];
    const long k = m.producer(scaled, "Mul");  // 0.044715 x^3
    if (x == scaled || k < 0 || !pass::readOnce(m.uses, scaled)) continue;
    const Node& km = m.g.nodes[k];
    const int cubeSide = m.isConst(km.inputs[0], 0.044715f) ? 1 : m.isConst(km.inputs[1], 0.044715f) ? 0 : -1;
    if (cubeSide < 0) continue;
    std::vector<size_t> nodes = {static_cast<size_t>(scale), static_cast<size_t>(sum), static_cast<size_t>(k)};
    const int cubeReads = matchCube(m, km.inputs[cubeSide], x, &nodes);
    if (!cubeReads) continue;
    const long plus = m.soleReader(t.outputs[0], "Add");  // 1 + tanh
    if (plus < 0 || !m.isConst(Matcher::other(m.g.nodes[plus], t.outputs[0]), 1.f)) return false;
    const long times = m.soleReader(m.g.nodes[plus].outputs[0], "Mul");
    if (times < 0) return false;
    c->x = x;
    c->nodes = nodes;
    c->nodes.insert(c->nodes.end(), {tanh, static_cast<size_t>(plus), static_cast<size_t>(times)});
    return matchHalf(m, m.g.nodes[plus].outputs[0], times, 2 + cubeReads, c);
  }
  return false;
}

}  // namespace

int fuseConvGelu(Graph* graph) {
  Graph& g = *graph;
  const Matcher m{g, pass::consumerCounts(g), pass::readers(g), pass::producers(g)};
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> maybeUnused;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Chain c;
    if (removed[i]) continue;
    const bool tanhForm = matchTanhChain(m, i, &c);
    if (!tanhForm && !matchChain(m, i, &c)) continue;
    auto p = m.made.find(c.x);
    if (p == m.made.end() || removed[p->second]) continue;
    Node& producer = g.nodes[p->second];
    if (!pass::takesActivation(producer)) continue;
    bool free = true;
    for (size_t n : c.nodes) free = free && !removed[n];
    if (!free) continue;
    FusedActivation::set(&producer, tanhForm ? "GeluTanh" : "Gelu", {});
    producer.outputs[0] = c.y;
    for (size_t n : c.nodes) {
      removed[n] = true;
      for (const std::string& in : g.nodes[n].inputs) maybeUnused.insert(in);
    }
    ++count;
  }
  if (count) {
    maybeUnused.erase("");
    pass::removeNodes(g, removed, maybeUnused);
  }
  return count;
}

}  // namespace tessera
