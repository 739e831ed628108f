// If, Loop and Scan run their sub-graphs as Sessions (ControlFlow.hpp).
#include "ControlFlow.hpp"

#include <algorithm>
#include <cstring>

namespace tessera {

namespace {

Tensor hostCopy(const Tensor& t) {
  Tensor c = Tensor::hostAllocate(t.shape(), t.dtype());
  if (t.byteSize()) std::memcpy(c.data(), t.data(), t.byteSize());
  return c;
}

bool truthy(const Tensor& t) {
  if (t.elementCount() != 1 || !t.data()) return false;
  switch (t.dtype()) {
    case DataType::kBool: return *t.data<bool>();
    case DataType::kI64: return *t.data<int64_t>() != 0;
    case DataType::kI32: return *t.data<int32_t>() != 0;
    case DataType::kF32: return *t.data<float>() != 0;
    default: return *t.data<uint8_t>() != 0;
  }
}

// The bytes of `t` as [outer, extent of `axis`, inner] blocks.
struct AxisView {
  int64_t outer = 1, extent = 1, inner = 1;  // inner in bytes
  AxisView(const Shape& s, size_t axis, size_t elementSize) {
    for (size_t d = 0; d < axis; ++d) outer *= s[d];
    extent = s[axis];
    inner = static_cast<int64_t>(elementSize);
    for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  }
};

// Slice `index` of `t` along `axis`, that axis removed.
Tensor sliceAlong(const Tensor& t, size_t axis, int64_t index) {
  Shape s = t.shape();
  const AxisView v(s, axis, dataTypeSize(t.dtype()));
  s.erase(s.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor out = Tensor::hostAllocate(s, t.dtype());
  for (int64_t o = 0; o < v.outer; ++o)
    std::memcpy(out.data<char>() + o * v.inner, t.data<char>() + (o * v.extent + index) * v.inner,
                static_cast<size_t>(v.inner));
  return out;
}

// The slices stacked along a new axis `axis` (all of one shape and dtype, checked by the caller).
Tensor stackAlong(const std::vector<Tensor>& slices, size_t axis) {
  Shape s = slices[0].shape();
  s.insert(s.begin() + static_cast<std::ptrdiff_t>(axis), static_cast<int64_t>(slices.size()));
  Tensor out = Tensor::hostAllocate(s, slices[0].dtype());
  const AxisView v(s, axis, dataTypeSize(out.dtype()));
  for (int64_t t = 0; t < v.extent; ++t)
    for (int64_t o = 0; o < v.outer; ++o)
      std::memcpy(out.data<char>() + (o * v.extent + t) * v.inner, slices[t].data<char>() + o * v.inner,
                  static_cast<size_t>(v.inner));
  return out;
}

}  // namespace

struct ControlFlowNode::Body {
  std::string attr;
  std::shared_ptr<Graph> graph;  // the sub-graph with its outer values as inputs
  std::unique_ptr<Session> session;
};

ControlFlowNode::ControlFlowNode(const Node& node, const SessionOptions& options)
    : node_(node), options_(options), outerNames_(subgraphOuterInputs(node)) {}
ControlFlowNode::~ControlFlowNode() = default;

Status ControlFlowNode::body(const std::string& attr, const std::vector<const Tensor*>& formal, Body** out) {
  auto it = bodies_.find(attr);
  if (it != bodies_.end()) {
    *out = it->second.get();
    return Status::ok();
  }
  const Graph* g = node_.attrs.getGraph(attr);
  if (!g) return Status::invalid(node_.label() + ": attribute '" + attr + "' (a sub-graph) is missing");
  auto b = std::make_unique<Body>();
  b->attr = attr;
  b->graph = std::make_shared<Graph>(*g);
  Graph& bound = *b->graph;
  // Formal inputs take the dtypes of the values given (the model's declared shapes may be
  // looser than what a loop carries); outer values come in as more inputs.
  for (size_t i = 0; i < bound.inputs.size() && i < formal.size(); ++i) {
    bound.inputs[i].hasShape = false;
    if (formal[i]) bound.inputs[i].dtype = formal[i]->dtype();
  }
  for (const std::string& name : g->outerScope) {
    size_t k = 0;
    while (k < outerNames_.size() && outerNames_[k] != name) ++k;
    if (k == outerNames_.size() || !outer_[k])
      return Status::internal(node_.label() + ": outer value '" + name + "' of " + attr + " is not available");
    ValueInfo v;
    v.name = name;
    v.dtype = outer_[k]->dtype();
    bound.inputs.push_back(v);
  }
  bound.outerScope.clear();
  TESSERA_RETURN_IF_ERROR(bound.validate().withContext(node_.label() + " " + attr));
  TESSERA_RETURN_IF_ERROR(Session::create(b->graph, options_, &b->session).withContext(node_.label() + " " + attr));
  *out = b.get();
  bodies_[attr] = std::move(b);
  return Status::ok();
}

Status ControlFlowNode::runBody(Body& b, const std::vector<const Tensor*>& formal, std::vector<Tensor>* outs) {
  const Graph& g = *b.graph;
  std::map<std::string, Tensor> feeds, results;
  const size_t formalCount = g.inputs.size() - node_.attrs.getGraph(b.attr)->outerScope.size();
  if (formal.size() != formalCount)
    return Status::invalid(node_.label() + ": " + b.attr + " takes " + std::to_string(formalCount) + " inputs, given " +
                           std::to_string(formal.size()));
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Tensor* t = i < formalCount ? formal[i] : nullptr;
    if (i >= formalCount) {
      for (size_t k = 0; k < outerNames_.size(); ++k)
        if (outerNames_[k] == g.inputs[i].name) t = outer_[k];
    }
    if (!t) return Status::invalid(node_.label() + ": " + b.attr + " input '" + g.inputs[i].name + "' has no value");
    feeds[g.inputs[i].name] = *t;
  }
  Session& s = *b.session;
  if (profiling_) TESSERA_RETURN_IF_ERROR(s.setProfiling(true));
  TESSERA_RETURN_IF_ERROR(s.run(feeds, &results).withContext(node_.label() + " " + b.attr));
  if (profiling_)
    for (auto& e : s.profile()) profile_.push_back(e);
  outs->clear();
  for (const ValueInfo& o : g.outputs) outs->push_back(results.at(o.name));
  return Status::ok();
}

Status ControlFlowNode::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) {
  const size_t own = inputs.size() - outerNames_.size();
  outer_.assign(inputs.begin() + static_cast<std::ptrdiff_t>(own), inputs.end());
  std::vector<const Tensor*> in(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(own));
  profile_.clear();
  if (node_.opType == "If") return runIf(in, outputs);
  if (node_.opType == "Loop") return runLoop(in, outputs);
  if (node_.opType == "Scan") return runScan(in, outputs);
  return Status::unsupported(node_.label() + ": not a control-flow op");
}

