// CPU IsNaN and IsInf (detect_positive, detect_negative: both 1 by default) on f16, bf16,
// f32 and f64 inputs; bool output.
#include <cmath>
#include <type_traits>

#include "backends/cpu/CpuBackend.hpp"
#include "backends/cpu/ops/Elementwise.hpp"
#include "tessera/Registry.hpp"

namespace tessera {
namespace {

class CpuFloatTest final : public Execution {
 public:
  CpuFloatTest(Backend* b, bool nan, bool positive, bool negative)
      : Execution(b), nan_(nan), positive_(positive), negative_(negative) {}

  Status onExecute(const Tensors& inputs, const Tensors& outputs) override {
    dispatchElement(inputs[0]->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using E = Element<T>;
      if constexpr (std::is_floating_point_v<typename E::Compute>) {
        const T* x = inputs[0]->data<T>();
        bool* y = outputs[0]->data<bool>();
        cpuPool(*this).parallelFor(inputs[0]->elementCount(), [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const auto v = E::load(x[i]);
            y[i] = nan_ ? std::isnan(v) : std::isinf(v) && (v > 0 ? positive_ : negative_);
          }
        }, kElementwiseGrain);
      }
    });
    return Status::ok();
  }

 private:
  bool nan_, positive_, negative_;
};

std::unique_ptr<Execution> create(Backend* b, const Node& node, const Tensors& inputs, const Tensors&) {
  if (inputs.empty() || !inputs[0] || !isFloat(inputs[0]->dtype())) return nullptr;
  const bool nan = node.opType == "IsNaN";
  return std::make_unique<CpuFloatTest>(b, nan, node.attrs.getInt("detect_positive", 1) != 0,
                                        node.attrs.getInt("detect_negative", 1) != 0);
}

}  // namespace

TESSERA_REGISTER_EXECUTION(kCPU, IsNaN, create);
TESSERA_REGISTER_EXECUTION(kCPU, IsInf, create);

}  // namespace tessera
