// Registration by convention: each op file registers itself with a static registrar, so
// adding an op never edits a central list. The library is a shared object (or an object
// library for tests), so no registrar can be dropped by the static linker.
// Thread safety: every registry may be read (loading, planning) while another thread adds
// to it (custom ops and kernels registered at run time); entries are never removed, so a
// pointer returned by find() stays valid.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "tessera/Backend.hpp"

namespace tessera {

// --- Shape inference ---------------------------------------------------------------------
// inputs[i] is nullptr for an omitted optional input. An input's data() is non-null when it
// is constant (its values known at resize time). The function sets each output's shape and
// dtype (layout is decided later).
struct ShapeContext {
  const Node& node;
  const std::vector<const Tensor*>& inputs;
  std::vector<Tensor>& outputs;

  const Tensor* input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  size_t inputCount() const { return inputs.size(); }
  // An output the node does not have (an omitted optional one) is written to a scratch
  // tensor and dropped.
  Tensor& output(size_t i) { return i < outputs.size() ? outputs[i] : unused; }
  // Error helper naming the node: "Conv 'c1': <message>".
  Status error(const std::string& message) const;
  Tensor unused;
  // Set by an op whose output shapes depend on its input values (NonZero, Unique,
  // NonMaxSuppression, ...): it sets each output's dtype and rank, not its dims. Its CPU
  // execution allocates its outputs when it runs, and a graph where such a node's inputs
  // are not constant runs in stages around it (docs/ARCHITECTURE.md, "Data-dependent shapes").
  bool shapesFromValues = false;
};
using ShapeFunction = std::function<Status(ShapeContext&)>;

// The op's opset range lets two versions of an op coexist ([sinceVersion, untilVersion]).
struct ShapeRegistration {
  std::string domain;
  std::string opType;
  int sinceVersion = 1;
  int untilVersion = 1 << 30;
  ShapeFunction fn;
};

class ShapeRegistry {
 public:
  static ShapeRegistry& instance();
  void add(ShapeRegistration r);
  // Adds unless the op type (any opset) is already known; false then. Atomic, so two
  // threads registering one custom op cannot both succeed.
  bool addIfNew(ShapeRegistration r);
  const ShapeFunction* find(const std::string& domain, const std::string& opType,
                            int opset) const;
  bool knows(const std::string& domain, const std::string& opType) const;
  std::vector<std::string> opTypes() const;

 private:
  mutable std::shared_mutex mutex_;
  std::multimap<std::string, ShapeRegistration> map_;
};

struct ShapeRegistrar {
  ShapeRegistrar(const char* opType, ShapeFunction fn, int since = 1, int until = 1 << 30) {
    ShapeRegistry::instance().add({"", opType, since, until, std::move(fn)});
  }
};

// --- Executions --------------------------------------------------------------------------
using ExecutionCreator = std::function<std::unique_ptr<Execution>(
    Backend*, const Node&, const Tensors& inputs, const Tensors& outputs)>;

class ExecutionRegistry {
 public:
  static ExecutionRegistry& instance();
  void add(BackendType backend, const std::string& opType, ExecutionCreator creator);
  const ExecutionCreator* find(BackendType backend, const std::string& opType) const;
  std::vector<std::string> opTypes(BackendType backend) const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::pair<BackendType, std::string>, ExecutionCreator> map_;
};

struct ExecutionRegistrar {
  ExecutionRegistrar(BackendType backend, const char* opType, ExecutionCreator creator) {
    ExecutionRegistry::instance().add(backend, opType, std::move(creator));
  }
};

// --- Backends ----------------------------------------------------------------------------
struct BackendFactory {
  BackendType type;
  // Creates the backend, or explains why it is unavailable (no driver, no device...).
  std::function<Status(const BackendOptions&, std::unique_ptr<Backend>*)> create;
  // Human-readable device list for `tessera devices` (or the reason there is none).
  std::function<std::string()> describeDevices;
};

class BackendRegistry {
 public:
  static BackendRegistry& instance();
  void add(BackendFactory f);
  const BackendFactory* find(BackendType t) const;
  std::vector<BackendType> types() const;  // registered in this build

 private:
  mutable std::shared_mutex mutex_;
  std::map<BackendType, BackendFactory> map_;
};

struct BackendRegistrar {
  explicit BackendRegistrar(BackendFactory f) { BackendRegistry::instance().add(std::move(f)); }
};

}  // namespace tessera

#define TESSERA_CONCAT_INNER(a, b) a##b
#define TESSERA_CONCAT(a, b) TESSERA_CONCAT_INNER(a, b)

// TESSERA_REGISTER_SHAPE(Relu, fn) — in shape/<Op>.cpp.
#define TESSERA_REGISTER_SHAPE(OPTYPE, ...)                                                 \
  static ::tessera::ShapeRegistrar TESSERA_CONCAT(tesseraShape_, __LINE__)(#OPTYPE,         \
                                                                           __VA_ARGS__)
// TESSERA_REGISTER_EXECUTION(kCPU, Relu, creator) — in backends/<b>/ops/<Op>.cpp.
#define TESSERA_REGISTER_EXECUTION(BACKEND, OPTYPE, CREATOR)                               \
  static ::tessera::ExecutionRegistrar TESSERA_CONCAT(tesseraExec_, __LINE__)(             \
      ::tessera::BackendType::BACKEND, #OPTYPE, CREATOR)
