// CPU PRelu: y = x < 0 ? slope * x : x, slope broadcast to x. The usual per-channel slope
// ([C,1,1] against [N,C,H,W]) becomes spans of H*W with one slope value each.
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuPRelu final : public Execution {
 public:
  using Execution::Execution;

  Status onResize(const Tensors& inputs, const Tensors& outputs) override {
    if (!plan_.init({inputs[0]->shape(), inputs[1]->shape()}) ||
        plan_.outputShape() != outputs[0]->shape()) {
      return Status::internal("PRelu: slope " + inputs[1]->describe() +
                              " does not broadcast to " + inputs[0]->describe());
    }
    return Status::ok();
  }

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using E = Element<T>;
      using C = typename E::Compute;
      if constexpr (!std::is_same_v<T, bool>) {
        runBinaryPlan(cpuPool(*this), plan_, inputs[0]->data<T>(), inputs[1]->data<T>(),
                      outputs[0]->data<T>(), [](T xv, T sv) {
                        const C x = E::load(xv);
                        return E::store(x < C(0) ? wrapMul(E::load(sv), x) : x);
                      });
      }
    });
    return Status::ok();
  }

 private:
  BroadcastPlan plan_;
};

std::unique_ptr<Execution> create(Backend* b, const Node&, const Tensors& inputs,
                                  const Tensors&) {
  if (inputs.size() != 2 || !inputs[0] || !inputs[1]) return nullptr;
  const DataType t = inputs[0]->dtype();
  if (t != inputs[1]->dtype() || t == DataType::kBool || t == DataType::kString ||
      dataTypeSize(t) == 0) {
    return nullptr;
  }
  return std::make_unique<CpuPRelu>(b);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, PRelu, create);

}  // namespace tessera
