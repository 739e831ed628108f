#include "tools/onnx/FuseHardSwish.hpp"

#include <cmath>

#include "tools/onnx/GraphPass.hpp"

namespace tessera {
namespace {

struct Matcher {
  Graph& g;
  std::map<std::string, int> uses;
  std::map<std::string, std::vector<size_t>> readers;  // value -> nodes reading it

  bool isConst(const std::string& name, float want) const {
    float v;
    return pass::scalarInitializer(g, name, &v) && std::fabs(v - want) <= 1e-6f * std::fabs(want);
  }
  // The only node reading `value` (which nothing else reads, not a graph output), or -1.
  long soleReader(const std::string& value, const char* opType) const {
    const long i = pass::soleReader(uses, readers, value);
    if (i < 0) return -1;
    const Node& n = g.nodes[i];
    return n.opType == opType && n.domain.empty() && n.outputs.size() == 1 ? i : -1;
  }
  // The operand of a two-input node that is not `known`, or "" when neither/both match.
  static std::string other(const Node& n, const std::string& known) {
    if (n.inputs.size() != 2) return "";
    if (n.inputs[0] == known && n.inputs[1] != known) return n.inputs[1];
    if (n.inputs[1] == known && n.inputs[0] != known) return n.inputs[0];
    return "";
  }
  bool clipIs0To6(const Node& clip) const {
    if (clip.inputs.size() >= 3)
      return isConst(clip.inputs[1], 0.f) && isConst(clip.inputs[2], 6.f);
    return clip.inputs.size() == 1 && clip.attrs.getFloat("min", -1.f) == 0.f && clip.attrs.getFloat("max", -1.f) == 6.f;
  }
};

}  // namespace

int fuseHardSwish(Graph* graph) {
  Graph& g = *graph;
  Matcher m{g, pass::consumerCounts(g), pass::readers(g)};
  std::vector<bool> removed(g.nodes.size(), false);
  std::set<std::string> maybeUnused;
  int count = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& add = g.nodes[i];
    if (add.opType != "Add" || !add.domain.empty() || add.inputs.size() != 2 || add.outputs.size() != 1) continue;
    for (int side = 0; side < 2; ++side) {
      const std::string x = add.inputs[side], three = add.inputs[1 - side];
      if (!m.isConst(three, 3.f)) continue;
      const long clip = m.soleReader(add.outputs[0], "Clip");
      if (clip < 0 || g.nodes[clip].inputs.empty() || g.nodes[clip].inputs[0] != add.outputs[0] ||
          !m.clipIs0To6(g.nodes[clip]))
        continue;
      const long mul = m.soleReader(g.nodes[clip].outputs[0], "Mul");
      if (mul < 0 || Matcher::other(g.nodes[mul], g.nodes[clip].outputs[0]) != x) continue;
      long last = m.soleReader(g.nodes[mul].outputs[0], "Div");
      if (last >= 0 && (g.nodes[last].inputs[0] != g.nodes[mul].outputs[0] || !m.isConst(g.nodes[last].inputs[1], 6.f)))
        last = -1;
      if (last < 0) {
        last = m.soleReader(g.nodes[mul].outputs[0], "Mul");
        if (last >= 0 && !m.isConst(Matcher::other(g.nodes[last], g.nodes[mul].outputs[0]), 1.f / 6.f)) last = -1;
      }
      if (last < 0) continue;
      // The HardSwish takes the last node's place (x is made before the Add, so order holds).
      for (long k : {static_cast<long>(i), clip, mul})
        for (const std::string& in : g.nodes[k].inputs) maybeUnused.insert(in);
      for (const std::string& in : g.nodes[last].inputs) maybeUnused.insert(in);
      removed[i] = removed[clip] = removed[mul] = true;
      Node& hs = g.nodes[last];
      hs.opType = "HardSwish";
      hs.name = add.name + "+" + hs.name;  // the span of the original nodes, for messages
      hs.inputs = {x};
      hs.attrs = Attributes();
      hs.opset = std::max(hs.opset, 14);  // HardSwish-14
      ++count;
      break;
    }
  }
  if (count) {
    maybeUnused.erase("");
    pass::removeNodes(g, removed, maybeUnused);
  }
  return count;
}

}  // namespace tessera
