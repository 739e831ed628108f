#include "tools/onnx/GraphPass.hpp"

#include <cstring>

namespace tessera {
namespace pass {

std::map<std::string, int> consumerCounts(const Graph& g) {
  std::map<std::string, int> uses;
  for (const Node& n : g.nodes)
    for (const std::string& in : n.inputs)
      if (!in.empty()) ++uses[in];
  for (const ValueInfo& o : g.outputs) ++uses[o.name];
  return uses;
}

bool readTimes(const std::map<std::string, int>& counts, const std::string& value, int times) {
  auto c = counts.find(value);
  return c != counts.end() && c->second == times;
}

std::map<std::string, std::vector<size_t>> readers(const Graph& g) {
  std::map<std::string, std::vector<size_t>> r;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& in : g.nodes[i].inputs) r[in].push_back(i);
  return r;
}

long soleReader(const std::map<std::string, int>& counts, const std::map<std::string, std::vector<size_t>>& readers,
                const std::string& value) {
  auto r = readers.find(value);
  if (!readOnce(counts, value) || r == readers.end() || r->second.size() != 1) return -1;
  return static_cast<long>(r->second[0]);
}

std::map<std::string, size_t> producers(const Graph& g) {
  std::map<std::string, size_t> out;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& o : g.nodes[i].outputs)
      if (!o.empty()) out[o] = i;
  return out;
}

const Tensor* f32Initializer(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  auto it = g.initializers.find(name);
  if (it == g.initializers.end() || it->second.dtype() != DataType::kF32 || !it->second.data()) return nullptr;
  return &it->second;
}

bool scalarInitializer(const Graph& g, const std::string& name, float* value) {
  const Tensor* t = f32Initializer(g, name);
  if (!t || t->elementCount() != 1) return false;
  *value = t->data<float>()[0];
  return true;
}

std::string freshName(const Graph& g, const std::string& base) {
  std::string name = base;
  while (g.initializers.count(name)) name += "_";
  return name;
}

std::string addInitializer(Graph& g, const std::string& base, Tensor value) {
  const std::string name = freshName(g, base);
  value.setName(name);
  value.setConstant(true);
  g.initializers[name] = std::move(value);
  return name;
}

std::string addFlattenedInitializer(Graph& g, const std::string& name) {
  const Tensor& t = g.initializers.at(name);
  Tensor v = Tensor::hostAllocate({t.elementCount()}, DataType::kF32);
  std::memcpy(v.data(), t.data(), v.byteSize());
  return addInitializer(g, name, std::move(v));
}

bool takesActivation(const Node& n) {
  return (n.opType == "Conv" || n.opType == "ConvTranspose" || n.opType == "MatMul") && n.domain.empty() &&
         n.outputs.size() == 1 && !n.attrs.has("activation") && !n.attrs.has("activation_affine");
}

bool isOp(const Node& n, const char* op, size_t inputs) {
  return n.opType == op && n.domain.empty() && n.inputs.size() == inputs && n.outputs.size() == 1;
}

void removeNodes(Graph& g, const std::vector<bool>& removed, const std::set<std::string>& candidates) {
  std::vector<Node> kept;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!removed[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  const auto uses = consumerCounts(g);
  for (const std::string& name : candidates)
    if (!uses.count(name)) g.initializers.erase(name);
}

}  // namespace pass
}  // namespace tessera
