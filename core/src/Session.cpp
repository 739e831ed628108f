// Session: shape inference + constant folding, placement with fallback, layout/backend
// conversions, memory planning; then run() is a loop over prepared steps.
#include "tessera/Session.hpp"

#include <algorithm>
#include <chrono>
#include <list>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "tessera/CustomOp.hpp"
#include "tessera/Registry.hpp"
#include "tessera/ValueNeeds.hpp"

#include "HostMemory.hpp"
#include "ParallelCopy.hpp"
#include "StagedGraph.hpp"

namespace tessera {

namespace {
// The caller's input into the Session's NCHW tensor: a plain copy over the CPU's threads when
// the layouts agree, else a conversion.
void copyInput(const Tensor& given, Tensor& dst, ThreadPool* threads) {
  if (given.layout() != dst.layout()) return convertLayout(given, dst);
  copyBytes(threads, dst.data(), given.data(), std::min(given.byteSize(), dst.byteSize()));
}

// One step of the prepared plan: an op's execution, or a copy/conversion between variants.
struct Step {
  const Node* node = nullptr;  // null for a copy
  Backend* backend = nullptr;
  std::unique_ptr<Execution> exec;
  Tensors inputs;
  Tensors outputs;
  std::string label;
  uint64_t recordedDispatches = 0;  // recorded by its onResize, replayed every run
};

// A maximal run of consecutive steps on one backend: [begin, end) of a step list.
struct Segment {
  Backend* backend;
  size_t begin, end;
  int index;  // global to the plan
};

// A graph value: its logical tensor (shape, dtype; host data when constant) and the
// physical tensors (backend, layout) the plan made of it.
struct Value {
  Tensor logical;
  bool constant = false;
  Tensor* primary = nullptr;        // where its producer wrote it (null for constants)
  std::vector<Tensor*> variants;    // primary first, then conversions
};

// The physical memory of this machine (the default plan-wide limit).
uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) : UINT64_MAX;
}

// Refuses a tensor past SessionOptions::maxTensorElements (an overflowing count included):
// `what` names it, e.g. "Conv 'c1': output 'y'".
Status checkTensorLimit(const Tensor& t, const SessionOptions& o, const std::string& what) {
  int64_t n = 0;
  if (!checkedElementCount(t.shape(), &n) || n > o.maxTensorElements)
    return Status::outOfMemory(what + " of shape " + shapeToString(t.shape()) + " has more elements than the limit of " +
                               std::to_string(o.maxTensorElements) + " (SessionOptions::maxTensorElements)");
  return Status::ok();
}

bool sameTensorPlace(const Tensor* t, Backend* b, Layout l, DataType dt) {
  return t->backend() == b && t->layout() == l && t->dtype() == dt;
}

// A host conversion between data types (Execution::selectDataTypes), on the CPU backend.
class DataTypeConversion final : public Execution {
 public:
  using Execution::Execution;
  Status onExecute(const Tensors& in, const Tensors& out) override {
    if (!convertDataType(*in[0], *out[0]))
      return Status::unsupported("cannot convert " + in[0]->describe() + " to " + dataTypeName(out[0]->dtype()));
    return Status::ok();
  }
};

// A plan set aside (SessionOptions::planCacheSize): everything Session::Impl holds for one
// plan, moved out whole, and each backend's per-plan state. Members are destroyed in
// reverse order: steps (executions reference tensors) before tensors, backend memory last.
struct SavedPlan {
  std::vector<std::unique_ptr<Backend::PlanState>> backendStates;  // one per backend, in order
  std::map<std::string, Shape> shapes;
  std::map<std::string, Tensor> specialized;
  std::map<std::string, Value> values;
  std::vector<std::unique_ptr<Tensor>> tensors;
  std::vector<Step> steps, constantSteps;
  std::vector<Segment> segments, constantSegments;
  std::map<std::string, Tensor*> inputTensors, outputTensors;
  PlacementReport report;
  uint64_t staticBytes = 0;
};

// Step slots pointed at the caller's side of a run (Session::run): an input read in place,
// an output written straight into the tensor handed back. restore() (or the destructor)
// puts every slot back as it was planned.
class RunSlots {
 public:
  explicit RunSlots(size_t capacity) { tensors_.reserve(capacity); }  // no reallocation: slots point in
  ~RunSlots() { restore(); }
  RunSlots(const RunSlots&) = delete;
  RunSlots& operator=(const RunSlots&) = delete;

  // Points each of `slots` at `t`, kept here for the run; returns it.
  const Tensor& redirect(Tensor t, const std::vector<Tensor**>& slots) {
    tensors_.push_back(std::move(t));
    for (Tensor** slot : slots) {
      saved_.push_back({slot, *slot});
      *slot = &tensors_.back();
    }
    return tensors_.back();
  }
  void restore() {
    for (auto& s : saved_) *s.first = s.second;
    saved_.clear();
  }

 private:
  std::vector<Tensor> tensors_;
  std::vector<std::pair<Tensor**, Tensor*>> saved_;
};

}  // namespace

struct Session::Impl {
  std::shared_ptr<const Graph> graph;
  SessionOptions options;
  std::vector<std::unique_ptr<Backend>> backends;  // preference order, CPU last
  Backend* cpu = nullptr;

  // The plan (rebuilt by resize).
  std::map<std::string, Shape> plannedShapes;
  bool planned = false;
  // Graph inputs planned as constants: their values define shapes downstream (a Reshape
  // target fed as an input). Their values are part of the plan; a change re-plans.
  std::map<std::string, Tensor> specialized;
  std::map<std::string, Value> values;
  std::vector<std::unique_ptr<Tensor>> tensors;  // owns every physical tensor
  std::vector<Step> steps;                       // run every time
  std::vector<Step> constantSteps;               // run once after planning (constant uploads)
  std::vector<Segment> segments;                 // of steps
  std::vector<Segment> constantSegments;         // of constantSteps
  std::map<std::string, Tensor*> inputTensors;   // graph input -> its CPU NCHW tensor
  std::map<std::string, Tensor*> outputTensors;  // graph output -> its CPU NCHW tensor
  PlacementReport report;
  bool profiling = false;
  std::vector<Session::ProfileEntry> profile;
  bool traceReady = false;  // the kept node outputs are those of a completed run
  // A Session's plan, arenas and inputs are one mutable state: calls from several threads
  // (run, resize, profiling) take turns instead of racing on it.
  std::mutex callMutex;

  Tensor* newTensor(const Tensor& like, Backend* b, Layout l, DataType dt = DataType::kUnknown) {
    auto t = std::make_unique<Tensor>(like.shape(), dt == DataType::kUnknown ? like.dtype() : dt, l);
    t->setName(like.name());
    t->setDevice(b, nullptr);
    tensors.push_back(std::move(t));
    return tensors.back().get();
  }

