// Session: prepares a graph for running (shape inference, constant folding, backend
// placement with fallback, layout conversions, memory plan) and runs it.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Backend.hpp"
#include "tessera/Graph.hpp"
#include "tessera/Trace.hpp"

namespace tessera {

struct SessionOptions {
  // Backends in order of preference; ops a backend cannot run fall to the next one.
  // The CPU is always appended as the last resort.
  std::vector<BackendType> backends = {BackendType::kCPU};
  Precision precision = Precision::kFP32;
  int threads = 1;
  std::string device;  // passed to GPU backends: index or name substring
  // NC4HW4 tensors of GPU backends in images or buffers (Backend.hpp); kAuto: measured.
  Nc4Storage nc4Storage = Nc4Storage::kAuto;
  // Custom-kernel providers whose kernels take precedence over the built-in ones, in order
  // (see CustomOp.hpp).
  std::vector<std::string> providers;
  // Resource limits: planning refuses, with an error naming the tensor, a plan past them
  // instead of trying to allocate it (a model or an input shape from someone else must
  // not be able to exhaust the machine).
  int64_t maxTensorElements = int64_t(1) << 31;  // any single tensor
  uint64_t maxMemoryBytes = 0;  // all tensors of a plan together; 0: the machine's physical memory
  // Plans kept per input-shape set, the one in use included (least recently used dropped
  // first): a shape seen before runs its plan again, with nothing re-planned, instead of
  // being planned anew. 1 keeps only the current plan. Each kept plan holds its memory
  // (Session::planCache() says how much). Plans are kept when every backend of the Session
  // can set its plan aside (the CPU backend can; the GPU backends re-plan on every change).
  int planCacheSize = 16;
  // Keep a host copy of every node's outputs of each run, for Session::trace (debugging:
  // `tessera run --trace`, `tessera diff`). Nodes are placed and laid out as in an untraced
  // run; each output is also read back to the host and kept until the next run, so a traced
  // plan holds more memory and runs slower.
  bool trace = false;
};

// Where each node ran, what the Session inserted, and the memory plan.
struct PlacementReport {
  struct NodePlacement {
    std::string node;    // node label
    std::string opType;
    BackendType backend;
    bool folded = false;  // evaluated at resize time as a constant
    // If/Loop/Scan: where their sub-graphs' nodes ran, "body: Add 'a' -> vulkan".
    std::vector<std::string> subgraphs;
  };
  std::vector<NodePlacement> nodes;
  std::vector<std::string> conversions;  // "x: cpu NCHW -> cpu NC4HW4"
  std::vector<std::string> sharedStorage;  // "'b' takes the storage of 'a' (Reshape 'r')": no copy
  size_t plannedPeakBytes = 0;           // dynamic memory the plan needs at its peak
  size_t intermediateBytes = 0;          // the sum of all intermediate tensors
  std::string toString() const;
};

// Thread safety: a Session may be shared between threads. run, resize, setProfiling and
// profile take turns (one at a time; a second caller waits), so concurrent calls give the
// same results as calls made one after another. For throughput, give each thread its own
// Session: Sessions share nothing mutable but the GPU device contexts and the caches,
// which are synchronised. report() returns a reference into the Session: read it while no
// other thread runs or resizes that Session. A Graph is immutable once built and may be
// shared by any number of Sessions.
class Session {
 public:
  ~Session();
  // Creates the backends (a requested backend that cannot load makes this fail with the
  // reason, unless it is optional: see `requireBackends`).
  static Status create(std::shared_ptr<const Graph> graph, const SessionOptions& options,
                       std::unique_ptr<Session>* out);

  // Plans for these input shapes (all graph inputs). run() calls it when shapes change.
  Status resize(const std::map<std::string, Shape>& inputShapes);
  // Runs on host NCHW inputs; outputs are host NCHW tensors. A tensor already in *outputs
  // under an output's name, of that output's shape and type, whose memory no other Tensor
  // shares (the last run's result the caller kept only in the map), is refilled in place;
  // any other output gets fresh memory. So a loop over run() with one map does not allocate
  // its outputs again (in a graph run in stages around a data-dependent node, those of the
  // last stage), and a result the caller copied out of the map stays as it was. If run()
  // fails, the contents of *outputs are unspecified.
  Status run(const std::map<std::string, Tensor>& inputs, std::map<std::string, Tensor>* outputs);

  const PlacementReport& report() const;
  // Every node's outputs of the last run, in execution order (SessionOptions::trace must be
  // on; an error otherwise, or before the first run).
  Status trace(std::vector<TracedOutput>* out) const;
  const Graph& graph() const;
  // The backends actually created, in preference order (the CPU last).
  std::vector<BackendType> backends() const;
  std::string deviceName(BackendType t) const;

  // Per-step timing of the last run when profiling is on.
  struct ProfileEntry {
    std::string step;      // "Conv 'conv1'", "copy 'x': cpu NCHW -> cpu NC4HW4"
    std::string opType;    // "" for copies and segment submits
    BackendType backend;
    double ms = 0;         // device time when the backend measured it, else host time
    bool deviceTime = false;
    WorkEstimate work;     // for GFLOP/s and GB/s
    // The GPU dispatches (Vulkan vkCmdDispatch, OpenCL kernel enqueues) the step issued in
    // the run; -1 for CPU steps and segment submits.
    int64_t dispatches = -1;
  };
  // Switches per-step timing on or off for the runs that follow. On a backend whose plans
  // depend on it (Vulkan records device timestamps only while profiling), a switch drops the
  // Session's plans: the next run plans again.
  Status setProfiling(bool on);
  std::vector<ProfileEntry> profile() const;

  // The plans this Session made and kept (SessionOptions::planCacheSize).
  struct PlanCacheStats {
    int64_t plansMade = 0;   // planned from scratch
    int64_t plansReused = 0; // a kept plan used again for shapes seen before
    int kept = 0;            // plans held now, the one in use included
    uint64_t keptBytes = 0;  // their tensor memory: arenas (the CPU's shared by all plans) and
                             // static inputs/outputs
    // Constant weights packed for the kernels, once per Session and shared by every plan.
    uint64_t weightPackings = 0;
    uint64_t packedWeightBytes = 0;
  };
  PlanCacheStats planCache() const;

  struct Impl;

 private:
  Session();
  Status runUnguarded(const std::map<std::string, Tensor>& inputs, std::map<std::string, Tensor>* outputs);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera
