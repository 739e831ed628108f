// A graph with a node whose output shapes depend on values computed at run time (NonZero,
// Unique, NonMaxSuppression...: ShapeContext::shapesFromValues) cannot be planned whole. It
// runs in stages: the nodes before that node as one Session, the node itself on the CPU
// once its inputs are known, and the nodes after it as another Session, planned for the
// shapes the node produced (and its plans kept per shape like any Session's). The later
// Session splits again at the next such node. Values crossing a stage boundary pass through
// host memory; each stage's nodes are placed on the Session's backends as usual.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ControlFlow.hpp"
#include "tessera/Session.hpp"

namespace tessera {

class StagedGraph {
 public:
  // `split`: the index in graph->nodes of the node whose shapes come from values;
  // `dtypes`: the dtype of every value produced before it and of its outputs.
  static Status create(std::shared_ptr<const Graph> graph, size_t split,
                       const std::map<std::string, DataType>& dtypes, const SessionOptions& options,
                       Backend* cpu, std::unique_ptr<StagedGraph>* out);
  ~StagedGraph();

  Status resize(const std::map<std::string, Shape>& inputShapes);
  Status run(const std::map<std::string, Tensor>& feeds, std::map<std::string, Tensor>* outputs);

  // The stages' reports joined in node order; the split node is placed on the CPU.
  const PlacementReport& report() const { return report_; }
  Status trace(std::vector<TracedOutput>* out) const;
  Status setProfiling(bool on);
  std::vector<Session::ProfileEntry> profile() const { return profile_; }
  Session::PlanCacheStats planCache() const;

 private:
  StagedGraph() = default;
  Status runSplitNode(std::map<std::string, Tensor>& values);
  void joinReports();

  std::shared_ptr<const Graph> graph_;
  const Node* node_ = nullptr;  // the split node
  Backend* cpu_ = nullptr;
  SessionOptions options_;
  std::unique_ptr<Session> before_, after_;  // null when no node is on that side
  std::vector<std::string> beforeInputs_, afterInputs_;
  std::vector<DataType> outputTypes_;  // of the split node
  // The split node's execution, made again when its input shapes change.
  std::unique_ptr<Execution> exec_;
  std::unique_ptr<ControlFlowNode> controlFlow_;  // when the split node is If, Loop or Scan
  std::vector<Shape> execShapes_;
  std::vector<Tensor> nodeOutputs_;  // of the last run, for tracing
  bool profiling_ = false;
  double nodeMs_ = 0;
  PlacementReport report_;
  std::vector<Session::ProfileEntry> profile_;
};

}  // namespace tessera
