#include "tessera/Graph.hpp"

#include <set>

namespace tessera {

std::string Node::label() const { return opType + " '" + name + "'"; }

bool Node::hasSubgraphs() const {
  for (const auto& kv : attrs.all())
    if (kv.second.kind == Attribute::Kind::kGraph) return true;
  return false;
}

std::vector<std::string> subgraphOuterInputs(const Node& node) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& kv : node.attrs.all())
    if (kv.second.kind == Attribute::Kind::kGraph && kv.second.g)
      for (const std::string& name : kv.second.g->outerScope)
        if (seen.insert(name).second) out.push_back(name);
  return out;
}

Status Graph::validate() {
  std::set<std::string> known;
  for (const auto& in : inputs) known.insert(in.name);
  for (const auto& kv : initializers) known.insert(kv.first);
  for (const auto& name : outerScope) known.insert(name);
  std::set<std::string> produced;
  for (const Node& n : nodes)
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      if (known.count(o) || !produced.insert(o).second)
        return Status::invalid(n.label() + ": output '" + o + "' is produced twice");
    }

  // Kahn-style ordering: repeatedly take the first node whose inputs are all available.
  std::vector<Node> ordered;
  ordered.reserve(nodes.size());
  std::vector<bool> done(nodes.size(), false);
  for (size_t placed = 0; placed < nodes.size();) {
    bool progress = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (const auto& in : nodes[i].inputs)
        if (!in.empty() && !known.count(in)) { ready = false; break; }
      if (!ready) continue;
      for (const auto& o : nodes[i].outputs) if (!o.empty()) known.insert(o);
      ordered.push_back(std::move(nodes[i]));
      done[i] = true;
      ++placed;
      progress = true;
    }
    if (!progress) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (done[i]) continue;
        for (const auto& in : nodes[i].inputs)
          if (!in.empty() && !known.count(in)) {
            const bool producedLater = produced.count(in) != 0;
            return Status::invalid(nodes[i].label() + ": input '" + in + "' " +
                                   (producedLater ? "is part of a cycle"
                                                  : "is not a graph input, initializer or node output"));
          }
      }
    }
  }
  nodes = std::move(ordered);
  for (const auto& out : outputs)
    if (!known.count(out.name))
      return Status::invalid("graph output '" + out.name + "' is not produced by any node");
  return Status::ok();
}

std::string GraphBuilder::input(const std::string& name, DataType dtype, std::vector<int64_t> dims) {
  ValueInfo v;
  v.name = name;
  v.dtype = dtype;
  v.dims = std::move(dims);
  v.hasShape = true;
  g_.inputs.push_back(std::move(v));
  return name;
}

std::string GraphBuilder::constant(const std::string& name, Tensor value) {
  value.setName(name);
  value.setConstant(true);
  g_.initializers[name] = std::move(value);
  return name;
}

std::vector<std::string> GraphBuilder::op(const std::string& opType, std::vector<std::string> inputs,
                                          Attributes attrs, int numOutputs,
                                          const std::string& nodeName) {
  Node n;
  n.opType = opType;
  n.name = nodeName.empty() ? opType + "_" + std::to_string(g_.nodes.size()) : nodeName;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  for (int i = 0; i < numOutputs; ++i) n.outputs.push_back(n.name + ":" + std::to_string(i));
  g_.nodes.push_back(n);
  return n.outputs;
}

void GraphBuilder::output(const std::string& name, DataType dtype) {
  ValueInfo v;
  v.name = name;
  v.dtype = dtype;
  g_.outputs.push_back(std::move(v));
}

Status GraphBuilder::build(std::shared_ptr<Graph>* out) {
  auto g = std::make_shared<Graph>(g_);
  TESSERA_RETURN_IF_ERROR(g->validate());
  *out = std::move(g);
  return Status::ok();
}

}  // namespace tessera
