// If, Loop and Scan. Each sub-graph runs as a Session of its own, made on first use with the
// enclosing Session's options, so its nodes are placed on the same backends and its plans
// are kept per input shape (a Loop whose carried values keep their shapes plans its body
// once). The values the sub-graph reads from enclosing graphs are the node's trailing inputs
// (Graph.hpp, subgraphOuterInputs) and become inputs of the body's Session.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Session.hpp"

namespace tessera {

class ControlFlowNode {
 public:
  ControlFlowNode(const Node& node, const SessionOptions& options);
  ~ControlFlowNode();

  // `inputs`: the node's inputs (null for an omitted one), host NCHW; `outputs` are made.
  Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs);
  // Where the sub-graphs' nodes ran, one line per node, "body: Add 'a' -> vulkan".
  std::vector<std::string> placement() const;
  void setProfiling(bool on) { profiling_ = on; }
  std::vector<Session::ProfileEntry> profile() const { return profile_; }
  // The sub-graphs' Sessions' plans, summed.
  Session::PlanCacheStats planCache() const;

 private:
  struct Body;
  // The Session of sub-graph `attr`, bound to the formal inputs' and outer values' dtypes.
  Status body(const std::string& attr, const std::vector<const Tensor*>& formal, Body** out);
  Status runBody(Body& b, const std::vector<const Tensor*>& formal, std::vector<Tensor>* outs);
  Status runIf(const std::vector<const Tensor*>& in, std::vector<Tensor>* out);
  Status runLoop(const std::vector<const Tensor*>& in, std::vector<Tensor>* out);
  Status runScan(const std::vector<const Tensor*>& in, std::vector<Tensor>* out);

  const Node& node_;
  SessionOptions options_;
  std::vector<std::string> outerNames_;
  std::vector<const Tensor*> outer_;  // this run's outer-scope values
  std::map<std::string, std::unique_ptr<Body>> bodies_;
  bool profiling_ = false;
  std::vector<Session::ProfileEntry> profile_;
};

}  // namespace tessera