Status ControlFlowNode::runIf(const std::vector<const Tensor*>& in, std::vector<Tensor>* out) {
  if (!in[0] || in[0]->elementCount() != 1)
    return Status::invalid(node_.label() + ": input 'cond' must hold exactly one value");
  Body* b;
  TESSERA_RETURN_IF_ERROR(body(truthy(*in[0]) ? "then_branch" : "else_branch", {}, &b));
  return runBody(*b, {}, out);
}

Status ControlFlowNode::runLoop(const std::vector<const Tensor*>& in, std::vector<Tensor>* out) {
  const Tensor* tripCount = in[0];
  const Tensor* cond = in[1];
  if (!tripCount && !cond)
    return Status::invalid(node_.label() + ": a Loop with neither a trip count 'M' nor a condition 'cond' never ends");
  if (tripCount && (tripCount->elementCount() != 1 || tripCount->dtype() != DataType::kI64))
    return Status::invalid(node_.label() + ": input 'M' must be one int64 value, got " + tripCount->describe());
  const int64_t limit = tripCount ? *tripCount->data<int64_t>() : INT64_MAX;
  const size_t carried = in.size() - 2;
  std::vector<Tensor> state;
  for (size_t i = 0; i < carried; ++i) {
    if (!in[2 + i]) return Status::invalid(node_.label() + ": loop-carried input " + std::to_string(i) + " is empty");
    state.push_back(*in[2 + i]);
  }
  Tensor iteration = Tensor::hostAllocate({}, DataType::kI64);
  Tensor condition = Tensor::hostAllocate({}, DataType::kBool);
  *condition.data<bool>() = cond ? truthy(*cond) : true;
  std::vector<std::vector<Tensor>> scans;  // per scan output, per iteration
  Body* b = nullptr;
  for (int64_t i = 0; i < limit && *condition.data<bool>(); ++i) {
    *iteration.data<int64_t>() = i;
    std::vector<const Tensor*> formal = {&iteration, &condition};
    for (const Tensor& t : state) formal.push_back(&t);
    if (!b) TESSERA_RETURN_IF_ERROR(body("body", formal, &b));
    std::vector<Tensor> outs;
    TESSERA_RETURN_IF_ERROR(runBody(*b, formal, &outs));
    if (outs.size() < 1 + carried) return Status::invalid(node_.label() + ": body gives too few outputs");
    Tensor nextCondition = Tensor::hostAllocate({}, DataType::kBool);
    *nextCondition.data<bool>() = truthy(outs[0]);
    condition = nextCondition;
    for (size_t k = 0; k < carried; ++k) state[k] = outs[1 + k];
    scans.resize(outs.size() - 1 - carried);
    for (size_t k = 0; k < scans.size(); ++k) {
      const Tensor& s = outs[1 + carried + k];
      if (!scans[k].empty() && (s.shape() != scans[k][0].shape() || s.dtype() != scans[k][0].dtype()))
        return Status::invalid(node_.label() + ": scan output " + std::to_string(k) + " changes shape from " +
                               shapeToString(scans[k][0].shape()) + " to " + shapeToString(s.shape()) +
                               " at iteration " + std::to_string(i));
      scans[k].push_back(s);
    }
  }
  out->clear();
  for (const Tensor& t : state) out->push_back(hostCopy(t));  // never alias the caller's input
  const size_t scanOutputs = node_.outputs.size() - carried;
  for (size_t k = 0; k < scanOutputs; ++k) {
    if (k < scans.size() && !scans[k].empty()) out->push_back(stackAlong(scans[k], 0));
    else out->push_back(Tensor::hostAllocate({0}, DataType::kF32));  // no iteration ran: empty
  }
  return Status::ok();
}

