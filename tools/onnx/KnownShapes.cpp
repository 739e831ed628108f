#include "tools/onnx/KnownShapes.hpp"

#include <memory>

#include "tessera/Backend.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace pass {
namespace {

// Small outputs computed from inputs whose values are known are computed here, on the CPU
// backend, as planning folds them: a shape computed from the input's (Shape, Cast, Slice,
// Concat, then a Reshape's target) is then known too, as PP-OCRv4 rec's attention reshapes
// are.
constexpr int64_t kMostFoldedElements = 1024;

bool fold(Backend* cpu, const Node& node, const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outs) {
  Tensors in, out;
  for (const Tensor* t : inputs) {
    if (t && !t->data()) return false;
    in.push_back(const_cast<Tensor*>(t));
  }
  for (Tensor& o : *outs) {
    if (o.elementCount() > kMostFoldedElements) return false;
    o = Tensor::hostAllocate(o.shape(), o.dtype());
    out.push_back(&o);
  }
  std::unique_ptr<Execution> e = cpu->onCreate(node, in, out);
  return e && e->onResize(in, out).isOk() && e->onExecute(in, out).isOk();
}

std::unique_ptr<Backend> cpuBackend() {
  std::unique_ptr<Backend> cpu;
  const BackendFactory* f = BackendRegistry::instance().find(BackendType::kCPU);
  if (!f || !f->create(BackendOptions(), &cpu).isOk()) cpu.reset();
  return cpu;
}

}  // namespace

std::map<std::string, Shape> knownShapes(const Graph& g, int64_t probe, int64_t step) {
  // Values as the shape functions see them: initializers with their data (a Reshape target),
  // small values computed from those, everything else a shape and dtype without data, as
  // during planning.
  std::unique_ptr<Backend> cpu;  // made at the first node to compute (most graphs have none)
  bool cpuTried = false;
  std::map<std::string, Tensor> values;
  for (const auto& kv : g.initializers) values[kv.first] = kv.second;
  int64_t dynamicDims = 0;
  for (const ValueInfo& in : g.inputs) {
    if (!in.hasShape) continue;
    Shape dims(in.dims.begin(), in.dims.end());
    bool known = true;
    for (int64_t& d : dims) {
      if (d < 0 && probe > 0) d = probe + step * dynamicDims++;
      known = known && d >= 0;
    }
    if (known) values[in.name] = Tensor(dims, in.dtype);
  }
  for (const Node& node : g.nodes) {
    std::vector<const Tensor*> inputs;
    bool known = true;
    for (const std::string& name : node.inputs) {
      if (name.empty()) { inputs.push_back(nullptr); continue; }
      auto it = values.find(name);
      known = known && it != values.end();
      inputs.push_back(known ? &it->second : nullptr);
    }
    const ShapeFunction* fn = ShapeRegistry::instance().find(node.domain, node.opType, node.opset);
    if (!known || !fn || node.hasSubgraphs()) continue;
    std::vector<Tensor> outs(node.outputs.size());
    ShapeContext ctx{node, inputs, outs, Tensor()};
    if (!(*fn)(ctx).isOk() || ctx.shapesFromValues) continue;
    bool computed = true;  // a shape function may give the values itself (Shape)
    for (const Tensor& o : outs) computed = computed && o.data();
    bool inputsKnown = true;
    for (const Tensor* t : inputs) inputsKnown = inputsKnown && (!t || t->data());
    const bool builtin = node.domain.empty() || node.domain == "ai.onnx";
    if (!computed && inputsKnown && builtin) {
      if (!cpuTried) {
        cpu = cpuBackend();
        cpuTried = true;
      }
      std::vector<Tensor> folded = outs;
      if (cpu && fold(cpu.get(), node, inputs, &folded)) outs = std::move(folded);
    }
    for (size_t i = 0; i < outs.size(); ++i)
      if (!node.outputs[i].empty()) values[node.outputs[i]] = outs[i];
  }
  std::map<std::string, Shape> shapes;
  for (const auto& kv : values) shapes[kv.first] = kv.second.shape();
  return shapes;
}

}  // namespace pass
}  // namespace tessera
