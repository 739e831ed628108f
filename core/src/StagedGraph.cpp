// Running a graph in stages around a node whose output shapes come from run-time values.
#include "StagedGraph.hpp"

#include <chrono>
#include <cstring>
#include <set>

#include "tessera/Registry.hpp"

namespace tessera {

namespace {

Tensor hostCopy(const Tensor& t) {
  Tensor c = Tensor::hostAllocate(t.shape(), t.dtype());
  c.setName(t.name());
  if (t.byteSize()) std::memcpy(c.data(), t.data(), t.byteSize());
  return c;
}

ValueInfo valueInfo(const std::string& name, DataType dtype) {
  ValueInfo v;
  v.name = name;
  v.dtype = dtype;
  return v;
}

}  // namespace

StagedGraph::~StagedGraph() = default;

Status StagedGraph::create(std::shared_ptr<const Graph> graph, size_t split,
                           const std::map<std::string, DataType>& dtypes, const SessionOptions& options,
                           Backend* cpu, std::unique_ptr<StagedGraph>* out) {
  std::unique_ptr<StagedGraph> s(new StagedGraph);
  const Graph& g = *graph;
  s->graph_ = graph;
  s->node_ = &g.nodes[split];
  s->cpu_ = cpu;
  s->options_ = options;
  auto dtypeOf = [&](const std::string& name, DataType* dt) {
    auto it = dtypes.find(name);
    if (it == dtypes.end()) return Status::internal("staging around " + s->node_->label() + ": no dtype for '" + name + "'");
    *dt = it->second;
    return Status::ok();
  };
  for (const std::string& name : s->node_->outputs) {
    DataType dt = DataType::kUnknown;
    if (!name.empty()) TESSERA_RETURN_IF_ERROR(dtypeOf(name, &dt));
    s->outputTypes_.push_back(dt);
  }

  // What the nodes after the split node and the graph's outputs read.
  std::set<std::string> readLater;
  for (size_t i = split; i < g.nodes.size(); ++i)
    for (const std::string& in : g.nodes[i].inputs) readLater.insert(in);
  for (const ValueInfo& o : g.outputs) readLater.insert(o.name);
  std::set<std::string> graphInputs;
  for (const ValueInfo& in : g.inputs) graphInputs.insert(in.name);

  if (split > 0) {
    auto before = std::make_shared<Graph>();
    before->name = g.name + " (before " + s->node_->label() + ")";
    before->initializers = g.initializers;  // tensors share their data
    std::set<std::string> read;
    for (size_t i = 0; i < split; ++i) {
      before->nodes.push_back(g.nodes[i]);
      for (const std::string& in : g.nodes[i].inputs) read.insert(in);
      for (const std::string& o : g.nodes[i].outputs) {
        if (o.empty() || !readLater.count(o)) continue;
        DataType dt;
        TESSERA_RETURN_IF_ERROR(dtypeOf(o, &dt));
        before->outputs.push_back(valueInfo(o, dt));
      }
    }
    for (const ValueInfo& in : g.inputs)
      if (read.count(in.name) && !g.initializers.count(in.name)) {
        before->inputs.push_back(in);
        s->beforeInputs_.push_back(in.name);
      }
    TESSERA_RETURN_IF_ERROR(before->validate());
    TESSERA_RETURN_IF_ERROR(Session::create(before, options, &s->before_));
  }

  if (split + 1 < g.nodes.size()) {
    auto after = std::make_shared<Graph>();
    after->name = g.name + " (after " + s->node_->label() + ")";
    after->initializers = g.initializers;
    std::set<std::string> produced, added;
    for (size_t i = split + 1; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      for (const std::string& in : n.inputs) {
        if (in.empty() || produced.count(in) || g.initializers.count(in) || !added.insert(in).second) continue;
        DataType dt;
        TESSERA_RETURN_IF_ERROR(dtypeOf(in, &dt));
        after->inputs.push_back(valueInfo(in, dt));
        s->afterInputs_.push_back(in);
      }
      after->nodes.push_back(n);
      for (const std::string& o : n.outputs) produced.insert(o);
    }
    for (const ValueInfo& o : g.outputs)
      if (produced.count(o.name)) after->outputs.push_back(o);
    TESSERA_RETURN_IF_ERROR(after->validate());
    TESSERA_RETURN_IF_ERROR(Session::create(after, options, &s->after_));
  }
  if (s->node_->hasSubgraphs()) s->controlFlow_ = std::make_unique<ControlFlowNode>(*s->node_, options);
  s->joinReports();
  *out = std::move(s);
  return Status::ok();
}

Status StagedGraph::resize(const std::map<std::string, Shape>& inputShapes) {
  if (!before_) return Status::ok();  // the rest is planned when the split node has run
  std::map<std::string, Shape> shapes;
  for (const std::string& name : beforeInputs_) {
    auto it = inputShapes.find(name);
    if (it == inputShapes.end()) return Status::invalid("missing input '" + name + "'");
    shapes[name] = it->second;
  }
  TESSERA_RETURN_IF_ERROR(before_->resize(shapes));
  joinReports();
  return Status::ok();
}

// Runs the split node on the CPU on `values` (host tensors by name); adds its outputs.
Status StagedGraph::runSplitNode(std::map<std::string, Tensor>& values) {
  const Node& node = *node_;
  Tensors in;
  std::vector<Shape> shapes;
  for (const std::string& name : node.inputs) {
    if (name.empty()) { in.push_back(nullptr); shapes.push_back({}); continue; }
    auto init = graph_->initializers.find(name);
    Tensor* t = nullptr;
    if (init != graph_->initializers.end()) t = const_cast<Tensor*>(&init->second);
    else if (values.count(name)) t = &values[name];
    if (!t) return Status::internal(node.label() + ": input '" + name + "' is not available");
    in.push_back(t);
    shapes.push_back(t->shape());
  }
  nodeOutputs_.assign(node.outputs.size(), Tensor());
  if (controlFlow_) {
    std::vector<const Tensor*> cin(in.begin(), in.end());
    const auto t0 = std::chrono::steady_clock::now();
    TESSERA_RETURN_IF_ERROR(controlFlow_->run(cin, &nodeOutputs_));
    nodeMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (nodeOutputs_.size() != node.outputs.size())
      return Status::invalid(node.label() + ": gives " + std::to_string(nodeOutputs_.size()) + " outputs, the graph names " +
                             std::to_string(node.outputs.size()));
    for (size_t i = 0; i < nodeOutputs_.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      nodeOutputs_[i].setName(node.outputs[i]);
      values[node.outputs[i]] = nodeOutputs_[i];
    }
    return Status::ok();
  }
  Tensors out;
  for (size_t i = 0; i < nodeOutputs_.size(); ++i) {
    nodeOutputs_[i] = Tensor(Shape{}, outputTypes_[i] == DataType::kUnknown ? DataType::kF32 : outputTypes_[i]);
    out.push_back(&nodeOutputs_[i]);
  }
  if (!exec_ || shapes != execShapes_) {
    const ExecutionCreator* create = ExecutionRegistry::instance().find(BackendType::kCPU, node.opType);
    exec_ = create ? (*create)(cpu_, node, in, out) : nullptr;
    if (!exec_) return Status::unsupported(node.label() + ": no CPU kernel for these inputs");
    execShapes_ = shapes;
    Status st = exec_->onResize(in, out);
    if (!st.isOk()) {
      exec_.reset();
      return st.withContext(node.label());
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  TESSERA_RETURN_IF_ERROR(exec_->onExecute(in, out).withContext(node.label()));
  nodeMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < nodeOutputs_.size(); ++i) {
    Tensor& o = nodeOutputs_[i];
    if (!o.data() && o.elementCount() > 0)
      return Status::internal(node.label() + ": its kernel left output " + std::to_string(i) + " unallocated");
    if (node.outputs[i].empty()) continue;
    o.setName(node.outputs[i]);
    values[node.outputs[i]] = o;
  }
  return Status::ok();
}

Status StagedGraph::run(const std::map<std::string, Tensor>& feeds, std::map<std::string, Tensor>* outputs) {
  std::map<std::string, Tensor> values;  // host tensors by name, crossing the stages
  for (const ValueInfo& in : graph_->inputs)
    if (!graph_->initializers.count(in.name)) values[in.name] = feeds.at(in.name);
  std::vector<Session::ProfileEntry> profile;
  if (before_) {
    std::map<std::string, Tensor> in, out;
    for (const std::string& name : beforeInputs_) in[name] = values[name];
    TESSERA_RETURN_IF_ERROR(before_->run(in, &out));
    for (auto& kv : out) values[kv.first] = kv.second;
    if (profiling_) profile = before_->profile();
  }
  TESSERA_RETURN_IF_ERROR(runSplitNode(values));
  if (profiling_) {
    if (controlFlow_)
      for (auto& e : controlFlow_->profile()) profile.push_back(e);
    profile.push_back({node_->label(), node_->opType, BackendType::kCPU, nodeMs_, false, WorkEstimate()});
  }
  std::map<std::string, Tensor> afterOut;
  if (after_) {
    std::map<std::string, Tensor> in;
    for (const std::string& name : afterInputs_) in[name] = values[name];
    afterOut.swap(*outputs);  // the caller's last results, for the last stage to refill (Session::run)
    TESSERA_RETURN_IF_ERROR(after_->run(in, &afterOut));
    if (profiling_)
      for (auto& e : after_->profile()) profile.push_back(e);
  }
  outputs->clear();
  for (const ValueInfo& o : graph_->outputs) {
    auto a = afterOut.find(o.name);
    if (a != afterOut.end()) { (*outputs)[o.name] = a->second; continue; }
    auto v = values.find(o.name);
    auto init = graph_->initializers.find(o.name);
    if (v != values.end()) (*outputs)[o.name] = hostCopy(v->second);  // never the caller's own input
    else if (init != graph_->initializers.end()) (*outputs)[o.name] = hostCopy(init->second);
    else return Status::invalid("graph output '" + o.name + "' is never produced");
    (*outputs)[o.name].setName(o.name);
  }
  profile_ = std::move(profile);
  joinReports();
  return Status::ok();
}

void StagedGraph::joinReports() {
  report_ = PlacementReport();
  auto join = [this](const PlacementReport& r) {
    report_.nodes.insert(report_.nodes.end(), r.nodes.begin(), r.nodes.end());
    report_.conversions.insert(report_.conversions.end(), r.conversions.begin(), r.conversions.end());
    report_.plannedPeakBytes += r.plannedPeakBytes;
    report_.intermediateBytes += r.intermediateBytes;
  };
  if (before_) join(before_->report());
  report_.nodes.push_back({node_->label(), node_->opType, BackendType::kCPU, false, {}});
  if (controlFlow_) report_.nodes.back().subgraphs = controlFlow_->placement();
  if (after_) join(after_->report());
}

Status StagedGraph::trace(std::vector<TracedOutput>* out) const {
  out->clear();
  if (before_) TESSERA_RETURN_IF_ERROR(before_->trace(out));
  for (size_t i = 0; i < nodeOutputs_.size(); ++i) {
    if (node_->outputs[i].empty()) continue;
    TracedOutput t;
    t.node = node_->label();
    t.nodeName = node_->name;
    t.opType = node_->opType;
    t.backend = "cpu";
    t.output = node_->outputs[i];
    t.inputs = node_->inputs;
    t.value = hostCopy(nodeOutputs_[i]);
    out->push_back(std::move(t));
  }
  if (after_) {
    std::vector<TracedOutput> later;
    TESSERA_RETURN_IF_ERROR(after_->trace(&later));
    for (auto& t : later) out->push_back(std::move(t));
  }
  return Status::ok();
}

Status StagedGraph::setProfiling(bool on) {
  profiling_ = on;
  if (controlFlow_) controlFlow_->setProfiling(on);
  if (before_) TESSERA_RETURN_IF_ERROR(before_->setProfiling(on));
  if (after_) TESSERA_RETURN_IF_ERROR(after_->setProfiling(on));
  return Status::ok();
}

Session::PlanCacheStats StagedGraph::planCache() const {
  Session::PlanCacheStats s;
  for (int k = 0; k < 3; ++k) {
    const Session* stage = k == 0 ? before_.get() : k == 1 ? after_.get() : nullptr;
    if (k < 2 && !stage) continue;
    if (k == 2 && !controlFlow_) continue;
    const Session::PlanCacheStats p = k == 2 ? controlFlow_->planCache() : stage->planCache();
    s.plansMade += p.plansMade;
    s.plansReused += p.plansReused;
    s.kept += p.kept;
    s.keptBytes += p.keptBytes;
    s.weightPackings += p.weightPackings;
    s.packedWeightBytes += p.packedWeightBytes;
  }
  return s;
}

}  // namespace tessera