  Status plan(const std::map<std::string, Shape>& inputShapes,
              const std::map<std::string, Tensor>* feeds);
  Status planOnce(const std::map<std::string, Shape>& inputShapes);
  std::unique_ptr<Execution> createExecution(Backend* b, const Node& node, const Tensors& in, const Tensors& out);
  const Node* failedNode = nullptr;
  std::vector<std::string> neededValues;  // inputs of failedNode whose values its planning needs
  // failedNode's output shapes come from run-time values (ShapeContext::shapesFromValues):
  // the graph then runs in stages around it (StagedGraph.hpp), for good.
  bool failedOnValueShapes = false;
  std::vector<DataType> failedOutputTypes;
  std::unique_ptr<StagedGraph> staged;
  Status stageAroundFailedNode();
  Status planNode(const Node& node);
  // Specializes the graph inputs behind neededValues on their values in `feeds`.
  bool addSpecializations(const std::map<std::string, Tensor>& feeds);
  bool specializedValuesChanged(const std::map<std::string, Tensor>& feeds) const;
  // The step slots that may point at the caller's tensor for host tensor `t` in a run, where
  // only copy steps (GPU uploads and downloads, CPU layout and type conversions) and CPU
  // executions that read it in place (Execution::readsInputInPlace) touch it: as an input,
  // every slot that reads it; as an output, the one slot that writes it, with no step
  // reading it. Empty when another node's kernel touches it, or when it is a graph input read
  // back as an output too.
  std::vector<Tensor**> callerSlots(Tensor* t, bool asInput);
  // `kernelAllocates`: the outputs' shapes come from the values; the kernel allocates them.
  Status fold(const Node& node, std::vector<const Tensor*>& inputs, std::vector<Tensor>& outs,
              bool kernelAllocates = false);
  // `dt` kUnknown: the value's graph dtype.
  Status variantFor(Value& v, Backend* b, Layout l, Tensor** out, DataType dt = DataType::kUnknown);
  Status planMemory();
  uint64_t staticBytes = 0;  // of the plan being made: inputs, outputs, folded-step outputs
  uint64_t memoryLimit() const { return options.maxMemoryBytes ? options.maxMemoryBytes : physicalMemoryBytes(); }
  Status acquireStatic(Tensor* t);
  // Plan cache: kept plans, most recently used first (the plan in use is not in the list).
  std::list<std::unique_ptr<SavedPlan>> keptPlans;
  Session::PlanCacheStats cacheStats;
  bool canKeepPlans() const;
  void keepCurrentPlan();
  bool reuseKeptPlan(const std::map<std::string, Shape>& inputShapes, const std::map<std::string, Tensor>* feeds);
  bool specializedValuesDiffer(const std::map<std::string, Tensor>& specializedValues,
                               const std::map<std::string, Tensor>& feeds) const;
  std::vector<Segment> segmentsOf(std::vector<Step>& list, int firstIndex);
  Status runSteps(std::vector<Step>& list, const std::vector<Segment>& segs, bool timed);
};

Session::Session() : impl_(new Impl) {}
Session::~Session() = default;

Status Session::create(std::shared_ptr<const Graph> graph, const SessionOptions& options,
                       std::unique_ptr<Session>* out) {
  if (!graph) return Status::invalid("Session: no graph");
  std::unique_ptr<Session> s(new Session);
  Impl& m = *s->impl_;
  m.graph = std::move(graph);
  m.options = options;
  BackendOptions bo;
  bo.precision = options.precision;
  bo.threads = std::max(1, options.threads);
  bo.device = options.device;
  bo.nc4Storage = options.nc4Storage;
  std::vector<BackendType> order = options.backends;
  order.erase(std::remove(order.begin(), order.end(), BackendType::kCPU), order.end());
  order.push_back(BackendType::kCPU);  // the reference and last resort
  for (BackendType t : order) {
    const BackendFactory* f = BackendRegistry::instance().find(t);
    if (!f) return Status::unavailable(std::string(backendTypeName(t)) + " backend is not built into this library");
    std::unique_ptr<Backend> b;
    Status st = f->create(bo, &b);
    if (!st.isOk()) return st.withContext(std::string(backendTypeName(t)) + " unavailable");
    if (t == BackendType::kCPU) m.cpu = b.get();
    m.backends.push_back(std::move(b));
  }
  *out = std::move(s);
  return Status::ok();
}

const PlacementReport& Session::report() const {
  return impl_->staged ? impl_->staged->report() : impl_->report;
}
const Graph& Session::graph() const { return *impl_->graph; }

Status Session::trace(std::vector<TracedOutput>* out) const {
  std::lock_guard<std::mutex> lock(impl_->callMutex);
  const Impl& m = *impl_;
  if (!m.options.trace) return Status::invalid("tracing is off: create the Session with SessionOptions::trace");
  if (!m.traceReady) return Status::invalid("nothing traced yet: trace() reads the outputs of the last run");
  if (m.staged) return m.staged->trace(out);
  out->clear();
  const std::vector<Node>& nodes = m.graph->nodes;
  for (size_t i = 0; i < nodes.size() && i < m.report.nodes.size(); ++i) {
    const PlacementReport::NodePlacement& placed = m.report.nodes[i];
    for (const std::string& name : nodes[i].outputs) {
      auto v = m.values.find(name);
      if (name.empty() || v == m.values.end()) continue;
      TracedOutput t;
      t.node = placed.node;
      t.nodeName = nodes[i].name;
      t.opType = nodes[i].opType;
      t.backend = placed.folded ? "cpu" : backendTypeName(placed.backend);
      t.folded = placed.folded;
      t.output = name;
      t.inputs = nodes[i].inputs;
      t.value = Tensor::hostAllocate(v->second.logical.shape(), v->second.logical.dtype());
      t.value.setName(name);
      if (v->second.constant) {
        convertLayout(v->second.logical, t.value);
      } else {
        auto kept = m.outputTensors.find(name);
        if (kept == m.outputTensors.end()) return Status::internal("trace: no kept copy of '" + name + "'");
        std::memcpy(t.value.data(), kept->second->data(), t.value.byteSize());
      }
      out->push_back(std::move(t));
    }
  }
  return Status::ok();
}
Status Session::setProfiling(bool on) {
  std::lock_guard<std::mutex> lock(impl_->callMutex);
  const bool changed = on != impl_->profiling;
  impl_->profiling = on;
  if (impl_->staged) TESSERA_RETURN_IF_ERROR(impl_->staged->setProfiling(on));
  for (auto& b : impl_->backends) TESSERA_RETURN_IF_ERROR(b->onSetProfiling(on));
  for (auto& b : impl_->backends)
    if (changed && b->plansDependOnProfiling()) {  // plans made for the other state go; the next run plans again
      impl_->keptPlans.clear();
      impl_->planned = false;
    }
  return Status::ok();
}
std::vector<Session::ProfileEntry> Session::profile() const {
  std::lock_guard<std::mutex> lock(impl_->callMutex);
  return impl_->staged ? impl_->staged->profile() : impl_->profile;
}

