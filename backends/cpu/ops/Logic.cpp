// CPU And Or Xor (numpy broadcasting) and Not on bool tensors.
#include <string>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

enum class LogicKind { kAnd, kOr, kXor };

class CpuLogic final : public Execution {
 public:
  CpuLogic(Backend* b, LogicKind kind) : Execution(b), kind_(kind) {}

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    if (!plan_.init({inputs[0]->shape(), inputs[1]->shape()}) || plan_.outputShape() != outputs[0]->shape())
      return Status::internal("cannot broadcast " + inputs[0]->describe() + " with " + inputs[1]->describe());
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const bool* a = inputs[0]->data<bool>();
    const bool* b = inputs[1]->data<bool>();
    bool* y = outputs[0]->data<bool>();
    switch (kind_) {
      case LogicKind::kAnd: runBinaryPlan(cpuPool(*this), plan_, a, b, y, [](bool p, bool q) { return p && q; }); break;
      case LogicKind::kOr: runBinaryPlan(cpuPool(*this), plan_, a, b, y, [](bool p, bool q) { return p || q; }); break;
      case LogicKind::kXor: runBinaryPlan(cpuPool(*this), plan_, a, b, y, [](bool p, bool q) { return p != q; }); break;
    }
    return Status::ok();
  }

 private:
  LogicKind kind_;
  BroadcastPlan plan_;
};

class CpuNot final : public Execution {
 public:
  explicit CpuNot(Backend* b) : Execution(b) {}

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    const bool* x = inputs[0]->data<bool>();
    bool* y = outputs[0]->data<bool>();
    cpuPool(*this).parallelFor(inputs[0]->elementCount(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = !x[i];
    }, kElementwiseGrain);
    return Status::ok();
  }
};

bool allBool(const Tensors& inputs, size_t n) {
  if (inputs.size() != n) return false;
  for (const Tensor* t : inputs)
    if (!t || t->dtype() != DataType::kBool) return false;
  return true;
}

template <LogicKind K>
std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  if (!allBool(inputs, 2)) return nullptr;
  return std::make_unique<CpuLogic>(b, K);
}

std::unique_ptr<Execution> createNot(Backend* b, const Node&, const Tensors& inputs, const Tensors&) {
  if (!allBool(inputs, 1)) return nullptr;
  return std::make_unique<CpuNot>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, And, create<LogicKind::kAnd>);
TESSERA_REGISTER_EXECUTION(kCPU, Or, create<LogicKind::kOr>);
TESSERA_REGISTER_EXECUTION(kCPU, Xor, create<LogicKind::kXor>);
TESSERA_REGISTER_EXECUTION(kCPU, Not, createNot);

}  // namespace tessera
