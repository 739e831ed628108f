// CPU Equal Less Greater LessOrEqual GreaterOrEqual with numpy broadcasting; bool output.
// f16/bf16 compare as f32 (exact); any comparison with NaN is false, as in numpy.
#include <map>
#include <string>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

enum class CompareKind { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual };

bool compareKindOf(const std::string& opType, CompareKind* kind) {
  static const std::map<std::string, CompareKind> kinds = {
      {"Equal", CompareKind::kEqual}, {"Less", CompareKind::kLess},
      {"Greater", CompareKind::kGreater}, {"LessOrEqual", CompareKind::kLessOrEqual},
      {"GreaterOrEqual", CompareKind::kGreaterOrEqual},
  };
  auto it = kinds.find(opType);
  if (it == kinds.end()) return false;
  *kind = it->second;
  return true;
}

template <CompareKind K, typename C>
inline bool compare(C a, C b) {
  if constexpr (K == CompareKind::kEqual) return a == b;
  else if constexpr (K == CompareKind::kLess) return a < b;
  else if constexpr (K == CompareKind::kGreater) return a > b;
  else if constexpr (K == CompareKind::kLessOrEqual) return a <= b;
  else return a >= b;
}

class CpuCompare final : public Execution {
 public:
  CpuCompare(Backend* b, CompareKind kind) : Execution(b), kind_(kind) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    if (!plan_.init({inputs[0]->shape(), inputs[1]->shape()}) ||
        plan_.outputShape() != outputs[0]->shape()) {
      return Status::internal("cannot broadcast " + inputs[0]->describe() + " with " +
                              inputs[1]->describe());
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      switch (kind_) {
        case CompareKind::kEqual: run<CompareKind::kEqual, T>(inputs, outputs); break;
        case CompareKind::kLess: run<CompareKind::kLess, T>(inputs, outputs); break;
        case CompareKind::kGreater: run<CompareKind::kGreater, T>(inputs, outputs); break;
        case CompareKind::kLessOrEqual: run<CompareKind::kLessOrEqual, T>(inputs, outputs); break;
        case CompareKind::kGreaterOrEqual:
          run<CompareKind::kGreaterOrEqual, T>(inputs, outputs);
          break;
      }
    });
    return Status::ok();
  }

 private:
  template <CompareKind K, typename T>
  void run(const Tensors& inputs, const Tensors& outputs) {
    using E = Element<T>;
    runBinaryPlan(cpuPool(*this), plan_, inputs[0]->data<T>(), inputs[1]->data<T>(),
                  outputs[0]->data<bool>(),
                  [](T a, T b) { return compare<K>(E::load(a), E::load(b)); });
  }

  CompareKind kind_;
  BroadcastPlan plan_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs,
                                  const Tensors&) {
  CompareKind kind;
  if (!compareKindOf(node.opType, &kind) || inputs.size() != 2) return nullptr;
  if (!inputs[0] || !inputs[1] || inputs[0]->dtype() != inputs[1]->dtype()) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t == DataType::kString || t == DataType::kUnknown) return nullptr;
  return std::make_unique<CpuCompare>(b, kind);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, Equal, create);
TESSERA_REGISTER_EXECUTION(kCPU, Less, create);
TESSERA_REGISTER_EXECUTION(kCPU, Greater, create);
TESSERA_REGISTER_EXECUTION(kCPU, LessOrEqual, create);
TESSERA_REGISTER_EXECUTION(kCPU, GreaterOrEqual, create);

}  // namespace tessera