std::vector<BackendType> Session::backends() const {
  std::vector<BackendType> out;
  for (auto& b : impl_->backends) out.push_back(b->type());
  return out;
}

std::string Session::deviceName(BackendType t) const {
  for (auto& b : impl_->backends) if (b->type() == t) return b->deviceName();
  return "";
}

// Out-of-memory anywhere below (a host tensor, a kernel's scratch) becomes a Status.
template <typename Fn>
static Status guarded(const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Status::outOfMemory(std::string("out of memory while ") + what);
  } catch (const std::length_error&) {
    return Status::outOfMemory(std::string("out of memory while ") + what + " (a size past the limits)");
  }
}

// ---- resize ---------------------------------------------------------------------------------

Status Session::resize(const std::map<std::string, Shape>& inputShapes) {
  std::lock_guard<std::mutex> lock(impl_->callMutex);
  impl_->traceReady = false;
  return guarded("planning the graph", [&] {
    if (!impl_->staged) TESSERA_RETURN_IF_ERROR(impl_->plan(inputShapes, nullptr));
    return impl_->staged ? impl_->staged->resize(inputShapes) : Status::ok();
  });
}

Session::PlanCacheStats Session::planCache() const {
  std::lock_guard<std::mutex> lock(impl_->callMutex);
  if (impl_->staged) return impl_->staged->planCache();
  PlanCacheStats s = impl_->cacheStats;
  s.kept = static_cast<int>(impl_->keptPlans.size()) + (impl_->planned ? 1 : 0);
  // Plans whose intermediate tensors live in one arena shared by all (the CPU's) count it
  // once; otherwise each plan counts its own peak.
  uint64_t shared = 0;
  for (const auto& b : impl_->backends) shared += b->sharedPlanBytes();
  auto planBytes = [shared](uint64_t peak, uint64_t fixed) { return shared ? fixed : peak + fixed; };
  s.keptBytes = shared + (impl_->planned ? planBytes(impl_->report.plannedPeakBytes, impl_->staticBytes) : 0);
  for (const auto& p : impl_->keptPlans) s.keptBytes += planBytes(p->report.plannedPeakBytes, p->staticBytes);
  for (const auto& b : impl_->backends) {
    s.weightPackings += b->sharedConstantPackings();
    s.packedWeightBytes += b->sharedConstantBytes();
  }
  return s;
}

// Plans (or reuses a kept plan for these shapes); when a node cannot be planned because a
// value it needs comes from graph inputs (known only at run time), those inputs are
// specialized on their values in `feeds` and planning starts again.
Status Session::Impl::plan(const std::map<std::string, Shape>& inputShapes,
                           const std::map<std::string, Tensor>* feeds) {
  keepCurrentPlan();
  const bool reused = reuseKeptPlan(inputShapes, feeds);
  // The plan in use counts against the bound: the rest keep planCacheSize - 1 places.
  while (!keptPlans.empty() && keptPlans.size() > static_cast<size_t>(std::max(options.planCacheSize - 1, 0)))
    keptPlans.pop_back();
  if (reused) return Status::ok();
  specialized.clear();
  ++cacheStats.plansMade;
  for (;;) {
    Status st = planOnce(inputShapes);
    if (!st.isOk() && failedOnValueShapes) return stageAroundFailedNode();
    if (st.isOk() || !feeds || !failedNode || !addSpecializations(*feeds)) return st;
  }
}

bool Session::Impl::canKeepPlans() const {
  if (options.planCacheSize <= 1) return false;
  for (const auto& b : backends)
    if (!b->canSavePlans()) return false;
  return true;
}

// Sets the plan in use aside, most recent first (plan() then trims the list to the bound).
void Session::Impl::keepCurrentPlan() {
  if (!planned || !canKeepPlans()) return;
  auto p = std::make_unique<SavedPlan>();
  for (auto& b : backends) p->backendStates.push_back(b->onSavePlan());
  p->shapes = std::move(plannedShapes);
  p->specialized = std::move(specialized);
  p->values = std::move(values);
  p->tensors = std::move(tensors);
  p->steps = std::move(steps);
  p->constantSteps = std::move(constantSteps);
  p->segments = std::move(segments);
  p->constantSegments = std::move(constantSegments);
  p->inputTensors = std::move(inputTensors);
  p->outputTensors = std::move(outputTensors);
  p->report = std::move(report);
  p->staticBytes = staticBytes;
  // Moved-from containers are valid but unspecified: make them empty.
  plannedShapes.clear(), specialized.clear(), values.clear(), tensors.clear(), steps.clear();
  constantSteps.clear(), segments.clear(), constantSegments.clear(), inputTensors.clear();
  outputTensors.clear();
  report = PlacementReport();
  staticBytes = 0;
  planned = false;
  keptPlans.push_front(std::move(p));
}

// Makes the kept plan for `inputShapes` the plan in use, if there is one whose specialized
// input values (if any) match `feeds` (several plans may share shapes and differ in those).
bool Session::Impl::reuseKeptPlan(const std::map<std::string, Shape>& inputShapes,
                                  const std::map<std::string, Tensor>* feeds) {
  for (auto it = keptPlans.begin(); it != keptPlans.end(); ++it) {
    SavedPlan& p = **it;
    if (p.shapes != inputShapes) continue;
    if (feeds && specializedValuesDiffer(p.specialized, *feeds)) continue;
    for (size_t i = 0; i < backends.size(); ++i) {
      backends[i]->onResizeBegin();  // drops nothing: the last plan was set aside
      backends[i]->onRestorePlan(std::move(p.backendStates[i]));
    }
    plannedShapes = std::move(p.shapes);
    specialized = std::move(p.specialized);
    values = std::move(p.values);
    tensors = std::move(p.tensors);
    steps = std::move(p.steps);
    constantSteps = std::move(p.constantSteps);
    segments = std::move(p.segments);
    constantSegments = std::move(p.constantSegments);
    inputTensors = std::move(p.inputTensors);
    outputTensors = std::move(p.outputTensors);
    report = std::move(p.report);
    staticBytes = p.staticBytes;
    keptPlans.erase(it);
    planned = true;
    ++cacheStats.plansReused;
    return true;
  }
  return false;
}