// Scan (opset 9 and later; opset 8's batched form runs each batch entry the same way).
Status ControlFlowNode::runScan(const std::vector<const Tensor*>& in, std::vector<Tensor>* out) {
  const bool batched = node_.opset < 9;
  if (batched && in[0])
    return Status::unsupported(node_.label() + ": Scan-8 with 'sequence_lens' is not supported");
  const std::vector<const Tensor*> ins(in.begin() + (batched ? 1 : 0), in.end());
  const int64_t scanInputs = node_.attrs.getInt("num_scan_inputs", -1);
  if (scanInputs < 1 || scanInputs > static_cast<int64_t>(ins.size()))
    return Status::invalid(node_.label() + ": attribute 'num_scan_inputs' must be between 1 and " +
                           std::to_string(ins.size()));
  const size_t states = ins.size() - static_cast<size_t>(scanInputs);
  const size_t outCount = node_.outputs.size();
  const size_t scanOuts = outCount - states;
  const std::vector<int64_t> inDirs = node_.attrs.getInts(batched ? "directions" : "scan_input_directions");
  const std::vector<int64_t> inAxesAttr = node_.attrs.getInts("scan_input_axes");
  const std::vector<int64_t> outDirs = node_.attrs.getInts("scan_output_directions");
  const std::vector<int64_t> outAxesAttr = node_.attrs.getInts("scan_output_axes");
  for (const Tensor* t : ins)
    if (!t) return Status::invalid(node_.label() + ": an input is empty");
  const int64_t batches = batched ? ins[0]->shape().at(0) : 1;

  std::vector<std::vector<Tensor>> perBatch(outCount);  // batched: each output per batch entry
  for (int64_t n = 0; n < batches; ++n) {
    std::vector<Tensor> state, scansIn;
    for (size_t i = 0; i < ins.size(); ++i) {
      Tensor t = batched ? sliceAlong(*ins[i], 0, n) : *ins[i];
      (i < states ? state : scansIn).push_back(t);
    }
    int64_t steps = -1;
    std::vector<size_t> axes(scansIn.size());
    for (size_t j = 0; j < scansIn.size(); ++j) {
      const int64_t rank = static_cast<int64_t>(scansIn[j].rank());
      int64_t a = j < inAxesAttr.size() ? inAxesAttr[j] : 0;
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) return Status::invalid(node_.label() + ": scan input axis out of range");
      axes[j] = static_cast<size_t>(a);
      const int64_t len = scansIn[j].shape()[axes[j]];
      if (steps >= 0 && len != steps)
        return Status::invalid(node_.label() + ": scan inputs have different lengths (" + std::to_string(steps) +
                               " and " + std::to_string(len) + ")");
      steps = len;
    }
    std::vector<std::vector<Tensor>> collected(scanOuts);
    Body* b = nullptr;
    for (int64_t t = 0; t < steps; ++t) {
      std::vector<Tensor> slices;
      for (size_t j = 0; j < scansIn.size(); ++j) {
        const bool reverse = j < inDirs.size() && inDirs[j] == 1;
        slices.push_back(sliceAlong(scansIn[j], axes[j], reverse ? steps - 1 - t : t));
      }
      std::vector<const Tensor*> formal;
      for (const Tensor& s : state) formal.push_back(&s);
      for (const Tensor& s : slices) formal.push_back(&s);
      if (!b) TESSERA_RETURN_IF_ERROR(body("body", formal, &b));
      std::vector<Tensor> outs;
      TESSERA_RETURN_IF_ERROR(runBody(*b, formal, &outs));
      for (size_t k = 0; k < states; ++k) state[k] = outs[k];
      for (size_t k = 0; k < scanOuts; ++k) {
        const Tensor& s = outs[states + k];
        if (!collected[k].empty() && s.shape() != collected[k][0].shape())
          return Status::invalid(node_.label() + ": scan output " + std::to_string(k) + " changes shape");
        collected[k].push_back(s);
      }
    }
    for (size_t k = 0; k < states; ++k) perBatch[k].push_back(hostCopy(state[k]));
    for (size_t k = 0; k < scanOuts; ++k) {
      std::vector<Tensor>& c = collected[k];
      if (c.empty()) return Status::unsupported(node_.label() + ": a scan of length 0 has no output shape");
      if (k < outDirs.size() && outDirs[k] == 1) std::reverse(c.begin(), c.end());
      int64_t a = k < outAxesAttr.size() ? outAxesAttr[k] : 0;
      const int64_t rank = static_cast<int64_t>(c[0].rank()) + 1;
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) return Status::invalid(node_.label() + ": scan output axis out of range");
      perBatch[states + k].push_back(stackAlong(c, static_cast<size_t>(a)));
    }
  }
  out->clear();
  for (size_t k = 0; k < outCount; ++k)
    out->push_back(batched ? stackAlong(perBatch[k], 0) : perBatch[k][0]);
  return Status::ok();
}

Session::PlanCacheStats ControlFlowNode::planCache() const {
  Session::PlanCacheStats s;
  for (const auto& kv : bodies_) {
    const Session::PlanCacheStats p = kv.second->session->planCache();
    s.plansMade += p.plansMade, s.plansReused += p.plansReused, s.kept += p.kept, s.keptBytes += p.keptBytes;
    s.weightPackings += p.weightPackings, s.packedWeightBytes += p.packedWeightBytes;
  }
  return s;
}

std::vector<std::string> ControlFlowNode::placement() const {
  std::vector<std::string> lines;
  for (const auto& kv : bodies_)
    for (const auto& n : kv.second->session->report().nodes)
      lines.push_back(kv.first + ": " + n.node + " -> " + (n.folded ? "folded (constant)" : backendTypeName(n.backend)));
  return lines;
}

}  // namespace tessera