Status Session::Impl::planOnce(const std::map<std::string, Shape>& inputShapes) {
  Impl& m = *this;
  const Graph& g = *m.graph;
  failedNode = nullptr;
  failedOnValueShapes = false;
  m.planned = false;
  m.values.clear();
  m.steps.clear();
  m.constantSteps.clear();
  m.inputTensors.clear();
  m.outputTensors.clear();
  m.tensors.clear();
  m.report = PlacementReport();
  for (auto& b : m.backends) b->onResizeBegin();

  for (const auto& kv : g.initializers) {
    Value v;
    v.logical = kv.second;
    v.logical.setName(kv.first);
    v.logical.setConstant(true);
    v.constant = true;
    m.values[kv.first] = v;
  }
  for (const ValueInfo& in : g.inputs) {
    if (m.values.count(in.name)) continue;  // an initializer with a default value
    auto sp = m.specialized.find(in.name);
    if (sp != m.specialized.end()) {
      Value v;
      v.logical = sp->second;
      v.logical.setName(in.name);
      v.logical.setConstant(true);
      v.constant = true;
      m.values[in.name] = v;
      continue;
    }
    auto it = inputShapes.find(in.name);
    if (it == inputShapes.end()) return Status::invalid("missing input '" + in.name + "'");
    const Shape& s = it->second;
    if (in.hasShape) {
      if (s.size() != in.dims.size())
        return Status::invalid("input '" + in.name + "' must have rank " + std::to_string(in.dims.size()) +
                               " but has shape " + shapeToString(s));
      for (size_t d = 0; d < s.size(); ++d)
        if (in.dims[d] >= 0 && in.dims[d] != s[d])
          return Status::invalid("input '" + in.name + "' dimension " + std::to_string(d) + " must be " +
                                 std::to_string(in.dims[d]) + " but is " + std::to_string(s[d]) +
                                 " (shape " + shapeToString(s) + ")");
    }
    for (int64_t d : s)
      if (d < 0) return Status::invalid("input '" + in.name + "' has a negative dimension: " + shapeToString(s));
    TESSERA_RETURN_IF_ERROR(checkTensorLimit(Tensor(s, in.dtype), m.options, "input '" + in.name + "'"));
    Value v;
    v.logical = Tensor(s, in.dtype);
    v.logical.setName(in.name);
    Tensor* t = m.newTensor(v.logical, m.cpu, Layout::kNCHW);
    v.primary = t;
    v.variants.push_back(t);
    m.inputTensors[in.name] = t;
    m.values[in.name] = v;
  }
  for (const auto& kv : inputShapes)
    if (!m.values.count(kv.first))
      return Status::invalid("'" + kv.first + "' is not an input of this graph");

  for (const Node& node : g.nodes) {
    Status st = m.planNode(node);
    if (!st.isOk()) {
      failedNode = &node;
      return st;
    }
  }
  for (const ValueInfo& out : g.outputs) {
    auto v = m.values.find(out.name);
    if (v == m.values.end()) return Status::invalid("graph output '" + out.name + "' is never produced");
    if (v->second.constant) continue;
    TESSERA_RETURN_IF_ERROR(m.variantFor(v->second, m.cpu, Layout::kNCHW, &m.outputTensors[out.name]));
  }
  // Tracing: every node output also gets a kept host NCHW copy, read back after all nodes so
  // that no node's placement or layouts change.
  if (m.options.trace)
    for (const Node& node : g.nodes)
      for (const std::string& name : node.outputs) {
        auto v = m.values.find(name);
        if (name.empty() || v == m.values.end() || v->second.constant || m.outputTensors.count(name)) continue;
        TESSERA_RETURN_IF_ERROR(m.variantFor(v->second, m.cpu, Layout::kNCHW, &m.outputTensors[name]));
      }

  TESSERA_RETURN_IF_ERROR(m.planMemory());
  TESSERA_RETURN_IF_ERROR(m.runSteps(m.constantSteps, m.constantSegments, false));
  m.plannedShapes = inputShapes;
  m.planned = true;
  return Status::ok();
}

Status Session::Impl::fold(const Node& node, std::vector<const Tensor*>& inputs, std::vector<Tensor>& outs,
                           bool kernelAllocates) {
  Tensors in, out;
  for (const Tensor* t : inputs) in.push_back(const_cast<Tensor*>(t));
  for (Tensor& o : outs) {
    if (!kernelAllocates) o = Tensor::hostAllocate(o.shape(), o.dtype());
    out.push_back(&o);
  }
  std::unique_ptr<Execution> e = createExecution(cpu, node, in, out);
  if (!e) return Status::unsupported(node.label() + ": no CPU kernel to evaluate it on constant inputs");
  TESSERA_RETURN_IF_ERROR(e->onResize(in, out).withContext(node.label()));
  TESSERA_RETURN_IF_ERROR(e->onExecute(in, out).withContext(node.label()));
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].data() && outs[i].elementCount() > 0)
      return Status::internal(node.label() + ": its kernel left output " + std::to_string(i) + " unallocated");
    outs[i].setName(node.outputs[i]);
  }
  return Status::ok();
}

Status Session::Impl::planNode(const Node& node) {
  neededValues.clear();
  std::vector<const Tensor*> inputs;
  bool allConstant = true;
  for (const std::string& name : node.inputs) {
    if (name.empty()) { inputs.push_back(nullptr); continue; }
    auto it = values.find(name);
    if (it == values.end()) return Status::invalid(node.label() + ": input '" + name + "' is not available");
    inputs.push_back(&it->second.logical);
    allConstant = allConstant && it->second.constant;
  }
  if (node.outputs.empty()) return Status::invalid(node.label() + ": has no outputs");
  const ShapeFunction* fn = ShapeRegistry::instance().find(node.domain, node.opType, node.opset);
  if (!fn)
    return Status::unsupported(node.label() + ": op '" + node.opType + "'" +
                               (node.domain.empty() ? "" : " (domain '" + node.domain + "')") +
                               " opset " + std::to_string(node.opset) + " is not implemented");
  std::vector<Tensor> outs(node.outputs.size());
  ShapeContext ctx{node, inputs, outs, Tensor()};
  std::vector<const Tensor*> needed;
  Status shaped;
  {
    ValueNeedsRecorder recorder(&needed);
    shaped = (*fn)(ctx);
  }
  if (!shaped.isOk()) {
    for (const Tensor* t : needed)
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i] == t) neededValues.push_back(node.inputs[i]);
    return shaped;
  }
  bool folded = false;
  if (ctx.shapesFromValues) {
    if (allConstant && !node.hasSubgraphs()) {
      TESSERA_RETURN_IF_ERROR(fold(node, inputs, outs, true));
      folded = true;
    } else {
      failedOnValueShapes = true;
      failedOutputTypes.clear();
      for (const Tensor& o : outs) failedOutputTypes.push_back(o.dtype());
      return Status::unsupported(node.label() + ": its output shapes depend on values known only at run time");
    }
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    outs[i].setName(node.outputs[i]);
    for (int64_t d : outs[i].shape())
      if (d < 0) return Status::invalid(node.label() + ": output '" + node.outputs[i] +
                                        "' has a negative dimension " + shapeToString(outs[i].shape()));
    TESSERA_RETURN_IF_ERROR(checkTensorLimit(outs[i], options, node.label() + ": output '" + node.outputs[i] + "'"));
  }

  // A shape function may compute the values too (Shape of a known shape): a constant.
  bool valuesKnown = !outs.empty();
  for (const Tensor& o : outs) valuesKnown = valuesKnown && o.data() != nullptr;
  valuesKnown = valuesKnown || folded;
  if (!valuesKnown && allConstant) {
    TESSERA_RETURN_IF_ERROR(fold(node, inputs, outs));
    valuesKnown = true;
  }
  if (valuesKnown) {
    for (size_t i = 0; i < outs.size(); ++i) {
      Value v;
      v.logical = outs[i];
      v.logical.setConstant(true);
      v.constant = true;
      if (!node.outputs[i].empty()) values[node.outputs[i]] = v;
    }
    report.nodes.push_back({node.label(), node.opType, BackendType::kCPU, true, {}});
    return Status::ok();
  }

  // Placement: the first backend (in preference order) that accepts the node.
  Tensors descIn, descOut;
  for (const Tensor* t : inputs) descIn.push_back(const_cast<Tensor*>(t));
  for (Tensor& o : outs) descOut.push_back(&o);
  Step step;
  step.node = &node;
  step.label = node.label();
  for (auto& b : backends) {
    step.exec = createExecution(b.get(), node, descIn, descOut);
    if (step.exec) { step.backend = b.get(); break; }
  }
  if (!step.exec) {
    std::string types;
    for (const Tensor* t : inputs) types += std::string(types.empty() ? "" : ", ") + (t ? dataTypeName(t->dtype()) : "none");
    return Status::unsupported(node.label() + ": no backend has a kernel for these inputs (" + types + ")");
  }

  // Layout negotiation, then conversions for inputs in the wrong place or layout.
  std::vector<Layout> available, wantIn, wantOut(outs.size(), Layout::kNCHW);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Value* v = node.inputs[i].empty() ? nullptr : &values[node.inputs[i]];
    available.push_back(v && v->primary ? v->primary->layout() : Layout::kNCHW);
  }
  wantIn = available;
  step.exec->selectLayouts(available, descIn, &wantIn, &wantOut);
  wantIn.resize(node.inputs.size(), Layout::kNCHW);
  wantOut.resize(outs.size(), Layout::kNCHW);
  // Data type negotiation: conversions where the execution reads or writes another dtype.
  std::vector<DataType> graphTypes, wantType, outType;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    graphTypes.push_back(node.inputs[i].empty() ? DataType::kUnknown : values[node.inputs[i]].logical.dtype());
  for (const Tensor& o : outs) outType.push_back(o.dtype());
  wantType = graphTypes;
  step.exec->selectDataTypes(graphTypes, descIn, &wantType, &outType);
  wantType.resize(node.inputs.size(), DataType::kUnknown);
  outType.resize(outs.size(), DataType::kUnknown);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) { step.inputs.push_back(nullptr); continue; }
    Value& v = values[node.inputs[i]];
    if (v.constant && step.exec->readsConstantOnHost(i) && wantType[i] == v.logical.dtype()) {
      step.inputs.push_back(&v.logical);  // the execution uploads it itself
      continue;
    }
    Tensor* t = nullptr;
    TESSERA_RETURN_IF_ERROR(variantFor(v, step.backend, wantIn[i], &t, wantType[i]));
    step.inputs.push_back(t);
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    Tensor* t = newTensor(outs[i], step.backend, wantOut[i], outType[i]);
    step.outputs.push_back(t);
    Value v;
    v.logical = outs[i];
    v.primary = t;
    v.variants.push_back(t);
    // Omitted optional outputs still get storage (kernels write them) under a private name.
    const std::string name = node.outputs[i].empty() ? "\x01" + node.name + ":" + std::to_string(i) : node.outputs[i];
    t->setName(name);
    values[name] = v;
  }
  report.nodes.push_back({node.label(), node.opType, step.backend->type(), false, {}});
  steps.push_back(std::move(step));
  return Status::ok();
}

// A selected provider's custom kernel, else the backend's own, else any custom kernel for an
// op the backend does not have (see CustomOp.hpp).
std::unique_ptr<Execution> Session::Impl::createExecution(Backend* b, const Node& node, const Tensors& in,
                                                          const Tensors& out) {
  const DataType t = !in.empty() && in[0] ? in[0]->dtype() : DataType::kUnknown;
  const bool builtin = ExecutionRegistry::instance().find(b->type(), node.opType) != nullptr &&
                       (node.domain.empty() || node.domain == "ai.onnx");
  if (const ExecutionCreator* c = findCustomKernel(b->type(), options.providers, node, t, true))
    if (auto e = (*c)(b, node, in, out)) return e;
  if (builtin)
    if (auto e = b->onCreate(node, in, out)) return e;
  if (const ExecutionCreator* c = findCustomKernel(b->type(), {}, node, t, false)) return (*c)(b, node, in, out);
  return nullptr;
}

// The tensor of value `v` on backend `b` in layout `l`, adding a copy step if none yet.
// The device side of a transfer creates the copy (so it can stage and record it); two
// devices meet through a CPU NCHW variant.
Status Session::Impl::variantFor(Value& v, Backend* b, Layout l, Tensor** out, DataType dt) {
  if (dt == DataType::kUnknown) dt = v.logical.dtype();
  if (v.constant && b == cpu && l == Layout::kNCHW && dt == v.logical.dtype()) {  // served directly
    *out = &v.logical;
    return Status::ok();
  }
  for (Tensor* t : v.variants)
    if (sameTensorPlace(t, b, l, dt)) { *out = t; return Status::ok(); }
  Tensor* src = v.constant ? &v.logical : v.primary;
  Backend* from = src->backend() && !v.constant ? src->backend() : cpu;
  if (src->dtype() != dt) {
    // Another dtype: convert on the host, from the value's CPU NCHW form in its own dtype.
    Tensor* host = nullptr;
    TESSERA_RETURN_IF_ERROR(variantFor(v, cpu, Layout::kNCHW, &host, src->dtype()));
    Tensor* converted = newTensor(v.logical, cpu, Layout::kNCHW, dt);
    converted->setConstant(v.constant);
    Step step;
    step.backend = cpu;
    step.exec = std::make_unique<DataTypeConversion>(cpu);
    step.inputs = {host};
    step.outputs = {converted};
    step.label = "convert '" + v.logical.name() + "': " + dataTypeName(src->dtype()) + " -> " + dataTypeName(dt);
    report.conversions.push_back(step.label);
    (v.constant ? constantSteps : steps).push_back(std::move(step));
    v.variants.push_back(converted);
    if (b == cpu && l == Layout::kNCHW) {
      *out = converted;
      return Status::ok();
    }
    src = converted;
    from = cpu;
  }
  if (from != cpu && b != cpu && from != b) {
    TESSERA_RETURN_IF_ERROR(variantFor(v, cpu, Layout::kNCHW, &src, dt));
    from = cpu;
  }
  Backend* creator = b != cpu ? b : from;
  Tensor* dst = newTensor(v.logical, b, l, dt);
  dst->setConstant(v.constant);
  Step copy;
  copy.backend = creator;
  copy.exec = creator->onCreateCopy(src, dst);
  if (!copy.exec) return Status::unsupported(std::string(backendTypeName(creator->type())) +
                                             " cannot copy '" + v.logical.name() + "'");
  copy.inputs = {src};
  copy.outputs = {dst};
  copy.label = "copy '" + v.logical.name() + "': " + (v.constant ? "host" : backendTypeName(from->type())) +
               " " + layoutName(src->layout()) + " -> " + backendTypeName(b->type()) + " " + layoutName(l);
  report.conversions.push_back(copy.label);
  (v.constant ? constantSteps : steps).push_back(std::move(copy));
  v.variants.push_back(dst);
  *out = dst;
  return Status::ok();
}

// Splits a step list into segments: maximal runs of consecutive steps on one backend.
std::vector<Segment> Session::Impl::segmentsOf(std::vector<Step>& list, int firstIndex) {
  std::vector<Segment> out;
  for (size_t i = 0; i < list.size(); ++i) {
    if (out.empty() || out.back().backend != list[i].backend)
      out.push_back({list[i].backend, i, i, firstIndex + static_cast<int>(out.size())});
    out.back().end = i + 1;
  }
  return out;
}

// Walks the steps in order: acquire outputs, resize the execution, release inputs at their
// last use. Graph inputs/outputs and constants are STATIC; the rest DYNAMIC.
Status Session::Impl::planMemory() {
  std::set<const Tensor*> keep;  // never released within a run
  for (auto& kv : outputTensors) keep.insert(kv.second);
  for (auto& kv : inputTensors) keep.insert(kv.second);
  std::map<const Tensor*, size_t> lastUse;
  for (size_t i = 0; i < steps.size(); ++i)
    for (Tensor* t : steps[i].inputs) if (t) lastUse[t] = i;
  // Storage sharing (Backend::onShareBuffer): the owner of each tensor that took another's
  // storage, and how many tensors not yet past their last use hold each owner's storage.
  std::map<const Tensor*, Tensor*> ownerOf;
  std::map<const Tensor*, int> holders;
  std::set<const Tensor*> dynamic;  // acquired DYNAMIC here: only such storage is shared
  auto ownerOfTensor = [&](Tensor* t) {
    auto o = ownerOf.find(t);
    return o == ownerOf.end() ? t : o->second;
  };
  auto releaseDynamic = [&](Tensor* t) -> Status {
    Tensor* owner = ownerOfTensor(t);
    auto h = holders.find(owner);
    if (h != holders.end() && --h->second > 0) return Status::ok();
    return owner->backend()->onReleaseBuffer(owner, StorageType::kDynamic);
  };
  // Output 0 of step `s` takes input 0's storage where the execution only passes the bytes on
  // and both are intermediate tensors of one backend, layout and dtype (never STATIC storage:
  // its release as DYNAMIC would hand it to another tensor).
  auto share = [&](const Step& s, Tensor* t) {
    Tensor* from = s.inputs.empty() ? nullptr : s.inputs[0];
    if (!from || s.outputs[0] != t || !s.exec->outputIsInputBytes() || keep.count(from) || from->isConstant() ||
        from->backend() != t->backend() || from->layout() != t->layout() || from->dtype() != t->dtype() ||
        from->byteSize() != t->byteSize())
      return false;
    Tensor* owner = ownerOfTensor(from);
    if (!dynamic.count(owner) || !t->backend()->onShareBuffer(t, owner)) return false;
    ownerOf[t] = owner;
    holders.emplace(owner, 1).first->second += 1;
    report.sharedStorage.push_back("'" + t->name() + "' takes the storage of '" + owner->name() + "' (" + s.label + ")");
    return true;
  };

  staticBytes = 0;
  for (auto& kv : inputTensors) TESSERA_RETURN_IF_ERROR(acquireStatic(kv.second));
  constantSegments = segmentsOf(constantSteps, 0);
  for (const Segment& seg : constantSegments) {
    seg.backend->onSegmentBegin(seg.index);
    for (size_t i = seg.begin; i < seg.end; ++i) {
      Step& s = constantSteps[i];
      TESSERA_RETURN_IF_ERROR(acquireStatic(s.outputs[0]));
      TESSERA_RETURN_IF_ERROR(s.exec->onResize(s.inputs, s.outputs).withContext(s.label));
    }
    TESSERA_RETURN_IF_ERROR(seg.backend->onSegmentEnd(seg.index));
  }

  segments = segmentsOf(steps, static_cast<int>(constantSegments.size()));
  for (const Segment& seg : segments) {
    seg.backend->onSegmentBegin(seg.index);
    for (size_t i = seg.begin; i < seg.end; ++i) {
      Step& s = steps[i];
      for (Tensor* t : s.outputs) {
        if (keep.count(t)) {
          TESSERA_RETURN_IF_ERROR(acquireStatic(t));
          continue;
        }
        if (share(s, t)) continue;
        TESSERA_RETURN_IF_ERROR(t->backend()->onAcquireBuffer(t, StorageType::kDynamic));
        dynamic.insert(t);
        report.intermediateBytes += t->byteSize();
      }
      const uint64_t recorded = seg.backend->recordedDispatches();
      TESSERA_RETURN_IF_ERROR(s.exec->onResize(s.inputs, s.outputs).withContext(s.label));
      s.recordedDispatches = seg.backend->recordedDispatches() - recorded;
      for (Tensor* t : s.outputs)  // outputs nobody reads (omitted optional ones) free at once
        if (!keep.count(t) && !lastUse.count(t)) TESSERA_RETURN_IF_ERROR(releaseDynamic(t));
      for (size_t k = 0; k < s.inputs.size(); ++k) {
        Tensor* t = s.inputs[k];
        if (!t || keep.count(t) || t->isConstant() || lastUse[t] != i) continue;
        // An input given twice (Mul(a, a)) is released once.
        if (std::find(s.inputs.begin(), s.inputs.begin() + static_cast<std::ptrdiff_t>(k), t) != s.inputs.begin() + static_cast<std::ptrdiff_t>(k)) continue;
        TESSERA_RETURN_IF_ERROR(releaseDynamic(t));
      }
    }
    TESSERA_RETURN_IF_ERROR(seg.backend->onSegmentEnd(seg.index));
  }
  // Before the backends allocate their arenas: the whole plan within the memory limit.
  uint64_t total = staticBytes;
  for (auto& b : backends) total += b->plannedPeakBytes();
  if (total > memoryLimit())
    return Status::outOfMemory("the plan needs " + std::to_string(total) + " bytes (" + std::to_string(staticBytes) +
                               " for inputs, outputs and constants, the rest for intermediate tensors), more than the "
                               "limit of " + std::to_string(memoryLimit()) + " (SessionOptions::maxMemoryBytes)");
  for (auto& b : backends) {
    TESSERA_RETURN_IF_ERROR(b->onResizeEnd());
    report.plannedPeakBytes += b->plannedPeakBytes();
  }
  return Status::ok();
}

// A tensor that lives for the whole plan, counted against the memory limit before it is
// allocated.
Status Session::Impl::acquireStatic(Tensor* t) {
  staticBytes += t->byteSize();
  if (staticBytes > memoryLimit())
    return Status::outOfMemory("tensor " + t->describe() + " (" + std::to_string(t->byteSize()) +
                               " bytes) takes the plan past the memory limit of " + std::to_string(memoryLimit()) +
                               " bytes (SessionOptions::maxMemoryBytes)");
  return t->backend()->onAcquireBuffer(t, StorageType::kStatic);
}

// From now on the graph runs in stages around failedNode (StagedGraph.hpp). The values
// planned so far give the dtypes of everything before it.
Status Session::Impl::stageAroundFailedNode() {
  const size_t split = static_cast<size_t>(failedNode - graph->nodes.data());
  std::map<std::string, DataType> dtypes;
  for (const auto& kv : values) dtypes[kv.first] = kv.second.logical.dtype();
  for (size_t i = 0; i < failedNode->outputs.size() && i < failedOutputTypes.size(); ++i)
    dtypes[failedNode->outputs[i]] = failedOutputTypes[i];
  planned = false;
  values.clear(), steps.clear(), constantSteps.clear(), tensors.clear();
  inputTensors.clear(), outputTensors.clear();
  report = PlacementReport();
  TESSERA_RETURN_IF_ERROR(StagedGraph::create(graph, split, dtypes, options, cpu, &staged));
  return staged->setProfiling(profiling);
}

// The inputs of the node that failed whose values its planning needs (it named them through
// noteValueNeeded, tessera/ValueNeeds.hpp): the graph inputs they are computed from get
// specialized. Data inputs are never specialized. False when there is nothing new to
// specialize (the failure is then a real error).
bool Session::Impl::addSpecializations(const std::map<std::string, Tensor>& feeds) {
  std::map<std::string, const Node*> producer;
  for (const Node& n : graph->nodes) for (const auto& o : n.outputs) producer[o] = &n;
  bool added = false;
  // Only the inputs whose values the node's planning said it needs (ValueNeeds.hpp), traced
  // back to the graph inputs they are computed from.
  std::vector<std::string> work;
  for (const std::string& in : neededValues) {
    auto v = values.find(in);
    if (in.empty() || v == values.end() || v->second.constant) continue;
    work.push_back(in);
  }
  std::set<std::string> seen;
  while (!work.empty()) {
    const std::string name = work.back();
    work.pop_back();
    if (!seen.insert(name).second) continue;
    auto p = producer.find(name);
    if (p != producer.end()) {
      for (const auto& in : p->second->inputs) if (!in.empty()) work.push_back(in);
      continue;
    }
    auto f = feeds.find(name);
    if (f == feeds.end() || specialized.count(name) || graph->initializers.count(name)) continue;
    Tensor copy = Tensor::hostAllocate(f->second.shape(), f->second.dtype());
    convertLayout(f->second, copy);
    specialized[name] = copy;
    added = true;
  }
  return added;
}

std::vector<Tensor**> Session::Impl::callerSlots(Tensor* t, bool asInput) {
  std::vector<Tensor**> slots;
  for (auto& kv : outputTensors)
    if (asInput && kv.second == t) return {};
  for (auto& kv : inputTensors)
    if (!asInput && kv.second == t) return {};
  for (Step& s : steps) {
    const bool copy = !s.node;
    for (size_t i = 0; i < s.inputs.size(); ++i)
      if (s.inputs[i] == t) {
        const bool inPlace = !copy && s.backend == cpu && s.exec->readsInputInPlace(i);
        if (!asInput || !(copy || inPlace)) return {};
        slots.push_back(&s.inputs[i]);
      }
    for (Tensor*& out : s.outputs)
      if (out == t) {
        if (asInput || !copy || !slots.empty()) return {};
        slots.push_back(&out);
      }
  }
  return slots;
}

bool Session::Impl::specializedValuesChanged(const std::map<std::string, Tensor>& feeds) const {
  return specializedValuesDiffer(specialized, feeds);
}

bool Session::Impl::specializedValuesDiffer(const std::map<std::string, Tensor>& specializedValues,
                                            const std::map<std::string, Tensor>& feeds) const {
  for (const auto& kv : specializedValues) {
    const Tensor& now = feeds.at(kv.first);
    if (now.shape() != kv.second.shape() || now.dtype() != kv.second.dtype() ||
        std::memcmp(now.data(), kv.second.data(), kv.second.byteSize()) != 0)
      return true;
  }
  return false;
}

// ---- run ------------------------------------------------------------------------------------

Status Session::Impl::runSteps(std::vector<Step>& list, const std::vector<Segment>& segs, bool timed) {
  if (timed) profile.clear();
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  for (const Segment& seg : segs) {
    const char* where = backendTypeName(seg.backend->type());
    const size_t first = profile.size();
    seg.backend->onExecuteBegin(seg.index);
    double hostMs = 0;  // the steps' own host time (uploads' memcpy, enqueues)
    for (size_t i = seg.begin; i < seg.end; ++i) {
      Step& s = list[i];
      const uint64_t enqueued = timed ? seg.backend->enqueuedDispatches() : 0;
      const auto t0 = Clock::now();
      Status st = s.exec->onExecute(s.inputs, s.outputs);
      if (!st.isOk()) return st.withContext(s.label);
      if (timed) {
        hostMs += ms(t0, Clock::now());
        profile.push_back({s.label, s.node ? s.node->opType : "", seg.backend->type(), ms(t0, Clock::now()),
                           false, s.exec->work(s.inputs, s.outputs)});
        if (seg.backend != cpu)
          profile.back().dispatches =
              static_cast<int64_t>(s.recordedDispatches + seg.backend->enqueuedDispatches() - enqueued);
      }
    }
    const auto t0 = Clock::now();
    TESSERA_RETURN_IF_ERROR(seg.backend->onExecuteEnd(seg.index).withContext(std::string(where) + " segment"));
    if (!timed || seg.backend == cpu) continue;
    // Device times are known once the segment has completed.
    const double waitMs = ms(t0, Clock::now());
    for (size_t i = seg.begin, k = first; i < seg.end; ++i, ++k)
      profile[k].deviceTime = list[i].exec->deviceTimeMs(&profile[k].ms);
    // Steps timed on the device hide their host part: it gets a line of its own.
    profile.push_back({"segment " + std::to_string(seg.index) + " host work of its steps", "", seg.backend->type(),
                       hostMs, false, WorkEstimate()});
    profile.push_back({"segment " + std::to_string(seg.index) + " submit and wait", "", seg.backend->type(), waitMs,
                       false, WorkEstimate()});
  }
  return Status::ok();
}

Status Session::run(const std::map<std::string, Tensor>& inputs, std::map<std::string, Tensor>* outputs) {
  std::lock_guard<std::mutex> lock(impl_->callMutex);
  return guarded("running the graph", [&] { return runUnguarded(inputs, outputs); });
}

Status Session::runUnguarded(const std::map<std::string, Tensor>& inputs, std::map<std::string, Tensor>* outputs) {
  Impl& m = *impl_;
  const Graph& g = *m.graph;
  std::map<std::string, Shape> shapes;
  for (const ValueInfo& in : g.inputs) {
    if (g.initializers.count(in.name)) continue;
    auto it = inputs.find(in.name);
    if (it == inputs.end()) return Status::invalid("missing input '" + in.name + "'");
    const Tensor& t = it->second;
    if (t.dtype() != in.dtype)
      return Status::invalid("input '" + in.name + "' must be " + dataTypeName(in.dtype) + " but is " +
                             dataTypeName(t.dtype()));
    if (!t.data()) return Status::invalid("input '" + in.name + "' has no host data");
    if (t.layout() != Layout::kNCHW) return Status::invalid("input '" + in.name + "' must be in NCHW layout");
    shapes[in.name] = t.shape();
  }
  for (const auto& kv : inputs)
    if (!shapes.count(kv.first) && !g.initializers.count(kv.first))
      return Status::invalid("'" + kv.first + "' is not an input of this graph");
  m.traceReady = false;
  if (!m.staged && (!m.planned || shapes != m.plannedShapes || m.specializedValuesChanged(inputs)))
    TESSERA_RETURN_IF_ERROR(m.plan(shapes, &inputs));
  if (m.staged) {
    TESSERA_RETURN_IF_ERROR(m.staged->run(inputs, outputs));
    m.traceReady = m.options.trace;
    return Status::ok();
  }

  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  // Graph inputs that only copy steps (a GPU upload, the CPU's NCHW -> NC4HW4) and CPU
  // executions that say so (Execution::readsInputInPlace) read are read in place, graph
  // outputs that only a copy step writes (a GPU download, the CPU's NC4HW4 -> NCHW) are
  // written straight into the tensor handed back (RunSlots): no host copy through the
  // Session for them. 0.45 ms of 4 for PP-OCRv4 det at 640x640 on an H200 went to
  // copying its input.
  RunSlots slots(m.inputTensors.size() + g.outputs.size());
  for (auto& kv : m.inputTensors) {
    const Tensor& given = inputs.at(kv.first);
    const std::vector<Tensor**> readers = m.options.trace ? std::vector<Tensor**>() : m.callerSlots(kv.second, true);
    if (readers.empty()) copyInput(given, *kv.second, m.cpu->hostThreads());
    else slots.redirect(Tensor::hostWrap(given.data(), given.shape(), given.dtype(), Layout::kNCHW), readers);
  }
  const auto t1 = Clock::now();
  // The caller's tensor for output `o`: the one from the last run where nothing else holds
  // its memory (Session::run's contract), else fresh memory. Fresh memory page-faults on
  // first touch: a 2.4 MB output took the kernel 0.1 ms to clear on every run.
  auto outputTensor = [&](const ValueInfo& o, const Value& v) {
    auto it = outputs->find(o.name);
    if (it != outputs->end()) {
      const Tensor& t = it->second;
      const std::shared_ptr<void>& owner = t.hostOwner();
      if (owner && owner.use_count() == 1 && t.data() == owner.get() && t.shape() == v.logical.shape() &&
          t.dtype() == v.logical.dtype() && t.layout() == Layout::kNCHW)
        return t;
    }
    return hostAllocateUninitialised(v.logical.shape(), v.logical.dtype());
  };
  std::map<std::string, const Tensor*> written;  // graph output -> the caller's tensor a download fills
  for (const ValueInfo& o : g.outputs) {
    const Value& v = m.values[o.name];
    if (v.constant || m.options.trace || written.count(o.name)) continue;
    const std::vector<Tensor**> writer = m.callerSlots(m.outputTensors.at(o.name), false);
    if (!writer.empty())
      written[o.name] = &slots.redirect(outputTensor(o, v), writer);
  }
  const auto t2 = Clock::now();
  const Status ran = m.runSteps(m.steps, m.segments, m.profiling);
  slots.restore();
  TESSERA_RETURN_IF_ERROR(ran);
  m.traceReady = m.options.trace;

  const auto t3 = Clock::now();
  std::map<std::string, Tensor> results;
  for (const ValueInfo& o : g.outputs) {
    const Value& v = m.values[o.name];
    auto w = written.find(o.name);
    Tensor host = w != written.end() ? *w->second : outputTensor(o, v);
    host.setName(o.name);
    if (v.constant) convertLayout(v.logical, host);
    else if (w == written.end())
      copyBytes(m.cpu->hostThreads(), host.data(), m.outputTensors.at(o.name)->data(), host.byteSize());
    results[o.name] = host;
  }
  *outputs = std::move(results);
  if (m.profiling) {  // the host copies around the steps, so the profile accounts for the whole run
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    m.profile.insert(m.profile.begin(), {"inputs: caller -> session (host copy)", "", BackendType::kCPU, ms(t0, t1), false, WorkEstimate()});
    m.profile.push_back({"outputs: session -> caller (host copy)", "", BackendType::kCPU,
                         ms(t1, t2) + ms(t3, Clock::now()), false, WorkEstimate()});
  }
  return Status::ok();
}

std::string PlacementReport::toString() const {
  std::ostringstream os;
  for (const auto& n : nodes) {
    os << n.node << " -> " << (n.folded ? "folded (constant)" : backendTypeName(n.backend)) << "\n";
    for (const auto& line : n.subgraphs) os << "  " << line << "\n";
  }
  for (const auto& c : conversions) os << "inserted " << c << "\n";
  for (const auto& c : sharedStorage) os << c << "\n";
  os << "memory: planned peak " << plannedPeakBytes << " bytes for " << intermediateBytes
     << " bytes of intermediate tensors\n";
  return os.str();
}

}  // namespace tessera
